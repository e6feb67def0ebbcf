//go:build unix

package laya

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time: on a loaded machine
// a benchmark's wall time is mostly waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
