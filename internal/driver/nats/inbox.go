package nats

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"
)

// defaultInbox is the queue of a core subscriber for Receive when
// Options.QueueDepth is zero. The handler waits when it is full; behind it
// nats.go's own pending list holds up to its pending limits (500,000
// messages by default) before it drops, counted as a slow consumer.
const defaultInbox = 1024

// delivery is one message as nats.go's handler got it: the payload (nats.go
// allocates it per message) and when the handler was called.
type delivery struct {
	payload []byte
	at      time.Time
}

// inbox is the receiving side of a core subscriber. nats.go calls handle
// for each message on the subscription's own goroutine, in order; handle
// queues it for Receive or, once consume was called, calls the consumer
// itself, after what was queued before.
type inbox struct {
	c       *conn
	subject string
	ch      chan delivery
	closed  chan struct{}
	once    sync.Once
	timer   *time.Timer // used by the one goroutine that receives

	consuming chan struct{} // closed by consume
	on        atomic.Bool   // fn is set: handle calls it
	mu        sync.Mutex    // held while fn runs, so that consume can end it
	fn        func([]byte, time.Time)
	used      bool // consume was called
}

func newInbox(c *conn, subject string) *inbox {
	depth := c.depth
	if depth <= 0 {
		depth = defaultInbox
	}
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &inbox{c: c, subject: subject, ch: make(chan delivery, depth), closed: make(chan struct{}), timer: t, consuming: make(chan struct{})}
}

// handle is nats.go's message handler: it takes the arrival time first.
func (b *inbox) handle(m *natsgo.Msg) {
	d := delivery{payload: m.Data, at: monoNow()}
	if b.on.Load() {
		b.pass(&d)
		return
	}
	select {
	case b.ch <- d:
	case <-b.closed:
		return
	case <-b.consuming:
		b.pass(&d)
		return
	}
	if b.on.Load() {
		// consume began while d was queued: hand it over now rather
		// than with the next message.
		b.pass(nil)
	}
}

// pass gives the consumer what is queued, then d (when not nil). handle is
// the only producer, so the queue holds older messages only.
func (b *inbox) pass(d *delivery) {
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

// consume implements driver.Consumer.Consume.
func (b *inbox) consume(f func([]byte, time.Time)) error {
	b.mu.Lock()
	if b.used {
		b.mu.Unlock()
		return errors.New("nats: Consume called twice")
	}
	b.used, b.fn = true, f
	b.on.Store(true)
	close(b.consuming)
	b.mu.Unlock()
	b.pass(nil)
	select {
	case <-b.closed:
	case <-b.c.closedCh:
	}
	b.mu.Lock()
	b.fn = nil
	b.on.Store(false)
	b.mu.Unlock()
	if b.c.closing.Load() {
		return nil
	}
	return b.c.lost()
}

// receive implements driver.Receiver.Receive. Messages that arrived before
// the connection was lost are still returned; then the loss is.
func (b *inbox) receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	select {
	case d := <-b.ch:
		return b.place(d, buf)
	default:
	}
	select {
	case <-b.closed:
		return 0, time.Time{}, b.c.lost()
	case <-b.c.closedCh:
		return 0, time.Time{}, b.c.lost()
	default:
	}
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		wait := time.Until(deadline)
		if wait <= 0 {
			return 0, time.Time{}, timeoutErr(b.subject)
		}
		b.timer.Reset(wait)
		defer b.timer.Stop()
		timeout = b.timer.C
	}
	select {
	case d := <-b.ch:
		return b.place(d, buf)
	case <-b.closed:
		return 0, time.Time{}, b.c.lost()
	case <-b.c.closedCh:
		// A message may have been handed over just before the loss.
		select {
		case d := <-b.ch:
			return b.place(d, buf)
		default:
		}
		return 0, time.Time{}, b.c.lost()
	case <-timeout:
		return 0, time.Time{}, timeoutErr(b.subject)
	}
}

func (b *inbox) place(d delivery, buf []byte) (int, time.Time, error) {
	if len(d.payload) > len(buf) {
		return 0, d.at, fmt.Errorf("nats: a %d-byte message on %s does not fit the %d-byte buffer", len(d.payload), b.subject, len(buf))
	}
	return copy(buf, d.payload), d.at, nil
}

// close unblocks Receive, Consume and a waiting handler.
func (b *inbox) close() {
	b.once.Do(func() { close(b.closed) })
}

// monoBase anchors monoNow.
var monoBase = time.Now()

// monoNow is time.Now read from the monotonic clock alone (its wall part
// follows the monotonic clock from monoBase): half the cost of time.Now,
// which also reads the wall clock, for a stamp taken per message at
// hundreds of thousands of messages per second. Latencies are differences
// of monotonic readings either way.
func monoNow() time.Time { return monoBase.Add(time.Since(monoBase)) }
