package nats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mqgate/mqgate/internal/driver"
)

// Name is the transport's registry name.
const Name = "nats"

// DefaultTopic is the topic of ends given none (Options.Topic).
const DefaultTopic = "mqgate"

// Round-trip subjects: <topic>.ping carries the pinger's messages to the
// echo, <topic>.pong the echoes back.
const (
	PingSuffix = ".ping"
	PongSuffix = ".pong"
)

func init() {
	driver.Register(Transport{})
	for _, s := range []driver.Scenario{
		{Type: "nats_best_effort"},
		{Type: "nats_reliable", Reliable: true},
		{Type: "nats_best_effort_security", Security: true},
		{Type: "nats_reliable_security", Reliable: true, Security: true},
	} {
		s.Transport = Name
		s.Interprocess = true
		driver.RegisterScenario(s)
	}
}

// Transport is the "nats" transport: core NATS when Options.Reliable is
// false, JetStream when it is true, TLS when Options.Security is set.
type Transport struct{}

var (
	_ driver.Transport       = Transport{}
	_ driver.StreamTransport = Transport{}
	_ driver.FlagOwner       = Transport{}
	_ driver.Embedder        = Transport{}
	_ driver.ClientDialer    = Transport{}
)

// Name returns "nats".
func (Transport) Name() string { return Name }

// Capabilities: a broker reached at nats:// and tls:// URLs (TLS from the
// first byte on the client's side; a nats:// URL with Options.Security
// upgrades to TLS as the server asks), whose echo applies
// Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{Broker: true, Schemes: []string{"nats", "tls"}, EchoDelay: true}
}

// MessageLimit is nats-server's default max_payload, the largest message
// a server accepts unless configured otherwise. Dial and Publish check the
// connected server's own value.
func (Transport) MessageLimit(driver.Options) int { return DefaultMaxPayload }

// Flags returns the settings the transport reads from Options.Params.
func (Transport) Flags() []driver.Flag { return append([]driver.Flag(nil), flags...) }

// Listen connects the echo end to the server at addr (a URL; empty means
// --nats-url): it takes every message on <topic>.ping and publishes it
// unchanged on <topic>.pong. It is subscribed when Listen returns.
func (Transport) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	c, topic, err := end(ctx, addr, opts, "echo", false)
	if err != nil {
		return nil, err
	}
	if opts.Reliable {
		return listenJS(ctx, c, topic, opts.EchoDelay.NewDelayer())
	}
	return listenCore(c, topic, opts.EchoDelay.NewDelayer())
}

// Dial connects the pinger to the server at addr: it publishes on
// <topic>.ping and receives from <topic>.pong.
func (Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	c, topic, err := end(ctx, addr, opts, "pinger", true)
	if err != nil {
		return nil, err
	}
	if opts.Reliable {
		return dialJS(ctx, c, topic)
	}
	return dialCore(c, topic)
}

// Subscribe connects a subscriber of <topic> to the server at addr.
func (Transport) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	c, topic, err := end(ctx, addr, opts, "subscriber", false)
	if err != nil {
		return nil, err
	}
	if opts.Reliable {
		return subscribeJS(ctx, c, topic)
	}
	return subscribeCore(c, topic)
}

// CanGroup accepts a queue group (Options.Group) on core NATS; a
// JetStream subscriber has a consumer of its own.
func (Transport) CanGroup(opts driver.Options) error {
	if opts.Reliable {
		return errors.New("nats: reliable (JetStream) subscribers each have a consumer of their own; queue groups are core NATS")
	}
	return nil
}

// Publish connects a publisher to <topic> on the server at addr. With
// Options.Reliable it publishes through JetStream and implements
// driver.AckSender.
func (Transport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	c, topic, err := end(ctx, addr, opts, "publisher", true)
	if err != nil {
		return nil, err
	}
	if opts.Reliable {
		return publishJS(ctx, c, topic)
	}
	return &corePublisher{conn: c, subject: topic}, nil
}

// end connects role's end of the run's subject (topicOf) to the server at
// addr; a sending end refuses a run whose messages the server would refuse.
func end(ctx context.Context, addr string, opts driver.Options, role string, sends bool) (*conn, string, error) {
	topic, err := topicOf(opts)
	if err != nil {
		return nil, "", err
	}
	c, err := connect(ctx, addr, opts, role)
	if err == nil && sends {
		err = c.checkSize(opts)
	}
	if err != nil {
		return nil, "", err
	}
	return c, topic, nil
}

// topicOf returns opts.Topic (DefaultTopic when empty) if it is a subject a
// client may publish to: dot-separated non-empty tokens, no wildcards, no
// white space.
func topicOf(opts driver.Options) (string, error) {
	t := cmp.Or(opts.Topic, DefaultTopic)
	for _, tok := range strings.Split(t, ".") {
		if tok == "" || tok == "*" || tok == ">" || strings.ContainsAny(tok, " \t\r\n") {
			return "", fmt.Errorf("nats: topic %q is not a NATS subject to publish to (dot-separated tokens, no wildcards or white space)", t)
		}
	}
	return t, nil
}
