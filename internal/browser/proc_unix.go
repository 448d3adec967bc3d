//go:build unix

package browser

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own and makes
// cancellation kill the whole group.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
