//go:build windows

package shell

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killTree kills pid and its descendants with taskkill /T.
func killTree(pid int) {
	if pid <= 0 {
		return
	}
	_ = exec.Command("taskkill", "/F", "/T", "/PID", strconv.Itoa(pid)).Run()
}

func signalOf(*os.ProcessState) (int, bool) { return 0, false }
