package load

import (
	"sync/atomic"

	"github.com/mqgate/mqgate/internal/loadsummary"
)

// Counters are the run's message counts, updated atomically by publishers,
// subscribers and acknowledgement callbacks. Only messages of the measured
// period are counted (warm-up messages are not; Warmup counts those
// received).
type Counters struct {
	// The publishers' counters and the subscribers' sit on cache lines of
	// their own: a publisher and a subscriber on two cores would otherwise
	// take the line from each other at every message.
	MessagesSent atomic.Uint64 // measured messages handed to the system
	BytesSent    atomic.Uint64
	Skipped      atomic.Uint64 // schedule slots skipped (more than one period behind)
	_            [64]byte

	MessagesReceived atomic.Uint64 // measured messages delivered, duplicates included
	// ReceivedSize is the size of every message received (a payload's
	// run refuses others): the bytes received are MessagesReceived ×
	// ReceivedSize, which spares the subscribers an atomic addition per
	// message.
	ReceivedSize uint64
	Clamped      atomic.Uint64 // negative one-way latencies recorded as 0
	Warmup       atomic.Uint64 // warm-up messages received (discarded)
	_            [64]byte

	MessagesAcked   atomic.Uint64 // acknowledged by the system (AckSender)
	MessagesRefused atomic.Uint64 // refused by the system (negative acknowledgements)
	Errors          atomic.Uint64 // failed sends, malformed or foreign messages
}

// CounterValues is a plain copy of Counters, as the summary JSON holds it.
type CounterValues = loadsummary.CounterValues

// Load reads every counter (each atomically; together they are a
// consistent view only once the traffic has stopped).
func (c *Counters) Load() CounterValues {
	return CounterValues{
		MessagesSent:     c.MessagesSent.Load(),
		MessagesReceived: c.MessagesReceived.Load(),
		MessagesAcked:    c.MessagesAcked.Load(),
		MessagesRefused:  c.MessagesRefused.Load(),
		BytesSent:        c.BytesSent.Load(),
		BytesReceived:    c.MessagesReceived.Load() * c.ReceivedSize,
		Errors:           c.Errors.Load(),
		Skipped:          c.Skipped.Load(),
		Clamped:          c.Clamped.Load(),
		Warmup:           c.Warmup.Load(),
	}
}
