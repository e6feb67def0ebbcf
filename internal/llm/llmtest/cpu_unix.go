//go:build unix

package llmtest

import "syscall"

// CPUSeconds is the CPU time (user + system) the process used so far, the
// figure the streaming performance targets are stated in. Unlike wall time
// it does not grow when other processes compete for the cores.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
