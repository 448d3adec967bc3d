package amqp

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
)

// Flag names, the keys of Options.Params.
const (
	FlagURL            = "amqp-url"
	FlagTLSPort        = "amqp-tls-port"
	FlagMandatory      = "amqp-mandatory"
	FlagPrefetch       = "amqp-prefetch"
	FlagTxSize         = "amqp-tx-size"
	FlagConsumerTxSize = "amqp-consumer-tx-size"
	FlagAutoAck        = "amqp-auto-ack"
	FlagPersistent     = "amqp-persistent"
	FlagImmediate      = "amqp-immediate"
	FlagQueue          = "amqp-queue"
	FlagExchange       = "amqp-exchange"
	FlagDurable        = "amqp-durable"
	FlagFrameMax       = "amqp-frame-max"
	FlagHeartbeat      = "amqp-heartbeat"
)

// Defaults of the flags.
const (
	DefaultURL       = "amqp://guest:guest@127.0.0.1:5672/"
	DefaultTLSPort   = 5671
	DefaultFrameMax  = 131072 // RabbitMQ's own frame_max default
	DefaultHeartbeat = 10 * time.Second
	// EnvURL names the environment variable of --amqp-url.
	EnvURL = "MQGATE_AMQP_URL"
)

// DefaultMaxMessageSize is the largest message RabbitMQ accepts by default
// (max_message_size, 128 MiB since RabbitMQ 3.8); larger publishes close the
// channel with PRECONDITION_FAILED. A message larger than a frame is sent
// as several body frames of at most frame_max − 8 bytes.
const DefaultMaxMessageSize = 128 << 20

// Values of the three-way flags (--amqp-durable, --amqp-auto-ack,
// --amqp-persistent): auto follows the sub-experiment (reliable or best
// effort).
const (
	valueAuto  = "auto"
	valueTrue  = "true"
	valueFalse = "false"
)

// Queues of one-way subscribers (--amqp-queue).
const (
	queueTopic  = "topic"  // named after the topic
	queueServer = "server" // named by the broker (amq.gen-…)
)

// errImmediate refuses --amqp-immediate: RabbitMQ 3.0 removed the flag and
// closes the connection of a publish that sets it.
var errImmediate = fmt.Errorf("amqp: --%s: RabbitMQ removed the immediate flag in 3.0 (the broker closes the connection of a publish that sets it, 540 NOT_IMPLEMENTED); RabbitMQ's replacement is a message TTL of 0 with --%s", FlagImmediate, FlagMandatory)

// Flags returns the settings the amqp transport owns.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: FlagURL, Default: DefaultURL, EnvVar: EnvURL, Secret: true,
			Usage: "RabbitMQ broker URL, amqp://USER:PASSWORD@HOST:PORT/VHOST (the _security sub-experiments use amqps:// on --amqp-tls-port)"},
		{Name: FlagTLSPort, Default: strconv.Itoa(DefaultTLSPort), Range: driver.IntRange(1, 65535),
			Usage: "port of the broker's TLS listener, used by the _security sub-experiments when the URL is amqp://"},
		{Name: FlagMandatory, Default: "false", Boolean: true,
			Usage: "publish with the mandatory flag: unroutable messages come back (basic.return) and are counted; a returned ping stops a round trip at once, a returned message a one-way run (the error gives the count)"},
		{Name: FlagPrefetch, Default: "0", Range: driver.IntRange(0, 65535),
			Usage: "consumer prefetch (basic.qos) of acknowledging consumers (--amqp-auto-ack); 0 means no limit; auto-ack consumers ignore it"},
		{Name: FlagTxSize, Default: "0", Range: driver.IntRange(0, 1<<30), Aliases: []string{"amqp-producer-tx-size"},
			Usage: "messages per producer transaction: publish in AMQP transactions of this many messages (tx.select, tx.commit) instead of publisher confirms; 0 means no transactions; round trips need 1 (one message in flight); one-way modes commit an open transaction before waiting for deliveries"},
		{Name: FlagConsumerTxSize, Default: "0", Range: driver.IntRange(0, 1<<30),
			Usage: "messages per consumer transaction: acknowledge deliveries in AMQP transactions of this many (tx.select on the consuming channel, tx.commit after N basic.ack); needs manual acks (--amqp-auto-ack=false or a reliable sub-experiment) and no smaller --amqp-prefetch; 0 means none"},
		{Name: FlagAutoAck, Default: valueAuto,
			Usage: "consumers in auto-ack mode (the broker forgets a message once sent) or acknowledging each delivery (basic.ack): auto (auto-ack for best-effort sub-experiments, manual acks for reliable ones), true or false"},
		{Name: FlagPersistent, Default: valueAuto,
			Usage: "publish persistent messages (delivery mode 2) or transient ones (delivery mode 1): auto (persistent for reliable sub-experiments), true or false; --amqp-durable auto follows it"},
		{Name: FlagImmediate, Default: "false", Boolean: true,
			Usage: "publish with the immediate flag: true is refused, RabbitMQ removed immediate in 3.0 (the broker closes the connection, 540 NOT_IMPLEMENTED); false is recorded"},
		{Name: FlagQueue, Default: queueTopic,
			Usage: "queue of one-way subscribers: topic (the queue is named after the topic) or server (as the RabbitMQ throughput method: exclusive, auto-delete, named by the broker amq.gen-…, no binding but the implicit one of its name; the publisher in this process routes to it by name; not for competing consumers); a round trip's measuring end always consumes from a queue named by the broker"},
		{Name: FlagExchange, Default: "",
			Usage: "publish to this existing exchange (e.g. amq.direct) instead of the default exchange; queues are bound to it"},
		{Name: FlagDurable, Default: valueAuto,
			Usage: "declare durable queues: auto (durable when messages are persistent, so that they reach disk), true or false"},
		{Name: FlagFrameMax, Default: strconv.Itoa(DefaultFrameMax), Range: driver.IntRange(4096, 1<<31-1),
			Usage: "largest AMQP frame the client proposes, in bytes (the broker may lower it); larger messages travel as several body frames"},
		{Name: FlagHeartbeat, Default: DefaultHeartbeat.String(), Range: driver.DurationRange(time.Second, 65535*time.Second), // whole seconds, a 16-bit field
			Usage: "AMQP heartbeat interval the client proposes (whole seconds; the broker may lower it; ?heartbeat=0 in the URL turns heartbeats off)"},
	}
}

// settings are the parsed Options of one end.
type settings struct {
	reliable  bool
	group     string // Options.Group: consumers share one queue
	security  *driver.Security
	tlsPort   int
	mandatory bool
	prefetch  int
	txSize    int
	// consumerTxSize acknowledgements per consumer transaction (0: none).
	consumerTxSize int
	autoAck        bool
	persistent     bool
	serverNamed    bool // one-way subscribers' queues named by the broker
	exchange       string
	durable        bool
	frameMax       int
	heartbeat      time.Duration
	maxSize        int
	topic          string // names the connections, for operators
}

// parseSettings reads opts.Params against the flags (driver.ParseParams),
// naming the flag of a bad value.
func parseSettings(opts driver.Options) (*settings, error) {
	ps, err := driver.ParseParams(Transport{}.Flags(), opts.Params)
	if err != nil {
		return nil, fmt.Errorf("amqp: %w", err)
	}
	s := &settings{
		reliable:       opts.Reliable,
		group:          opts.Group,
		security:       opts.Security,
		tlsPort:        ps.Int(FlagTLSPort),
		mandatory:      ps.Bool(FlagMandatory),
		prefetch:       ps.Int(FlagPrefetch),
		txSize:         ps.Int(FlagTxSize),
		consumerTxSize: ps.Int(FlagConsumerTxSize),
		exchange:       strings.TrimSpace(ps.String(FlagExchange)),
		frameMax:       ps.Int(FlagFrameMax),
		heartbeat:      ps.Duration(FlagHeartbeat),
		maxSize:        opts.LargestMessageOrDefault(),
		topic:          opts.Topic,
	}
	if s.autoAck, err = autoParam(ps, FlagAutoAck, !opts.Reliable); err != nil {
		return nil, err
	}
	if s.persistent, err = autoParam(ps, FlagPersistent, opts.Reliable); err != nil {
		return nil, err
	}
	if s.durable, err = autoParam(ps, FlagDurable, s.persistent); err != nil {
		return nil, err
	}
	if ps.Bool(FlagImmediate) {
		return nil, errImmediate
	}
	switch v := strings.TrimSpace(ps.String(FlagQueue)); v {
	case "", queueTopic:
	case queueServer:
		s.serverNamed = true
	default:
		return nil, fmt.Errorf("amqp: --%s %q: expected topic or server", FlagQueue, v)
	}
	switch {
	case s.consumerTxSize > 0 && s.autoAck:
		return nil, fmt.Errorf("amqp: --%s %d commits acknowledgements, but auto-ack consumers send none: add --%s=false", FlagConsumerTxSize, s.consumerTxSize, FlagAutoAck)
	case s.consumerTxSize > 0 && s.prefetch > 0 && s.consumerTxSize > s.prefetch:
		return nil, fmt.Errorf("amqp: --%s %d exceeds --%s %d: the broker would stop delivering before a transaction of acknowledgements is full", FlagConsumerTxSize, s.consumerTxSize, FlagPrefetch, s.prefetch)
	}
	if s.maxSize > DefaultMaxMessageSize {
		return nil, fmt.Errorf("amqp: messages of %d bytes exceed RabbitMQ's default max_message_size of %d bytes", s.maxSize, DefaultMaxMessageSize)
	}
	return s, nil
}

// autoParam reads a flag of auto, true or false; auto is def.
func autoParam(ps driver.Params, name string, def bool) (bool, error) {
	switch v := strings.TrimSpace(ps.String(name)); v {
	case "", valueAuto:
		return def, nil
	case valueTrue, valueFalse:
		return v == valueTrue, nil
	default:
		return false, fmt.Errorf("amqp: --%s %q: expected auto, true or false", name, v)
	}
}

// deliveryMode is what messages are published with: persistent (2) or
// transient (1).
func (s *settings) deliveryMode() uint8 {
	if s.persistent {
		return amqp091.Persistent
	}
	return amqp091.Transient
}

// confirms reports whether publishers use publisher confirms: reliable ends
// do, unless they publish in transactions (a channel cannot be in both
// modes).
func (s *settings) confirms() bool { return s.reliable && s.txSize == 0 }

// txCount is what a publisher committed: transactions and their messages.
type txCount struct{ commits, messages uint64 }

// mode describes the publishing and consuming mode for SystemInfo. A
// transaction holds up to --amqp-tx-size messages (one is committed early
// when the sender waits for deliveries): the transactions are named as
// committed only when tx counted some.
func (s *settings) mode(tx txCount) string {
	pub := "no confirms"
	switch {
	case s.txSize > 0 && tx.commits > 0:
		pub = fmt.Sprintf("transactions of up to %d: %d committed, %d messages, %.1f a transaction", s.txSize, tx.commits, tx.messages,
			float64(tx.messages)/float64(tx.commits))
	case s.txSize > 0:
		pub = fmt.Sprintf("transactions of up to %d", s.txSize)
	case s.confirms():
		pub = "publisher confirms"
	}
	ack := "auto-ack"
	if !s.autoAck {
		ack = "manual ack"
		if s.prefetch > 0 {
			ack += fmt.Sprintf(", prefetch %d", s.prefetch)
		}
		if s.consumerTxSize > 0 {
			ack += fmt.Sprintf(", acknowledgement transactions of %d", s.consumerTxSize)
		}
	}
	dm := "transient"
	if s.persistent {
		dm = "persistent"
	}
	return dm + " messages, " + pub + ", " + ack
}
