package external

import (
	"os/exec"
	"syscall"
)

// SetProcAttr puts the program in a process group of its own, so that it
// and its children can be stopped together and a Ctrl-C at the terminal
// reaches run only (which then stops the program), and kills it if run
// dies without doing so.
func SetProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
