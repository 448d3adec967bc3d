package load

import (
	"fmt"
	"runtime"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Schedule is one publisher's open-loop scheduler: slot k is due at
// start + k·period, period = 1e9/rate ns. A publisher that falls more than
// one period behind skips forward to the latest slot due, and the slots it
// skipped are counted, never sent late in a burst. Latency is measured from
// each slot's intended send time, not from when Send was called, so that a
// stall of the publisher or the system (coordinated omission) delays the
// measured messages instead of hiding them; the send delay (actual −
// intended) is recorded separately.
//
// A zero rate is unpaced: every slot is due at once and its intended send
// time is when it is sent.
type Schedule struct {
	period time.Duration
	start  time.Time
	next   uint64 // next slot

	// late is how late this host's sleeps wake (Wait measures it as it
	// goes); now and sleep are the clock, replaced by tests.
	late  time.Duration
	now   func() time.Time
	sleep func(time.Duration)
}

// NewSchedule returns the schedule of rate messages per second starting at
// start. rate 0 is unpaced.
func NewSchedule(rate float64, start time.Time) *Schedule {
	s := &Schedule{start: start}
	if rate > 0 {
		s.period = max(1, time.Duration(1e9/rate))
	}
	return s
}

// Period is the time between slots, 0 when unpaced.
func (s *Schedule) Period() time.Duration { return s.period }

// Next returns the next slot's intended send time and how many slots were
// skipped to reach it, given the time now. The caller waits until the
// intended time (Wait) and sends. Unpaced, it returns now.
func (s *Schedule) Next(now time.Time) (due time.Time, skipped uint64) {
	if s.period == 0 {
		s.next++
		return now, 0
	}
	due = s.start.Add(time.Duration(s.next) * s.period)
	if behind := now.Sub(due); behind > s.period {
		// The latest slot due at now.
		latest := uint64(now.Sub(s.start) / s.period)
		skipped = latest - s.next
		s.next = latest
		due = s.start.Add(time.Duration(s.next) * s.period)
	}
	s.next++
	return due, skipped
}

// Wait sleeps until t without a schedule of its own (a one-off wait).
func Wait(t time.Time, stop func() bool) { new(Schedule).Wait(t, stop) }

// spinFor is the stretch before a slot that Wait yields through instead
// of sleeping, beyond the sleeps' own lateness; lateCap bounds that
// lateness (a sleep stalled by a descheduled thread says nothing of the
// next). spinFor was 50 µs: at 20,000 msg/s (a 50 µs period) the
// publisher then yielded through every period, a core busy all run long,
// and on two cores the broker it measured waited for the CPU: NATS p50
// 1.0–2.4 ms at 20,000 msg/s, 1.6 ms at 50,000, against 32–34 µs and
// 116 µs at 5 µs (three alternating runs each on a 2-vCPU VM, the send
// rate the same). What 5 µs costs is precision where a sleep wakes later
// than its estimate: the send delay's p99 rose from 2 to 12 µs at 3,000
// msg/s in process, its p50 stayed 0.2 µs; the send delay is measured,
// and the latency from the actual send leaves it out.
const (
	spinFor = 5 * time.Microsecond
	lateCap = 5 * time.Millisecond
)

// Wait returns at t, or at once when t has passed or stop is set. It
// sleeps (driver.Sleep) while more time is left than its sleeps wake late
// and yields the processor for the rest (spinFor and the lateness). time.Sleep wakes up to a
// millisecond late on Linux (0.83 ms at the median for 233 µs on a
// 2-vCPU VM), which made the send delay most of a paced run's latency at
// 500 msg/s and skipped a quarter of the slots at 3,000; driver.Sleep (a
// timerfd, parking the goroutine) wakes some 10 µs late, and each
// sleep's lateness is measured so that the next
// ends that much sooner (a moving average); a wait with no room to sleep
// lets the estimate decay, so that a stall passes. At rates whose period
// is shorter than the lateness the publisher yields through every period,
// which costs it CPU (reported as the sender's) but keeps the schedule.
func (s *Schedule) Wait(t time.Time, stop func() bool) {
	now, sleep := time.Now, driver.Sleep
	if s.now != nil {
		now, sleep = s.now, s.sleep
	}
	slept := false
	for {
		d := t.Sub(now())
		if d <= 0 || stop() {
			break
		}
		if ask := d - s.late - spinFor; ask > spinFor {
			t0 := now()
			sleep(ask)
			over := min(now().Sub(t0)-ask, lateCap)
			s.late += (over - s.late) / 4
			slept = true
			continue
		}
		// Yield rather than burn the core the subscribers need.
		runtime.Gosched()
	}
	if !slept {
		s.late -= s.late / 64
	}
}

// pacingName describes the pacing of rate messages per second per
// publisher (0 is unpaced) in meta.json's mode and summary.json:
// "open-loop 1000/s per publisher" or "unpaced (as fast as ...)".
func pacingName(rate float64) string {
	if rate <= 0 {
		return "unpaced (as fast as the publisher sends)"
	}
	return fmt.Sprintf("open-loop %g/s per publisher", rate)
}
