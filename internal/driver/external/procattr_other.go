//go:build unix && !linux

package external

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the program in a process group of its own.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
