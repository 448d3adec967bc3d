//go:build !unix

package browser

import "os/exec"

func setProcessGroup(*exec.Cmd) {}
