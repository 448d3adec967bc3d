//go:build !linux

package runapp

import "os/exec"

func setProcAttr(cmd *exec.Cmd) {}
