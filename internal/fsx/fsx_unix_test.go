//go:build unix

package fsx_test

import (
	"net"
	"path/filepath"
	"syscall"
	"testing"
)

// specialFiles makes a FIFO (no writer: a blocking open would hang the test)
// and a listening Unix socket in dir.
func specialFiles(t *testing.T, dir string) []struct{ name, path, kind string } {
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return []struct{ name, path, kind string }{
		{"fifo", fifo, "named pipe (FIFO)"},
		{"socket", sock, "socket"},
	}
}
