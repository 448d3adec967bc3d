package load

import (
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Clock turns monotonic readings into ns since the Unix epoch: the wall
// clock is read once, at NewClock, and every later reading adds the
// kernel's monotonic time (CLOCK_MONOTONIC, through Go's runtime) since
// then, so that a step of the wall clock (NTP) during a run cannot produce
// a jump in the latencies. Publishers and subscribers of one process share
// one Clock, so their one-way latencies are exact; ends in different
// processes (`run pub`/`run sub`) compare two clocks, and their latencies
// include the clocks' offset.
type Clock struct {
	// monoNs is the epoch time of driver.Mono's zero: a Mono reading m
	// is monoNs + m ns since the epoch.
	monoNs int64
}

// NewClock reads the wall clock.
func NewClock() *Clock {
	now := time.Now()
	return &Clock{monoNs: now.UnixNano() - driver.MonoOf(now)}
}

// Ns returns t (with a monotonic reading) in ns since the Unix epoch.
func (c *Clock) Ns(t time.Time) int64 { return c.Mono(driver.MonoOf(t)) }

// Mono returns a driver.Mono reading (a Consumer's arrival time) in ns
// since the Unix epoch, as Ns(driver.MonoTime(m)) but without the
// time.Time.
func (c *Clock) Mono(m int64) int64 { return c.monoNs + m }

// Now returns the current time in ns since the Unix epoch. It reads only
// the monotonic clock (driver.Mono, as a Consumer's arrival time is read),
// which costs half of time.Now (the wall clock and the monotonic clock) on
// the publishers' hot path.
func (c *Clock) Now() int64 { return c.Mono(driver.Mono()) }

// ClockName is meta.json's "clock" for the one-way latencies of a paced
// run load (--rate > 0), measured from the intended send time (the
// schedule's slot), and ClockNameUnpaced that of an unpaced one, measured
// from the send call: the summary's latency_from (LatencyFrom) in words.
const (
	ClockName        = clockBase + "; one-way latency = receive − intended send"
	ClockNameUnpaced = clockBase + "; one-way latency = receive − send call (unpaced)"
	clockBase        = "wall clock read once per process plus Go's monotonic time (ns since the Unix epoch)"
)

// ClockNameFor is meta.json's "clock" for a run load at rate msg/s per
// publisher (0: unpaced).
func ClockNameFor(rate float64) string {
	if rate > 0 {
		return ClockName
	}
	return ClockNameUnpaced
}
