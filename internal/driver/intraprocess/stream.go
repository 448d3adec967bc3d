package intraprocess

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

var (
	_ driver.StreamTransport = Transport{}
	_ driver.Subscriber      = (*subscriber)(nil)
	_ driver.Publisher       = (*publisher)(nil)
	_ driver.CounterReader   = (*subscriber)(nil)
)

// channel is one one-way link: a ring from its publisher to its
// subscriber, in the same table as the round-trip links.
type channel struct {
	name      string
	r         *ring
	published atomic.Bool
}

// streams holds the subscribers by name, under tableMu.
var streams = map[string]*channel{}

// Subscribe creates a subscriber named addr (empty or ending in ":0": a
// fresh name) with a ring of Options.QueueDepth messages.
func (Transport) Subscribe(_ context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	addr = freshName(addr, "intraprocess-stream")
	c := &channel{name: addr, r: newRing(queueDepth(opts), opts.LargestMessageOrDefault())}
	tableMu.Lock()
	defer tableMu.Unlock()
	if _, taken := streams[addr]; taken {
		return nil, fmt.Errorf("intraprocess: subscriber address %q is in use", addr)
	}
	streams[addr] = c
	return &subscriber{c: c, timer: stoppedTimer()}, nil
}

// Publish connects the one publisher of the subscriber named addr. A
// reliable publisher waits for room in a full ring; a best-effort one drops
// the message and counts it.
func (Transport) Publish(_ context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	tableMu.Lock()
	c := streams[addr]
	tableMu.Unlock()
	if c == nil {
		return nil, fmt.Errorf("intraprocess: no subscriber at %q", addr)
	}
	if !c.published.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("intraprocess: subscriber %q already has a publisher (its queue has one producer)", addr)
	}
	return &publisher{c: c, reliable: opts.Reliable}, nil
}

type subscriber struct {
	c     *channel
	timer *time.Timer
}

func (s *subscriber) Addr() string { return s.c.name }

// Receive copies the next message into buf; its arrival is when the
// subscriber found it in the ring.
func (s *subscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	msg, err := s.c.r.peek(deadline, s.timer)
	at := time.Now()
	if err != nil {
		return 0, at, err
	}
	defer s.c.r.release()
	if len(msg) > len(buf) {
		return 0, at, fmt.Errorf("intraprocess: message of %d bytes does not fit a %d-byte buffer", len(msg), len(buf))
	}
	return copy(buf, msg), at, nil
}

func (s *subscriber) Close() error {
	s.c.r.close()
	tableMu.Lock()
	if streams[s.c.name] == s.c {
		delete(streams, s.c.name)
	}
	tableMu.Unlock()
	return nil
}

func (s *subscriber) Counters() driver.Counters {
	return driver.Counters{Dropped: s.c.r.dropped.Load()}
}

type publisher struct {
	c        *channel
	reliable bool
}

func (p *publisher) Send(msg []byte) error { return p.c.r.push(msg, p.reliable) }

// Close ends the publisher; the subscriber stays until it is closed.
func (p *publisher) Close() error { return nil }
