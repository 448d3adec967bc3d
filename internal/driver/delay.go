package driver

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Delay is the processing time an echo end spends on each message before
// it replies (run --echo-delay, mq-bench's --proc-delay): Mean, plus a
// uniform jitter in [-Jitter, +Jitter] drawn from a generator seeded with
// Seed, so that two runs with one seed delay the same sequence. The zero
// value delays nothing.
type Delay struct {
	Mean, Jitter time.Duration
	Seed         uint64
}

// IsZero reports whether d delays nothing.
func (d Delay) IsZero() bool { return d.Mean == 0 && d.Jitter == 0 }

// String is the DURATION[±JITTER] spelling ParseDelay reads.
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
}

// NewDelayer returns a Delayer for d, or nil when d delays nothing (Wait
// on a nil Delayer returns at once).
func (d Delay) NewDelayer() *Delayer {
	if d.IsZero() {
		return nil
	}
	return &Delayer{d: d, rng: rand.New(rand.NewPCG(d.Seed, 0x6d716761746520))}
}

// spinBelow is the part of a delay spent spinning rather than sleeping: a
// sleep overshoots by the timer's slack (tens of microseconds, more under
// load), so the last stretch is measured by the clock instead.
const spinBelow = 200 * time.Microsecond

// Wait returns once the next delay has passed since it was called. It
// sleeps through most of a long delay and spins (yielding the processor)
// through the rest, as processing would keep the echo busy.
func (p *Delayer) Wait() {
	if p == nil {
		return
	}
	start := time.Now()
	d := p.Next()
	if d <= 0 {
		return
	}
	end := start.Add(d)
	if d > spinBelow {
		time.Sleep(d - spinBelow)
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

// EchoDelayer is implemented by transports whose echo ends honour
// Options.EchoDelay; the run command refuses --echo-delay for the others
// rather than measuring without it.
type EchoDelayer interface {
	HonoursEchoDelay()
}

// HonoursEchoDelay reports whether t's echo ends apply Options.EchoDelay.
func HonoursEchoDelay(t Transport) bool {
	_, ok := t.(EchoDelayer)
	return ok
}
