//go:build unix

package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNonRegularSessionFiles: Open, Load and Check refuse a FIFO, a device
// and a directory with an error naming the path, without reading or
// blocking; listing skips them.
func TestNonRegularSessionFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub.jsonl")
	os.Mkdir(sub, 0o755)
	cases := map[string]string{fifo: "named pipe (FIFO)", "/dev/zero": "character device", zeroLink: "character device", sub: "directory"}
	for path, kind := range cases {
		for name, open := range map[string]func(string) error{
			"Open":  func(p string) error { m, err := Open(p, ""); closeIf(m); return err },
			"Load":  func(p string) error { _, err := Load(p); return err },
			"Check": func(p string) error { _, err := Check(p); return err },
		} {
			err := open(path)
			want := "session file " + path + " is a " + kind + ", not a regular file"
			if err == nil || err.Error() != want {
				t.Errorf("%s(%s) = %v, want %q", name, path, err, want)
			}
		}
	}
	// A real session next to them still lists.
	m, err := Create(dir, dir, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.AppendMessage(user("hello"))
	m.Close()
	infos, err := List(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || !strings.HasSuffix(infos[0].Path, ".jsonl") || infos[0].Path == fifo {
		t.Errorf("List = %+v, want the one real session", infos)
	}
	if p := mostRecent(dir, dir); p != m.SessionFile() {
		t.Errorf("mostRecent = %q, want %q", p, m.SessionFile())
	}
}

func closeIf(m *Manager) {
	if m != nil {
		m.Close()
	}
}
