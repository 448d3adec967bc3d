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
	FlagURL       = "amqp-url"
	FlagTLSPort   = "amqp-tls-port"
	FlagMandatory = "amqp-mandatory"
	FlagPrefetch  = "amqp-prefetch"
	FlagTxSize    = "amqp-tx-size"
	FlagExchange  = "amqp-exchange"
	FlagDurable   = "amqp-durable"
	FlagFrameMax  = "amqp-frame-max"
	FlagHeartbeat = "amqp-heartbeat"
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

// Valid ranges of the numeric flags (driver.Flag.Range). AMQP counts the
// heartbeat in whole seconds, a 16-bit field.
var (
	tlsPortRange   = driver.IntRange(1, 65535)
	prefetchRange  = driver.IntRange(0, 65535)
	txSizeRange    = driver.IntRange(0, 1<<30)
	frameMaxRange  = driver.IntRange(4096, 1<<31-1)
	heartbeatRange = driver.DurationRange(time.Second, 65535*time.Second)
)

// MaxMessageSize is the largest message RabbitMQ accepts by default
// (max_message_size, 128 MiB since RabbitMQ 3.8); larger publishes close the
// channel with PRECONDITION_FAILED. A message larger than a frame is sent
// as several body frames of at most frame_max − 8 bytes.
const MaxMessageSize = 128 << 20

// Durability of the queues (--amqp-durable).
const (
	durableAuto  = "auto"
	durableTrue  = "true"
	durableFalse = "false"
)

// Flags returns the settings the amqp transport owns.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: FlagURL, Default: DefaultURL, EnvVar: EnvURL, Secret: true,
			Usage: "RabbitMQ broker URL, amqp://USER:PASSWORD@HOST:PORT/VHOST (the _security sub-experiments use amqps:// on --amqp-tls-port)"},
		{Name: FlagTLSPort, Default: strconv.Itoa(DefaultTLSPort), Range: tlsPortRange,
			Usage: "port of the broker's TLS listener, used by the _security sub-experiments when the URL is amqp://"},
		{Name: FlagMandatory, Default: "false",
			Usage: "publish with the mandatory flag: unroutable messages come back (basic.return) and are counted as dropped; a returned ping stops a round trip at once"},
		{Name: FlagPrefetch, Default: "0", Range: prefetchRange,
			Usage: "consumer prefetch (basic.qos) of acknowledging consumers (reliable); 0 means no limit; auto-ack consumers (best effort) ignore it"},
		{Name: FlagTxSize, Default: "0", Range: txSizeRange,
			Usage: "publish in AMQP transactions of this many messages (tx.select, tx.commit) instead of publisher confirms; 0 means no transactions; round trips need 1"},
		{Name: FlagExchange, Default: "",
			Usage: "publish to this existing exchange (e.g. amq.direct) instead of the default exchange; queues are bound to it"},
		{Name: FlagDurable, Default: durableAuto,
			Usage: "declare durable queues: auto (durable for reliable sub-experiments, so that persistent messages reach disk), true or false"},
		{Name: FlagFrameMax, Default: strconv.Itoa(DefaultFrameMax), Range: frameMaxRange,
			Usage: "largest AMQP frame the client proposes, in bytes (the broker may lower it); larger messages travel as several body frames"},
		{Name: FlagHeartbeat, Default: DefaultHeartbeat.String(), Range: heartbeatRange,
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
	exchange  string
	durable   bool
	frameMax  int
	heartbeat time.Duration
	maxSize   int
	topic     string // names the connections, for operators
}

// parseSettings reads opts.Params, naming the flag of a bad value.
func parseSettings(opts driver.Options) (*settings, error) {
	s := &settings{
		reliable:  opts.Reliable,
		group:     opts.Group,
		security:  opts.Security,
		tlsPort:   DefaultTLSPort,
		frameMax:  DefaultFrameMax,
		heartbeat: DefaultHeartbeat,
		durable:   opts.Reliable,
		maxSize:   opts.MaxMessageSizeOrDefault(),
		topic:     opts.Topic,
	}
	p := opts.Params
	var err error
	if s.tlsPort, err = intParam(p, FlagTLSPort, DefaultTLSPort, tlsPortRange); err != nil {
		return nil, err
	}
	if s.mandatory, err = boolParam(p, FlagMandatory); err != nil {
		return nil, err
	}
	if s.prefetch, err = intParam(p, FlagPrefetch, 0, prefetchRange); err != nil {
		return nil, err
	}
	if s.txSize, err = intParam(p, FlagTxSize, 0, txSizeRange); err != nil {
		return nil, err
	}
	s.exchange = strings.TrimSpace(p[FlagExchange])
	switch v := strings.TrimSpace(p[FlagDurable]); v {
	case "", durableAuto:
	case durableTrue, durableFalse:
		s.durable = v == durableTrue
	default:
		return nil, fmt.Errorf("amqp: --%s %q: expected auto, true or false", FlagDurable, v)
	}
	if s.frameMax, err = intParam(p, FlagFrameMax, DefaultFrameMax, frameMaxRange); err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(p[FlagHeartbeat]); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || !heartbeatRange.Contains(int64(d)) {
			return nil, fmt.Errorf("amqp: --%s %q: expected a duration from %v to %v, such as 10s", FlagHeartbeat, v,
				time.Duration(heartbeatRange.Min), time.Duration(heartbeatRange.Max))
		}
		s.heartbeat = d
	}
	if s.maxSize > MaxMessageSize {
		return nil, fmt.Errorf("amqp: messages of %d bytes exceed RabbitMQ's default max_message_size of %d bytes", s.maxSize, MaxMessageSize)
	}
	return s, nil
}

func intParam(p map[string]string, name string, def int, r driver.Range) (int, error) {
	v := strings.TrimSpace(p[name])
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || !r.Contains(int64(n)) {
		return 0, fmt.Errorf("amqp: --%s %q: expected a whole number from %d to %d", name, v, r.Min, r.Max)
	}
	return n, nil
}

func boolParam(p map[string]string, name string) (bool, error) {
	v := strings.TrimSpace(p[name])
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("amqp: --%s %q: expected true or false", name, v)
	}
	return b, nil
}

// deliveryMode is what messages are published with: persistent when
// reliable, transient otherwise.
func (s *settings) deliveryMode() uint8 {
	if s.reliable {
		return amqp091.Persistent
	}
	return amqp091.Transient
}

// confirms reports whether publishers use publisher confirms: reliable ends
// do, unless they publish in transactions (a channel cannot be in both
// modes).
func (s *settings) confirms() bool { return s.reliable && s.txSize == 0 }

// autoAck reports whether consumers let the broker forget a message as soon
// as it is sent (best effort) rather than on the consumer's basic.ack.
func (s *settings) autoAck() bool { return !s.reliable }

// mode describes the publishing and consuming mode for SystemInfo.
func (s *settings) mode() string {
	pub := "no confirms"
	switch {
	case s.txSize > 0:
		pub = fmt.Sprintf("transactions of %d", s.txSize)
	case s.confirms():
		pub = "publisher confirms"
	}
	ack := "auto-ack"
	if !s.autoAck() {
		ack = "manual ack"
		if s.prefetch > 0 {
			ack += fmt.Sprintf(", prefetch %d", s.prefetch)
		}
	}
	dm := "transient"
	if s.reliable {
		dm = "persistent"
	}
	return dm + " messages, " + pub + ", " + ack
}
