package models

import "os/exec"

// killGroup leaves Windows to the default cancellation (kill the process)
// and WaitDelay.
func killGroup(*exec.Cmd) {}
