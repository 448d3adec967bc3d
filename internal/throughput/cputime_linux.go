package throughput

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time of the calling OS thread in ns, or -1.
// The caller has locked its goroutine to the thread.
func threadCPU() int64 { return clockNs(unix.CLOCK_THREAD_CPUTIME_ID) }

// processCPU returns the CPU time of this process in ns, or -1.
func processCPU() int64 { return clockNs(unix.CLOCK_PROCESS_CPUTIME_ID) }

// pidCPU returns a reader of the CPU time of process pid in ns (all its
// threads, to the nanosecond, unlike the 10 ms ticks of /proc/<pid>/stat),
// or nil when that clock cannot be read. The clock id is the kernel's
// MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED), clock_getcpuclockid(3).
func pidCPU(pid int) func() int64 {
	id := int32(^pid)<<3 | 2
	if clockNs(id) < 0 {
		return nil
	}
	return func() int64 { return clockNs(id) }
}

// threadID returns the id of the calling OS thread.
func threadID() int { return unix.Gettid() }

// tidCPU returns a reader of the CPU time of thread tid of this process in
// ns, or nil when its clock cannot be read: the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), pthread_getcpuclockid(3), so
// that one thread reads another's.
func tidCPU(tid int) func() int64 {
	id := int32(^tid)<<3 | 4 | 2
	if clockNs(id) < 0 {
		return nil
	}
	return func() int64 { return clockNs(id) }
}

func clockNs(id int32) int64 {
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return -1
	}
	return ts.Nano()
}
