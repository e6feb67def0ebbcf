package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/ext"
	"github.com/relay-agent/relay/internal/settings"
)

// extensionPaths lists the extensions of this run, in load order: the
// agent dir's extensions/, the project's .relay/extensions/ (trusted
// projects), the extensions setting, then -e. --no-extensions keeps only
// -e. A path listed twice loads once; "-path" and "!glob" entries of the
// setting drop discovered ones.
func extensionPaths(a *Args, st *settings.Settings, agentDir, cwd string, trusted bool) []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if !a.NoExtensions {
		for _, p := range discoverExtensions(config.Agent{Dir: agentDir}.Extensions()) {
			add(p)
		}
		if trusted {
			for _, p := range discoverExtensions(filepath.Join(cwd, ".relay", "extensions")) {
				add(p)
			}
		}
		var drop []settings.Resource
		for _, r := range st.Extensions {
			if _, builtin := r.Builtin(); builtin {
				continue
			}
			switch r.Op() {
			case '-', '!':
				drop = append(drop, r)
			default:
				add(r.Path())
			}
		}
		out = slices.DeleteFunc(out, func(p string) bool {
			for _, r := range drop {
				if r.Op() == '-' && r.Path() == p {
					return true
				}
				if ok, _ := filepath.Match(r.Path(), p); r.Op() == '!' && ok {
					return true
				}
			}
			return false
		})
	}
	for _, e := range a.Extensions {
		add(config.ResolvePath(cwd, e))
	}
	return out
}

// discoverExtensions lists dir's *.ts / *.js files and subdirectories (a
// directory is one extension: its index or package.json entry).
func discoverExtensions(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := filepath.Join(dir, name)
		switch {
		case e.IsDir():
			out = append(out, p)
		case strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".d.ts"), strings.HasSuffix(name, ".js"),
			strings.HasSuffix(name, ".mjs"), strings.HasSuffix(name, ".mts"):
			out = append(out, p)
		}
	}
	return out
}

// startExtensions starts loading the run's extensions in the background
// (nil when there are none: no Node process).
func (l *launch) startExtensions(ctx context.Context) error {
	paths := extensionPaths(l.a, l.st, l.agentDir, l.cwd, l.trusted)
	if len(paths) == 0 {
		return nil
	}
	var timeout time.Duration
	if v, err := strconv.Atoi(l.env.Get("RELAY_EXTENSION_TIMEOUT_MS")); err == nil && v > 0 {
		timeout = time.Duration(v) * time.Millisecond
	}
	mode := map[mode]string{modeTUI: "tui", modeRPC: "rpc", modeJSON: "json", modePrint: "print"}[l.mode]
	l.ext = ext.Start(ctx, ext.Options{Paths: paths, AgentDir: l.agentDir, Cwd: l.cwd, Mode: mode,
		HasUI: l.mode == modeTUI || l.mode == modeRPC, Flags: l.a.ExtFlags, NpmCommand: l.st.NpmCommand,
		Environ: environ(l.env), Hooks: l.seam, Commands: l.cmds, Log: extensionLog(l.agentDir), HandlerTimeout: timeout, Settings: l.st})
	return nil
}

// extensionLog is where extensions' console output goes: a file in the
// agent dir, never the terminal or a protocol stream.
func extensionLog(agentDir string) io.Writer {
	f, err := os.OpenFile(filepath.Join(agentDir, "extensions.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err == nil && st.Size() > 4<<20 {
		_ = f.Truncate(0)
	}
	return f
}

// waitExtensions waits for the extensions to load and reports each that
// failed, by path; the others and relay go on.
func (l *launch) waitExtensions(ctx context.Context) {
	for _, err := range l.ext.Wait(ctx) {
		fmt.Fprintf(l.stderr, "Warning: %v\n", err)
	}
}
