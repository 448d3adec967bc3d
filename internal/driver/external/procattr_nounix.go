//go:build !unix

package external

import (
	"os/exec"
	"syscall"
)

func setProcAttr(*exec.Cmd) {}

// signalGroup kills the program: there are no process groups to signal.
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
