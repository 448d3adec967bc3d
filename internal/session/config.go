package session

import (
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/meta"
)

// Echo placements: where the far end of an interprocess sub-experiment
// runs (Config.Echo).
const (
	// EchoAuto places each sub-experiment's echoer by default: in this
	// process for in-process scenarios, at the --target of a socket
	// transport when one is given, else in a subprocess.
	EchoAuto = ""
	// EchoInProcess runs the echoer on a goroutine of this process, with
	// its own connection.
	EchoInProcess = "inprocess"
	// EchoSubprocess starts `run echo` on this host for each
	// sub-experiment.
	EchoSubprocess = "subprocess"
	// EchoRemote uses a `run echo` started elsewhere: at the --target of a
	// socket transport, or subscribed to --topic on the broker.
	EchoRemote = "remote"
)

// Broker placements (Config.Broker).
const (
	BrokerExternal = "external" // the broker at the URL given (default)
	BrokerEmbedded = "embedded" // a broker started inside this process
)

// DefaultConnectTimeout bounds connecting to a far end or a broker,
// handshakes included, when Config.ConnectTimeout is zero.
const DefaultConnectTimeout = 5 * time.Second

// Config is everything a run needs to know, as plain data: what the
// command line (or a test) asks for.
type Config struct {
	// Scenarios are the registered sub-experiment names to measure, in
	// order (driver.ScenarioOf).
	Scenarios []string
	// Engine is what to measure for each of them.
	Engine engine.Config
	// Echo is one of EchoAuto, EchoInProcess, EchoSubprocess, EchoRemote.
	// It applies to interprocess scenarios; in-process ones (and
	// transports whose ends share a process) always echo in-process.
	Echo string
	// Targets are where the far ends or brokers are, each one of:
	//   HOST:PORT          a remote `run echo`, for every socket transport
	//   TRANSPORT=ADDR     for one transport (ADDR: HOST:PORT or a URL)
	//   URL                a broker, for the transport of its scheme
	//                      (nats://, mqtt://, amqps://, …)
	Targets []string
	// Broker is BrokerExternal (or empty) or BrokerEmbedded.
	Broker string
	// Topic is the topic of every broker sub-experiment; empty gives each
	// a topic of its own, unique to the run, so that concurrent runs on
	// one broker do not cross. A remote echo needs the topic it serves.
	Topic string
	// Params are the values of the transports' flags (driver.FlagOwner),
	// by flag name. A flag missing here takes its declared default.
	Params map[string]string

	// CPUs pins the pinger thread and the echoer. Nil places them by
	// default: the first two CPUs this process may use, when it may use
	// two (resolvePlacement); both -1 pins neither (--cpus none).
	CPUs *meta.CPUs
	// RetransmitTimeout, MaxRetries and QueueDepth go to the transports
	// (driver.Options); zero means the transport's default.
	RetransmitTimeout time.Duration
	MaxRetries        int
	QueueDepth        int
	// ConnectTimeout bounds connecting to a far end or a broker, TLS and
	// DTLS handshakes included; zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// OneWay runs carry one-way traffic only: an external broker is probed
	// with a subscriber and a publisher rather than a round trip, whose
	// settings may differ (a transaction of several messages cannot hold
	// the one message of a round trip).
	OneWay bool

	// EchoDelay is spent by every echo end this run starts on each message
	// before it replies (--echo-delay), a stand-in for processing; its
	// jitter is drawn from Engine.Seed. A remote echo has its own.
	EchoDelay driver.Delay

	// Security is the certificate material of the secure scenarios; empty
	// generates a CA and certificates for this run.
	Security Security

	// Self is the command line that starts this program (`echo` and its
	// flags are appended to start an echo process); empty means the
	// program as it was started, from the context given to Prepare
	// (program.Invocation.Self: `mqgate run` under the front, the
	// executable itself otherwise).
	Self []string
	// EchoCommand, when set, is started in the echo role instead of Self
	// (`echo` and its flags are appended): another build of this program,
	// or a wrapper around one. meta.json records it.
	EchoCommand []string
	// EchoStderr receives the echo processes' standard error and the
	// session's warnings; nil discards them. An *os.File is handed to the
	// echo processes as it is.
	EchoStderr io.Writer
	// Args is the command line, recorded in meta.json without secrets.
	Args []string
}

// Security names PEM files given by the user.
type Security struct {
	CAFile, CertFile, KeyFile string
	// EchoCertFile and EchoKeyFile are the local echoer's (or embedded
	// broker's) certificate and key; empty means CertFile and KeyFile.
	EchoCertFile, EchoKeyFile string
	// ServerName is the name expected in the echoer's or broker's
	// certificate; empty means the host dialled.
	ServerName string
}

func (s Security) given() []string {
	var out []string
	for _, f := range []struct{ flag, v string }{
		{"--ca", s.CAFile}, {"--cert", s.CertFile}, {"--key", s.KeyFile},
		{"--echo-cert", s.EchoCertFile}, {"--echo-key", s.EchoKeyFile}, {"--server-name", s.ServerName},
	} {
		if f.v != "" {
			out = append(out, f.flag)
		}
	}
	return out
}

// target is one parsed Config.Targets entry.
type target struct {
	raw       string
	transport string // "" for HOST:PORT meant for every socket transport
	addr      string
	url       bool
}

// parseTarget reads HOST:PORT, TRANSPORT=ADDR or URL.
func parseTarget(raw string) (target, error) {
	t := target{raw: raw, addr: raw}
	if i := strings.Index(raw, "="); i > 0 && !strings.ContainsAny(raw[:i], ":/") {
		t.transport, t.addr = raw[:i], raw[i+1:]
		if _, err := driver.Lookup(t.transport); err != nil {
			return t, fmt.Errorf("--target %q: %v", raw, err)
		}
	}
	if scheme := driver.URLScheme(t.addr); scheme != "" {
		tr, err := driver.ForScheme(scheme)
		if err != nil {
			return t, fmt.Errorf("--target %q: %v", driver.RedactURL(raw), err)
		}
		if t.transport != "" && t.transport != tr.Name() {
			return t, fmt.Errorf("--target %q: a %s:// URL is for transport %s, not %s", driver.RedactURL(raw), scheme, tr.Name(), t.transport)
		}
		t.transport, t.url = tr.Name(), true
		return t, nil
	}
	if _, _, err := net.SplitHostPort(t.addr); err != nil {
		return t, fmt.Errorf("--target %q: expected HOST:PORT, TRANSPORT=HOST:PORT or a broker URL such as nats://host:4222", raw)
	}
	if t.transport != "" {
		tr, _ := driver.Lookup(t.transport)
		if driver.IsBroker(tr) {
			return t, fmt.Errorf("--target %q: transport %s reaches a broker: expected a URL (%s://HOST:PORT)", raw, t.transport, driver.SchemesOf(tr)[0])
		}
	}
	return t, nil
}

// normalizeEcho accepts the placements and "in-process".
func normalizeEcho(s string) (string, error) {
	switch s {
	case EchoAuto, EchoInProcess, EchoSubprocess, EchoRemote:
		return s, nil
	case "in-process":
		return EchoInProcess, nil
	}
	return "", fmt.Errorf("--echo %q: expected %s, %s or %s", s, EchoInProcess, EchoSubprocess, EchoRemote)
}

// recordedEcho is the meta.json spelling of a placement.
func recordedEcho(p string) string {
	switch p {
	case EchoInProcess:
		return engine.EchoInProcess
	case EchoSubprocess:
		return engine.EchoSubprocess
	case EchoRemote:
		return engine.EchoRemote
	}
	return p
}
