package nats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	natsgo "github.com/nats-io/nats.go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// coreRecv is an end's connection and its core NATS subscription.
type coreRecv struct {
	*conn
	sub *natsgo.Subscription
}

// subscribe subscribes to subject, in the connection's queue group if it
// has one, synchronously when h is nil, with at most pending messages
// waiting (0: nats.go's limit, -1: none), and waits until the server has
// the subscription, so that nothing published after it returns is missed.
func (c *conn) subscribe(subject string, pending int, h natsgo.MsgHandler) (*natsgo.Subscription, error) {
	var sub *natsgo.Subscription
	var err error
	if h == nil {
		sub, err = c.nc.QueueSubscribeSync(subject, c.group)
	} else {
		sub, err = c.nc.QueueSubscribe(subject, c.group, h)
	}
	if err == nil && pending != 0 {
		err = sub.SetPendingLimits(pending, -1)
	}
	if err == nil {
		err = c.nc.Flush()
	}
	return sub, err
}

// subscribeEnd subscribes an end to subject (see subscribe) with its
// queue depth as the limit; a failure closes the connection.
func subscribeEnd(c *conn, subject string, h natsgo.MsgHandler) (*natsgo.Subscription, error) {
	sub, err := c.subscribe(subject, max(c.depth, 0), h)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("nats: %s subscribing to %s on %s: %w", c.role, subject, c.redacted, err)
	}
	return sub, nil
}

// Counters reports messages nats.go dropped because they arrived faster
// than they were received (slow consumer), and asynchronous errors.
func (r *coreRecv) Counters() driver.Counters {
	d, _ := r.sub.Dropped()
	return driver.Counters{Dropped: uint64(max(d, 0)), Errors: r.errs.Load()}
}

// corePinger publishes on <topic>.ping and receives <topic>.pong.
type corePinger struct {
	coreRecv
	ping string
}

// SystemInfo describes the server.
func (p *corePinger) SystemInfo() meta.SystemInfo { return p.info() }

var (
	_ driver.Pinger        = (*corePinger)(nil)
	_ driver.CounterReader = (*corePinger)(nil)
	_ driver.InfoReporter  = (*corePinger)(nil)
)

func dialCore(c *conn, topic string) (*corePinger, error) {
	sub, err := subscribeEnd(c, topic+PongSuffix, nil)
	if err != nil {
		return nil, err
	}
	return &corePinger{coreRecv: coreRecv{conn: c, sub: sub}, ping: topic + PingSuffix}, nil
}

// Send publishes msg on <topic>.ping.
func (p *corePinger) Send(msg []byte) error { return p.publish(p.ping, msg) }

// Receive returns the next message on <topic>.pong and when nats.go
// handed it over. It waits on the subscription's own channel (a
// synchronous subscription), so the message is handed over by nats.go's
// reader straight to the goroutine that called Receive, and the arrival
// time is read the moment it is.
func (p *corePinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	for {
		m, err := p.sub.NextMsg(waitFor(deadline))
		at := time.Now()
		switch {
		case err == nil:
			if len(m.Data) > len(buf) {
				return 0, at, fmt.Errorf("nats: a %d-byte message on %s does not fit the %d-byte buffer", len(m.Data), p.sub.Subject, len(buf))
			}
			return copy(buf, m.Data), at, nil
		case errors.Is(err, natsgo.ErrTimeout):
			if !deadline.IsZero() && !at.Before(deadline) {
				return 0, time.Time{}, timeoutErr(p.sub.Subject)
			}
		case errors.Is(err, natsgo.ErrSlowConsumer):
			// Messages were dropped (counted by the subscription); the
			// next one is still to come.
		default:
			return 0, time.Time{}, p.linkErr("receiving on "+p.sub.Subject, err)
		}
	}
}

// coreEcho republishes <topic>.ping on <topic>.pong.
type coreEcho struct {
	coreRecv
	pong  string
	delay *driver.Delayer // nil: reply at once
}

var (
	_ driver.Echoer        = (*coreEcho)(nil)
	_ driver.CounterReader = (*coreEcho)(nil)
)

func listenCore(c *conn, topic string, delay *driver.Delayer) (*coreEcho, error) {
	sub, err := subscribeEnd(c, topic+PingSuffix, nil)
	if err != nil {
		return nil, err
	}
	return &coreEcho{coreRecv: coreRecv{conn: c, sub: sub}, pong: topic + PongSuffix, delay: delay}, nil
}

// Addr is the server URL the echo is connected to.
func (e *coreEcho) Addr() string { return e.url }

// Serve echoes until ctx is done (nil), Close is called (nil) or the
// connection is lost (an error).
func (e *coreEcho) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.sub.Unsubscribe() })
	defer stop()
	for {
		m, err := e.sub.NextMsg(24 * time.Hour)
		switch {
		case err == nil:
			e.delay.Wait()
			err = e.publish(e.pong, m.Data)
		case errors.Is(err, natsgo.ErrTimeout), errors.Is(err, natsgo.ErrSlowConsumer):
			continue
		default:
			err = e.linkErr("receiving on "+e.sub.Subject, err)
		}
		if err != nil {
			return e.stopped(ctx, err)
		}
	}
}

// corePublisher publishes on <topic>.
type corePublisher struct {
	*conn
	subject string
}

// SystemInfo describes the server.
func (p *corePublisher) SystemInfo() meta.SystemInfo { return p.info() }

var (
	_ driver.Publisher    = (*corePublisher)(nil)
	_ driver.InfoReporter = (*corePublisher)(nil)
)

// Send publishes msg on <topic>.
func (p *corePublisher) Send(msg []byte) error { return p.publish(p.subject, msg) }

// Close flushes what was published and closes the connection.
func (p *corePublisher) Close() error {
	if !p.closing.Load() && !p.nc.IsClosed() {
		p.nc.FlushTimeout(5 * time.Second)
	}
	return p.conn.Close()
}

// defaultInbox is the queue of a core subscriber for Receive when
// Options.QueueDepth is zero (a driver.Handoff). The handler waits when it
// is full; behind it nats.go's own pending list holds up to its pending
// limits (500,000 messages by default) before it drops, counted as a slow
// consumer.
const defaultInbox = 1024

// coreSubscriber receives <topic> through an asynchronous subscription:
// nats.go hands each message to a handler on the subscription's own
// goroutine (as `nats bench` subscribes), which queues it for Receive or
// passes it to the consumer (Consume) there and then.
type coreSubscriber struct {
	coreRecv
	in *driver.Handoff
}

// SystemInfo describes the server.
func (s *coreSubscriber) SystemInfo() meta.SystemInfo { return s.info() }

var (
	_ driver.Subscriber    = (*coreSubscriber)(nil)
	_ driver.Consumer      = (*coreSubscriber)(nil)
	_ driver.CounterReader = (*coreSubscriber)(nil)
	_ driver.InfoReporter  = (*coreSubscriber)(nil)
)

// subscribeCore subscribes to topic and waits until the server has the
// subscription, so that nothing published after it returns is missed.
func subscribeCore(c *conn, topic string) (*coreSubscriber, error) {
	in := driver.NewHandoff(driver.HandoffConfig{Name: "nats", Depth: cmp.Or(max(c.depth, 0), defaultInbox),
		Lost: c.closedCh, LostErr: c.lost,
		Closed:  fmt.Errorf("nats: %s receiving from %s: %w", c.role, topic, driver.ErrClosed),
		Timeout: timeoutErr(topic)})
	// nats.go calls the handler for each message on the subscription's
	// own goroutine, in order, and allocates each payload.
	sub, err := subscribeEnd(c, topic, func(m *natsgo.Msg) { in.Deliver(m.Data) })
	if err != nil {
		return nil, err
	}
	return &coreSubscriber{coreRecv: coreRecv{conn: c, sub: sub}, in: in}, nil
}

// Addr is the server URL.
func (s *coreSubscriber) Addr() string { return s.url }

// Receive returns the next message and when nats.go handed it over.
func (s *coreSubscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return s.in.Receive(buf, deadline)
}

// Consume calls f with each message on nats.go's delivery goroutine for
// the subscription (driver.Consumer). A slow f holds back that goroutine;
// nats.go queues behind it up to the subscription's pending limits, then
// drops (counted in Counters().Dropped).
func (s *coreSubscriber) Consume(f func(msg []byte, at int64)) error { return s.in.Consume(f) }

// Close closes the connection.
func (s *coreSubscriber) Close() error {
	s.in.Close()
	return s.conn.Close()
}
