package driver

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSleepParks: 60 goroutines sleeping at once take no thread each: a
// sleep parks its goroutine in the netpoller (a timerfd) instead of
// blocking a thread in the kernel, which held a scheduler slot until Go's
// monitor took it back (nanosleep: with two publishers asleep on two
// cores the subscribers waited up to 10 ms). And each sleep lasts at
// least what was asked.
func TestSleepParks(t *testing.T) {
	before := threads(t)
	const n, d = 60, 50 * time.Millisecond
	var wg sync.WaitGroup
	short := make(chan time.Duration, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			Sleep(d)
			if got := time.Since(t0); got < d {
				short <- got
			}
		}()
	}
	wg.Wait()
	close(short)
	for got := range short {
		t.Errorf("Sleep(%v) returned after %v", d, got)
	}
	if after := threads(t); after-before > n/3 {
		t.Errorf("%d sleeping goroutines took the process from %d to %d threads: each sleep blocked a thread", n, before, after)
	}
}

// threads is this process's thread count (/proc/self/status); Go keeps
// the threads it started, so the count after is the most it reached.
func threads(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}
