package mqtt

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// delivery is one message as the client library handed it over: the
// payload (owned by this end: both libraries allocate it per packet) and
// when the message handler was called.
type delivery struct {
	payload []byte
	at      time.Time
}

// inbox carries messages from the client library's handler to Receive. At
// QoS 0 a full inbox drops the message (counted); at QoS 1 and 2 the
// handler waits, which holds back the library, the broker's flow control
// and so the sender. Once consume was called the handler calls the
// consumer itself, after what was queued before.
type inbox struct {
	ch      chan delivery
	block   bool
	closed  chan struct{}
	once    sync.Once
	lost    <-chan struct{} // closed when the connection is lost
	lostErr func() error
	dropped atomic.Uint64

	timer      *time.Timer // used by the one goroutine that receives
	errTimeout error
	errClosed  error

	consuming chan struct{} // closed by consume
	on        atomic.Bool   // fn is set: the handler calls it
	mu        sync.Mutex    // held while fn runs, so that consume can end it
	fn        func([]byte, time.Time)
	used      bool // consume was called
}

func newInbox(depth int, block bool, c client, topic string) *inbox {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &inbox{
		ch:         make(chan delivery, depth),
		block:      block,
		closed:     make(chan struct{}),
		lost:       c.done(),
		lostErr:    c.err,
		timer:      t,
		errTimeout: fmt.Errorf("mqtt: nothing arrived on %s before the deadline: %w", topic, driver.ErrTimeout),
		errClosed:  fmt.Errorf("mqtt: receiving from %s: %w", topic, driver.ErrClosed),
		consuming:  make(chan struct{}),
	}
}

// deliver is the message handler's part: it runs on the library's
// goroutine and takes the arrival time first.
func (b *inbox) deliver(payload []byte) {
	d := delivery{payload: payload, at: monoNow()}
	if b.on.Load() {
		b.pass(&d)
		return
	}
	if !b.block {
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
		// consume began while d was queued: hand it over now rather
		// than with the next message.
		b.pass(nil)
	}
}

// pass gives the consumer what is queued, then d (when not nil). The
// handler is the only producer, so the queue holds older messages only.
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
		return errors.New("mqtt: Consume called twice")
	}
	b.used, b.fn = true, f
	b.on.Store(true)
	close(b.consuming)
	b.mu.Unlock()
	b.pass(nil)
	var err error
	select {
	case <-b.closed:
	case <-b.lost:
		select {
		case <-b.closed:
		default:
			err = b.lostErr()
		}
	}
	b.mu.Lock()
	b.fn = nil
	b.on.Store(false)
	b.mu.Unlock()
	return err
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
		return 0, time.Time{}, b.errClosed
	case <-b.lost:
		return 0, time.Time{}, b.lostErr()
	default:
	}
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		wait := time.Until(deadline)
		if wait <= 0 {
			return 0, time.Time{}, b.errTimeout
		}
		b.timer.Reset(wait)
		defer b.timer.Stop()
		timeout = b.timer.C
	}
	select {
	case d := <-b.ch:
		return b.place(d, buf)
	case <-b.closed:
		return 0, time.Time{}, b.errClosed
	case <-b.lost:
		// A message may have been handed over just before the loss.
		select {
		case d := <-b.ch:
			return b.place(d, buf)
		default:
		}
		return 0, time.Time{}, b.lostErr()
	case <-timeout:
		return 0, time.Time{}, b.errTimeout
	}
}

func (b *inbox) place(d delivery, buf []byte) (int, time.Time, error) {
	if len(d.payload) > len(buf) {
		return 0, d.at, fmt.Errorf("mqtt: a %d-byte message does not fit the %d-byte receive buffer", len(d.payload), len(buf))
	}
	return copy(buf, d.payload), d.at, nil
}

// close unblocks Receive and a waiting handler.
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
