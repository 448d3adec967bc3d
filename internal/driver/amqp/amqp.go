package amqp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// Name is the registry name of the transport.
const Name = "amqp"

func init() {
	driver.Register(Transport{})
	for _, s := range []driver.Scenario{
		{Type: "amqp_best_effort", Transport: Name, Interprocess: true},
		{Type: "amqp_reliable", Transport: Name, Reliable: true, Interprocess: true},
		{Type: "amqp_best_effort_security", Transport: Name, Security: true, Interprocess: true},
		{Type: "amqp_reliable_security", Transport: Name, Reliable: true, Security: true, Interprocess: true},
	} {
		driver.RegisterScenario(s)
	}
}

// Transport is the "amqp" transport: RabbitMQ, or any AMQP 0-9-1 broker.
type Transport struct{}

var (
	_ driver.Transport       = Transport{}
	_ driver.ClientDialer    = Transport{}
	_ driver.FanOutChecker   = Transport{}
	_ driver.StreamTransport = Transport{}
	_ driver.FlagOwner       = Transport{}
	_ driver.SizeLimiter     = Transport{}
	_ driver.ParamChecker    = Transport{}
)

// Name returns "amqp".
func (Transport) Name() string { return Name }

// MessageLimit is the largest message the transport carries (see the
// package constant).
func (Transport) MessageLimit(driver.Options) int { return DefaultMaxMessageSize }

// Capabilities: a broker reached at amqp:// and amqps:// URLs, whose echo
// applies Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{Broker: true, Schemes: []string{"amqp", "amqps"}, EchoDelay: true}
}

// errTxRoundTrip refuses transactions of several messages in a round trip,
// where one message is in flight: the message would stay uncommitted, so
// unrouted, until the next ones were published.
var errTxRoundTrip = fmt.Errorf("amqp: a round trip has one message in flight, so --%s must be 0 or 1 (a transaction of more messages is not routed until it is full); use larger transactions for one-way publishing", FlagTxSize)

// PingSuffix names a round trip's request queue after its topic: the
// echoer of topic T consumes from the queue "T.ping".
const PingSuffix = ".ping"

// echoQueue is the queue a round trip's requests go to: the one the
// address names (URL#QUEUE, an echoer's Addr), else the topic's, else none
// (the echoer's is then named by the broker).
func echoQueue(a address, topic string) string {
	if topic == "" {
		return a.queue
	}
	return cmp.Or(a.queue, topic+PingSuffix)
}

// Listen starts an echoer on the broker at addr (a URL): it consumes from
// the queue opts.Topic+".ping" (or the queue the URL's fragment names, or
// one the broker names when there is no topic) and republishes every
// message unchanged to the queue its reply_to property names. Its Addr is
// addr with its queue as the fragment. A second echoer of the same topic
// is refused (the queue is exclusive).
func (Transport) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	s, a, err := resolve(addr, opts)
	if err != nil {
		return nil, err
	}
	e := &echoer{delay: opts.EchoDelay.NewDelayer()}
	if err := e.open(ctx, a, s, "echo", echoQueue(a, opts.Topic)); err != nil {
		return nil, err
	}
	e.addr = withQueue(a.broker, e.con.queue)
	return e, nil
}

// Dial connects a pinger to the broker at addr: it publishes to the queue
// of opts.Topic's echoer (or to the queue the URL's fragment names, as an
// echoer's Addr does) with its own queue, named by the broker, as
// reply_to, and consumes the echoes from it. It needs no echoer to be
// there yet.
func (Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	s, a, err := resolve(addr, opts)
	if err != nil {
		return nil, err
	}
	q := echoQueue(a, opts.Topic)
	if q == "" {
		return nil, fmt.Errorf("amqp: %s: no echo to reach: expected a topic or an echo's address, URL#QUEUE", driver.RedactURL(addr))
	}
	p := &pinger{echoQueue: q}
	if err := p.open(ctx, a, s, "pinger", ""); err != nil {
		return nil, err
	}
	if s.txSize > 0 || s.confirms() {
		return &ackPinger{p, p.pub}, nil
	}
	return p, nil
}

// Subscribe consumes one-way messages at addr: from the queue the URL's
// fragment names, else (on the default exchange) the queue named
// opts.Topic, else a queue the broker names; Addr tells publishers its
// name. With --amqp-exchange the queue is bound to the exchange under
// opts.Topic (or its own name), so that every subscriber of a topic gets
// every message. The subscribers of a group (Options.Group) share one
// queue (the topic's, or on an exchange <group>.<topic>), each message
// going to one of them.
func (Transport) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	s, a, err := resolve(addr, opts)
	if err != nil {
		return nil, err
	}
	name := a.queue
	switch {
	case name != "":
	case s.serverNamed && s.group != "":
		return nil, errGroupServerNamed
	case s.serverNamed:
		// The broker names the queue; publishers of this process find it
		// by topic (serverQueues).
	case s.exchange == "":
		name = opts.Topic
	case s.group != "":
		name = s.group + "." + opts.Topic
	}
	sub := &subscriber{done: make(chan struct{})}
	if sub.con, err = openConsumer(ctx, a, s, "subscriber", name, opts.Topic, sub.done); err != nil {
		return nil, err
	}
	sub.addr = withQueue(a.broker, sub.con.queue)
	if name == "" && s.exchange == "" && opts.Topic != "" {
		k := [2]string{a.broker, opts.Topic}
		if q, taken := serverQueues.LoadOrStore(k, sub.con.queue); taken {
			sub.con.close()
			return nil, fmt.Errorf("amqp: topic %q already has a subscriber, on queue %s: with --%s server each subscriber has a queue of its own and the default exchange routes a message to one queue; add --%s amq.direct for several subscribers of a topic", opts.Topic, q, FlagQueue, FlagExchange)
		}
		sub.forget = func() { serverQueues.CompareAndDelete(k, sub.con.queue) }
	}
	return sub, nil
}

// errGroupServerNamed refuses competing consumers with --amqp-queue
// server: they share one queue, which needs a name they all know.
var errGroupServerNamed = fmt.Errorf("amqp: --%s server gives each subscriber a queue of its own, named by the broker; subscribers sharing a topic's messages need one named queue: use --%s topic", FlagQueue, FlagQueue)

// CanGroup accepts a group (Options.Group): its subscribers consume from
// one shared queue, each message going to one of them; not with queues
// named by the broker.
func (Transport) CanGroup(opts driver.Options) error {
	if strings.TrimSpace(opts.Params[FlagQueue]) == queueServer {
		return errGroupServerNamed
	}
	return nil
}

// CheckParams implements driver.ParamChecker: a bad or refused setting
// (--amqp-immediate) is reported before anything connects.
func (Transport) CheckParams(opts driver.Options) error {
	_, err := parseSettings(opts)
	return err
}

// serverQueues maps a broker and a topic, [2]string{broker, topic}, to the
// queue the broker named for its subscriber (--amqp-queue server on the
// default exchange), so that publishers of the same process, given the
// broker URL and the topic, route to it by name, as the method's producer
// does.
var serverQueues sync.Map

// Publish opens a one-way publisher to addr: a Subscriber's Addr
// (URL#QUEUE), or the broker URL with opts.Topic as the routing key. It
// implements driver.AckSender when the broker acknowledges what it takes:
// publisher confirms (reliable) or transactions (--amqp-tx-size).
func (Transport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	s, a, err := resolve(addr, opts)
	if err != nil {
		return nil, err
	}
	key := a.queue
	if key == "" || (s.exchange != "" && opts.Topic != "") {
		key = opts.Topic
	}
	if a.queue == "" && s.serverNamed && s.exchange == "" && key != "" {
		q, ok := serverQueues.Load([2]string{a.broker, key})
		if !ok {
			return nil, fmt.Errorf("amqp: topic %q has no subscriber in this process: with --%s server its queue is named by the broker; give the subscriber's address (URL#QUEUE)", key, FlagQueue)
		}
		key = q.(string)
	}
	if key == "" {
		return nil, fmt.Errorf("amqp: %s: nothing to publish to: expected URL#QUEUE (a subscriber's address) or a topic", driver.RedactURL(addr))
	}
	pub, err := openPublisher(ctx, a, s, "publisher")
	if err != nil {
		return nil, err
	}
	p := &oneWayPublisher{pub: pub, key: key}
	if s.txSize > 0 || s.confirms() {
		return &ackPublisher{p, pub}, nil
	}
	return p, nil
}

// resolve parses the options and the address of one end.
func resolve(addr string, opts driver.Options) (*settings, address, error) {
	s, err := parseSettings(opts)
	if err != nil {
		return nil, address{}, err
	}
	a, err := parseAddress(cmp.Or(addr, opts.Params[FlagURL]), s)
	return s, a, err
}

// roundTripEnd is what both ends of a round trip have: a consuming and a
// publishing link, closed together.
type roundTripEnd struct {
	pub       *publisher
	con       *consumer
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// open opens the consuming link, on queue (or one the broker names when
// it is empty), then the publishing link.
func (r *roundTripEnd) open(ctx context.Context, a address, s *settings, role, queue string) (err error) {
	if s.txSize > 1 {
		return errTxRoundTrip
	}
	r.done = make(chan struct{})
	if r.con, err = openConsumer(ctx, a, s, role, queue, "", r.done); err != nil {
		return err
	}
	if r.pub, err = openPublisher(ctx, a, s, role); err != nil {
		r.con.close()
	}
	return err
}

// Close stops an echoer's Serve and closes both connections; the end's
// queue goes with them.
func (r *roundTripEnd) Close() error {
	r.closeOnce.Do(func() {
		close(r.done)
		r.closeErr = errors.Join(r.pub.close(), r.con.close())
	})
	return r.closeErr
}

// pinger is the measuring end of a round trip.
type pinger struct {
	roundTripEnd
	echoQueue string
}

var (
	_ driver.Pinger        = (*pinger)(nil)
	_ driver.CounterReader = (*pinger)(nil)
	_ driver.InfoReporter  = (*pinger)(nil)
)

// Send publishes msg to the echoer's queue, with the pinger's queue as
// reply_to.
func (p *pinger) Send(msg []byte) error {
	select {
	case <-p.done:
		return fmt.Errorf("amqp: the pinger is closed: %w", driver.ErrClosed)
	default:
	}
	return p.pub.publish(p.echoQueue, p.con.queue, msg)
}

// Receive returns the next echo. It fails at once, without waiting for
// the deadline, when either connection breaks or, with --amqp-mandatory,
// when the broker returns a ping because the echoer's queue is gone.
func (p *pinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return p.con.receive(buf, deadline, p.pub)
}

// Counters implements driver.CounterReader: returned pings as dropped,
// refused (nacked) ones as errors.
func (p *pinger) Counters() driver.Counters { return p.pub.counters() }

// SystemInfo implements driver.InfoReporter.
func (p *pinger) SystemInfo() meta.SystemInfo { return p.pub.info() }

// ackPinger is a pinger whose pings the broker acknowledges: publisher
// confirms (reliable) or a commit per message (--amqp-tx-size 1). Its
// publisher is its driver.AckSender.
type ackPinger struct {
	*pinger
	*publisher
}

var _ driver.AckSender = (*ackPinger)(nil)

// echoer is the far end of a round trip.
type echoer struct {
	roundTripEnd
	delay     *driver.Delayer // nil: reply at once
	addr      string
	noReplyTo atomic.Uint64
}

var (
	_ driver.Echoer        = (*echoer)(nil)
	_ driver.CounterReader = (*echoer)(nil)
	_ driver.InfoReporter  = (*echoer)(nil)
)

// Addr is the broker URL with the echoer's queue as its fragment. It
// carries the URL's credentials: redact it (driver.RedactURL) before
// showing or recording it.
func (e *echoer) Addr() string { return e.addr }

// Serve republishes every message to its reply_to queue, then (reliable)
// acknowledges it, until ctx is done or the echoer is closed (nil), or a
// connection breaks (an error naming the reason).
func (e *echoer) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.Close() })
	defer stop()
	c, p := e.con, e.pub
	for {
		select {
		case d, ok := <-c.deliveries:
			if !ok {
				return e.stopped(c.stopped())
			}
			if d.ReplyTo == "" {
				e.noReplyTo.Add(1) // not a ping: nowhere to echo it
			} else {
				e.delay.Wait()
				if err := p.publish(d.ReplyTo, "", d.Body); err != nil {
					return e.stopped(err)
				}
			}
			if err := c.ack(d); err != nil {
				return e.stopped(err)
			}
		case <-e.done:
			return nil
		case err, ok := <-c.connClosed:
			return e.stopped(c.broke("connection", err, ok))
		case err, ok := <-c.chClosed:
			return e.stopped(c.broke("channel", err, ok))
		case tag, ok := <-c.cancelled:
			return e.stopped(c.cancelErr(tag, ok))
		case err, ok := <-p.connClosed:
			return e.stopped(p.broke("connection", err, ok))
		case err, ok := <-p.chClosed:
			return e.stopped(p.broke("channel", err, ok))
		}
	}
}

// stopped is nil when the echoer was closed (its links closing is then
// expected), else err.
func (e *echoer) stopped(err error) error {
	select {
	case <-e.done:
		return nil
	default:
		return err
	}
}

// Counters implements driver.CounterReader: echoes returned as unroutable
// (their pinger's queue is gone) as dropped; refused echoes and messages
// without reply_to as errors.
func (e *echoer) Counters() driver.Counters {
	c := e.pub.counters()
	c.Errors += e.noReplyTo.Load()
	return c
}

// SystemInfo implements driver.InfoReporter.
func (e *echoer) SystemInfo() meta.SystemInfo { return e.con.info() }

// subscriber is the receiving end of one-way traffic.
type subscriber struct {
	con       *consumer
	addr      string
	forget    func() // removes a queue named by the broker from serverQueues
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

var (
	_ driver.Subscriber   = (*subscriber)(nil)
	_ driver.InfoReporter = (*subscriber)(nil)
)

// Receive returns the next message and when it came off amqp091's
// delivery channel.
func (s *subscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return s.con.receive(buf, deadline, nil)
}

// Addr is the broker URL with the subscriber's queue as its fragment (with
// the URL's credentials; see echoer.Addr).
func (s *subscriber) Addr() string { return s.addr }

// Close closes the connection; the queue goes with it.
func (s *subscriber) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		if s.forget != nil {
			s.forget()
		}
		s.closeErr = s.con.close()
	})
	return s.closeErr
}

// SystemInfo implements driver.InfoReporter.
func (s *subscriber) SystemInfo() meta.SystemInfo { return s.con.info() }

// oneWayPublisher is the sending end of one-way traffic.
type oneWayPublisher struct {
	pub       *publisher
	key       string
	closeOnce sync.Once
	closeErr  error
}

var (
	_ driver.Publisher     = (*oneWayPublisher)(nil)
	_ driver.CounterReader = (*oneWayPublisher)(nil)
	_ driver.InfoReporter  = (*oneWayPublisher)(nil)
)

// Send publishes msg. With --amqp-mandatory it fails once the broker
// returned a message as unroutable: one-way runs stop with the count rather
// than measuring messages that went nowhere.
func (p *oneWayPublisher) Send(msg []byte) error {
	if err := p.pub.returnedErr(); err != nil {
		return err
	}
	return p.pub.publish(p.key, "", msg)
}

// Close closes the connection. Unconfirmed messages are not waited for
// (WaitAcks does that); an open transaction is rolled back by the broker.
func (p *oneWayPublisher) Close() error {
	p.closeOnce.Do(func() { p.closeErr = p.pub.close() })
	return p.closeErr
}

// Counters implements driver.CounterReader.
func (p *oneWayPublisher) Counters() driver.Counters { return p.pub.counters() }

// SystemInfo implements driver.InfoReporter.
func (p *oneWayPublisher) SystemInfo() meta.SystemInfo { return p.pub.info() }

// ackPublisher is a oneWayPublisher whose messages the broker
// acknowledges. Its publisher is its driver.AckSender.
type ackPublisher struct {
	*oneWayPublisher
	*publisher
}

var (
	_ driver.AckSender   = (*ackPublisher)(nil)
	_ driver.BatchSender = (*ackPublisher)(nil)
)

// FlushBatch implements driver.BatchSender: it commits an open
// transaction, so that its messages are routed now.
func (p *ackPublisher) FlushBatch() error {
	if p.pub.s.txSize == 0 {
		return nil
	}
	p.pub.txMu.Lock()
	defer p.pub.txMu.Unlock()
	return p.pub.commitLocked()
}
