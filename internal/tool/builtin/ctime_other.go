//go:build unix && !linux && !android && !darwin && !freebsd

package builtin

import "os"

// changeTime is 0 here: size and modification time identify a version.
func changeTime(os.FileInfo) int64 { return 0 }
