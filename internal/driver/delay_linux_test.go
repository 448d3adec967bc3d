package driver

import (
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// threadCPU is the calling thread's time on a CPU up to now
// (CLOCK_THREAD_CPUTIME_ID, which unlike /proc/thread-self/schedstat
// counts the running stretch too, not only up to the last tick).
func threadCPU(t *testing.T) time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		t.Fatalf("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %v", e)
	}
	return time.Duration(ts.Nano())
}

// TestEchoWorkCPU checks that the work of a Delay costs about Work of CPU
// time per message, measured as the thread's CPU time rather than the
// clock: a busy machine stretches the wall time of the work, not its
// CPU time (apart from a shared core's slower execution, which the wide
// band allows for).
func TestEchoWorkCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, w := range []time.Duration{20 * time.Microsecond, 200 * time.Microsecond} {
		d := Delay{Work: w}
		if d.IsZero() {
			t.Fatalf("%v of work is a zero delay", w)
		}
		p := d.NewDelayer()
		n := int(100 * time.Millisecond / w)
		before := threadCPU(t)
		for range n {
			p.Wait()
		}
		after := threadCPU(t)
		per := (after - before) / time.Duration(n)
		if per < w/2 || per > 3*w {
			t.Errorf("--echo-work %v: %v of the thread's CPU per message; want about %v", w, per, w)
		}
		t.Logf("--echo-work %v: %v of CPU per message (%d iterations)", w, per, p.iters)
	}
}
