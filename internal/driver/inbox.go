package driver

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Inbox is the receive queue of a subscriber whose messages are read by
// goroutines of its own (one per publisher connection, or a client
// library's delivery callback): each message is stamped when it arrived
// and queued in one of a fixed number of buffers, and Receive hands them
// out in order. When every buffer is taken the readers wait, which holds
// the publishers back through the link's own flow control. Nothing is
// allocated after NewInbox.
type Inbox struct {
	name  string
	ready chan inboxMessage
	free  chan []byte
	done  chan struct{}
	once  sync.Once
}

type inboxMessage struct {
	buf []byte
	n   int
	at  time.Time
}

// NewInbox returns an inbox of depth buffers of size bytes; name prefixes
// its errors.
func NewInbox(name string, depth, size int) *Inbox {
	q := &Inbox{name: name, ready: make(chan inboxMessage, depth), free: make(chan []byte, depth), done: make(chan struct{})}
	for range depth {
		q.free <- make([]byte, size)
	}
	return q
}

// Buffer returns a free buffer for the next message, waiting for one, or
// false once the inbox is closed.
func (q *Inbox) Buffer() ([]byte, bool) {
	select {
	case <-q.done:
		return nil, false
	default:
	}
	select {
	case b := <-q.free:
		return b, true
	case <-q.done:
		return nil, false
	}
}

// Put queues the first n bytes of buf, a buffer from Buffer, as a message
// that arrived at at. It reports false once the inbox is closed.
func (q *Inbox) Put(buf []byte, n int, at time.Time) bool {
	select {
	case q.ready <- inboxMessage{buf: buf, n: n, at: at}:
		return true
	case <-q.done:
		return false
	}
}

// Release gives back a buffer from Buffer that was not Put.
func (q *Inbox) Release(buf []byte) { q.free <- buf }

// Fill queues each message read reads into a free buffer, with the time it
// arrived, until read fails or the inbox is closed: a reader that failed
// (a publisher that left) ends, but one whose deadline passed reads again.
func (q *Inbox) Fill(read func(buf []byte) (int, time.Time, error)) {
	for {
		buf, ok := q.Buffer()
		if !ok {
			return
		}
		n, at, err := read(buf)
		if err != nil {
			q.Release(buf)
			if errors.Is(err, ErrTimeout) {
				continue
			}
			return
		}
		if !q.Put(buf, n, at) {
			return
		}
	}
}

// Receive copies the next message into buf and returns when it arrived.
// It returns an error wrapping ErrTimeout when none came before deadline (a
// zero deadline waits for ever), and one wrapping ErrClosed once the inbox
// is closed.
func (q *Inbox) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case m := <-q.ready:
		defer func() { q.free <- m.buf }()
		if m.n > len(buf) {
			return 0, m.at, fmt.Errorf("%s: a %d-byte message does not fit in a %d-byte buffer", q.name, m.n, len(buf))
		}
		return copy(buf, m.buf[:m.n]), m.at, nil
	case <-q.done:
		return 0, time.Now(), fmt.Errorf("%s: %w", q.name, ErrClosed)
	case <-timeout:
		return 0, time.Now(), fmt.Errorf("%s: nothing received: %w", q.name, ErrTimeout)
	}
}

// Done is closed when the inbox is.
func (q *Inbox) Done() <-chan struct{} { return q.done }

// Close unblocks Receive, Buffer and Put for good.
func (q *Inbox) Close() { q.once.Do(func() { close(q.done) }) }
