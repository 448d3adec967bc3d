package mqtt

import (
	"cmp"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
)

// Protocol versions, as MQTT numbers them in CONNECT.
const (
	v311 = 4
	v5   = 5
)

// protocolLevels are the protocol versions --mqtt-version names.
var protocolLevels = map[string]int{"3.1.1": v311, "5": v5}

// settings is one end's configuration, checked.
type settings struct {
	raw      string   // the broker URL as given: what Addr returns
	url      *url.URL // broker, scheme mqtt or mqtts, credentials removed
	redacted string   // the URL as given, password replaced (driver.RedactURL)
	tls      *tls.Config
	security *driver.Security

	version      int    // v311 or v5
	group        string // Options.Group: subscribe through $share/<group>/
	qos          byte
	username     string
	password     string
	hasUser      bool
	hasPassword  bool
	clientPrefix string
	keepAlive    uint16 // seconds
	// packetTimeout bounds the wait for an acknowledgement of paho.golang
	// (0: its default, 10 s).
	packetTimeout time.Duration
	maxInflight   int
	versionTopic  string

	topic      string
	queueDepth int
}

// Role names in client identifiers.
const (
	rolePinger     = "ping"
	roleEcho       = "echo"
	rolePublisher  = "pub"
	roleSubscriber = "sub"
)

// DefaultQueueDepth is how many received messages an end holds for
// Receive when Options.QueueDepth is zero.
const DefaultQueueDepth = 1024

// errShared is why an MQTT 3.1.1 subscriber cannot join a group.
var errShared = fmt.Errorf("mqtt: shared subscriptions ($share/<group>/<topic>) are MQTT 5: set --%s 5", ParamVersion)

// newSettings checks addr and opts: every error names the setting.
func newSettings(addr string, opts driver.Options) (*settings, error) {
	ps, err := driver.ParseParams(Transport{}.Flags(), opts.Params)
	if err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}
	s := &settings{
		topic:        topicOf(opts),
		queueDepth:   cmp.Or(max(opts.QueueDepth, 0), DefaultQueueDepth),
		security:     opts.Security,
		group:        opts.Group,
		clientPrefix: cmp.Or(ps.String(ParamClientID), DefaultClientID),
		versionTopic: ps.String(ParamVersionTopic), // empty turns the question off
		// MQTT counts the keep alive in whole seconds: rounded up, within
		// the flag's range, 1 to 65535.
		keepAlive:   uint16((ps.Duration(ParamKeepAlive) + time.Second - 1) / time.Second),
		maxInflight: ps.Int(ParamMaxInflight),
	}
	if err := checkTopic(s.topic); err != nil {
		return nil, fmt.Errorf("mqtt: %w", err)
	}

	v := cmp.Or(ps.String(ParamVersion), DefaultVersion)
	if s.version = protocolLevels[v]; s.version == 0 {
		return nil, fmt.Errorf("mqtt: %s %q: want 3.1.1 or 5", ParamVersion, v)
	}

	if s.group != "" && s.version != v5 {
		return nil, errShared
	}

	switch q := opts.Params[ParamQoS]; q {
	case "":
		if opts.Reliable {
			s.qos = 1
		}
	case "0", "1", "2":
		s.qos = q[0] - '0'
	default:
		return nil, fmt.Errorf("mqtt: %s %q: want 0, 1 or 2", ParamQoS, q)
	}

	addr = cmp.Or(addr, ps.String(ParamURL), DefaultURL)
	s.raw = addr
	if err := s.parseURL(addr); err != nil {
		return nil, err
	}
	if opts.Security != nil && s.url.Scheme == "mqtt" {
		// A secure link goes to the broker's TLS listener.
		s.url.Scheme = "mqtts"
		s.url.Host = net.JoinHostPort(s.url.Hostname(), strconv.Itoa(ps.Int(ParamTLSPort)))
		s.raw = withSchemeHost(s.raw, "mqtts", s.url.Host)
		s.redacted = driver.RedactURL(s.raw)
	}
	if u := ps.String(ParamUsername); u != "" && !s.hasUser {
		s.username, s.hasUser = u, true
	}
	if pw := ps.String(ParamPassword); pw != "" && !s.hasPassword {
		s.password, s.hasPassword = pw, true
	}
	if s.hasPassword && !s.hasUser && s.version == v311 {
		return nil, fmt.Errorf("mqtt: MQTT 3.1.1 sends a password only with a user name (--%s)", ParamUsername)
	}
	if s.url.Scheme == "mqtts" {
		if s.tls, err = clientTLS(opts.Security, s.url.Host); err != nil {
			return nil, fmt.Errorf("mqtt: %s: %w", s.redacted, err)
		}
	}
	return s, nil
}

// defaultPorts are the ports of broker URLs without one, by scheme.
var defaultPorts = map[string]string{"mqtt": "1883", "mqtts": "8883"}

// parseURL takes mqtt:// (TCP) and mqtts:// (TLS) URLs, or host:port, and
// moves the credentials out of the URL.
func (s *settings) parseURL(raw string) error {
	s.redacted = driver.RedactURL(raw)
	if !strings.Contains(raw, "://") {
		scheme := "mqtt"
		if s.security != nil {
			scheme = "mqtts"
		}
		raw = scheme + "://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("mqtt: broker URL %s: %w", driver.RedactURL(raw), err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	port, ok := defaultPorts[u.Scheme]
	if !ok {
		return fmt.Errorf("mqtt: broker URL %s: scheme %q: want mqtt:// or mqtts://", s.redacted, u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("mqtt: broker URL %s has no host", s.redacted)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return fmt.Errorf("mqtt: broker URL %s: want scheme://host:port, without a path or query", s.redacted)
	}
	if u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), port)
	} else if n, err := strconv.Atoi(u.Port()); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("mqtt: broker URL %s: bad port %q", s.redacted, u.Port())
	}
	if u.User != nil {
		s.username, s.hasUser = u.User.Username(), true
		s.password, s.hasPassword = u.User.Password()
		u.User = nil
	}
	u.Path = ""
	s.url = u
	return nil
}

// withSchemeHost returns the URL raw with its scheme and host:port
// replaced, its credentials kept.
func withSchemeHost(raw, scheme, hostport string) string {
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(raw, "://") {
		return scheme + "://" + hostport
	}
	u.Scheme, u.Host = scheme, hostport
	return u.String()
}

// clientTLS verifies the broker against sec's CA and presents sec's
// certificate when it has one; without sec, against the system's roots.
// TLS 1.2 is the minimum, as brokers commonly offer it.
func clientTLS(sec *driver.Security, hostport string) (*tls.Config, error) {
	if sec == nil {
		host, _, _ := net.SplitHostPort(hostport)
		return &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}, nil
	}
	return secure.ClientTLSConfig(sec, hostport, tls.VersionTLS12)
}

// clientID is <prefix>-<role>-<8 hex digits>: unique per connection, and
// 23 characters or fewer with the default prefix, the length every MQTT
// 3.1.1 broker must accept.
func (s *settings) clientID(role string) string {
	var b [4]byte
	rand.Read(b[:])
	return s.clientPrefix + "-" + role + "-" + hex.EncodeToString(b[:])
}

// protocol names the version for messages and meta.json.
func (s *settings) protocol() string {
	if s.version == v5 {
		return "MQTT 5"
	}
	return "MQTT 3.1.1"
}
