//go:build linux

package session

import (
	"os"
	"syscall"
)

// mapFile maps f read-only, pre-faulted: listing scans whole files for line
// starts, and a mapping spares the copy a read would make. release unmaps.
func mapFile(f *os.File, size int64) (data []byte, release func(), err error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return readFallback(f, size)
	}
	return b, func() { _ = syscall.Munmap(b) }, nil
}
