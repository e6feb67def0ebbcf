//go:build windows

package mcp

import (
	"os/exec"
	"syscall"
)

var syscallECONNREFUSED error = syscall.Errno(10061) // WSAECONNREFUSED

func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the process: Windows has no SIGTERM for console
// programs, and closing stdin already asked it to stop.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
