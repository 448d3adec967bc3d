//go:build !linux

package session

import "fmt"

func pinThread(cpu int) error {
	if cpu < 0 {
		return nil
	}
	return fmt.Errorf("--cpus is only supported on Linux")
}

func pinProcess(cpu int) error { return pinThread(cpu) }
