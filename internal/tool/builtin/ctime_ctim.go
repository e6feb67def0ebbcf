//go:build linux || android

package builtin

import "os"

// changeTime is the inode change time in nanoseconds (0 when unknown).
func changeTime(st os.FileInfo) int64 {
	if s := statT(st); s != nil {
		return s.Ctim.Nano()
	}
	return 0
}
