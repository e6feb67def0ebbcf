//go:build unix

package fsx

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenVerifiedFIFO covers a path swapped for a FIFO after the stat: the
// open itself must not wait for a writer, and the opened file is refused.
func TestOpenVerifiedFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := openVerified(fifo)
	if f != nil {
		f.Close()
	}
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Kind != "named pipe (FIFO)" {
		t.Fatalf("openVerified(fifo) = %v, want a FIFO NotRegularError", err)
	}
}
