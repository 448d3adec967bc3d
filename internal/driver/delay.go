package driver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Delay is the processing time an echo end spends on each message before
// it replies (run --echo-delay, mq-bench's --proc-delay): Mean, plus a
// uniform jitter in [-Jitter, +Jitter] drawn from a generator seeded with
// Seed, so that two runs with one seed delay the same sequence. Work is
// CPU work spent on each message before the delay (run --echo-work): a
// calibrated loop that takes Work on an idle CPU and the same work,
// not the same wall time, on a busy one. The zero value delays nothing.
type Delay struct {
	Mean, Jitter time.Duration
	Seed         uint64
	Work         time.Duration
}

// IsZero reports whether d delays nothing and spends no work.
func (d Delay) IsZero() bool { return d.Mean == 0 && d.Jitter == 0 && d.Work == 0 }

// String is the DURATION[±JITTER] spelling ParseDelay reads (the delay
// alone: Work has a flag of its own).
func (d Delay) String() string {
	if d.Jitter == 0 {
		return d.Mean.String()
	}
	return d.Mean.String() + "±" + d.Jitter.String()
}

// ParseDelay reads DURATION or DURATION±JITTER (also DURATION+-JITTER),
// e.g. "50us", "50us±10us". The jitter may not exceed the duration: a
// delay is never negative.
func ParseDelay(s string) (Delay, error) {
	var d Delay
	mean, jitter, hasJitter := strings.Cut(s, "±")
	if !hasJitter {
		mean, jitter, hasJitter = strings.Cut(s, "+-")
	}
	bad := func(why string) (Delay, error) {
		return Delay{}, fmt.Errorf("%q: %s; expected DURATION or DURATION±JITTER such as 50us or 50us±10us", s, why)
	}
	var err error
	if d.Mean, err = time.ParseDuration(strings.TrimSpace(mean)); err != nil {
		return bad("the delay is not a duration")
	}
	if hasJitter {
		if d.Jitter, err = time.ParseDuration(strings.TrimSpace(jitter)); err != nil {
			return bad("the jitter is not a duration")
		}
	}
	switch {
	case d.Mean < 0 || d.Jitter < 0:
		return bad("negative")
	case d.Jitter > d.Mean:
		return bad("the jitter is larger than the delay")
	case d.Mean > time.Minute:
		return bad("longer than a minute")
	}
	return d, nil
}

// Delayer spends an echo end's delay on each message. Each echo end makes
// its own with NewDelayer; one may be shared by goroutines (a client
// library's callbacks), the draws then follow their order.
type Delayer struct {
	d   Delay
	mu  sync.Mutex
	rng *rand.Rand
	// iters is the work loop's iterations per message (d.Work at the
	// calibrated rate).
	iters int
}

// NewDelayer returns a Delayer for d, or nil when d delays nothing (Wait
// on a nil Delayer returns at once). With Work it calibrates the work
// loop first (a few milliseconds at most).
func (d Delay) NewDelayer() *Delayer {
	if d.IsZero() {
		return nil
	}
	p := &Delayer{d: d, rng: rand.New(rand.NewPCG(d.Seed, 0x6d716761746520))}
	if d.Work > 0 {
		p.iters = max(1, int(math.Round(WorkRate()*float64(d.Work))))
	}
	return p
}

// workSink keeps the work loop's result, so that the compiler cannot drop
// the loop as dead code.
var workSink atomic.Uint64

// work runs n iterations of an xorshift step, each depending on the last:
// a fixed amount of integer work that no compiler can fold or skip.
//
//go:noinline
func work(n int) {
	x := workSink.Load() | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	workSink.Store(x)
}

// calibrationIters is the loop's length per calibration try (about ten
// microseconds), calibrationTries how many tries and calibrationGap the
// pause between them: the fastest try is the one least interrupted, so
// the rate is that of an idle CPU, and the pauses spread the tries over a
// few milliseconds, longer than a busy spell of a shared machine.
const (
	calibrationIters = 5000
	calibrationTries = 15
	calibrationGap   = 100 * time.Microsecond
)

// WorkRate times the work loop and returns its iterations per nanosecond
// on this CPU: the fastest of several tries, so that preemption during
// some makes the rate no slower.
func WorkRate() float64 {
	work(calibrationIters) // fault in and warm up
	best := 0.0
	for i := range calibrationTries {
		if i > 0 {
			time.Sleep(calibrationGap)
		}
		start := time.Now()
		work(calibrationIters)
		if el := time.Since(start); el > 0 {
			best = max(best, calibrationIters/float64(el))
		}
	}
	return best
}

// spinBelow is the part of a delay spent spinning rather than sleeping: a
// sleep overshoots by the timer's slack (tens of microseconds, more under
// load), so the last stretch is measured by the clock instead.
const spinBelow = 200 * time.Microsecond

// Wait spends the work on the message, then returns once the next delay
// has passed. It sleeps through most of a long delay and spins (yielding
// the processor) through the rest, as processing would keep the echo busy.
func (p *Delayer) Wait() {
	if p == nil {
		return
	}
	if p.iters > 0 {
		work(p.iters)
	}
	start := time.Now()
	d := p.Next()
	if d <= 0 {
		return
	}
	end := start.Add(d)
	if d > spinBelow {
		Sleep(d - spinBelow)
	}
	for time.Now().Before(end) {
		runtime.Gosched()
	}
}

// Next draws the next delay (0 from a nil Delayer).
func (p *Delayer) Next() time.Duration {
	if p == nil {
		return 0
	}
	if p.d.Jitter == 0 {
		return p.d.Mean
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.d.Mean - p.d.Jitter + time.Duration(p.rng.Int64N(int64(2*p.d.Jitter)+1))
}
