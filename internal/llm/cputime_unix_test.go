//go:build unix

package llm

import "syscall"

// processCPU returns the CPU time (user + system) the process has used, so
// benchmarks can report figures that a loaded machine does not inflate.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
