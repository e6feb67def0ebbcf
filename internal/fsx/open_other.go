//go:build !unix

package fsx

import (
	"os"
	"syscall"
)

// openVerified opens path without blocking and refuses it unless the opened
// file is regular.
func openVerified(path string) (*os.File, error) {
	// Stat first: some devices act on open.
	if _, err := CheckRegular(path); err != nil {
		return nil, err
	}
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer. It has no effect on reads of regular files.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	return f, nil
}
