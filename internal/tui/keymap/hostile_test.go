package keymap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesDevice: a keybindings.json linked to /dev/zero is an
// error naming it, not an endless read; the defaults apply.
func TestLoadRefusesDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	km, _, err := Load(dir, Unix)
	if err == nil || !strings.Contains(err.Error(), p+" is a character device, not a regular file") || km == nil {
		t.Fatalf("Load = %v, %v", km, err)
	}
}
