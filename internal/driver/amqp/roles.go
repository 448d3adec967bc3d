package amqp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// roleExchange routes the role messages when --amqp-exchange names none:
// RabbitMQ's predeclared topic exchange, so that topics and wildcards (*
// one word, # any words) mean what they mean in NATS, and every
// subscriber of a topic gets every message (the default exchange gives
// each message to one queue).
const roleExchange = "amq.topic"

// directReplyTo is RabbitMQ's direct reply-to pseudo-queue.
const directReplyTo = "amq.rabbitmq.reply-to"

// roleClient runs the roles over AMQP 0-9-1 (RabbitMQ, amqp091-go) on the
// links every end opens (openPublisher, consumer), with the run's Options
// and flags: one connection per role, a channel per use:
//
//   - publish/subscribe through --amqp-exchange, amq.topic when none: each
//     subscription (and each served key) declares an exclusive,
//     auto-delete queue named by the broker and binds it under the role's
//     expression;
//   - best_effort: transient messages, consumers in auto-ack mode;
//     reliable: persistent messages with publisher confirms (Flush waits
//     for them; a nack is an error), manual acknowledgements under
//     --amqp-prefetch; --amqp-persistent, --amqp-auto-ack and the
//     transaction flags change them as for every end;
//   - queries with RabbitMQ's direct reply-to: the requester consumes
//     amq.rabbitmq.reply-to (no-ack) on the channel it publishes its
//     queries on, and routes the replies by correlation id; a server
//     publishes each reply to the default exchange under the query's
//     reply_to. Direct reply-to is RabbitMQ's own request/reply mechanism:
//     no reply queue is declared, bound or deleted, replies skip a queue
//     (lower and steadier time to reply, nothing left behind by a
//     requester that went away), and one consumer takes any number of
//     replies to any number of queries in flight, which the correlation id
//     tells apart. Its replies are not acknowledged (RabbitMQ requires
//     no-ack there), so "reliable" covers the queries (persistent) and the
//     one-way messages, not the replies; an unanswered query is a timeout
//     either way.
type roleClient struct {
	p     *publisher // its connection carries every channel of the role
	token string
	lost  chan error
	once  sync.Once
	pubMu sync.Mutex

	qMu  sync.Mutex
	qCh  *amqp091.Channel // direct reply-to consumer and query publisher
	wait map[string]func([]byte, time.Time)
	seq  uint64

	// confirmMu is held by a best-effort Confirm, one at a time, which
	// publishes a mark.
	confirmMu sync.Mutex
	noMarks   chan struct{} // closed once no mark can return: the channel closed
	marks     uint64        // marks published
	returned  driver.Tally  // marks the broker returned
	// nacked is the publisher's count of refusals when the previous
	// reliable Confirm returned.
	nacked atomic.Uint64
}

var (
	_ driver.Client    = (*roleClient)(nil)
	_ driver.Confirmer = (*roleClient)(nil)
)

// txClient is a role's client that publishes in transactions
// (--amqp-tx-size): no driver.Confirmer. Its messages are the broker's
// once their transaction commits, every --amqp-tx-size messages and at
// Flush, and a Confirm that committed would change the transactions
// measured, so what it took counts as sent.
type txClient struct{ driver.Client }

// appliedFlags is the value of each of AMQP's flags the link was opened
// with, by flag name, as it applies them (the frame size and heartbeat
// as negotiated with the broker, auto values resolved; the URL left
// out): SystemInfo records it (driver.RecordApplied).
func (l *link) appliedFlags() map[string]string {
	s := l.s
	queue := queueTopic
	if s.serverNamed {
		queue = queueServer
	}
	return map[string]string{
		FlagTLSPort:        strconv.Itoa(s.tlsPort),
		FlagMandatory:      strconv.FormatBool(s.mandatory),
		FlagPrefetch:       strconv.Itoa(s.prefetch),
		FlagTxSize:         strconv.Itoa(s.txSize),
		FlagConsumerTxSize: strconv.Itoa(s.consumerTxSize),
		FlagAutoAck:        strconv.FormatBool(s.autoAck),
		FlagPersistent:     strconv.FormatBool(s.persistent),
		FlagDurable:        strconv.FormatBool(s.durable),
		FlagQueue:          queue,
		FlagExchange:       s.exchange,
		FlagFrameMax:       strconv.Itoa(l.conn.Config.FrameSize),
		FlagHeartbeat:      l.conn.Config.Heartbeat.String(),
	}
}

// DialClient connects a role to the first of endpoints that accepts, in
// order (a broker and its standbys; --amqp-url when none), with the ends'
// Options: TLS and the flags.
func (Transport) DialClient(ctx context.Context, endpoints []string, opts driver.Options, timeout time.Duration) (driver.Client, error) {
	return driver.DialFirst(ctx, endpoints, func(raw string) (driver.Client, error) {
		return dialRoleClient(ctx, raw, opts, timeout)
	})
}

func dialRoleClient(ctx context.Context, raw string, opts driver.Options, timeout time.Duration) (driver.Client, error) {
	// A broker (or host) that went away is noticed within about a
	// --timeout, as with the other systems.
	opts = opts.WithDefault(FlagHeartbeat, max(timeout/2, time.Second).Round(time.Second).String())
	s, a, err := resolve(raw, opts)
	if err != nil {
		return nil, err
	}
	s.exchange = cmp.Or(s.exchange, roleExchange)
	var tok [6]byte
	rand.Read(tok[:])
	b := &roleClient{wait: map[string]func([]byte, time.Time){}, token: hex.EncodeToString(tok[:]), lost: make(chan error, 1)}
	ctx, cancel := context.WithTimeout(ctx, max(timeout, 10*time.Second))
	defer cancel()
	if b.p, err = openPublisher(ctx, a, s, "role "+b.token); err != nil {
		return nil, err
	}
	b.watch("connection", b.p.conn.NotifyClose(make(chan *amqp091.Error, 1)))
	b.watch("publishing channel", b.p.ch.NotifyClose(make(chan *amqp091.Error, 1)))
	if s.txSize > 0 {
		return txClient{b}, nil
	}
	return b, nil
}

// watch reports the unexpected closing of the connection or a channel
// as a lost link.
func (b *roleClient) watch(what string, closed chan *amqp091.Error) {
	go func() {
		if e, ok := <-closed; ok && e != nil {
			b.once.Do(func() { b.lost <- fmt.Errorf("the broker at %s closed the %s: %v", b.p.url, what, e) })
		}
	}()
}

// channel opens a channel whose unexpected closing is a lost link.
func (b *roleClient) channel(what string) (*amqp091.Channel, error) {
	ch, err := b.p.conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("opening a %s channel on %s: %w", what, b.p.url, err)
	}
	b.watch(what+" channel", ch.NotifyClose(make(chan *amqp091.Error, 1)))
	return ch, nil
}

func (b *roleClient) Lost() <-chan error { return b.lost }

// Separator joins the words of a routing key.
func (Transport) Separator() string { return "." }

// Wildcards are the topic exchange's: * one word, # any words.
func (Transport) Wildcards() string { return "*#" }

// Below is prefix.#, which matches prefix itself (# is zero or more
// words).
func (Transport) Below(prefix string) []string { return []string{prefix + ".#"} }

// CheckFanOut refuses more subscribers than topics on the default
// exchange, which gives each message to one queue.
func (Transport) CheckFanOut(subscribers, topics int, params map[string]string) error {
	if subscribers > topics && strings.TrimSpace(params[FlagExchange]) == "" { // as the settings read it
		return fmt.Errorf("%d subscribers on %d topics: AMQP's default exchange gives each message to one queue; add --%s amq.direct", subscribers, topics, FlagExchange)
	}
	return nil
}

// RoleUsage describes AMQP in the roles' --help.
func (Transport) RoleUsage() driver.RoleUsage {
	return driver.RoleUsage{What: "AMQP 0-9-1 through amq.topic, queries by RabbitMQ's direct reply-to",
		Endpoint: "amqp://user:pass@host:5672/vhost", EndpointNote: "tried in order until one accepts",
		Reliability: "transient, or persistent with confirms and acknowledgements"}
}

// SystemInfo is the broker's and the link's, as every end reports them.
func (b *roleClient) SystemInfo() meta.SystemInfo { return b.p.info() }

func (b *roleClient) Publish(topic string, msg []byte) error {
	b.pubMu.Lock()
	defer b.pubMu.Unlock()
	return b.p.publish(topic, "", msg)
}

// Flush commits the open transaction (--amqp-tx-size), or waits, with
// publisher confirms, until the broker confirmed every message published
// (an error if it refused any); other best-effort messages are written
// when Publish returns.
func (b *roleClient) Flush(timeout time.Duration) error {
	if b.p.confirms == nil && b.p.s.txSize == 0 {
		return nil
	}
	return driver.Bounded(timeout, func() error {
		if err := b.p.WaitAcks(time.Now().Add(timeout)); err != nil {
			return err
		}
		if n := b.p.nacked.Load(); n > 0 {
			return fmt.Errorf("the broker refused %d of %d messages (basic.nack)", n, b.p.sent.Load())
		}
		return nil
	})
}

// Confirm calls mark, then waits within timeout until the broker has what
// was published before (driver.Confirmer). Reliable, the broker confirms
// each message (basic.ack), and Confirm waits for the confirmations of
// every message published before the mark; a refusal (basic.nack) since
// the previous Confirm fails it. Best effort, the publishing channel is
// not put in confirm mode, which would make the broker track and
// acknowledge every message and so change what is measured: Confirm
// publishes a mark after the messages, on their channel, that the broker
// returns (mandatory, to a queue that does not exist), and a channel
// handles its messages in order, so the mark's return says that it routed
// every message published before (what it read but had not routed when
// the link broke is lost with the channel). The client never reconnects:
// a broken link fails every later Confirm too.
func (b *roleClient) Confirm(timeout time.Duration, mark func()) error {
	mark()
	var err error
	if b.p.confirms != nil {
		err = b.confirmAcks(timeout)
	} else {
		err = b.confirmRouted(timeout)
	}
	if err != nil {
		return fmt.Errorf("the broker did not confirm what was published: %w", err)
	}
	return nil
}

// confirmAcks waits for the confirmations of every message published so
// far, then fails if the broker refused any since the previous call.
func (b *roleClient) confirmAcks(timeout time.Duration) error {
	n := b.p.sent.Load() // those handed before the mark, and maybe a few more
	err := b.p.waitConfirmed(func() uint64 { return n }, time.Now().Add(timeout))
	nacked := b.p.nacked.Load()
	if prev := b.nacked.Swap(nacked); err == nil && nacked > prev {
		err = fmt.Errorf("%w: %d messages", ErrNacked, nacked-prev)
	}
	return err
}

// markType is the type property of the marks a best-effort Confirm
// publishes: their return is no returned message.
const markType = "mqgate-confirm-mark"

// confirmRouted publishes a mark and waits for its return.
func (b *roleClient) confirmRouted(timeout time.Duration) error {
	b.confirmMu.Lock()
	defer b.confirmMu.Unlock()
	if b.noMarks == nil {
		b.noMarks = make(chan struct{})
		go b.countMarks(b.p.ch.NotifyReturn(make(chan amqp091.Return, eventBuffer)))
	}
	b.pubMu.Lock()
	err := b.p.ch.PublishWithContext(context.Background(), "", "mqgate.confirm."+b.token, true, false,
		amqp091.Publishing{Type: markType, DeliveryMode: amqp091.Transient})
	b.pubMu.Unlock()
	if err != nil {
		return b.p.opErr("publishing a mark", err)
	}
	b.marks++
	switch err := b.returned.Wait(b.marks, timeout, b.noMarks); err {
	case nil:
		return nil
	case driver.ErrClosed:
		if err := b.p.failed(); err != nil {
			return err
		}
		return fmt.Errorf("amqp: the publishing channel to %s closed: %w", b.p.url, driver.ErrClosed)
	default:
		return fmt.Errorf("amqp: the mark published to %s was not returned within %v: %w", b.p.url, timeout, driver.ErrTimeout)
	}
}

// countMarks counts the marks among the returns until the channel closes:
// the broker returns them in the order they were published. amqp091's
// reader waits for returns to be taken, so every one is.
func (b *roleClient) countMarks(returns <-chan amqp091.Return) {
	defer close(b.noMarks)
	for r := range returns {
		if r.Type == markType {
			b.returned.Add()
		}
	}
}

// consume declares an exclusive, auto-delete queue bound to amq.topic
// under expr, on a channel of its own, and calls f for each delivery with
// the time it was taken from the client (read first).
func (b *roleClient) consume(what, expr string, f func(d *amqp091.Delivery, at time.Time)) (func() error, error) {
	ch, err := b.channel(what)
	if err != nil {
		return nil, err
	}
	c := &consumer{link: &link{conn: b.p.conn, ch: ch, s: b.p.s, url: b.p.url, role: "role " + what}}
	if err := c.setUp("", expr); err != nil {
		ch.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for d := range c.deliveries {
			at := time.Now()
			f(&d, at)
			if b.p.s.reliable {
				d.Ack(false)
			}
		}
	}()
	return sync.OnceValue(func() error {
		err := driver.Bounded(5*time.Second, func() error {
			ch.Cancel(c.tag(), false)
			return ch.Close()
		})
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		return err
	}), nil
}

func (b *roleClient) Subscribe(expr string, f func(string, []byte, time.Time)) (func() error, error) {
	return b.consume("subscription to", expr, func(d *amqp091.Delivery, at time.Time) { f(d.RoutingKey, d.Body, at) })
}

func (b *roleClient) Serve(expr string, reply func([]byte, time.Time) [][]byte) (func() error, error) {
	return b.consume("serving", expr, func(d *amqp091.Delivery, at time.Time) {
		if d.ReplyTo == "" {
			return
		}
		to, corr, body := d.ReplyTo, d.CorrelationId, d.Body
		// Each query gets its own goroutine, so that a processing delay
		// does not hold the next query back.
		go func() {
			for _, r := range reply(body, at) {
				b.pubMu.Lock()
				err := b.p.send("", to, amqp091.Publishing{DeliveryMode: amqp091.Transient, CorrelationId: corr, Body: r})
				b.pubMu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	})
}

// queryChannel opens, once, the channel that consumes direct reply-to and
// publishes the queries (RabbitMQ requires both on one channel).
func (b *roleClient) queryChannel() (*amqp091.Channel, error) {
	if b.qCh != nil {
		return b.qCh, nil
	}
	ch, err := b.channel("query")
	if err != nil {
		return nil, err
	}
	replies, err := ch.Consume(directReplyTo, "mqgate-"+b.token+"-replies", true, false, false, false, nil)
	if err != nil {
		ch.Close()
		return nil, fmt.Errorf("consuming %s on %s: %w", directReplyTo, b.p.url, err)
	}
	go func() {
		for d := range replies {
			at := time.Now()
			b.qMu.Lock()
			w := b.wait[d.CorrelationId]
			b.qMu.Unlock()
			if w != nil {
				w(d.Body, at)
			}
		}
	}()
	b.qCh = ch
	return ch, nil
}

func (b *roleClient) Query(ctx context.Context, key string, req []byte, f func([]byte, time.Time) bool) error {
	deliver, done := driver.Replies(f)
	b.qMu.Lock()
	ch, err := b.queryChannel()
	if err != nil {
		b.qMu.Unlock()
		return err
	}
	b.seq++
	corr := b.token + "-" + fmt.Sprint(b.seq)
	b.wait[corr] = deliver
	b.qMu.Unlock()
	defer func() {
		b.qMu.Lock()
		delete(b.wait, corr)
		b.qMu.Unlock()
	}()
	// The query is published on the reply consumer's channel, one at a
	// time (a channel's frames must not interleave).
	b.qMu.Lock()
	err = ch.PublishWithContext(ctx, b.p.s.exchange, key, false, false,
		amqp091.Publishing{DeliveryMode: b.p.mode, ReplyTo: directReplyTo, CorrelationId: corr, Body: req})
	b.qMu.Unlock()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil
		}
		return err
	}
	return driver.AwaitReplies(ctx, done)
}

// Close closes the connection, waiting at most a few seconds for a broker
// that went away.
func (b *roleClient) Close() error {
	return driver.Bounded(5*time.Second, b.p.close)
}
