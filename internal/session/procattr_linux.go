package session

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the child in its own process group, so that a Ctrl-C
// at the terminal reaches only the parent, which then stops the child, and
// kills the child if the parent dies without doing so.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
