//go:build !linux

package session

import (
	"errors"
	"time"
)

// processCPU has no per-process CPU time to read here.
func processCPU(pid int) (time.Duration, error) {
	return 0, errors.New("reading a process's CPU time is only supported on Linux")
}

// echoCPU has no per-process CPU time to read here.
func echoCPU(pid int) (time.Duration, error) { return processCPU(pid) }
