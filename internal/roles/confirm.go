package roles

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// confirmEvery is how often a pub asks a client that can tell
// (driver.Confirmer) what reached the system: when the link breaks, what
// did reach it of the last span before the break is counted unconfirmed,
// and a NATS PING ten times a second costs nothing measurable.
const confirmEvery = 100 * time.Millisecond

// confirms counts, per publisher, the messages handed to the client and
// which of them the system confirmed having. A client may hold messages
// it accepted and drop them when its link breaks (nats.go while it
// reconnects): they were never sent.
type confirms struct {
	c           driver.Confirmer // nil: the client cannot tell; what it took counts as sent
	handed      []atomic.Uint64  // Publish returned nil
	marked      []uint64         // handed at the previous mark
	confirmed   []uint64
	unconfirmed []uint64
	// why is the first error that left messages unconfirmed.
	why error
}

// newConfirms counts for n publishers over b's client.
func newConfirms(b Backend, n int) *confirms {
	c, _ := b.Client.(driver.Confirmer)
	return &confirms{c: c, handed: make([]atomic.Uint64, n), marked: make([]uint64, n),
		confirmed: make([]uint64, n), unconfirmed: make([]uint64, n)}
}

// round asks the client to confirm what was handed to it since the
// previous round, and counts it confirmed or not.
func (k *confirms) round(timeout time.Duration) error {
	now := slices.Clone(k.marked) // as they stay if Confirm never marks
	err := k.c.Confirm(timeout, func() {
		for i := range k.handed {
			now[i] = k.handed[i].Load()
		}
	})
	for i, n := range now {
		if err == nil {
			k.confirmed[i] += n - k.marked[i]
		} else if n > k.marked[i] {
			k.unconfirmed[i] += n - k.marked[i]
			if k.why == nil {
				k.why = err
			}
		}
		k.marked[i] = n
	}
	return err
}

// confirming confirms every confirmEvery until ctx is done, then returns
// (a round in progress first ends, within timeout).
func (k *confirms) confirming(ctx context.Context, timeout time.Duration) {
	if k.c == nil {
		return
	}
	tick := time.NewTicker(confirmEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			k.round(timeout)
		}
	}
}

// end waits within timeout until everything handed to the client reached
// the system: a last round, or for a client that cannot tell, its Flush
// (and what it took counts as sent).
func (k *confirms) end(b Backend, timeout time.Duration) error {
	if k.c != nil {
		return k.round(timeout)
	}
	for i := range k.handed {
		k.confirmed[i] = k.handed[i].Load()
	}
	return b.Flush(timeout)
}
