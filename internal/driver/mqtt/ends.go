package mqtt

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// receiver is what a Pinger and a Subscriber share: a connection
// subscribed to a topic, whose messages wait for Receive.
type receiver struct {
	c    client
	in   *driver.Handoff
	info func() meta.SystemInfo
}

// receive connects role's client and subscribes it to topic.
func receive(ctx context.Context, s *settings, role string, acks *ackTracker, topic string) (*receiver, error) {
	c, err := connect(ctx, s, role, acks)
	if err != nil {
		return nil, err
	}
	r := &receiver{c: c, in: newInbox(s, c, topic), info: infoOnce(s, c)}
	if err := c.subscribe(ctx, topic, s.qos, r.in.Deliver); err != nil {
		c.close()
		return nil, err
	}
	return r, nil
}

// Receive returns the next message and when the library handed it over.
func (r *receiver) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return r.in.Receive(buf, deadline)
}

// Counters reports messages dropped at QoS 0 because Receive fell behind.
func (r *receiver) Counters() driver.Counters {
	return driver.Counters{Dropped: r.in.Dropped()}
}

// SystemInfo describes the broker and the connection.
func (r *receiver) SystemInfo() meta.SystemInfo { return r.info() }

// Close disconnects; a blocked Receive returns an error wrapping
// driver.ErrClosed.
func (r *receiver) Close() error {
	r.in.Close()
	return r.c.close()
}

// Pinger publishes to <topic>/ping and receives the echoes from
// <topic>/pong. At QoS 1 and 2 it is an AckPinger.
type Pinger struct {
	*receiver
	ping string
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
	*ackTracker
}

var _ driver.AckSender = (*AckPinger)(nil)

// Dial connects a pinger to the broker at addr: it publishes to
// <topic>/ping and receives from <topic>/pong.
func (Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	s, err := newSettings(addr, opts)
	if err != nil {
		return nil, err
	}
	var acks *ackTracker
	if s.qos > 0 {
		acks = newAckTracker()
	}
	r, err := receive(ctx, s, rolePinger, acks, s.topic+PongSuffix)
	if err != nil {
		return nil, err
	}
	p := &Pinger{receiver: r, ping: s.topic + PingSuffix}
	if acks != nil {
		return &AckPinger{Pinger: p, ackTracker: acks}, nil
	}
	return p, nil
}

// Send publishes msg to <topic>/ping.
func (p *Pinger) Send(msg []byte) error { return p.c.publish(p.ping, msg, false) }

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

// Listen connects the echoer to the broker at addr: it subscribes to
// <topic>/ping and republishes every message unchanged to <topic>/pong.
func (Transport) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	s, err := newSettings(addr, opts)
	if err != nil {
		return nil, err
	}
	c, err := connect(ctx, s, roleEcho, nil)
	if err != nil {
		return nil, err
	}
	e := &Echoer{c: c, addr: s.raw, pong: s.topic + PongSuffix, closed: make(chan struct{}), delay: opts.EchoDelay.NewDelayer()}
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
	*receiver
	addr string
}

var (
	_ driver.Subscriber    = (*Subscriber)(nil)
	_ driver.Consumer      = (*Subscriber)(nil)
	_ driver.CounterReader = (*Subscriber)(nil)
	_ driver.InfoReporter  = (*Subscriber)(nil)
)

// CanGroup accepts a shared subscription (Options.Group) at MQTT 5.
func (Transport) CanGroup(opts driver.Options) error {
	if opts.Params[ParamVersion] != "5" {
		return errShared
	}
	return nil
}

// Subscribe connects a subscriber of opts.Topic to the broker at addr.
func (Transport) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	s, err := newSettings(addr, opts)
	if err != nil {
		return nil, err
	}
	r, err := receive(ctx, s, roleSubscriber, nil, s.topic)
	if err != nil {
		return nil, err
	}
	return &Subscriber{receiver: r, addr: s.raw}, nil
}

// Addr returns the broker URL: publishers are given it.
func (s *Subscriber) Addr() string { return s.addr }

// Consume calls f with each message on the library's handler goroutine,
// from the first queued for Receive on (driver.Consumer); at every QoS a
// slow f holds back the library (nothing is dropped in this end). It
// returns nil once Close was called, or why the connection was lost.
func (s *Subscriber) Consume(f func(msg []byte, at int64)) error { return s.in.Consume(f) }

// Publisher publishes to the link's topic. At QoS 0 it is best effort; at
// QoS 1 and 2 it is an AckPublisher.
type Publisher struct {
	c     client
	topic string
	info  func() meta.SystemInfo
}

var (
	_ driver.Publisher    = (*Publisher)(nil)
	_ driver.InfoReporter = (*Publisher)(nil)
)

// AckPublisher is a Publisher at QoS 1 (acknowledged by PUBACK) or 2
// (by PUBCOMP).
type AckPublisher struct {
	Publisher
	*ackTracker
}

var _ driver.AckSender = (*AckPublisher)(nil)

// Publish connects a publisher to opts.Topic at the broker at addr. At
// QoS 1 and 2 it is a driver.AckSender.
func (Transport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	s, err := newSettings(addr, opts)
	if err != nil {
		return nil, err
	}
	var acks *ackTracker
	if s.qos > 0 {
		acks = newAckTracker()
	}
	c, err := connect(ctx, s, rolePublisher, acks)
	if err != nil {
		return nil, err
	}
	if acks == nil {
		return &Publisher{c: c, topic: s.topic, info: infoOnce(s, c)}, nil
	}
	return &AckPublisher{Publisher: Publisher{c: c, topic: s.topic, info: infoOnce(s, c)}, ackTracker: acks}, nil
}

// Send publishes msg; it does not wait for an acknowledgement.
func (p *Publisher) Send(msg []byte) error { return p.c.publish(p.topic, msg, false) }

// SystemInfo describes the broker and the connection.
func (p *Publisher) SystemInfo() meta.SystemInfo { return p.info() }

// Close disconnects. Messages not yet acknowledged are refused.
func (p *Publisher) Close() error { return p.c.close() }
