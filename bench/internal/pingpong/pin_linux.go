package pingpong

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Pin locks the calling goroutine to its thread and the thread to cpu, as
// run --cpus pins its pinger: the library's goroutines stay free. A
// negative cpu pins nothing.
func Pin(cpu int) error {
	if cpu < 0 {
		return nil
	}
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	return unix.SchedSetaffinity(0, &set)
}
