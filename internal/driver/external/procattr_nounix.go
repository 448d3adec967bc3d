//go:build !unix

package external

import (
	"os/exec"
	"syscall"
)

// SetProcAttr does nothing: there are no process groups.
func SetProcAttr(*exec.Cmd) {}

// SignalGroup kills the program: there are no process groups to signal.
func SignalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
