package throughput

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time of the calling OS thread in ns, or -1.
// The caller has locked its goroutine to the thread.
func threadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}

// processCPU returns the CPU time of this process in ns, or -1.
func processCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return -1
	}
	return ts.Nano()
}
