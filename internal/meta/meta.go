package meta

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// FileName is the name of the file in an experiment directory.
const FileName = "meta.json"

// SchemaVersion is incremented when a field changes meaning.
const SchemaVersion = 1

// Latency definitions: what the "Latency [us]" column of the raw files holds.
const (
	LatencyHalfRTT = "half-rtt" // half the round trip (Fast-RTPS, sockperf)
	LatencyRTT     = "rtt"      // the full round trip
	LatencyOneWay  = "one-way"  // receive time − send time, clocks synchronised
)

// Meta is the content of meta.json.
type Meta struct {
	Schema     int    `json:"schema"`
	Tool       Tool   `json:"tool"`
	Experiment string `json:"experiment"`
	// Start and End are UTC and printed as RFC 3339 with nanoseconds.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Completed is true when every selected sub-experiment measured every
	// payload. Interrupted is true when SIGINT/SIGTERM stopped the run;
	// Error says what stopped it otherwise.
	Completed   bool   `json:"completed"`
	Interrupted bool   `json:"interrupted"`
	Error       string `json:"error,omitempty"`

	System System `json:"system"`
	Host   Host   `json:"host"`
	Config Config `json:"config"`

	// Latency is the definition of the raw files' latency column, one of
	// LatencyHalfRTT, LatencyRTT, LatencyOneWay.
	Latency string `json:"latency"`
	// Mode says how messages are paced: "round-trip closed-loop" (one
	// message in flight, the next sent when the echo arrived).
	Mode string `json:"mode"`
	// Clock names the clock the latencies were measured with.
	Clock string `json:"clock"`

	SubExperiments []SubExperiment `json:"subexperiments"`
}

// Tool identifies the program that wrote the file.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// BuiltinSystem is run's name of the system under test unless told
// otherwise: the transports built into mqgate.
const BuiltinSystem = "mqgate-builtin"

// UnknownProduct names a broker that did not say what it is (MQTT has no
// field for it, and a broker may publish no version topic).
const UnknownProduct = "unknown"

// System is the system under test.
type System struct {
	// Name is what was measured, e.g. "mqgate-builtin", "rabbitmq". Left
	// at BuiltinSystem by a run that reached brokers, meta.json names what
	// they announced instead (Encode, systemOf).
	Name string `json:"name"`
	// Scopes are the sub-experiment scopes of the run (formats §1), e.g.
	// "intraprocess", "interprocess", "amqp".
	Scopes  []string `json:"scopes"`
	Version string   `json:"version,omitempty"`
	Commit  string   `json:"commit,omitempty"`
}

// Config is the fully resolved configuration of a run: every default
// filled in, so that the run can be repeated from this record alone.
type Config struct {
	Args           []string `json:"args"`
	SubExperiments []string `json:"subexperiments"`
	Payloads       []int    `json:"payloads"`
	// Samples and Warmup are the round trips measured, and measured then
	// discarded, per payload (run's --samples and --warmup). The one-way
	// stream modes (run load, throughput, permessage, burst) measure no
	// such counts: they set OneWay and the two are left out.
	Samples int `json:"samples"`
	Warmup  int `json:"warmup"`
	// OneWay leaves out of meta.json what only the round-trip engine
	// reads (Samples, Warmup, MaxLostInRow, Seed) and a zero Timeout (run
	// load waits by --drain, not a timeout): set by the one-way stream
	// modes, and by Decode when samples and warmup are both absent.
	OneWay bool `json:"-"`
	// WarmupDuration is run load's --warmup: the time each payload was
	// measured then discarded before its measured period; absent in the
	// other modes.
	WarmupDuration *Duration `json:"warmup_duration,omitempty"`
	Timeout        Duration  `json:"timeout"`
	// MaxLostInRow stops a sub-experiment after that many consecutive
	// losses (the echoer is taken for dead).
	MaxLostInRow int `json:"max_lost_in_row"`
	// Fill is what filled the messages: the round-trip mode's --fill
	// (zero, random), or a one-way stream mode's padding after the
	// message header (random, zeros or pattern: run load's --padding,
	// run throughput's --padding, pattern for permessage and burst).
	Fill string `json:"fill"`
	// PaddingSeed seeds the random padding of run load and run throughput
	// (--padding random); absent otherwise.
	PaddingSeed uint64 `json:"padding_seed,omitempty"`
	Seed        uint64 `json:"seed"` // run's --seed (an int64 wrote one above 2^63 − 1 as negative)
	// RunID is the id every round-trip message of the run carries in its
	// sequence word (formats §2); absent in the one-way stream modes.
	RunID             uint32   `json:"run_id,omitempty"`
	RetransmitTimeout Duration `json:"retransmit_timeout"`
	MaxRetries        int      `json:"max_retries"`
	QueueDepth        int      `json:"queue_depth,omitempty"`
	// Target is the address of a remote `run echo`; empty when the echoer
	// ran on this host.
	Target string `json:"target,omitempty"`
	// Echo says where interprocess echoers ran: "subprocess" or "remote".
	Echo string `json:"echo"`
	CPUs *CPUs  `json:"cpus,omitempty"`
	TLS  *TLS   `json:"tls,omitempty"`
	Out  string `json:"out"`
	// ConnectTimeout bounds connecting and handshaking with a far end or a
	// broker.
	ConnectTimeout Duration `json:"connect_timeout,omitempty"`
	// Broker is "external" (the brokers at the URLs given) or "embedded"
	// (started inside run); empty when no sub-experiment uses a broker.
	Broker string `json:"broker,omitempty"`
	// Topic is the base topic given by --topic; empty when each
	// sub-experiment got a topic of its own (SubExperiment.Topic).
	Topic string `json:"topic,omitempty"`
	// Params are the values of the drivers' own flags (driver.Flag), secret
	// ones left out and URLs without passwords.
	Params map[string]string `json:"params,omitempty"`
	// EchoDelay is the processing delay the echo ends spent on each message
	// before replying (run --echo-delay); absent when none.
	EchoDelay *EchoDelay `json:"echo_delay,omitempty"`
	// EchoCommand is the program started in the echo role when it was not
	// run itself (run --echo-command): another build, a wrapper.
	EchoCommand []string `json:"echo_command,omitempty"`
}

// MarshalJSON writes c, without the round-trip engine's settings when
// c.OneWay.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config
	if !c.OneWay {
		return json.Marshal(plain(c))
	}
	// The outer fields hide plain's of the same name; nil, they are left
	// out, and every other field keeps its place.
	var timeout *Duration
	if c.Timeout != 0 {
		timeout = &c.Timeout
	}
	return json.Marshal(struct {
		plain
		Samples      *int      `json:"samples,omitempty"`
		Warmup       *int      `json:"warmup,omitempty"`
		MaxLostInRow *int      `json:"max_lost_in_row,omitempty"`
		Seed         *uint64   `json:"seed,omitempty"`
		Timeout      *Duration `json:"timeout,omitempty"`
	}{plain: plain(c), Timeout: timeout})
}

// UnmarshalJSON reads c; a config without samples and warmup (a one-way
// stream mode's) sets OneWay, so that it is written again as read.
func (c *Config) UnmarshalJSON(b []byte) error {
	type plain Config
	var v struct {
		plain
		Samples *int `json:"samples"`
		Warmup  *int `json:"warmup"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Config(v.plain)
	if v.Samples != nil {
		c.Samples = *v.Samples
	}
	if v.Warmup != nil {
		c.Warmup = *v.Warmup
	}
	c.OneWay = v.Samples == nil && v.Warmup == nil
	return nil
}

// EchoDelay is a processing delay: Mean plus a uniform jitter in
// [-Jitter, +Jitter], drawn from config.seed.
type EchoDelay struct {
	Mean   Duration `json:"mean"`
	Jitter Duration `json:"jitter"`
}

// CPUs is the CPU placement of the two ends (-1: not pinned).
type CPUs struct {
	Pinger int `json:"pinger"`
	Ponger int `json:"ponger"`
	// Placement says who chose it (cpus.go): empty when --cpus gave it.
	Placement string `json:"placement,omitempty"`
	// Note says why a default placement was not applied.
	Note string `json:"note,omitempty"`
}

// TLS records the certificates of the secure sub-experiments.
type TLS struct {
	// Generated is true when a CA and certificates were made for this run.
	Generated bool   `json:"generated"`
	CAFile    string `json:"ca_file,omitempty"`
	CertFile  string `json:"cert_file,omitempty"`
	KeyFile   string `json:"key_file,omitempty"`
}

// SubExperiment is the record of one sub-experiment.
type SubExperiment struct {
	Type      string `json:"type"`
	Transport string `json:"transport"`
	Reliable  bool   `json:"reliable"`
	// Echo is where the echoer ran: "in-process", "subprocess", "remote".
	Echo string `json:"echo"`
	// Topic is what a broker sub-experiment published to and subscribed
	// from (request and reply topics derive from it); empty for sockets.
	Topic string `json:"topic,omitempty"`
	// Params are the driver settings of this sub-experiment: its
	// transport's flags merged with the scenario's fixed settings, secret
	// ones left out.
	Params map[string]string `json:"params,omitempty"`
	// System is what the pinger connected to (a broker's product, version
	// and URL without credentials), when the transport reports it.
	System *SystemInfo `json:"system,omitempty"`
	// Acknowledged is true when the system acknowledged each message
	// (publisher confirms, PUBACK): Payload.MessagesAcked counts them.
	Acknowledged bool      `json:"acknowledged"`
	Completed    bool      `json:"completed"`
	Error        string    `json:"error,omitempty"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	Payloads     []Payload `json:"payloads"`
}

// Payload holds the counts of one payload size of one sub-experiment.
type Payload struct {
	Bytes int `json:"bytes"`
	// Samples is the number of rows written to the raw file.
	Samples int `json:"samples"`
	// Warmup is the number of round trips measured then discarded.
	Warmup int `json:"warmup"`

	// The counters below cover the measured round trips only, not the
	// warm-up, like Samples.

	// Lost is the number of messages not echoed within the timeout. An echo
	// that arrives later is also counted in OutOfOrder.
	Lost uint64 `json:"lost"`
	// Retransmitted counts resends by a reliable transport (UDP, DTLS).
	Retransmitted uint64 `json:"retransmitted"`
	// Duplicates counts second echoes of a message already echoed.
	Duplicates uint64 `json:"duplicates"`
	// OutOfOrder counts first echoes of an earlier message that arrive
	// while a later one is awaited: late echoes of lost messages, including
	// those of the previous payload.
	OutOfOrder uint64 `json:"out_of_order"`
	// Dropped counts messages a best-effort transport discarded on sending
	// (a full queue or send buffer).
	Dropped uint64 `json:"dropped"`
	// Errors counts echoes that were neither samples nor the above:
	// corrupted, truncated, or of a sequence number never sent.
	Errors uint64 `json:"errors"`
	// OtherRuns counts round-trip messages of another run (another run
	// id: a run on the same topic), ignored; absent when none.
	OtherRuns uint64 `json:"other_runs,omitempty"`
	// MessagesAcked and MessagesRefused count the measured messages the
	// system acknowledged or refused (SubExperiment.Acknowledged); both
	// are 0 on links without acknowledgements.
	MessagesAcked   uint64 `json:"messages_acked"`
	MessagesRefused uint64 `json:"messages_refused"`
	Completed       bool   `json:"completed"`
}

// SystemInfo describes the system a sub-experiment's link reached: what a
// driver's ends and the roles' clients report (driver.InfoReporter) and
// what meta.json records of it, one type from the driver to the file.
type SystemInfo struct {
	// Product and Version of the server or library, as it reported them
	// (AMQP server properties, NATS INFO, MQTT has none: the client
	// library).
	Product string `json:"product,omitempty"`
	Version string `json:"version,omitempty"`
	// URL is the address connected to, without credentials.
	URL string `json:"url,omitempty"`
	// Embedded is true when the broker ran inside run (--broker embedded).
	Embedded bool `json:"embedded"`
	// Extra holds further facts (cluster name, protocol version, mode).
	Extra map[string]string `json:"extra,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("1.5s").
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err2 := json.Unmarshal(b, &n); err2 != nil {
			return fmt.Errorf("duration must be a string such as \"1.5s\": %s", b)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Encode writes m as indented JSON with times in UTC.
func Encode(w io.Writer, m *Meta) error {
	c := *m
	c.Start = c.Start.UTC()
	c.End = c.End.UTC()
	c.SubExperiments = append([]SubExperiment(nil), m.SubExperiments...)
	for i := range c.SubExperiments {
		c.SubExperiments[i].Start = c.SubExperiments[i].Start.UTC()
		c.SubExperiments[i].End = c.SubExperiments[i].End.UTC()
	}
	c.Schema = cmp.Or(c.Schema, SchemaVersion)
	c.System = systemOf(c.System, c.SubExperiments)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&c)
}

// systemOf is the system under test of a run whose sub-experiments are
// subs: sys as given, unless it is run's default (BuiltinSystem, no
// version) and a sub-experiment reached a broker. Then it names what the
// brokers announced (NATS INFO, AMQP server properties; UnknownProduct
// where the protocol carries none), joined by " + " with BuiltinSystem
// for the sub-experiments of built-in transports, and the version when
// one product of one version was measured.
func systemOf(sys System, subs []SubExperiment) System {
	if sys.Name != BuiltinSystem || sys.Version != "" {
		return sys
	}
	var names, versions []string
	brokers := 0
	for _, s := range subs {
		name := BuiltinSystem
		if s.System != nil {
			brokers++
			name = cmp.Or(s.System.Product, UnknownProduct)
			if !slices.Contains(versions, s.System.Version) {
				versions = append(versions, s.System.Version)
			}
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if brokers == 0 {
		return sys
	}
	sys.Name = strings.Join(names, " + ")
	if len(names) == 1 && len(versions) == 1 && names[0] != UnknownProduct {
		sys.Version = versions[0]
	}
	return sys
}

// Write writes m to path atomically. Once the run's end is recorded (End
// after Start) it records the load average then too.
func Write(path string, m *Meta) error {
	if l := m.Host.Load; l != nil && l.Start != nil && m.End.After(m.Start) {
		if la, ok := readLoadAverage(); ok {
			l.End = la
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error { return Encode(w, m) })
}

// Decode reads meta.json from r; file names the source in errors, which
// give the line and character (strict.go says what is refused).
func Decode(r io.Reader, file string) (*Meta, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	data = bytes.TrimPrefix(data, bom)
	top, open, err := strict(file, data)
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, jsonError(file, data, err)
	}
	off, ok := top["schema"]
	switch {
	case !ok:
		return nil, at(file, data, open, `field "schema" is missing; expected %d in a meta.json written by run`, SchemaVersion)
	case m.Schema > SchemaVersion:
		return nil, at(file, data, off, "schema %d is newer than this tool understands (%d); upgrade mqgate", m.Schema, SchemaVersion)
	case m.Schema < 1:
		return nil, at(file, data, off, "schema %d is not a meta.json schema; expected %d as run writes it", m.Schema, SchemaVersion)
	}
	switch m.Latency {
	case "", LatencyHalfRTT, LatencyRTT, LatencyOneWay:
	default:
		return nil, at(file, data, top["latency"], `field "latency": unknown latency definition %q: expected %s, %s or %s (formats §2)`,
			m.Latency, LatencyHalfRTT, LatencyRTT, LatencyOneWay)
	}
	if off, ok := top["start"]; !ok {
		return nil, at(file, data, open, `field "start" is missing; expected an RFC 3339 time written by run`)
	} else if m.Start.IsZero() {
		return nil, at(file, data, off, `field "start" is the zero time; expected the run's start, an RFC 3339 time written by run`)
	}
	return &m, nil
}

// ReadFile reads the meta.json at path.
func ReadFile(path string) (*Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path)
}

// jsonError turns a decoding error that strict did not foresee into a
// file:line:col error.
func jsonError(file string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return at(file, data, int(syn.Offset)-1, "invalid JSON: %v", syn)
	case errors.As(err, &typ):
		return at(file, data, int(typ.Offset), "field %q: expected %s, found JSON %s", typ.Field, typ.Type, typ.Value)
	}
	return fileerr.New(file, 0, "", "%v", err)
}
