//go:build unix

package models

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestConfigFilesNotRegular: models.json and auth.json that are a device
// or a FIFO are refused naming the file, without reading or blocking.
func TestConfigFilesNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"providers":{}}`+strings.Repeat(" ", 5<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero is a character device, not a regular file",
		fifo:        fifo + " is a named pipe (FIFO), not a regular file",
		big:         big + " is too large (5242896 bytes, limit 4194304)",
	} {
		if _, err := readModelsJSON(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("models.json %s: %v, want %q", path, err, want)
		}
		if _, err := readAuthFile(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("auth.json %s: %v, want %q", path, err, want)
		}
	}
}
