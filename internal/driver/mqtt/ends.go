package mqtt

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Pinger publishes to <topic>/ping and receives the echoes from
// <topic>/pong. At QoS 1 and 2 it is an AckPinger.
type Pinger struct {
	c    client
	in   *driver.Handoff
	ping string
	info infoOnce
}

var (
	_ driver.Pinger        = (*Pinger)(nil)
	_ driver.CounterReader = (*Pinger)(nil)
	_ driver.InfoReporter  = (*Pinger)(nil)
)

// AckPinger is a Pinger at QoS 1 (its pings acknowledged by PUBACK) or 2
// (by PUBCOMP).
type AckPinger struct {
	*Pinger
	acks *ackTracker
}

var _ driver.AckSender = (*AckPinger)(nil)

// OnAck registers f, called once per ping when the broker acknowledged it
// or refused it (see AckPublisher.OnAck).
func (p *AckPinger) OnAck(f func(err error)) { p.acks.onAck(f) }

// WaitAcks blocks until every ping sent so far was acknowledged or refused,
// or deadline passes.
func (p *AckPinger) WaitAcks(deadline time.Time) error { return p.acks.wait(deadline) }

func dial(ctx context.Context, s *settings) (driver.Pinger, error) {
	var acks *ackTracker
	if s.qos > 0 {
		acks = newAckTracker()
	}
	c, err := connect(ctx, s, rolePinger, acks)
	if err != nil {
		return nil, err
	}
	pong := s.topic + PongSuffix
	p := &Pinger{c: c, in: newInbox(s, c, pong), ping: s.topic + PingSuffix}
	p.info.s = s
	if err := c.subscribe(ctx, pong, s.qos, p.in.Deliver); err != nil {
		c.close()
		return nil, err
	}
	if acks != nil {
		return &AckPinger{Pinger: p, acks: acks}, nil
	}
	return p, nil
}

// Send publishes msg to <topic>/ping.
func (p *Pinger) Send(msg []byte) error { return p.c.publish(p.ping, msg, false) }

// Receive returns the next echo and when the library handed it over.
func (p *Pinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return p.in.Receive(buf, deadline)
}

// Counters reports echoes dropped at QoS 0 because Receive fell behind.
func (p *Pinger) Counters() driver.Counters {
	return driver.Counters{Dropped: p.in.Dropped()}
}

// SystemInfo describes the broker and the connection.
func (p *Pinger) SystemInfo() driver.SystemInfo { return p.info.get(p.c) }

// Close disconnects; a blocked Receive returns an error wrapping
// driver.ErrClosed.
func (p *Pinger) Close() error {
	p.in.Close()
	return p.c.close()
}

// Echoer republishes every message of <topic>/ping, unchanged, to
// <topic>/pong at the link's QoS, from the library's message handler.
type Echoer struct {
	c      client
	delay  *driver.Delayer // nil: reply at once
	addr   string
	pong   string
	errs   atomic.Uint64
	closed chan struct{}
	once   sync.Once
}

var (
	_ driver.Echoer        = (*Echoer)(nil)
	_ driver.CounterReader = (*Echoer)(nil)
)

func listen(ctx context.Context, s *settings, delay driver.Delay) (*Echoer, error) {
	c, err := connect(ctx, s, roleEcho, nil)
	if err != nil {
		return nil, err
	}
	e := &Echoer{c: c, addr: s.raw, pong: s.topic + PongSuffix, closed: make(chan struct{}), delay: delay.NewDelayer()}
	if err := c.subscribe(ctx, s.topic+PingSuffix, s.qos, e.echo); err != nil {
		c.close()
		return nil, err
	}
	return e, nil
}

// echo runs on the library's goroutine for each message.
func (e *Echoer) echo(payload []byte) {
	e.delay.Wait()
	if err := e.c.publish(e.pong, payload, true); err != nil {
		e.errs.Add(1)
	}
}

// Addr returns the broker URL the echoer was given: pingers dial it.
func (e *Echoer) Addr() string { return e.addr }

// Serve echoes until ctx is done or Close is called (it returns nil), or
// the connection to the broker is lost (it returns why).
func (e *Echoer) Serve(ctx context.Context) error {
	select {
	case <-ctx.Done():
		e.Close()
		return nil
	case <-e.closed:
		return nil
	case <-e.c.done():
		select {
		case <-e.closed:
			return nil
		default:
		}
		return e.c.err()
	}
}

// Counters reports messages the echoer failed to republish.
func (e *Echoer) Counters() driver.Counters {
	return driver.Counters{Errors: e.errs.Load()}
}

// Close disconnects the echoer.
func (e *Echoer) Close() error {
	var err error
	e.once.Do(func() {
		close(e.closed)
		err = e.c.close()
	})
	return err
}

// Subscriber receives the messages of the link's topic.
type Subscriber struct {
	c    client
	in   *driver.Handoff
	addr string
	info infoOnce
}

var (
	_ driver.Subscriber    = (*Subscriber)(nil)
	_ driver.Consumer      = (*Subscriber)(nil)
	_ driver.CounterReader = (*Subscriber)(nil)
	_ driver.InfoReporter  = (*Subscriber)(nil)
)

func subscribe(ctx context.Context, s *settings) (*Subscriber, error) {
	c, err := connect(ctx, s, roleSubscriber, nil)
	if err != nil {
		return nil, err
	}
	sub := &Subscriber{c: c, in: newInbox(s, c, s.topic), addr: s.raw}
	sub.info.s = s
	if err := c.subscribe(ctx, s.topic, s.qos, sub.in.Deliver); err != nil {
		c.close()
		return nil, err
	}
	return sub, nil
}

// Addr returns the broker URL: publishers are given it.
func (s *Subscriber) Addr() string { return s.addr }

// Receive returns the next message and when the library handed it over.
func (s *Subscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return s.in.Receive(buf, deadline)
}

// Consume calls f with each message on the library's handler goroutine,
// from the first queued for Receive on (driver.Consumer); at every QoS a
// slow f holds back the library (nothing is dropped in this end). It
// returns nil once Close was called, or why the connection was lost.
func (s *Subscriber) Consume(f func(msg []byte, at time.Time)) error { return s.in.Consume(f) }

// Counters reports messages dropped at QoS 0 because Receive fell behind.
func (s *Subscriber) Counters() driver.Counters {
	return driver.Counters{Dropped: s.in.Dropped()}
}

// SystemInfo describes the broker and the connection.
func (s *Subscriber) SystemInfo() driver.SystemInfo { return s.info.get(s.c) }

// Close disconnects.
func (s *Subscriber) Close() error {
	s.in.Close()
	return s.c.close()
}

// Publisher publishes to the link's topic. At QoS 0 it is best effort; at
// QoS 1 and 2 it is an AckPublisher.
type Publisher struct {
	c     client
	topic string
	info  infoOnce
}

var (
	_ driver.Publisher    = (*Publisher)(nil)
	_ driver.InfoReporter = (*Publisher)(nil)
)

// AckPublisher is a Publisher at QoS 1 (acknowledged by PUBACK) or 2
// (by PUBCOMP).
type AckPublisher struct {
	Publisher
	acks *ackTracker
}

var _ driver.AckSender = (*AckPublisher)(nil)

func publish(ctx context.Context, s *settings) (driver.Publisher, error) {
	var acks *ackTracker
	if s.qos > 0 {
		acks = newAckTracker()
	}
	c, err := connect(ctx, s, rolePublisher, acks)
	if err != nil {
		return nil, err
	}
	if acks == nil {
		p := &Publisher{c: c, topic: s.topic}
		p.info.s = s
		return p, nil
	}
	p := &AckPublisher{Publisher: Publisher{c: c, topic: s.topic}, acks: acks}
	p.info.s = s
	return p, nil
}

// Send publishes msg; it does not wait for an acknowledgement.
func (p *Publisher) Send(msg []byte) error { return p.c.publish(p.topic, msg, false) }

// SystemInfo describes the broker and the connection.
func (p *Publisher) SystemInfo() driver.SystemInfo { return p.info.get(p.c) }

// Close disconnects. Messages not yet acknowledged are refused.
func (p *Publisher) Close() error { return p.c.close() }

// OnAck registers f, called once per message when the broker acknowledged
// it (PUBACK at QoS 1, PUBCOMP at QoS 2) or refused it (an MQTT 5 reason
// code of 0x80 or more), or when the connection ended before.
func (p *AckPublisher) OnAck(f func(err error)) { p.acks.onAck(f) }

// WaitAcks blocks until every message sent so far was acknowledged or
// refused, or deadline passes.
func (p *AckPublisher) WaitAcks(deadline time.Time) error { return p.acks.wait(deadline) }
