package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// DefaultDir is the session directory of cwd under agentDir:
// <agentDir>/sessions/--<cwd without its leading separator, / \ : as ->--.
func DefaultDir(agentDir, cwd string) string {
	return filepath.Join(agentDir, "sessions", encodeCwd(absPath(cwd)))
}

func encodeCwd(cwd string) string {
	s := cwd
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) {
		s = s[1:]
	}
	s = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s)
	return "--" + s + "--"
}

// ResolveDir picks the session directory: the --session-dir flag, then
// RELAY_CODING_AGENT_SESSION_DIR (env), then the sessionDir setting, else
// DefaultDir. Relative paths resolve from cwd; a leading ~ is the home dir.
func ResolveDir(flag, env, setting, agentDir, cwd string) string {
	for _, d := range []string{flag, env, setting} {
		if d == "" {
			continue
		}
		d = expandHome(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(absPath(cwd), d)
		}
		return filepath.Clean(d)
	}
	return DefaultDir(agentDir, cwd)
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// ValidateSessionID checks a caller-supplied session id as the original
// does.
func ValidateSessionID(id string) error {
	if !sessionIDPattern.MatchString(id) {
		return fmt.Errorf("session id %q must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character", id)
	}
	return nil
}

// NewSessionID returns a UUIDv7 (time-ordered).
func NewSessionID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// FileName is <ISO timestamp with : and . as ->_<id>.jsonl.
func FileName(t time.Time, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(isoTime(t)) + "_" + id + ".jsonl"
}

// LockedError reports a session file held by another relay process.
type LockedError struct{ Path string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("session %s is open in another relay process; close that relay first, or fork the session instead", e.Path)
}

var errLocked = errors.New("locked")

// appender writes records to one locked session file, one Write per record
// on an O_APPEND descriptor, so a record is never interleaved or split by
// relay itself and an append costs the same at any file size.
type appender struct {
	f      *os.File
	needLF bool // the file does not end in LF (torn tail): start a fresh line
}

// openAppender opens (creating when create is set) and locks path.
func openAppender(path string, create bool) (*appender, error) {
	flag := os.O_RDWR | os.O_APPEND
	if create {
		flag |= os.O_CREATE
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("create session dir: %w", err)
		}
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, &LockedError{Path: path}
		}
		return nil, fmt.Errorf("lock session %s: %w", path, err)
	}
	return &appender{f: f}, nil
}

// WriteError is a failed write of a session file (a full disk, a directory
// that cannot be created, a file that cannot be opened). The entries being
// written stay in the session in memory; the next append retries them.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	err := e.Err
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == e.Path {
		err = pe.Err // the path is already in the message
	}
	return fmt.Sprintf("write session %s: %v", e.Path, err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// fileWrite is the one write of every append; tests replace it to inject
// failures.
var fileWrite = (*os.File).Write

// write appends whole records: buf holds one or more LF-terminated lines.
func (a *appender) write(buf []byte) error {
	if a.needLF {
		buf = append([]byte{'\n'}, buf...)
	}
	n, err := fileWrite(a.f, buf)
	if err != nil {
		if n > 0 && !a.rollback(n) {
			// Part of the record stays on disk: the next record must
			// start on a fresh line so the torn one stays isolated.
			a.needLF = true
		}
		return err
	}
	a.needLF = false
	return nil
}

// rollback cuts the n bytes a failed write left at the end of the file, so
// the retry of the same records does not follow a torn copy of them. We hold
// the file's lock, so nobody else appended since.
func (a *appender) rollback(n int) bool {
	st, err := a.f.Stat()
	if err != nil || st.Size() < int64(n) {
		return false
	}
	return a.f.Truncate(st.Size()-int64(n)) == nil
}

func (a *appender) close() error {
	if a == nil || a.f == nil {
		return nil
	}
	err := a.f.Close() // closing releases the flock
	a.f = nil
	return err
}

// Delete removes a session file, through the `trash` command when it is on
// PATH (so it can be recovered), else permanently.
func Delete(path string) error {
	if st, err := os.Stat(path); err != nil {
		return fmt.Errorf("delete session %s: %w", path, err)
	} else if st.IsDir() {
		return fmt.Errorf("delete session %s: is a directory", path)
	}
	if trash, err := exec.LookPath("trash"); err == nil {
		if out, err := exec.Command(trash, path).CombinedOutput(); err == nil {
			return nil
		} else if _, statErr := os.Stat(path); statErr != nil {
			return nil // trashed despite a non-zero exit
		} else {
			return fmt.Errorf("delete session %s: trash: %v: %s", path, err, strings.TrimSpace(string(out)))
		}
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("delete session %s: %w", path, err)
	}
	return nil
}
