package sessionshare

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/relay-agent/relay/internal/app"
	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/export"
	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/session"
	"github.com/relay-agent/relay/internal/settings"
	"github.com/relay-agent/relay/internal/tui/theme"
)

// resolvePath makes a user-supplied path absolute: ~ is the home
// directory, relative paths start at the runtime's cwd.
func (r *Feature) resolvePath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if e, err := config.ExpandHome(p); err == nil {
		p = e
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.o.Cwd, p)
	}
	return filepath.Clean(p)
}

// ExportSession implements /export [path]: the whole session tree as a
// self-contained HTML page, or the raw records when path ends in .jsonl.
// Without a path it writes relay-session-<id>.html in the cwd. It returns
// the absolute path written.
func (r *Feature) exportSession(path string) (string, error) {
	out := r.resolvePath(path)
	if out == "" {
		out = filepath.Join(r.o.Cwd, "relay-session-"+r.rt.Session().SessionID()+".html")
	}
	if dir := filepath.Dir(out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("export: %w", err)
		}
	}
	p, err := export.SessionWith(r.rt.Session(), out, r.exportOptions())
	if err != nil {
		return "", fmt.Errorf("export session: %w", err)
	}
	return p, nil
}

// exportOptions colours /export and /share pages with the `theme` setting
// (global settings and the agent's theme files), as the TUI draws; without
// an agent directory the page uses the built-in pair.
func (r *Feature) exportOptions() export.Options {
	if r.o.AgentDir == "" {
		return export.Options{}
	}
	st, _ := settings.Load(settings.LoadOptions{AgentDir: r.o.AgentDir})
	if st == nil || st.Theme == "" {
		return export.Options{}
	}
	themes, _ := theme.LoadDir(filepath.Join(r.o.AgentDir, "themes"))
	return export.ThemeOptions(st.Theme, themes)
}

// ImportResult describes a session brought in by /import.
type ImportResult struct {
	// Path is the session file now open (inside the session directory).
	Path    string
	Entries int
	// Warnings are problems the tolerant reader found; the session still
	// opened.
	Warnings []string
	// Cwd is the imported session's recorded working directory.
	Cwd string
}

// Text is the status line for the TUI.
func (i ImportResult) Text() string {
	s := fmt.Sprintf("Imported session (%d entries): %s", i.Entries, i.Path)
	if len(i.Warnings) > 0 {
		s += fmt.Sprintf("\n%d problem(s) found while reading it; the readable entries were kept:\n  %s", len(i.Warnings), strings.Join(i.Warnings, "\n  "))
	}
	return s
}

// ImportSession implements /import <path>: it validates a JSONL session
// file with the session reader, copies it into the session directory of
// this cwd (keeping its file name) and switches to it. A different file of
// the same name already there is never overwritten.
func (r *Feature) importSession(path string) (ImportResult, error) {
	src := r.resolvePath(path)
	if src == "" {
		return ImportResult{}, errors.New("usage: /import <path to a session .jsonl file>")
	}
	if st := r.rt.State(); st.IsStreaming || st.IsCompacting {
		return ImportResult{}, app.ErrBusy
	}
	st, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return ImportResult{}, fmt.Errorf("import: file not found: %s", src)
	}
	if err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	if st.IsDir() {
		return ImportResult{}, fmt.Errorf("import: %s is a directory, not a session file", src)
	}
	rep, err := session.Check(src)
	if err != nil {
		return ImportResult{}, fmt.Errorf("import %s: %w", src, err)
	}
	res := ImportResult{Entries: rep.Entries}
	if rep.Header != nil {
		res.Cwd = rep.Header.Cwd
	}
	for _, p := range rep.Problems {
		res.Warnings = append(res.Warnings, fmt.Sprintf("line %d: %s: %s", p.Line, p.Severity, p.Msg))
	}

	dir := r.sessionDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ImportResult{}, fmt.Errorf("import: %w", err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if !samePath(src, dst) {
		data, err := fsx.ReadFile(src, session.MaxFileSize)
		if err != nil {
			return ImportResult{}, fmt.Errorf("import: %w", err)
		}
		if old, err := fsx.ReadFile(dst, session.MaxFileSize); err == nil {
			if !bytes.Equal(old, data) {
				return ImportResult{}, fmt.Errorf("import: %s already exists in the session directory with different content; rename the file to import it", filepath.Base(src))
			}
		} else if err := writeFileAtomic(dst, data, 0o600); err != nil {
			return ImportResult{}, fmt.Errorf("import: %w", err)
		}
	}
	if cur := r.rt.Session(); cur.IsPersisted() && samePath(cur.SessionFile(), dst) {
		res.Path = cur.SessionFile()
		return res, nil // already the open session
	}
	if err := r.rt.SwitchSession(dst); err != nil {
		return ImportResult{}, fmt.Errorf("import: open %s: %w", dst, err)
	}
	res.Path = r.rt.Session().SessionFile()
	return res, nil
}

// sessionDir is where this runtime's sessions live: the open session's
// directory, or the default one of the cwd for an in-memory session.
func (r *Feature) sessionDir() string {
	s := r.rt.Session()
	if s.IsPersisted() && s.SessionDir() != "" {
		return s.SessionDir()
	}
	return session.DefaultDir(r.o.AgentDir, r.o.Cwd)
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeFileAtomic writes data through a temporary file and a rename, so a
// crash never leaves a half-written file at path.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
