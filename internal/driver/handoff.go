package driver

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Handoff carries the messages a client library hands to a message handler
// of its own (nats.go's asynchronous subscriptions, the MQTT libraries'
// handlers: one goroutine, one message at a time, in order) to Receive, or,
// once Consume was called, to the consumer itself on that goroutine, after
// what was queued before. The library allocates each payload, so the
// handoff keeps it rather than copying it. Unlike Inbox (fixed buffers that
// the subscriber's own readers fill) it allocates nothing of its own per
// message.
type Handoff struct {
	ch     chan handed
	closed chan struct{}
	once   sync.Once
	cfg    HandoffConfig

	dropped atomic.Uint64
	timer   *time.Timer // used by the one goroutine that receives

	consuming chan struct{} // closed by Consume
	on        atomic.Bool   // fn is set: Deliver calls it
	mu        sync.Mutex    // held while fn runs, so that Consume can end it
	fn        func([]byte, int64)
	used      bool // Consume was called
}

// HandoffConfig is what a Handoff needs to know of its link.
type HandoffConfig struct {
	// Name prefixes the errors the handoff makes ("nats", "mqtt").
	Name string
	// Depth is the number of messages queued for Receive (at least 1).
	Depth int
	// Drop makes Deliver drop a message when the queue is full (counted by
	// Dropped) instead of waiting, which holds back the library and, through
	// its flow control, the sender.
	Drop bool
	// Lost is closed when the link is lost; LostErr says how (an error
	// wrapping ErrClosed).
	Lost    <-chan struct{}
	LostErr func() error
	// Closed is what Receive returns once Close was called (wrapping
	// ErrClosed); Timeout what it returns when its deadline passed
	// (wrapping ErrTimeout).
	Closed, Timeout error
}

// handed is one message as the library handed it over, and when (Mono).
type handed struct {
	payload []byte
	at      int64
}

// NewHandoff returns an empty handoff.
func NewHandoff(cfg HandoffConfig) *Handoff {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &Handoff{ch: make(chan handed, max(cfg.Depth, 1)), closed: make(chan struct{}), cfg: cfg, timer: t, consuming: make(chan struct{})}
}

// Deliver is the message handler's part: it runs on the library's goroutine
// and reads the arrival time first (Mono: the monotonic clock alone).
// payload is the handoff's from then on.
func (b *Handoff) Deliver(payload []byte) {
	d := handed{payload: payload, at: Mono()}
	if b.on.Load() {
		b.pass(&d)
		return
	}
	if b.cfg.Drop {
		select {
		case b.ch <- d:
		default:
			b.dropped.Add(1)
		}
	} else {
		select {
		case b.ch <- d:
		case <-b.closed:
			return
		case <-b.consuming:
			b.pass(&d)
			return
		}
	}
	if b.on.Load() {
		// Consume began while d was queued: hand it over now rather
		// than with the next message.
		b.pass(nil)
	}
}

// pass gives the consumer what is queued, then d (when not nil). Deliver is
// the only producer, so the queue holds older messages only.
func (b *Handoff) pass(d *handed) {
	b.mu.Lock()
	if b.fn != nil {
		// Once Consume was called only pass, under b.mu, takes from
		// the queue: what len counts is there to take.
		for len(b.ch) > 0 {
			q := <-b.ch
			b.fn(q.payload, q.at)
		}
		if d != nil {
			b.fn(d.payload, d.at)
		}
	}
	b.mu.Unlock()
}

// Consume implements Consumer.Consume: it returns nil once the handoff is
// closed, or the link's loss.
func (b *Handoff) Consume(f func([]byte, int64)) error {
	b.mu.Lock()
	if b.used {
		b.mu.Unlock()
		return fmt.Errorf("%s: Consume called twice", b.cfg.Name)
	}
	b.used, b.fn = true, f
	b.on.Store(true)
	close(b.consuming)
	b.mu.Unlock()
	b.pass(nil)
	var err error
	select {
	case <-b.closed:
	case <-b.cfg.Lost:
		select {
		case <-b.closed:
		default:
			err = b.cfg.LostErr()
		}
	}
	b.mu.Lock()
	b.fn = nil
	b.on.Store(false)
	b.mu.Unlock()
	return err
}

// Receive implements Receiver.Receive. Messages that arrived before the
// link was lost are still returned; then the loss is.
func (b *Handoff) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	select {
	case d := <-b.ch:
		return b.place(d, buf)
	default:
	}
	select {
	case <-b.closed:
		return 0, time.Time{}, b.cfg.Closed
	case <-b.cfg.Lost:
		return 0, time.Time{}, b.cfg.LostErr()
	default:
	}
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		wait := time.Until(deadline)
		if wait <= 0 {
			return 0, time.Time{}, b.cfg.Timeout
		}
		b.timer.Reset(wait)
		defer b.timer.Stop()
		timeout = b.timer.C
	}
	select {
	case d := <-b.ch:
		return b.place(d, buf)
	case <-b.closed:
		return 0, time.Time{}, b.cfg.Closed
	case <-b.cfg.Lost:
		// A message may have been handed over just before the loss.
		select {
		case d := <-b.ch:
			return b.place(d, buf)
		default:
		}
		return 0, time.Time{}, b.cfg.LostErr()
	case <-timeout:
		return 0, time.Time{}, b.cfg.Timeout
	}
}

func (b *Handoff) place(d handed, buf []byte) (int, time.Time, error) {
	at := MonoTime(d.at)
	if len(d.payload) > len(buf) {
		return 0, at, fmt.Errorf("%s: a %d-byte message does not fit the %d-byte receive buffer", b.cfg.Name, len(d.payload), len(buf))
	}
	return copy(buf, d.payload), at, nil
}

// Queued is the number of messages waiting for Receive.
func (b *Handoff) Queued() int { return len(b.ch) }

// Dropped is the number of messages Deliver dropped on a full queue (Drop).
func (b *Handoff) Dropped() uint64 { return b.dropped.Load() }

// Close unblocks Receive, Consume and a waiting Deliver for good.
func (b *Handoff) Close() { b.once.Do(func() { close(b.closed) }) }
