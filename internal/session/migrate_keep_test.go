package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrationKeepsEveryByte: a v2 file with a stray first line, a corrupt
// line, NUL residue and a torn tail is migrated in place: only the header
// and the hookMessage record change; every other byte stays where it was.
func TestMigrationKeepsEveryByte(t *testing.T) {
	v2, err := os.ReadFile("testdata/v2.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/v2.migrated.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Split(strings.TrimSuffix(string(v2), "\n"), "\n")
	out := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	stray := "my notes: do not lose this line"
	corrupt := `{"type":"message","id":"broken",`
	nul := "\x00\x00\x00"
	torn := `{"type":"custom","id":"aa000009","par`
	build := func(l []string) string {
		return stray + "\n" + l[0] + "\n" + l[1] + "\n" + corrupt + "\n" + nul + "\n" + l[2] + "\n\n" + l[3] + "\n" + torn
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(build(in)), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != build(out) {
		t.Fatalf("migrated file:\n%q\nwant\n%q", got, build(out))
	}
	if n := len(m.Entries()); n != 3 {
		t.Errorf("%d entries, want 3", n)
	}
	// An append after the torn tail starts on a fresh line.
	if _, err := m.AppendMessage(user("after")); err != nil {
		t.Fatal(err)
	}
	m.Close()
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := contextTexts(l); !strings.HasSuffix(got, "user:after") {
		t.Errorf("context after append = %q", got)
	}
}

// TestMigrationWritesThroughSymlink: a session file that is a symbolic
// link keeps being a link; its target holds the migrated content.
func TestMigrationWritesThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "store", "real.jsonl")
	os.MkdirAll(filepath.Dir(target), 0o755)
	v2, _ := os.ReadFile("testdata/v2.jsonl")
	if err := os.WriteFile(target, v2, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "s.jsonl")
	if err := os.Symlink("store/real.jsonl", link); err != nil {
		t.Fatal(err)
	}
	m, err := Open(link, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendMessage(user("appended")); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symbolic link", link)
	}
	got, _ := os.ReadFile(target)
	want, _ := os.ReadFile("testdata/v2.migrated.golden.jsonl")
	if !strings.HasPrefix(string(got), string(want)) || !strings.Contains(string(got), `"appended"`) {
		t.Fatalf("target after migration and append:\n%s", got)
	}
}
