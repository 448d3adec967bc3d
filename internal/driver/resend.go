package driver

import (
	"sync/atomic"
	"time"
)

// Resender is the retransmission of a reliable datagram pinger (see the
// package documentation): it keeps a copy of the last message sent and
// tells the pinger's Receive how long to wait and when to resend it.
//
// The zero Resender is disabled, as a best-effort pinger wants: Sent keeps
// nothing, Wait returns the deadline and Due reports false. Init enables
// it. A pinger's Receive then reads
//
//	for {
//		n, err := recv(buf, r.Wait(deadline))
//		if !timedOut(err) {
//			return n, err
//		}
//		if !r.Due() {
//			return 0, err // the deadline passed
//		}
//		send(r.Resend())
//	}
//
// Count may be read from any goroutine; the other methods belong to the
// pinger's goroutine. Nothing allocates once the copy has grown to the
// largest message.
type Resender struct {
	rto        time.Duration
	maxRetries int

	last    []byte    // copy of the last message
	n       int       // its length; -1 when nothing is to be resent
	sentAt  time.Time // when it was last (re)sent
	resends int       // resends of the last message so far
	armed   bool      // the last Wait ends at the resend time, not the deadline
	enabled bool

	count atomic.Uint64 // resends of all messages
}

// Init enables r for a pinger dialled with opts: the last message is resent
// when no echo came within opts.RetransmitTimeout, at most opts.MaxRetries
// times; defaultRTO and defaultRetries stand in for values that are not
// positive. size is the largest message expected, so that Sent need not
// allocate.
func (r *Resender) Init(opts Options, defaultRTO time.Duration, defaultRetries, size int) {
	r.rto = opts.RetransmitTimeout
	if r.rto <= 0 {
		r.rto = defaultRTO
	}
	r.maxRetries = opts.MaxRetries
	if r.maxRetries <= 0 {
		r.maxRetries = defaultRetries
	}
	r.last = make([]byte, size)
	r.n = -1
	r.armed = false
	r.enabled = true
}

// Sent records that msg was just sent: r copies it, and its resends start
// from zero and from now.
func (r *Resender) Sent(msg []byte) {
	if !r.enabled {
		return
	}
	if len(msg) > len(r.last) {
		r.last = make([]byte, len(msg))
	}
	r.n = copy(r.last, msg)
	r.resends = 0
	r.sentAt = time.Now()
}

// Wait returns when the pinger's next receive should give up: the time the
// last message is due for a resend, or deadline if that comes first (a zero
// deadline is never) or no resend is left. Due then says which it was.
func (r *Resender) Wait(deadline time.Time) time.Time {
	r.armed = false
	if !r.enabled || r.n < 0 || r.resends >= r.maxRetries {
		return deadline
	}
	if at := r.sentAt.Add(r.rto); deadline.IsZero() || at.Before(deadline) {
		r.armed = true
		return at
	}
	return deadline
}

// Due reports whether a receive that timed out at the last Wait's time
// should resend (through Resend) rather than report the timeout.
func (r *Resender) Due() bool { return r.armed }

// Resend counts a resend of the last message, made now, and returns the
// message, valid until the next Sent. Call it only when Due reports true.
func (r *Resender) Resend() []byte {
	r.armed = false
	r.resends++
	r.sentAt = time.Now()
	r.count.Add(1)
	return r.last[:r.n]
}

// Count is the number of resends so far, of all messages.
func (r *Resender) Count() uint64 { return r.count.Load() }
