package fsx_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relay-agent/relay/internal/fsx"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink("dotfiles/settings.json", link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(dir, "chain.json")
	if err := os.Symlink(link, chain); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{link, chain} {
		want := []byte{'n', 'e', 'w', byte('0' + i)}
		if err := fsx.WriteFileAtomic(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symbolic link", p)
		}
		got, _ := os.ReadFile(target)
		if string(got) != string(want) {
			t.Fatalf("target = %q, want %q", got, want)
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
			t.Errorf("target mode %v, want 0600 kept", st.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(target))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	dangling := filepath.Join(dir, "dangling")
	os.Symlink("made.json", dangling)
	if err := fsx.WriteFileAtomic(dangling, []byte("x"), 0o640); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "made.json")); string(got) != "x" {
		t.Errorf("dangling link target = %q", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, "made.json")); st.Mode().Perm() != 0o640 {
		t.Errorf("new file mode %v, want 0640", st.Mode().Perm())
	}

	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := fsx.WriteFileAtomic(loop, []byte("x"), 0o644); err == nil {
		t.Error("a symbolic link loop was written")
	}
	if err := fsx.WriteFileAtomic(dir, []byte("x"), 0o644); err == nil {
		t.Error("a directory was replaced")
	}
}
