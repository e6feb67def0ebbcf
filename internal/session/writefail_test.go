package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failWrites makes every session write put half its bytes on disk and then
// fail with ENOSPC, as a full disk does, until the returned func is called.
func failWrites(t *testing.T) (restore func()) {
	t.Helper()
	orig := fileWrite
	fileWrite = func(f *os.File, b []byte) (int, error) {
		n, err := orig(f, b[:len(b)/2])
		if err != nil {
			return n, err
		}
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	restored := false
	restore = func() {
		if !restored {
			fileWrite, restored = orig, true
		}
	}
	t.Cleanup(restore)
	return restore
}

func contextTexts(m *Manager) string {
	return describe2(m.BuildSessionContext().Messages)
}

// TestWriteFailureKeepsBranch: a failed append keeps the entry in memory,
// reports a *WriteError, leaves no torn line, and the next append after
// the disk recovers writes the backlog in order.
func TestWriteFailureKeepsBranch(t *testing.T) {
	dir := t.TempDir()
	m, err := Create("/p", dir, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendMessage(user("u1")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendMessage(asst("a1")); err != nil {
		t.Fatal(err)
	}
	path := m.SessionFile()
	before, _ := os.ReadFile(path)

	restore := failWrites(t)
	for _, s := range []string{"u2", "u3"} {
		id, err := m.AppendMessage(user(s))
		var we *WriteError
		if !errors.As(err, &we) || we.Path != path || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("append %s: err = %v, want *WriteError with ENOSPC for %s", s, err, path)
		}
		if id == "" || m.LeafID() != id {
			t.Fatalf("append %s: id %q, leaf %q: the entry must still join the branch", s, id, m.LeafID())
		}
		want := "write session " + path + ": no space left on device"
		if err.Error() != want {
			t.Errorf("error = %q, want %q", err, want)
		}
	}
	if got, want := contextTexts(m), "user:u1 | assistant:a1 | user:u2 | user:u3"; got != want {
		t.Fatalf("context after failed writes = %q, want %q", got, want)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("a failed write left bytes behind:\n%q\nwant\n%q", after, before)
	}

	restore()
	if _, err := m.AppendMessage(asst("a2")); err != nil {
		t.Fatalf("append after the disk recovered: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := contextTexts(l), "user:u1 | assistant:a1 | user:u2 | user:u3 | assistant:a2"; got != want {
		t.Fatalf("file after recovery = %q, want %q", got, want)
	}
	if p := l.Problems(); len(p) != 0 {
		t.Errorf("problems in the recovered file: %v", p)
	}
}

// TestCloseWritesBacklog: entries that failed to write get a last try at
// Close; if the disk is still full Close reports it.
func TestCloseWritesBacklog(t *testing.T) {
	m, err := Create("/p", t.TempDir(), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendMessage(user("u1")); err != nil {
		t.Fatal(err)
	}
	restore := failWrites(t)
	if _, err := m.AppendMessage(asst("a1")); err == nil {
		t.Fatal("append on a full disk succeeded")
	}
	restore()
	path := m.SessionFile()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := contextTexts(l), "user:u1 | assistant:a1"; got != want {
		t.Fatalf("file after Close = %q, want %q", got, want)
	}

	m2, err := Create("/p", t.TempDir(), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.AppendMessage(user("u1")); err != nil {
		t.Fatal(err)
	}
	failWrites(t)
	m2.AppendMessage(asst("a1"))
	var we *WriteError
	if err := m2.Close(); !errors.As(err, &we) {
		t.Fatalf("Close with a full disk: err = %v, want *WriteError", err)
	}
}

// TestSessionDirCannotBeCreated: the first write fails with a *WriteError
// naming the file; the messages stay in memory.
func TestSessionDirCannotBeCreated(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Create("/p", filepath.Join(blocker, "sessions"), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.AppendMessage(user("u1"))
	var we *WriteError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), blocker) {
		t.Fatalf("append with an uncreatable dir: err = %v, want *WriteError naming %s", err, blocker)
	}
	if _, err := m.AppendMessage(asst("a1")); !errors.As(err, &we) {
		t.Fatalf("second append: err = %v, want *WriteError", err)
	}
	if got, want := contextTexts(m), "user:u1 | assistant:a1"; got != want {
		t.Fatalf("context = %q, want %q", got, want)
	}
}

// TestBranchWritesBacklogFirst: leaving a session for a branched copy
// writes its failed entries first, or refuses while the disk is full.
func TestBranchWritesBacklogFirst(t *testing.T) {
	m, err := Create("/p", t.TempDir(), CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := m.AppendMessage(user("u1"))
	restore := failWrites(t)
	m.AppendMessage(asst("a1"))
	old := m.SessionFile()
	var we *WriteError
	if _, err := m.CreateBranchedSession(first); !errors.As(err, &we) {
		t.Fatalf("branching with a full disk: %v, want *WriteError", err)
	}
	restore()
	if _, err := m.CreateBranchedSession(first); err != nil {
		t.Fatal(err)
	}
	m.Close()
	l, err := Load(old)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := contextTexts(l), "user:u1 | assistant:a1"; got != want {
		t.Fatalf("old file = %q, want %q", got, want)
	}
}
