//go:build unix

package plots

import "syscall"

// cpuTime returns the CPU time (user + system, all threads) the process has
// used so far, in nanoseconds. Benchmarks report it per operation beside
// ns/op, which wall-clock noise from other processes inflates.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
