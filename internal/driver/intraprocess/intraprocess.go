package intraprocess

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// DefaultQueueDepth is the ring size in messages when Options.QueueDepth is 0.
const DefaultQueueDepth = 16

func init() { driver.Register(Transport{}) }

// Transport is the in-process transport, registered as driver.Intraprocess.
type Transport struct{}

// MaxMessage is the largest message: each of a link's two rings holds
// QueueDepth slots of Options.LargestMessage bytes, allocated up front.
const MaxMessage = 16 << 20

var (
	_ driver.Transport     = Transport{}
	_ driver.SizeLimiter   = Transport{}
	_ driver.Pinger        = (*pinger)(nil)
	_ driver.Echoer        = (*echoer)(nil)
	_ driver.CounterReader = (*pinger)(nil)
	_ driver.CounterReader = (*echoer)(nil)
)

var (
	tableMu sync.Mutex
	table   = map[string]*link{}
	nextID  atomic.Uint64
)

// link is one echoer with the rings to and from it.
type link struct {
	name     string
	reliable bool
	ping     *ring // pinger → echoer
	pong     *ring // echoer → pinger
	dialed   atomic.Bool
}

// Counters counts the messages both rings dropped, for either end.
func (l *link) Counters() driver.Counters {
	return driver.Counters{Dropped: l.ping.dropped.Load() + l.pong.dropped.Load()}
}

// Close closes the link, from either end.
func (l *link) Close() error {
	l.ping.close()
	l.pong.close()
	tableMu.Lock()
	if table[l.name] == l {
		delete(table, l.name)
	}
	tableMu.Unlock()
	return nil
}

// Name returns driver.Intraprocess.
func (Transport) Name() string { return driver.Intraprocess }

// MessageLimit returns MaxMessage.
func (Transport) MessageLimit(driver.Options) int { return MaxMessage }

// Capabilities: both ends live in one process, and the echo applies
// Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{ProcessBound: true, EchoDelay: true}
}

// Listen creates an echoer named addr.
func (Transport) Listen(_ context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	depth, max := queueDepth(opts), opts.LargestMessageOrDefault()
	addr = freshName(addr, "intraprocess")
	l := &link{name: addr, reliable: opts.Reliable, ping: newRing(depth, max), pong: newRing(depth, max)}
	tableMu.Lock()
	defer tableMu.Unlock()
	if _, taken := table[addr]; taken {
		return nil, fmt.Errorf("intraprocess: address %q is in use", addr)
	}
	table[addr] = l
	return &echoer{link: l, timer: stoppedTimer(), delay: opts.EchoDelay.NewDelayer()}, nil
}

// Dial connects a pinger to the echoer named addr. Each echoer takes one
// pinger.
func (Transport) Dial(_ context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	tableMu.Lock()
	l := table[addr]
	tableMu.Unlock()
	if l == nil {
		return nil, fmt.Errorf("intraprocess: no echoer at %q", addr)
	}
	if !l.dialed.CompareAndSwap(false, true) {
		return nil, fmt.Errorf("intraprocess: echoer %q already has a pinger", addr)
	}
	return &pinger{link: l, timer: stoppedTimer()}, nil
}

// queueDepth is a ring's size in messages.
func queueDepth(opts driver.Options) int {
	if opts.QueueDepth <= 0 {
		return DefaultQueueDepth
	}
	return opts.QueueDepth
}

// freshName is addr, or a fresh name when addr is empty or ends in ":0".
func freshName(addr, kind string) string {
	if addr == "" || strings.HasSuffix(addr, ":0") {
		return fmt.Sprintf("%s%s-%d", strings.TrimSuffix(addr, ":0"), kind, nextID.Add(1))
	}
	return addr
}

func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

type pinger struct {
	*link
	timer *time.Timer
}

func (p *pinger) Send(msg []byte) error {
	return p.ping.push(msg, p.reliable)
}

func (p *pinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := p.receive(buf, deadline)
	return n, time.Now(), err
}

func (p *pinger) receive(buf []byte, deadline time.Time) (int, error) {
	msg, err := p.pong.peek(deadline, p.timer)
	if err != nil {
		return 0, err
	}
	defer p.pong.release()
	if len(msg) > len(buf) {
		return 0, fmt.Errorf("intraprocess: message of %d bytes does not fit a %d-byte buffer", len(msg), len(buf))
	}
	return copy(buf, msg), nil
}

type echoer struct {
	*link
	timer *time.Timer
	delay *driver.Delayer // nil: reply at once
}

func (e *echoer) Addr() string { return e.name }

func (e *echoer) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.Close() })
	defer stop()
	for {
		msg, err := e.ping.peek(time.Time{}, e.timer)
		if err != nil {
			if ctx.Err() != nil || e.ping.closed.Load() {
				return nil
			}
			return err
		}
		e.delay.Wait()
		err = e.pong.push(msg, e.reliable)
		e.ping.release()
		if err != nil {
			if ctx.Err() != nil || e.pong.closed.Load() {
				return nil
			}
			return err
		}
	}
}
