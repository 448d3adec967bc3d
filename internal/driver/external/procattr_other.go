//go:build unix && !linux

package external

import (
	"os/exec"
	"syscall"
)

// SetProcAttr puts the program in a process group of its own.
func SetProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
