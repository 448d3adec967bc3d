package permessage

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time of the calling OS thread in ns, or -1.
// The caller has locked its goroutine to the thread.
func threadCPU() int64 { return clockNs(unix.CLOCK_THREAD_CPUTIME_ID) }

// processCPU returns the CPU time of this process in ns, or -1.
func processCPU() int64 { return clockNs(unix.CLOCK_PROCESS_CPUTIME_ID) }

// pidCPU returns a reader of the CPU time of process pid in ns (all its
// threads, to the nanosecond, unlike the 10 ms ticks of /proc/<pid>/stat),
// or nil when that clock cannot be read. The clock id is the kernel's
// MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED), clock_getcpuclockid(3).
func pidCPU(pid int) func() int64 { return clockReader(int32(^pid)<<3 | 2) }

// threadID returns the id of the calling OS thread.
func threadID() int { return unix.Gettid() }

// tidCPU returns a reader of the CPU time of thread tid of this process in
// ns, or nil when its clock cannot be read: the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), pthread_getcpuclockid(3), so
// that one thread reads another's.
func tidCPU(tid int) func() int64 { return clockReader(int32(^tid)<<3 | 4 | 2) }

// clockReader returns a reader of clock id, or nil when it cannot be read.
func clockReader(id int32) func() int64 {
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

// processTick is the step at which a process-wide CPU clock can be
// trusted: the kernel brings a thread's CPU time up to date when it reads
// the thread's own clock, but sums a process's threads as last accounted,
// and a thread running on another CPU is accounted at its scheduler tick.
// Read between two ticks, a window of 250 µs held 897 µs of the process's
// CPU on two CPUs (379 %). The tick is 1/CONFIG_HZ (4 ms at 250 Hz); 10 ms,
// the longest in use, when the kernel's configuration cannot be read.
var processTick = sync.OnceValue(func() int64 {
	if hz := kernelHZ(); hz > 0 {
		return int64(time.Second) / hz
	}
	return 10 * int64(time.Millisecond)
})

// kernelHZ reads CONFIG_HZ from the running kernel's configuration
// (/proc/config.gz, or /boot/config-<release>), 0 when neither says.
func kernelHZ() int64 {
	var r io.Reader
	if f, err := os.Open("/proc/config.gz"); err == nil {
		defer f.Close()
		if z, err := gzip.NewReader(f); err == nil {
			r = z
		}
	}
	if r == nil {
		var u unix.Utsname
		if unix.Uname(&u) != nil {
			return 0
		}
		f, err := os.Open("/boot/config-" + unix.ByteSliceToString(u.Release[:]))
		if err != nil {
			return 0
		}
		defer f.Close()
		r = f
	}
	return configHZ(r)
}

// configHZ finds CONFIG_HZ=<n> in a kernel configuration.
func configHZ(r io.Reader) int64 {
	s := bufio.NewScanner(r)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "CONFIG_HZ="); ok {
			if hz, err := strconv.ParseInt(v, 10, 64); err == nil && hz > 0 {
				return hz
			}
		}
	}
	return 0
}
