package mqtt

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Name is the transport's registry name.
const Name = "mqtt"

// Settings the transport owns, as flag names (driver.Flag) and keys of
// driver.Options.Params.
const (
	ParamURL          = "mqtt-url" // driver.URLFlag(Name)
	ParamTLSPort      = "mqtt-tls-port"
	ParamVersion      = "mqtt-version"
	ParamUsername     = "mqtt-username"
	ParamPassword     = "mqtt-password"
	ParamClientID     = "mqtt-client-id-prefix"
	ParamKeepAlive    = "mqtt-keepalive"
	ParamVersionTopic = "mqtt-version-topic"
	ParamMaxInflight  = "mqtt-max-inflight"
	// ParamQoS is fixed by each scenario (Scenario.Params), not a flag:
	// "0", "1" or "2". Without it, Options.Reliable picks QoS 1, else 0.
	ParamQoS = "mqtt-qos"
)

// Defaults of the settings.
const (
	DefaultURL          = "mqtt://127.0.0.1:1883"
	DefaultTLSPort      = "8883"
	DefaultVersion      = "3.1.1"
	DefaultClientID     = "mqgate"
	DefaultKeepAlive    = "30s"
	DefaultVersionTopic = "$SYS/broker/version"
	DefaultMaxInflight  = "20"
	// DefaultTopic is the topic of links whose Options.Topic is empty.
	DefaultTopic = "mqgate"
)

// Topic suffixes of a round trip: the pinger publishes to <topic>/ping,
// the echoer republishes to <topic>/pong.
const (
	PingSuffix = "/ping"
	PongSuffix = "/pong"
)

// MaxPacket is the largest MQTT control packet: the protocol's remaining
// length is at most 268,435,455 bytes (256 MiB − 1), in MQTT 3.1.1 and 5.
const MaxPacket = 268_435_455

// publishOverhead is what a PUBLISH packet adds to its topic and payload in
// the remaining length: the topic's 2-byte length, a 2-byte packet
// identifier (QoS 1 and 2) and, in MQTT 5, a 1-byte empty property length.
const publishOverhead = 2 + 2 + 1

// PublishLimit returns the largest payload a PUBLISH to topic can carry
// under the protocol limit (MaxPacket). Mosquitto (message_size_limit and
// max_packet_size 0) and mochi-mqtt (MaximumPacketSize 0) accept up to this
// by default; an MQTT 5 broker that declares a smaller Maximum Packet Size
// in its CONNACK is checked by Send.
func PublishLimit(topic string) int {
	return MaxPacket - publishOverhead - len(topic)
}

// MessageLimit returns the largest message the round trip of opts can
// carry: the limit of its longer topic, <topic>/ping or <topic>/pong.
func (Transport) MessageLimit(opts driver.Options) int {
	return PublishLimit(topicOf(opts) + PingSuffix)
}

func init() {
	driver.Register(Transport{})
	for _, s := range []struct {
		typ      string
		qos      string
		reliable bool
	}{
		{"mqtt_best_effort", "0", false},
		{"mqtt_reliable", "1", true},
		{"mqtt_exactly_once", "2", true},
	} {
		for _, sec := range []bool{false, true} {
			typ := s.typ
			if sec {
				typ += "_security"
			}
			driver.RegisterScenario(driver.Scenario{
				Type:         typ,
				Transport:    Name,
				Reliable:     s.reliable,
				Security:     sec,
				Interprocess: true,
				Params:       map[string]string{ParamQoS: s.qos},
			})
		}
	}
}

// Transport is the "mqtt" transport: one MQTT client connection per end,
// MQTT 3.1.1 or 5 (ParamVersion).
type Transport struct{}

var (
	_ driver.StreamTransport = Transport{}
	_ driver.SizeLimiter     = Transport{}
	_ driver.FlagOwner       = Transport{}
	_ driver.Embedder        = Transport{}
	_ driver.ClientDialer    = Transport{}
)

// Name returns "mqtt".
func (Transport) Name() string { return Name }

// Capabilities: a broker reached at mqtt:// (TCP) and mqtts:// (TLS)
// URLs, whose echo applies Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{Broker: true, Schemes: []string{"mqtt", "mqtts"}, EchoDelay: true}
}

// Flags declares the transport's settings.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: ParamURL, Default: DefaultURL, EnvVar: driver.URLEnv(Name),
			Usage: "MQTT broker URL, mqtt://[USER:PASSWORD@]HOST:PORT, or mqtts:// for TLS (the _security sub-experiments use mqtts:// on --" + ParamTLSPort + " when it is mqtt://)"},
		{Name: ParamTLSPort, Default: DefaultTLSPort, EnvVar: driver.EnvName(ParamTLSPort), Range: driver.IntRange(1, 65535),
			Usage: "port of the broker's TLS listener, used by the _security sub-experiments when the URL is mqtt://"},
		{Name: ParamVersion, Default: DefaultVersion, EnvVar: driver.EnvName(ParamVersion),
			Usage: "MQTT protocol version: 3.1.1 (client github.com/eclipse/paho.mqtt.golang) or 5 (github.com/eclipse/paho.golang)"},
		{Name: ParamUsername, EnvVar: driver.EnvName(ParamUsername), Usage: "MQTT user name, when the URL has none"},
		{Name: ParamPassword, EnvVar: driver.EnvName(ParamPassword), Usage: "MQTT password, when the URL has none", Secret: true},
		{Name: ParamClientID, Default: DefaultClientID, EnvVar: driver.EnvName(ParamClientID),
			Usage: "MQTT client identifiers are <prefix>-<role>-<random>"},
		{Name: ParamKeepAlive, Default: DefaultKeepAlive, EnvVar: driver.EnvName(ParamKeepAlive), Range: driver.DurationRange(time.Second, 65535*time.Second), // whole seconds, a 16-bit field
			Usage: "MQTT keep alive (whole seconds, rounded up); a broker that stops answering is detected within about twice it"},
		{Name: ParamMaxInflight, Default: DefaultMaxInflight, EnvVar: driver.EnvName(ParamMaxInflight), Range: driver.IntRange(1, 65535), // packet identifiers, 16-bit
			Usage: "MQTT 3.1.1 publishers: most QoS 1 and 2 messages awaiting acknowledgement (MQTT 5 uses the broker's Receive Maximum); Mosquitto drops QoS 2 messages beyond its max_inflight_messages, 20 by default"},
		{Name: ParamVersionTopic, Default: DefaultVersionTopic, EnvVar: driver.EnvName(ParamVersionTopic),
			Usage: "retained topic holding the broker's version, read once for meta.json (empty: do not ask)"},
	}
}

// topicOf returns the link's topic.
func topicOf(opts driver.Options) string { return cmp.Or(opts.Topic, DefaultTopic) }

// checkTopic refuses topics a PUBLISH cannot carry.
func checkTopic(topic string) error {
	switch {
	case strings.ContainsAny(topic, "+#"):
		return fmt.Errorf("topic %q has a wildcard (+ or #): MQTT publishes to plain topic names", topic)
	case strings.ContainsRune(topic, 0):
		return fmt.Errorf("topic %q has a NUL character", topic)
	case len(topic) > 65535:
		return errors.New("topic is longer than 65535 bytes")
	}
	return nil
}
