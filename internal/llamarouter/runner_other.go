//go:build !unix

package llamarouter

import (
	"os"
	"os/exec"
)

func setGroup(*exec.Cmd) {}

func terminate(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) }

func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
