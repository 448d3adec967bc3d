package runapp

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// pinThread locks the calling goroutine to its OS thread and that thread
// to cpu. The goroutine must not unlock: when it ends, the runtime
// discards the pinned thread instead of reusing it.
func pinThread(cpu int) error {
	if cpu < 0 {
		return nil
	}
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("cannot pin to CPU %d: %w", cpu, err)
	}
	return nil
}
