package zenohhelper

import (
	"os/exec"
	"syscall"
)

// setProcAttr makes the kernel end a helper whose parent died, so that a
// crashed run leaves no role behind.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
