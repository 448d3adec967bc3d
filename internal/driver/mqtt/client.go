package mqtt

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// client is one MQTT connection, of either protocol version (client311,
// client5). Reconnection is off in both: a lost connection ends the client,
// so that a dead broker is reported, not hidden behind retries.
type client interface {
	// publish hands payload to the library for topic at the link's QoS
	// and returns without waiting for an acknowledgement; acknowledgements
	// are counted by the ackTracker the client was made with, if any.
	// owned says that the caller never reuses payload (a received
	// message's), so that a library that writes later need not copy it.
	publish(topic string, payload []byte, owned bool) error
	// subscribe subscribes to topic at qos and calls h with each message's
	// payload, on the library's goroutine, in order. It returns once the
	// broker granted the subscription (SUBACK).
	subscribe(ctx context.Context, topic string, qos byte, h func(payload []byte)) error
	unsubscribe(ctx context.Context, topic string) error
	// done is closed when the connection was lost or closed; err then
	// says why.
	done() <-chan struct{}
	err() error
	close() error
	// facts describes the connection for SystemInfo (protocol, what the
	// broker declared in its CONNACK, TLS).
	facts() map[string]string
}

// connect opens a client of s's protocol version. acks, when non-nil,
// counts the acknowledgements of what it publishes.
func connect(ctx context.Context, s *settings, role string, acks *ackTracker) (client, error) {
	if s.version == v5 {
		return connect5(ctx, s, role, acks)
	}
	return connect311(ctx, s, role, acks)
}

// base is what both clients share: the end of the connection.
type base struct {
	s       *settings
	id      string
	lostCh  chan struct{}
	once    sync.Once
	lostErr error
	closing atomic.Bool
	acks    *ackTracker
	tls     string // the TLS version and cipher suite, "" over plain TCP
}

func newBase(s *settings, role string, acks *ackTracker) base {
	return base{s: s, id: s.clientID(role), lostCh: make(chan struct{}), acks: acks}
}

func (b *base) done() <-chan struct{} { return b.lostCh }

func (b *base) err() error {
	select {
	case <-b.lostCh:
		return b.lostErr
	default:
		return nil
	}
}

// opErr explains a failed operation (what, e.g. "publishing to t"),
// preferring the loss of the connection when it was lost.
func (b *base) opErr(what string, err error) error {
	if lerr := b.err(); lerr != nil {
		return lerr
	}
	return fmt.Errorf("mqtt: %s on %s: %w", what, b.s.redacted, err)
}

// lost records that the connection broke (not by close): err is what the
// library reported.
func (b *base) lost(err error) {
	if b.closing.Load() {
		return
	}
	b.finish(fmt.Errorf("mqtt: lost the connection to %s (%s, client %s): %w", b.s.redacted, b.s.protocol(), b.id, err))
}

// finish ends the client once: outstanding acknowledgements are refused
// with err.
func (b *base) finish(err error) {
	b.once.Do(func() {
		b.lostErr = err
		close(b.lostCh)
		if b.acks != nil {
			b.acks.failAll(err)
		}
	})
}

// facts describes the connection: protocol, client library, QoS, keep
// alive and TLS.
func (b *base) facts() map[string]string {
	lib := Library311
	if b.s.version == v5 {
		lib = Library5
	}
	m := map[string]string{
		"protocol":  b.s.protocol(),
		"client":    lib + " " + cmp.Or(buildDeps()[lib], "(unknown version)"),
		"qos":       strconv.Itoa(int(b.s.qos)),
		"keepalive": (time.Duration(b.s.keepAlive) * time.Second).String(),
	}
	if b.tls != "" {
		m["tls"] = b.tls
	}
	return m
}

// startClose marks a close by this end, so that the library's report of
// the closed connection is not taken for a loss.
func (b *base) startClose() bool {
	if b.closing.Swap(true) {
		return false
	}
	b.finish(fmt.Errorf("mqtt: connection to %s: %w", b.s.redacted, driver.ErrClosed))
	return true
}

// ackTracker counts the acknowledgements of a sender's messages: every
// message added is settled exactly once, acknowledged (nil) or refused.
// The client libraries report acknowledgements in the order the broker
// sent them, not by message, which is all counting needs.
type ackTracker struct {
	mu       sync.Mutex
	f        func(error)
	sent     uint64        // messages handed to the library
	settled  uint64        // messages whose acknowledgement or refusal is claimed
	reported uint64        // messages whose callback returned
	refused  uint64        // refusals since WaitAcks last returned
	refusal  error         // the first of them
	failed   error         // what ended the connection
	wake     chan struct{} // non-nil while WaitAcks waits
	timer    *time.Timer
}

func newAckTracker() *ackTracker {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &ackTracker{timer: t}
}

// OnAck registers f, called once per message when the broker acknowledged
// it (PUBACK at QoS 1, PUBCOMP at QoS 2) or refused it (an MQTT 5 reason
// code of 0x80 or more), or when the connection ended before; it is set
// before the first message.
func (a *ackTracker) OnAck(f func(error)) {
	a.mu.Lock()
	a.f = f
	a.mu.Unlock()
}

// add counts a message about to be handed to the library; it returns the
// error that ended the connection, if one did.
func (a *ackTracker) add() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failed != nil {
		return a.failed
	}
	a.sent++
	return nil
}

// unadd takes back a message whose publish failed: it was not sent, so it
// is not settled. It returns false when failAll already refused the
// message: then it counts as sent, refused by the lost connection.
func (a *ackTracker) unadd() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sent > a.settled {
		a.sent--
		a.wakeIfDone()
		return true
	}
	return false
}

// settle records the acknowledgement (err nil) or refusal of the oldest
// unsettled message.
func (a *ackTracker) settle(err error) {
	a.mu.Lock()
	if a.settled >= a.sent {
		a.mu.Unlock()
		return // already refused by failAll
	}
	a.settled++
	f := a.f
	a.mu.Unlock()
	a.report(f, 1, err)
}

// failAll refuses every unsettled message with err, and any later one.
func (a *ackTracker) failAll(err error) {
	a.mu.Lock()
	n := a.sent - a.settled
	a.settled = a.sent
	if a.failed == nil {
		a.failed = err
	}
	f := a.f
	a.mu.Unlock()
	a.report(f, n, err)
}

// report calls f for n messages, then counts them as reported, so that
// WaitAcks returns after the callbacks did.
func (a *ackTracker) report(f func(error), n uint64, err error) {
	if f != nil {
		for range n {
			f(err)
		}
	}
	a.mu.Lock()
	a.reported += n
	if err != nil && n > 0 {
		if a.refused == 0 {
			a.refusal = err
		}
		a.refused += n
	}
	a.wakeIfDone()
	a.mu.Unlock()
}

// wakeIfDone wakes WaitAcks when every message was reported; a.mu is held.
func (a *ackTracker) wakeIfDone() {
	if a.reported == a.sent && a.wake != nil {
		close(a.wake)
		a.wake = nil
	}
}

// WaitAcks blocks until every message sent so far was acknowledged or
// refused, or deadline passes (driver.AckSender); it returns an error when
// a message was refused since it last returned.
func (a *ackTracker) WaitAcks(deadline time.Time) error {
	for {
		a.mu.Lock()
		if a.reported == a.sent {
			refused, refusal, sent := a.refused, a.refusal, a.sent
			a.refused, a.refusal = 0, nil
			a.mu.Unlock()
			if refused > 0 {
				return fmt.Errorf("mqtt: %d of the %d messages sent were refused, the first: %w", refused, sent, refusal)
			}
			return nil
		}
		if a.wake == nil {
			a.wake = make(chan struct{})
		}
		wake := a.wake
		pending := a.sent - a.reported
		a.mu.Unlock()
		if deadline.IsZero() {
			<-wake
			continue
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return fmt.Errorf("mqtt: %d messages not acknowledged before the deadline: %w", pending, driver.ErrTimeout)
		}
		a.timer.Reset(wait)
		select {
		case <-wake:
			a.timer.Stop()
		case <-a.timer.C:
		}
	}
}
