package driver

import (
	"context"
	"errors"
	"maps"
	"sync/atomic"
	"time"
)

// Built-in transport names, as registered by their packages.
const (
	Intraprocess = "intraprocess" // goroutines in one process
	UDP          = "udp"          // UDPv4 datagrams
	TCP          = "tcp"          // TCP with Nagle's algorithm off
	DTLS         = "dtls"         // DTLS 1.2 over UDP
	TLS          = "tls"          // TLS 1.3 over TCP
)

// ErrTimeout is wrapped by the error a Receiver returns when its deadline
// passed before a message arrived. Test with errors.Is.
var ErrTimeout = errors.New("timed out waiting for a message")

// ErrClosed is wrapped by the error an operation returns on a closed end.
var ErrClosed = errors.New("connection closed")

// Sender is the sending half of a link.
type Sender interface {
	// Send sends msg as one message. msg is exactly the payload: the
	// transport adds no bytes the receiver would see, and it may reuse msg
	// as soon as Send returns.
	Send(msg []byte) error
	// Close releases the link. It unblocks a concurrent Receive.
	Close() error
}

// Receiver is the receiving half of a link.
type Receiver interface {
	// Receive copies the next message into buf and returns its length and
	// when it arrived: the earliest moment this end saw it (a socket read's
	// return, a client library's delivery callback), with Go's monotonic
	// reading, so that a message queued inside a client library is timed
	// from its delivery rather than from when Receive was called. It returns
	// an error wrapping ErrTimeout when nothing arrived before deadline. A
	// message longer than buf is an error.
	Receive(buf []byte, deadline time.Time) (n int, at time.Time, err error)
	// Close releases the link.
	Close() error
}

// monoBase anchors Mono: the process's first reading of the clock.
var monoBase = time.Now()

// Mono reads the kernel's monotonic clock (CLOCK_MONOTONIC, through Go's
// runtime, as time.Since does) and nothing else: ns since the process's
// first reading. It is a Consumer's arrival time, which a one-way load
// converts to its own clock without building a time.Time per message;
// MonoTime turns it into one.
func Mono() int64 { return int64(time.Since(monoBase)) }

// MonoTime is the time of a Mono reading m: its monotonic reading is m's,
// its wall reading derived from it.
func MonoTime(m int64) time.Time { return monoBase.Add(time.Duration(m)) }

// MonoOf is the Mono reading of t, which must hold a monotonic reading
// (from time.Now, Now or MonoTime): MonoOf(MonoTime(m)) == m.
func MonoOf(t time.Time) int64 { return int64(t.Sub(monoBase)) }

// Now is time.Now with one clock reading instead of two, for a Receiver's
// arrival time: its monotonic reading is the clock's (Mono), its wall
// reading is derived from it (a round trip is measured on the monotonic
// clock, which the wall clock's adjustments must not reach anyway). The
// second reading time.Now takes costs 16 ns, a third of a percent of a TCP
// round trip.
func Now() time.Time { return MonoTime(Mono()) }

// Pinger is the measuring end of a round-trip sub-experiment: it sends a
// message and receives the echo. A Pinger is used by one goroutine.
type Pinger interface {
	Sender
	Receiver
}

// Echoer is the far end of a round-trip sub-experiment: it sends back every
// message it receives, unchanged, until its context is done or it is closed.
type Echoer interface {
	// Addr is the address a Pinger dials to reach this echoer, with the
	// port resolved when Listen was given port 0.
	Addr() string
	// Serve echoes until ctx is done (then it returns nil) or the link
	// fails. It is called once.
	Serve(ctx context.Context) error
	// Close stops Serve and releases the link.
	Close() error
}

// Transport opens both ends of one kind of link.
type Transport interface {
	// Name is the registry name, e.g. "udp".
	Name() string
	// Listen starts an echoer at addr (for sockets "host:port", port 0
	// picks a free one). The echoer is ready for Dial when Listen returns;
	// it echoes once Serve runs.
	Listen(ctx context.Context, addr string, opts Options) (Echoer, error)
	// Dial connects a pinger to the echoer at addr. ctx bounds the
	// connection set-up (handshakes), not the pinger's life.
	Dial(ctx context.Context, addr string, opts Options) (Pinger, error)
	// Capabilities is what the transport declares about itself: one
	// value, the same on every call.
	Capabilities() Capabilities
}

// StreamTransport is implemented by transports that also carry one-way
// traffic (throughput and one-way latency modes): publishers paced by the
// engine and subscribers that timestamp arrivals.
type StreamTransport interface {
	Transport
	// Subscribe opens a receiving end. Sockets listen at addr (port 0 picks
	// a free one) and report it by Subscriber.Addr; brokers connect to the
	// broker at addr and subscribe to opts.Topic. The subscriber receives
	// once Subscribe returns.
	Subscribe(ctx context.Context, addr string, opts Options) (Subscriber, error)
	// Publish opens a sending end towards addr: a Subscriber's Addr for
	// sockets, the broker URL for brokers (publishing to opts.Topic).
	Publish(ctx context.Context, addr string, opts Options) (Publisher, error)
}

// Publisher is the sending role of a one-way link. It may also implement
// AckSender when the system acknowledges what it accepted.
type Publisher interface {
	Sender
}

// Subscriber is the receiving role of a one-way link.
type Subscriber interface {
	Receiver
	// Addr is what a Publisher is given to reach this subscriber.
	Addr() string
}

// AckSender is implemented by senders of systems that acknowledge each
// message they accepted: AMQP publisher confirms, MQTT PUBACK (QoS 1) and
// PUBCOMP (QoS 2), JetStream publish acks. Send still returns as soon as
// the message is handed to the system; acknowledgements arrive later. A
// sender whose link acknowledges nothing (a best-effort mode) does not
// implement it: meta.json records whether a link acknowledged by whether
// its pinger is an AckSender.
type AckSender interface {
	Sender
	// OnAck registers f, called once per message sent, from any goroutine,
	// when the system acknowledged it (err nil) or refused it (err non-nil).
	// It must be called before the first Send.
	OnAck(f func(err error))
	// WaitAcks blocks until every message sent so far was acknowledged or
	// refused and its OnAck callback returned, or deadline passes (an
	// error wrapping ErrTimeout).
	WaitAcks(deadline time.Time) error
}

// AckCount counts the acknowledgements and refusals an AckSender reports:
// On is its OnAck function.
type AckCount struct{ acked, refused atomic.Uint64 }

// On counts one acknowledgement (err nil) or refusal; from any goroutine.
func (c *AckCount) On(err error) {
	if err != nil {
		c.refused.Add(1)
		return
	}
	c.acked.Add(1)
}

// Counts returns the acknowledgements and refusals counted so far.
func (c *AckCount) Counts() (acked, refused uint64) { return c.acked.Load(), c.refused.Load() }

// BatchSender is implemented by senders that may hold messages back until
// more are sent (AMQP transactions of several messages are routed when they
// commit). FlushBatch makes every message sent so far deliverable: a sender
// that keeps a bounded number of messages in flight calls it before waiting
// for deliveries, and a burst ends with it, so that no sender waits for
// messages it holds itself.
type BatchSender interface {
	Sender
	FlushBatch() error
}

// Options configure one end of a link. The zero value is a best-effort,
// plaintext link with transport defaults.
type Options struct {
	// Reliable asks for delivery guarantees: retransmission on datagram
	// links, blocking instead of dropping on in-process queues, the
	// broker's acknowledged mode on brokers.
	Reliable bool
	// Security, when non-nil, asks for an authenticated encrypted link
	// (TLS, DTLS, the broker's TLS port). Peers are verified against
	// Security.CAFile; certificate verification is never skipped.
	Security *Security
	// RetransmitTimeout is how long a reliable datagram pinger waits for an
	// echo before resending. Zero means the transport's default.
	RetransmitTimeout time.Duration
	// MaxRetries bounds the resends of one message. Zero means the
	// transport's default; after the last one Receive times out normally.
	MaxRetries int
	// LargestMessage is the largest message the run will send, so that
	// transports can size buffers once. Zero means 64 KiB.
	LargestMessage int
	// QueueDepth is the receive queue of an in-process or best-effort end,
	// in messages. Zero means the transport's default.
	QueueDepth int
	// Topic names what a broker link publishes to and subscribes from (a
	// NATS subject, an MQTT topic, an AMQP routing key, a Zenoh key
	// expression); a round trip derives its request and reply topics from
	// it with the system's separator. Sockets ignore it.
	Topic string
	// Group, when set, makes a subscriber one of the competing consumers
	// named Group on Topic: each message goes to one subscriber of the
	// group instead of to each. Only transports that implement Grouper
	// honour it (see CanGroup).
	Group string
	// Params carries driver-specific settings, keyed by the name of the
	// Flag the driver declared (FlagOwner): a broker's QoS, prefetch,
	// credentials file, an external program's command line.
	Params map[string]string
	// EchoDelay is spent by an echo end on each message before it replies
	// (transports that declare Capabilities.EchoDelay); pingers ignore it.
	EchoDelay Delay
}

// WithDefault returns o with Params[key] set to value unless it was
// given, in a map of its own: a caller's Params are never written to.
func (o Options) WithDefault(key, value string) Options {
	ps := make(map[string]string, len(o.Params)+1)
	maps.Copy(ps, o.Params)
	if _, given := ps[key]; !given {
		ps[key] = value
	}
	o.Params = ps
	return o
}

// Security names the PEM files of a secure link. The same CA signs both
// ends' certificates; each end verifies the other against it.
type Security struct {
	CAFile   string // CA certificate the peer is verified against
	CertFile string // this end's certificate
	KeyFile  string // this end's private key
	// ServerName is the name the pinger expects in the echoer's
	// certificate. Empty means the host part of the address.
	ServerName string
}

// LargestMessageOrDefault returns o.LargestMessage, or 64 KiB when unset.
func (o Options) LargestMessageOrDefault() int {
	if o.LargestMessage > 0 {
		return o.LargestMessage
	}
	return 64 << 10
}

// Counters are what a link counted on its own: the engine reads them before
// and after each payload and records the differences in meta.json.
type Counters struct {
	Retransmitted uint64 // messages resent by a reliable datagram pinger
	Dropped       uint64 // messages the transport discarded (a full best-effort queue)
	Errors        uint64 // transient errors the transport recovered from
}

// CounterReader is implemented by the ends that count: pingers, echoers,
// and the publishers and subscribers of run load. A message dropped is
// counted at one end only, so that the counts of a run's ends add up.
type CounterReader interface {
	Counters() Counters
}

// Sub returns c − old, field by field.
func (c Counters) Sub(old Counters) Counters {
	return Counters{
		Retransmitted: c.Retransmitted - old.Retransmitted,
		Dropped:       c.Dropped - old.Dropped,
		Errors:        c.Errors - old.Errors,
	}
}

// Add returns c + d, field by field.
func (c Counters) Add(d Counters) Counters {
	return Counters{
		Retransmitted: c.Retransmitted + d.Retransmitted,
		Dropped:       c.Dropped + d.Dropped,
		Errors:        c.Errors + d.Errors,
	}
}
