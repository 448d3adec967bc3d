package load

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// dropCounts reads what the links of one payload counted as dropped
// themselves (driver.CounterReader: a best-effort queue that was full, an
// AMQP message returned unroutable), so that a loss the transport knows
// of is reported as a drop, not as messages the drain may have missed.
// Each driver counts a drop at one end only, so the ends' counts add up.
type dropCounts struct {
	ends    []driver.CounterReader
	once    sync.Once
	started atomic.Bool
	at0     uint64 // the count when the first publisher began measuring
}

// newDropCounts returns the counting ends of e, nil when none counts.
func newDropCounts(e *Ends) *dropCounts {
	var d dropCounts
	for _, s := range e.Subs {
		if cr, ok := s.R.(driver.CounterReader); ok {
			d.ends = append(d.ends, cr)
		}
	}
	for _, pe := range e.Pubs {
		for _, p := range pe.Senders {
			if cr, ok := p.(driver.CounterReader); ok {
				d.ends = append(d.ends, cr)
			}
		}
	}
	if len(d.ends) == 0 {
		return nil
	}
	return &d
}

func (d *dropCounts) read() uint64 {
	var n uint64
	for _, cr := range d.ends {
		n += cr.Counters().Dropped
	}
	return n
}

// start marks the start of the measured period: the first publisher calls
// it as it sends its first measured message, from its own goroutine, so
// that a drop in the send call itself (a full in-process queue) falls on
// the right side of the mark however late the goroutine runs.
func (d *dropCounts) start() {
	if d != nil {
		d.once.Do(func() { d.at0 = d.read(); d.started.Store(true) })
	}
}

// since is what the ends dropped since start (0 before it): the measured
// messages, and the few warm-up messages still on the way at the start,
// which the count cannot tell apart (at most a queue's depth).
func (d *dropCounts) since() uint64 {
	if d == nil || !d.started.Load() {
		return 0
	}
	return d.read() - d.at0
}

// dropQuiet is how long a drain waits with no delivery once the messages
// received and those the transport dropped account for every expected
// delivery, before it ends: a drop is counted when the message is
// discarded, so what is still on the way arrives well within it.
const dropQuiet = 50 * time.Millisecond

// drainWatch ends a drain early when every expected delivery was either
// made or dropped by the transport, and nothing arrived for dropQuiet.
type drainWatch struct {
	drops   *dropCounts
	last    uint64
	quietAt time.Time
}

// accounted reports whether the drain can end at now with unique of
// expected deliveries made.
func (w *drainWatch) accounted(now time.Time, unique, expected uint64) bool {
	if w.drops == nil {
		return false
	}
	if unique != w.last || w.quietAt.IsZero() {
		w.last, w.quietAt = unique, now
		return false
	}
	return unique+w.drops.since() >= expected && now.Sub(w.quietAt) >= dropQuiet
}
