package nats

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// consumerInactive is how long the server keeps a consumer nobody pulls
// from: the consumers of a run that crashed go away by themselves.
const consumerInactive = 10 * time.Minute

// cleanupTimeout bounds deleting a consumer or a stream when an end closes.
const cleanupTimeout = 5 * time.Second

// StreamName is the JetStream stream that holds topic's messages: MQGATE_
// followed by the topic with every character a stream name cannot hold
// replaced by "_".
func StreamName(topic string) string {
	return "MQGATE_" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, topic)
}

// jsEnd is what every JetStream end has: the stream of its topic and its
// own durable consumer (none for a publisher).
type jsEnd struct {
	c      *conn
	js     jetstream.JetStream
	stream string
	owned  bool // this end created the stream and deletes it on close
	cons   string
	it     jetstream.MessagesContext
	// subject this end receives from (its consumer's filter)
	subject string

	onAck       atomic.Pointer[func(error)]
	ackErr      atomic.Pointer[error] // first publish the stream refused
	redelivered atomic.Uint64
}

// newJS sets up the JetStream context of c, with acknowledgement handlers
// that report to OnAck, makes sure the stream of topic exists and, unless
// subject is empty, starts this end's consumer of subject (consume).
func newJS(ctx context.Context, c *conn, topic, subject string) (*jsEnd, error) {
	e := &jsEnd{c: c, stream: StreamName(topic)}
	js, err := jetstream.New(c.nc,
		jetstream.WithPublishAsyncAckHandler(func(jetstream.JetStream, *natsgo.Msg, *jetstream.PubAck) {
			if f := e.onAck.Load(); f != nil {
				(*f)(nil)
			}
		}),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, m *natsgo.Msg, err error) {
			err = fmt.Errorf("nats: JetStream did not store a message published on %s: %w", m.Subject, err)
			e.ackErr.CompareAndSwap(nil, &err)
			if f := e.onAck.Load(); f != nil {
				(*f)(err)
			}
		}),
	)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("nats: %w", err)
	}
	e.js = js
	if err := e.ensureStream(ctx, topic); err != nil {
		c.Close()
		return nil, err
	}
	if subject != "" {
		if err := e.consume(ctx, subject); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// ensureStream creates the stream of topic unless it exists: interest
// retention (a message is deleted once every consumer acknowledged it), the
// storage and replicas of the flags, subjects <topic> and <topic>.>.
func (e *jsEnd) ensureStream(ctx context.Context, topic string) error {
	cfg := jetstream.StreamConfig{
		Name:        e.stream,
		Description: "mqgate measurement stream, deleted when the run ends",
		Subjects:    []string{topic, topic + ".>"},
		Retention:   jetstream.InterestPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    e.c.p.replicas,
	}
	if e.c.p.storage == "memory" {
		cfg.Storage = jetstream.MemoryStorage
	}
	s, err := e.js.Stream(ctx, e.stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// A stream of the same name deleted a moment ago may still be
		// leaving the file store: the server then fails the creation
		// (500) for a short while.
		for try := 0; ; try++ {
			_, err = e.js.CreateStream(ctx, cfg)
			var apiErr *jetstream.APIError
			if err == nil || try == 40 || !errors.As(err, &apiErr) || apiErr.Code != 500 || ctx.Err() != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err == nil {
			e.owned = true
			return nil
		}
	}
	if err != nil {
		return e.jsErr(fmt.Sprintf("setting up stream %s", e.stream), err)
	}
	got := s.CachedInfo().Config
	if got.Storage != cfg.Storage || got.Retention != cfg.Retention || !slices.Equal(got.Subjects, cfg.Subjects) {
		return fmt.Errorf("nats: stream %s on %s exists with other settings (%s storage, %s retention, subjects %v; this run wants %s, %s, %v): delete it (nats stream rm %s) or use another topic",
			e.stream, e.c.redacted, got.Storage, got.Retention, got.Subjects, cfg.Storage, cfg.Retention, cfg.Subjects, e.stream)
	}
	return nil
}

// jsErr explains a failed JetStream API call.
func (e *jsEnd) jsErr(what string, err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) ||
		errors.Is(err, natsgo.ErrNoResponders) {
		return fmt.Errorf("nats: %s: %s has no JetStream (start nats-server with -js), which nats_reliable needs: %w", what, e.c.redacted, err)
	}
	if e.c.nc.IsClosed() {
		return e.c.lost()
	}
	return fmt.Errorf("nats: %s on %s: %w", what, e.c.redacted, err)
}

// consume creates this end's durable consumer of subject, with explicit
// acknowledgement, delivering only what is published from now on, and
// starts pulling from it.
func (e *jsEnd) consume(ctx context.Context, subject string) error {
	e.subject = subject
	e.cons = e.c.role + "-" + nuid.Next()
	cons, err := e.js.CreateConsumer(ctx, e.stream, jetstream.ConsumerConfig{
		Durable:           e.cons,
		Description:       "mqgate " + e.c.role + ", deleted when it closes",
		FilterSubject:     subject,
		AckPolicy:         jetstream.AckExplicitPolicy,
		DeliverPolicy:     jetstream.DeliverNewPolicy,
		InactiveThreshold: consumerInactive,
	})
	if err == nil {
		e.it, err = cons.Messages(jetstream.PullMaxMessages(e.c.p.pullBatch))
	}
	if err != nil {
		e.cleanup()
		e.c.Close()
		return e.jsErr(fmt.Sprintf("creating consumer %s of stream %s", e.cons, e.stream), err)
	}
	return nil
}

// next waits for the next message of this end's consumer until deadline
// (the zero time: indefinitely) and reads the time it was handed over.
func (e *jsEnd) next(deadline time.Time) (jetstream.Msg, time.Time, error) {
	for {
		var m jetstream.Msg
		var err error
		if deadline.IsZero() {
			m, err = e.it.Next()
		} else {
			m, err = e.it.Next(jetstream.NextMaxWait(waitFor(deadline)))
		}
		at := time.Now()
		switch {
		case err == nil:
			if redelivered(m.Reply()) {
				e.redelivered.Add(1)
			}
			return m, at, nil
		case errors.Is(err, natsgo.ErrTimeout):
			if !deadline.IsZero() && !at.Before(deadline) {
				if ep := e.ackErr.Load(); ep != nil {
					return nil, at, *ep // the stream refused what was sent: it cannot come back
				}
				return nil, at, timeoutErr(e.subject)
			}
		case e.c.closing.Load() || e.c.nc.IsClosed():
			return nil, at, e.c.lost()
		case errors.Is(err, jetstream.ErrConsumerDeleted), errors.Is(err, jetstream.ErrConsumerNotFound):
			return nil, at, fmt.Errorf("nats: %s: consumer %s of stream %s on %s was deleted (was the stream?): %w",
				e.c.role, e.cons, e.stream, e.c.redacted, driver.ErrClosed)
		default:
			return nil, at, e.c.linkErr("receiving from consumer "+e.cons, err)
		}
	}
}

// ack acknowledges m, waiting for the server's confirmation with
// --nats-double-ack.
func (e *jsEnd) ack(ctx context.Context, m jetstream.Msg) error {
	var err error
	if e.c.p.doubleAck {
		err = m.DoubleAck(ctx)
	} else {
		err = m.Ack()
	}
	if err != nil {
		return e.c.linkErr("acknowledging a message of consumer "+e.cons, err)
	}
	return nil
}

// jsRecv is a JetStream end that receives from its consumer.
type jsRecv struct{ *jsEnd }

// Receive returns the next message and when nats.go handed it over, and
// acknowledges it.
func (e jsRecv) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	m, at, err := e.next(deadline)
	if err != nil {
		return 0, time.Time{}, err
	}
	data := m.Data()
	if len(data) > len(buf) {
		e.ack(context.Background(), m)
		return 0, at, fmt.Errorf("nats: a %d-byte message on %s does not fit the %d-byte buffer", len(data), e.subject, len(buf))
	}
	n := copy(buf, data)
	if err := e.ack(context.Background(), m); err != nil {
		return 0, at, err
	}
	return n, at, nil
}

// stallWait is how long a publish waits when the stream has not yet
// acknowledged the 4,000 messages nats.go lets wait (its limit): the
// publisher is held back, which a paced run records as send delay and
// skipped slots, rather than failing after nats.go's 200 ms (unpaced
// publishers stalled so on a healthy server: "stalled with too many
// outstanding async published messages"). A stream that acknowledges
// nothing for this long fails the run.
var stallWait = jetstream.WithStallWait(10 * time.Second)

// publish publishes msg on subject without waiting for the stream's
// acknowledgement, which reaches OnAck.
func (e *jsEnd) publish(subject string, msg []byte) error {
	if ep := e.ackErr.Load(); ep != nil {
		return *ep
	}
	if _, err := e.js.PublishAsync(subject, msg, stallWait); err != nil {
		return e.c.sendErr(subject, len(msg), err)
	}
	return nil
}

// OnAck registers f, called once per message published, when the stream
// stored it (nil) or refused it.
func (e *jsEnd) OnAck(f func(err error)) { e.onAck.Store(&f) }

// WaitAcks waits until the stream acknowledged or refused every message
// published so far, or deadline passes (the zero time: no deadline).
func (e *jsEnd) WaitAcks(deadline time.Time) error {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-e.js.PublishAsyncComplete():
		return nil
	case <-e.c.closedCh:
		return e.c.lost()
	case <-timeout:
		return fmt.Errorf("nats: %d messages published to stream %s not acknowledged before the deadline: %w",
			e.js.PublishAsyncPending(), e.stream, driver.ErrTimeout)
	}
}

func (e *jsEnd) counters() driver.Counters {
	return driver.Counters{Retransmitted: e.redelivered.Load(), Errors: e.c.errs.Load()}
}

// Counters reports redelivered messages as Retransmitted.
func (e jsRecv) Counters() driver.Counters { return e.counters() }

// SystemInfo describes the server and the stream.
func (e jsRecv) SystemInfo() meta.SystemInfo { return e.info() }

// info describes the server and the stream.
func (e *jsEnd) info() meta.SystemInfo {
	si := e.c.info()
	si.Extra["jetstream_stream"] = e.stream
	si.Extra["jetstream_storage"] = e.c.p.storage
	si.Extra["jetstream_replicas"] = fmt.Sprint(e.c.p.replicas)
	if e.cons != "" {
		si.Extra["jetstream_consumer"] = fmt.Sprintf("durable pull, explicit ack, double ack %v, pull batch %d", e.c.p.doubleAck, e.c.p.pullBatch)
	}
	return si
}

// cleanup stops pulling and deletes this end's consumer, and the stream if
// this end created it. Nothing is left to delete, or nobody to ask, once
// the connection is gone.
func (e *jsEnd) cleanup() error {
	if e.it != nil {
		e.it.Stop()
	}
	if e.c.nc.IsClosed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	var errs []error
	notFound := func(err error) bool {
		return err == nil || errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) || e.c.nc.IsClosed()
	}
	if e.cons != "" {
		if err := e.js.DeleteConsumer(ctx, e.stream, e.cons); !notFound(err) {
			errs = append(errs, fmt.Errorf("nats: deleting consumer %s of stream %s: %w", e.cons, e.stream, err))
		}
	}
	if e.owned {
		if err := e.js.DeleteStream(ctx, e.stream); !notFound(err) {
			errs = append(errs, fmt.Errorf("nats: deleting stream %s: %w", e.stream, err))
		}
	}
	return errors.Join(errs...)
}

// Close deletes this end's consumer (and the stream if this end created
// it) and closes the connection, once. Call a publisher's WaitAcks first to
// know every message was stored.
func (e *jsEnd) Close() error {
	if e.c.closing.Swap(true) {
		return nil
	}
	err := e.cleanup() // a Receive it unblocks sees closing set
	e.c.nc.Close()
	return err
}

// jsPinger publishes on <topic>.ping through JetStream and consumes
// <topic>.pong.
type jsPinger struct {
	jsRecv
	ping string
}

var (
	_ driver.Pinger        = (*jsPinger)(nil)
	_ driver.AckSender     = (*jsPinger)(nil)
	_ driver.CounterReader = (*jsPinger)(nil)
	_ driver.InfoReporter  = (*jsPinger)(nil)
)

func dialJS(ctx context.Context, c *conn, topic string) (*jsPinger, error) {
	e, err := newJS(ctx, c, topic, topic+PongSuffix)
	if err != nil {
		return nil, err
	}
	return &jsPinger{jsRecv: jsRecv{e}, ping: topic + PingSuffix}, nil
}

// Send publishes msg on <topic>.ping; the stream's acknowledgement reaches
// OnAck later.
func (p *jsPinger) Send(msg []byte) error { return p.publish(p.ping, msg) }

// jsEcho consumes <topic>.ping and republishes each message on
// <topic>.pong through JetStream, acknowledging the ping once the stream
// stored the pong: a crash in between redelivers the ping rather than
// losing it.
type jsEcho struct {
	*jsEnd
	pong  string
	delay *driver.Delayer // nil: reply at once
}

var (
	_ driver.Echoer        = (*jsEcho)(nil)
	_ driver.CounterReader = (*jsEcho)(nil)
)

func listenJS(ctx context.Context, c *conn, topic string, delay *driver.Delayer) (*jsEcho, error) {
	e, err := newJS(ctx, c, topic, topic+PingSuffix)
	if err != nil {
		return nil, err
	}
	return &jsEcho{jsEnd: e, pong: topic + PongSuffix, delay: delay}, nil
}

// Addr is the server URL the echo is connected to.
func (e *jsEcho) Addr() string { return e.c.url }

// Serve echoes until ctx is done (nil), Close is called (nil) or the link
// fails (an error).
func (e *jsEcho) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.it.Stop() })
	defer stop()
	for {
		m, _, err := e.next(time.Time{})
		if err != nil {
			return e.c.stopped(ctx, err)
		}
		e.delay.Wait()
		if _, err := e.js.Publish(ctx, e.pong, m.Data()); err != nil {
			return e.c.stopped(ctx, e.jsErr("publishing on "+e.pong, err))
		}
		if err := e.ack(ctx, m); err != nil {
			return e.c.stopped(ctx, err)
		}
	}
}

// Counters reports redelivered pings as Retransmitted.
func (e *jsEcho) Counters() driver.Counters { return e.counters() }

// jsPublisher publishes on <topic> through JetStream.
type jsPublisher struct {
	*jsEnd
	subject string
}

// SystemInfo describes the server and the stream.
func (p *jsPublisher) SystemInfo() meta.SystemInfo { return p.info() }

var (
	_ driver.Publisher    = (*jsPublisher)(nil)
	_ driver.AckSender    = (*jsPublisher)(nil)
	_ driver.InfoReporter = (*jsPublisher)(nil)
)

func publishJS(ctx context.Context, c *conn, topic string) (*jsPublisher, error) {
	e, err := newJS(ctx, c, topic, "")
	if err != nil {
		return nil, err
	}
	return &jsPublisher{jsEnd: e, subject: topic}, nil
}

// Send publishes msg on <topic>; the stream's acknowledgement reaches
// OnAck later.
func (p *jsPublisher) Send(msg []byte) error { return p.publish(p.subject, msg) }

// jsSubscriber consumes <topic> with explicit acknowledgements.
type jsSubscriber struct {
	jsRecv
}

var (
	_ driver.Subscriber    = (*jsSubscriber)(nil)
	_ driver.CounterReader = (*jsSubscriber)(nil)
	_ driver.InfoReporter  = (*jsSubscriber)(nil)
)

func subscribeJS(ctx context.Context, c *conn, topic string) (*jsSubscriber, error) {
	e, err := newJS(ctx, c, topic, topic)
	if err != nil {
		return nil, err
	}
	return &jsSubscriber{jsRecv{e}}, nil
}

// Addr is the server URL.
func (s *jsSubscriber) Addr() string { return s.c.url }

// redelivered reports whether the acknowledgement subject of a JetStream
// message says it was delivered more than once, reading it in place (the
// library's Metadata allocates): $JS.ACK.<stream>.<consumer>.<delivered>.…
// (9 tokens), or with a domain and an account hash after $JS.ACK (11 or 12
// tokens).
func redelivered(reply string) bool {
	var skip int
	switch min(strings.Count(reply, ".")+1, 12) { // a 13th token on is part of the 12th
	case 9:
		skip = 4
	case 11, 12:
		skip = 6
	default:
		return false
	}
	for range skip {
		_, reply, _ = strings.Cut(reply, ".")
	}
	d, _, _ := strings.Cut(reply, ".")
	return d != "1" && d != ""
}
