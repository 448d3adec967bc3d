//go:build !linux

package zenohhelper

import "os/exec"

func setProcAttr(cmd *exec.Cmd) {}
