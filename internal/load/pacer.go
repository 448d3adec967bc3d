package load

import (
	"fmt"
	"runtime"
	"time"
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

// Wait sleeps until t, spinning the last stretch for precision: the Go
// timer's resolution on a loaded machine is far coarser than a period at
// high rates. It returns at once when t has passed or stop is set.
func Wait(t time.Time, stop func() bool) {
	for {
		d := time.Until(t)
		if d <= 0 || stop() {
			return
		}
		if d > 200*time.Microsecond {
			time.Sleep(d - 100*time.Microsecond)
			continue
		}
		// Yield rather than burn the core the subscribers need.
		runtime.Gosched()
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
