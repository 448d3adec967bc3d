package mqtt

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/packets"
	"github.com/eclipse/paho.golang/paho"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// roleClient runs the roles over MQTT 5 on the client every end opens
// (client5, with the run's Options; no reconnection):
// publish/subscribe at the ends' QoS (0 best_effort, 1 reliable), and
// request/response with the Response Topic and Correlation Data
// properties: each requester subscribes once to a response topic of its
// own and routes the replies by correlation data. Subscriptions with
// wildcards get every message below a prefix.
type roleClient struct {
	c     *client5
	info  func() meta.SystemInfo
	lost  chan error
	mu    sync.RWMutex
	subs  []roleSub                          // replaced, never changed in place: route reads a copy
	reply string                             // set once subscribed to
	wait  map[string]func([]byte, time.Time) // by correlation data
	pubMu sync.Mutex
	// replyMu is held while the reply topic is subscribed to, so that
	// one query subscribes and the others wait for it.
	replyMu sync.Mutex
}

var (
	_ driver.Client    = (*roleClient)(nil)
	_ driver.Confirmer = (*roleClient)(nil)
)

// appliedFlags is the value of each of MQTT's flags a client of s was
// opened with, by flag name, as its settings apply it (the keep alive in
// the whole seconds CONNECT carries; the URL, its TLS port and the
// password left out): SystemInfo records it (driver.RecordApplied).
func appliedFlags(s *settings) map[string]string {
	return map[string]string{
		ParamVersion:      strings.TrimPrefix(s.protocol(), "MQTT "),
		ParamUsername:     s.username,
		ParamClientID:     s.clientPrefix,
		ParamKeepAlive:    (time.Duration(s.keepAlive) * time.Second).String(),
		ParamMaxInflight:  strconv.Itoa(s.maxInflight),
		ParamVersionTopic: s.versionTopic,
	}
}

type roleSub struct {
	filter string
	f      func(topic string, msg []byte, props *paho.PublishProperties, at time.Time)
	id     *byte // identity, to remove this one of several of a filter
}

// DialClient connects a role to the first of endpoints that accepts, in
// order (a broker and its standbys; --mqtt-url when none), with the ends'
// Options: TLS, credentials and the flags.
func (Transport) DialClient(ctx context.Context, endpoints []string, opts driver.Options, timeout time.Duration) (driver.Client, error) {
	return driver.DialFirst(ctx, endpoints, func(raw string) (driver.Client, error) {
		return dialRoleClient(ctx, raw, opts, timeout)
	})
}

func dialRoleClient(ctx context.Context, raw string, opts driver.Options, timeout time.Duration) (driver.Client, error) {
	// Request/response is MQTT 5's.
	if v, given := opts.Params[ParamVersion]; given && v != "5" {
		return nil, fmt.Errorf("mqtt: --%s %s: the roles use MQTT 5 (request/response properties); give 5 or leave it out", ParamVersion, v)
	}
	// A broker that stops answering is noticed within about a --timeout.
	opts = opts.WithDefault(ParamVersion, "5").WithDefault(ParamKeepAlive, max(timeout, time.Second).String())
	s, err := newSettings(raw, opts)
	if err != nil {
		return nil, err
	}
	s.packetTimeout = timeout
	c, err := connect5(ctx, s, "role", nil)
	if err != nil {
		return nil, err
	}
	b := &roleClient{c: c, info: infoOnce(s, c), lost: make(chan error, 1), wait: map[string]func([]byte, time.Time){}}
	c.mu.Lock()
	c.other = b.route
	c.mu.Unlock()
	go func() {
		<-c.done()
		b.lost <- c.err()
	}()
	return b, nil
}

func (b *roleClient) route(p *paho.Publish) {
	at := time.Now()
	b.mu.RLock()
	subs := b.subs
	var waiter func([]byte, time.Time)
	if p.Topic == b.reply && p.Properties != nil {
		waiter = b.wait[string(p.Properties.CorrelationData)]
	}
	b.mu.RUnlock()
	if waiter != nil {
		waiter(p.Payload, at)
		return
	}
	for _, s := range subs {
		if topicMatch(s.filter, p.Topic) {
			s.f(p.Topic, p.Payload, p.Properties, at)
		}
	}
}

// topicMatch reports whether topic matches the MQTT filter (+ and #).
func topicMatch(filter, topic string) bool {
	f, t := strings.Split(filter, "/"), strings.Split(topic, "/")
	for i, part := range f {
		if part == "#" {
			return true
		}
		if i >= len(t) || part != "+" && part != t[i] {
			return false
		}
	}
	return len(f) == len(t)
}

func (b *roleClient) Lost() <-chan error { return b.lost }

// Separator joins the levels of a topic.
func (Transport) Separator() string { return "/" }

// Wildcards are MQTT's: + one level, # the rest.
func (Transport) Wildcards() string { return "+#" }

// Below is prefix/#, which matches prefix itself.
func (Transport) Below(prefix string) []string { return []string{prefix + "/#"} }

// RoleUsage describes MQTT in the roles' --help.
func (Transport) RoleUsage() driver.RoleUsage {
	return driver.RoleUsage{What: "MQTT 5, QoS 0 or 1 by --reliability, request/response", Endpoint: "mqtt://host:1883",
		EndpointNote: "tried in order until one accepts", Reliability: "QoS 0 or 1"}
}

// SystemInfo is the broker's and the client's, as every end reports them.
func (b *roleClient) SystemInfo() meta.SystemInfo { return b.info() }

func (b *roleClient) publish(p *paho.Publish) error {
	if p.QoS == 0 {
		// QoS 0 is written by the calling goroutine: one at a time.
		b.pubMu.Lock()
		defer b.pubMu.Unlock()
	}
	// QoS 1 waits for the PUBACK, QoS 2 for the PUBCOMP, within the packet
	// timeout.
	r, err := b.c.cli.Publish(context.Background(), p)
	if err == nil && r != nil && r.ReasonCode >= 0x80 {
		// paho.golang returns a QoS 2 message's refusing PUBREC as a
		// response, not an error.
		return refusal("PUBREC", r.ReasonCode, (&packets.Pubrec{ReasonCode: r.ReasonCode}).Reason())
	}
	return err
}

// Confirm calls mark, then waits until the broker has what was published
// before (driver.Confirmer). At QoS 1 and 2 Publish returned once the
// broker acknowledged the message (PUBACK, PUBCOMP), so everything handed
// to the client is the broker's already. At QoS 0 the broker acknowledges
// nothing: a PINGREQ sent after the mark, on the connection the messages
// went on, is answered once the broker read what came before it (Mosquitto
// and mochi-mqtt route each PUBLISH before they read the next packet), so
// its PINGRESP confirms them; without it (the link broke, or no answer
// within timeout) some may not have reached the broker. The client never
// reconnects: a broken link fails every later Confirm too.
func (b *roleClient) Confirm(timeout time.Duration, mark func()) error {
	mark()
	if b.c.s.qos > 0 {
		return nil
	}
	if err := b.c.ping(timeout); err != nil {
		return fmt.Errorf("the broker did not confirm what was published: %w", err)
	}
	return nil
}

func (b *roleClient) Publish(topic string, msg []byte) error {
	return b.publish(&paho.Publish{Topic: topic, QoS: b.c.s.qos, Payload: msg})
}

// Flush: QoS 0 messages are written when Publish returns, QoS 1 ones
// acknowledged.
func (b *roleClient) Flush(time.Duration) error { return nil }

func (b *roleClient) subscribe(filter string, f func(string, []byte, *paho.PublishProperties, time.Time)) (func() error, error) {
	sub := roleSub{filter, f, new(byte)}
	b.mu.Lock()
	b.subs = append(slices.Clip(b.subs), sub)
	b.mu.Unlock()
	// A refused subscription, and an ended one, no longer receive what an
	// overlapping subscription brings.
	remove := func() {
		b.mu.Lock()
		b.subs = slices.DeleteFunc(slices.Clone(b.subs), func(s roleSub) bool { return s.id == sub.id })
		b.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.c.subscribe(ctx, filter, b.c.s.qos, nil); err != nil {
		remove()
		return nil, err
	}
	return func() error {
		remove()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return b.c.unsubscribe(ctx, filter)
	}, nil
}

func (b *roleClient) Subscribe(expr string, f func(string, []byte, time.Time)) (func() error, error) {
	return b.subscribe(expr, func(topic string, msg []byte, _ *paho.PublishProperties, at time.Time) { f(topic, msg, at) })
}

func (b *roleClient) Serve(expr string, reply func([]byte, time.Time) [][]byte) (func() error, error) {
	return b.subscribe(expr, func(_ string, msg []byte, props *paho.PublishProperties, at time.Time) {
		if props == nil || props.ResponseTopic == "" {
			return
		}
		resp, corr := props.ResponseTopic, props.CorrelationData
		go func() {
			for _, r := range reply(msg, at) {
				if b.publish(&paho.Publish{Topic: resp, QoS: b.c.s.qos, Payload: r, Properties: &paho.PublishProperties{CorrelationData: corr}}) != nil {
					return
				}
			}
		}()
	})
}

func (b *roleClient) Query(ctx context.Context, key string, req []byte, f func([]byte, time.Time) bool) error {
	reply, err := b.replyTopic(ctx)
	if err != nil {
		return err
	}
	var tok [8]byte
	rand.Read(tok[:])
	corr := string(tok[:])
	deliver, done := driver.Replies(f)
	b.mu.Lock()
	b.wait[corr] = deliver
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.wait, corr)
		b.mu.Unlock()
	}()
	if err := b.publish(&paho.Publish{Topic: key, QoS: b.c.s.qos, Payload: req,
		Properties: &paho.PublishProperties{ResponseTopic: reply, CorrelationData: []byte(corr)}}); err != nil {
		return err
	}
	return driver.AwaitReplies(ctx, done)
}

// replyTopic returns the topic this client's replies come to, subscribed
// to by the first query; a refused subscription is tried again by the
// next (it was taken for done, and the queries after it waited for replies
// that could not come).
func (b *roleClient) replyTopic(ctx context.Context) (string, error) {
	b.replyMu.Lock()
	defer b.replyMu.Unlock()
	b.mu.RLock()
	reply := b.reply
	b.mu.RUnlock()
	if reply != "" {
		return reply, nil
	}
	reply = "mqgate/reply/" + b.c.id
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.c.subscribe(ctx, reply, b.c.s.qos, nil); err != nil {
		return "", err
	}
	b.mu.Lock()
	b.reply = reply
	b.mu.Unlock()
	return reply, nil
}

func (b *roleClient) Close() error {
	return driver.Bounded(5*time.Second, b.c.close)
}
