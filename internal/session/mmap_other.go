//go:build !linux

package session

import "os"

func mapFile(f *os.File, size int64) (data []byte, release func(), err error) {
	return readFallback(f, size)
}
