//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// SignalGroup sends sig to the program's process group: the program and
// every child it started.
func SignalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, sig)
	}
}
