package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/fsx"
	"github.com/relay-agent/relay/internal/jsonx"
	"github.com/relay-agent/relay/internal/llm"
)

// SessionInfo describes one session file for pickers and `relay sessions
// list`.
type SessionInfo struct {
	Path              string    `json:"path"`
	ID                string    `json:"id"`
	Cwd               string    `json:"cwd"`
	Name              string    `json:"name,omitempty"`
	ParentSessionPath string    `json:"parentSessionPath,omitempty"`
	Created           time.Time `json:"created"`
	// Modified is the time of the last user or assistant message (else the
	// header time, else the file's mtime).
	Modified     time.Time `json:"modified"`
	MessageCount int       `json:"messageCount"`
	FirstMessage string    `json:"firstMessage"`
}

// List returns the sessions of cwd in dir, newest first. When dir is not
// cwd's default directory (a custom --session-dir), sessions are filtered
// by the cwd in their header.
func List(cwd, dir string) ([]SessionInfo, error) {
	files, err := sessionFiles(dir, false)
	if err != nil {
		return nil, err
	}
	infos := scanInfos(dir, files)
	if filepath.Base(dir) != encodeCwd(absPath(cwd)) {
		want := absPath(cwd)
		kept := infos[:0]
		for _, in := range infos {
			if in.Cwd != "" && absPath(in.Cwd) == want {
				kept = append(kept, in)
			}
		}
		infos = kept
	}
	return infos, nil
}

// ListAll returns the sessions of every project under dir (the sessions
// root: files in it and in its subdirectories), newest first.
func ListAll(dir string) ([]SessionInfo, error) {
	files, err := sessionFiles(dir, true)
	if err != nil {
		return nil, err
	}
	return scanInfos(dir, files), nil
}

func sessionFiles(dir string, nested bool) ([]string, error) {
	des, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	var files []string
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		if de.IsDir() {
			if nested {
				sub, err := sessionFiles(p, false)
				if err == nil {
					files = append(files, sub...)
				}
			}
			continue
		}
		if strings.HasSuffix(de.Name(), ".jsonl") {
			files = append(files, p)
		}
	}
	return files, nil
}

// readHeader reads only the first record of path.
func readHeader(path string) (*Header, error) {
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 0, 4096)
	chunk := make([]byte, 4096)
	for len(buf) < 1<<20 {
		n, err := f.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[:i]
			break
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	b, _ := trimRecord(buf)
	ms, err := jsonx.Members(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s line 1: %v", ErrNotSession, path, err)
	}
	h, ok := parseHeader(b, ms)
	if !ok {
		return nil, fmt.Errorf("%w: %s line 1: no session header", ErrNotSession, path)
	}
	return h, nil
}

// classify returns the entry type and message role of a line from its
// prefix, as relay and the original write records (type first, message
// last after the envelope); other layouts fall back to a structural scan.
func classify(line []byte) (typ, role string) {
	if bytes.HasPrefix(line, typePrefix) {
		rest := line[len(typePrefix):]
		if q := bytes.IndexByte(rest, '"'); q >= 0 && bytes.IndexByte(rest[:q], '\\') < 0 {
			typ = string(rest[:q])
			if typ != TypeMessage {
				return typ, ""
			}
			head := rest[q:min(len(rest), q+512)]
			if i := bytes.Index(head, []byte(`"message":{"role":"`)); i >= 0 {
				r := head[i+len(`"message":{"role":"`):]
				if k := bytes.IndexByte(r, '"'); k >= 0 {
					return typ, string(r[:k])
				}
			}
		}
	}
	b, _ := trimRecord(line)
	if len(b) == 0 {
		return "", ""
	}
	e, err := parseEntry(b, 0)
	if err != nil {
		return "", ""
	}
	return e.Type, e.role
}

func messageText(line []byte) string {
	b, _ := trimRecord(line)
	e, err := parseEntry(b, 0)
	if err != nil {
		return ""
	}
	msg, err := e.Message()
	if err != nil {
		return ""
	}
	var text string
	switch v := msg.(type) {
	case *llm.UserMessage:
		text = joinText(v.Content)
	case *llm.AssistantMessage:
		text = joinText(llm.Content{Blocks: v.Content})
	}
	return text
}

func joinText(c llm.Content) string {
	if c.IsString {
		return c.Text
	}
	var parts []string
	for _, b := range c.Blocks {
		if t, ok := b.(*llm.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// activityTime is the message timestamp (Unix ms) of a message line, else
// its entry timestamp.
func activityTime(line []byte) time.Time {
	b, _ := trimRecord(line)
	ms, err := jsonx.Members(b)
	if err != nil {
		return time.Time{}
	}
	if mv, ok := jsonx.Find(b, ms, "message"); ok {
		if mms, err := jsonx.Members(mv); err == nil {
			if tv, ok := jsonx.Find(mv, mms, "timestamp"); ok {
				var n float64
				if json.Unmarshal(tv, &n) == nil && n > 0 {
					return time.UnixMilli(int64(n))
				}
			}
		}
	}
	ts, _ := jsonx.FindString(b, ms, "timestamp")
	return parseISO(ts)
}

// FindByID returns the session file whose id is id, or the only one whose
// id starts with id, searching dirs in order (each dir and its
// subdirectories). File names carry the id, so no file is read.
func FindByID(id string, dirs ...string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("find session: empty id")
	}
	var prefixed []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		files, _ := sessionFiles(d, true)
		for _, f := range files {
			if seen[f] {
				continue
			}
			seen[f] = true
			fid := idFromName(filepath.Base(f))
			if fid == id {
				return f, nil
			}
			if strings.HasPrefix(fid, id) {
				prefixed = append(prefixed, f)
			}
		}
	}
	switch len(prefixed) {
	case 0:
		return "", fmt.Errorf("no session with id %q", id)
	case 1:
		return prefixed[0], nil
	default:
		return "", fmt.Errorf("session id prefix %q is ambiguous: %s", id, strings.Join(prefixed, ", "))
	}
}

// idFromName extracts the id of <timestamp>_<id>.jsonl.
func idFromName(name string) string {
	name = strings.TrimSuffix(name, ".jsonl")
	if i := strings.IndexByte(name, '_'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func timeFromNs(ns int64) time.Time { return time.Unix(0, ns) }
