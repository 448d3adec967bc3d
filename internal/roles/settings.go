package roles

import (
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/config"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/load"
)

// Role names.
const (
	RolePub = "pub"
	RoleSub = "sub"
	RoleReq = "req"
	RoleQry = "qry"
)

// Settings are one role's resolved settings (flags, MQ_* environment,
// --config file; internal/config).
type Settings struct {
	Role        string
	Driver      string
	Endpoints   []string
	TopicPrefix string
	Topics      int
	Publishers  int
	Payload     int
	Rate        float64
	Duration    time.Duration
	Reliable    bool
	Expr        string
	Subscribers int
	QPS         float64
	Concurrency int
	Timeout     time.Duration
	// AggWindow is how long a req gathers replies after the first (0:
	// until --replies or --timeout).
	AggWindow time.Duration
	// SnapshotInterval is the width of the --csv snapshot windows.
	SnapshotInterval time.Duration
	// ServePrefixes are the keys a qry answers queries on, each with what
	// is below it (--serve-prefix, repeatable); none overlaps another.
	ServePrefixes []string
	ReplySize     int
	ProcDelay     time.Duration
	ProcJitter    time.Duration
	Replies       int
	CSV           string
	RunID         string
	OutDir        string
	PromPort      int
	// PromAddr is where the metrics are served when given (--prom-addr);
	// --prom-port serves them on 127.0.0.1.
	PromAddr string
	LogLevel string
	Label    string
	Instance int
	// instanceDrawn is true when Instance was drawn at random (no
	// --instance): claimReport may draw another.
	instanceDrawn bool
	ClockOffset   bool
	ClockProbes   int
	Seed          uint64
	// WaitFor are the addresses that must be ready before the role
	// connects (WaitReady), within WaitTimeout.
	WaitFor     []string
	WaitTimeout time.Duration
	Args        []string
	// Params are the system's flags given to the role (DriverKeys), by
	// name: its client's Options.Params, as run's ends take them.
	Params map[string]string
	// Security, when set (--ca), makes the client's link TLS, the server
	// verified against Security.CAFile.
	Security *driver.Security
	// Log receives diagnostics at --log-level (nil: none).
	Log *slog.Logger
	// cgroupStart is the role's cgroup usage when it started (Run), nil
	// without a cgroup of its own.
	cgroupStart *CgroupUsage
}

// SecurityKeys are the TLS settings of a role's client, named as run's.
var SecurityKeys = []string{"ca", "cert", "key", "server-name"}

// DriverKeys are the settings of the systems' clients that a role takes
// beside Keys: SecurityKeys and the flags of every system whose roles run
// on a driver.Client (driver.FlagOwner), the flags run's ends take.
func DriverKeys() []string {
	out := slices.Clone(SecurityKeys)
	for _, f := range clientFlags() {
		if !slices.Contains(out, f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

// securityUsage is the usage of each of SecurityKeys.
var securityUsage = map[string]string{
	"ca":          "TLS: verify the server against this CA certificate (PEM) and connect over TLS (the system's TLS port or URL, as run's _security sub-experiments)",
	"cert":        "TLS: this client's certificate (PEM), with --key and --ca",
	"key":         "TLS: this client's private key (PEM), with --cert",
	"server-name": "TLS: name expected in the server's certificate (default: the host dialled)",
}

// DriverUsage is the usage of a setting of DriverKeys.
func DriverUsage(key string) (string, bool) {
	if u, ok := securityUsage[key]; ok {
		return u, true
	}
	for _, f := range clientFlags() {
		if f.Name == key {
			return f.Usage + " (" + f.System + "; as for run unless the role says otherwise)", true
		}
	}
	return "", false
}

// systemFlag is a flag of a system with a role client.
type systemFlag struct {
	driver.Flag
	System string
}

// clientFlags are the flags of the systems whose roles run on a
// driver.Client, in the registry's order.
func clientFlags() []systemFlag {
	var out []systemFlag
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		if _, ok := t.(driver.ClientDialer); !ok {
			continue
		}
		for _, f := range driver.FlagsOf(t) {
			out = append(out, systemFlag{f, n})
		}
	}
	return out
}

// AllKeys are Keys and DriverKeys: every setting a role takes.
func AllKeys() []string { return append(slices.Clone(Keys), DriverKeys()...) }

// Options are the driver.Options of the role's client: those run's ends
// get from the same flags.
func (s Settings) Options() driver.Options {
	return driver.Options{Reliable: s.Reliable, Security: s.Security, Params: maps.Clone(s.Params),
		LargestMessage: max(s.Payload, s.ReplySize), Topic: s.TopicPrefix}
}

// recorded is params with the system's flags given to the role that are
// not secret, as meta.json records run's.
func (s Settings) recorded(params map[string]string) map[string]string {
	for _, f := range clientFlags() {
		if v, ok := s.Params[f.Name]; ok && f.System == s.Driver && !f.Secret {
			params[f.Name] = driver.RedactURL(v)
		}
	}
	return params
}

// Keys are the settings every role takes, by flag name.
var Keys = []string{
	"driver", "endpoint", "topic-prefix", "topics", "publishers", "payload", "rate", "duration", "reliability",
	"expr", "subscribers", "qps", "concurrency", "timeout", "agg-window", "snapshot-interval", "serve-prefix", "reply-size",
	"proc-delay", "replies", "csv", "run-id", "out-dir", "prom-port", "prom-addr", "log-level", "label", "instance",
	"clock-offset", "clock-probes", "seed", "wait-for", "wait-timeout",
}

var (
	labelRE = regexp.MustCompile(`^[a-z0-9]+$`)
	runIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// Resolve reads the settings of role from c, with the defaults of the
// design, and checks them. now names the run when --run-id is not given.
func Resolve(role string, c *config.Config, now time.Time) (Settings, error) {
	s := Settings{Role: role}
	var errs []error
	num, flt, dur := kept[int](&errs), kept[float64](&errs), kept[time.Duration](&errs)
	s.Driver = c.String("driver", "nats")
	s.Endpoints = c.Strings("endpoint", nil)
	s.TopicPrefix = c.String("topic-prefix", "mqgate.bench")
	s.Topics = num(c.Int("topics", 1))
	s.Publishers = num(c.Int("publishers", 1))
	s.Payload = num(c.Int("payload", 64))
	s.Rate = flt(c.Float("rate", 1000))
	s.Duration = dur(c.Duration("duration", 10*time.Second))
	rel := c.String("reliability", "best_effort")
	switch strings.ReplaceAll(rel, "-", "_") {
	case "best_effort", "best":
	case "reliable":
		s.Reliable = true
	default:
		errs = append(errs, fmt.Errorf("reliability (from %s): %q, expected best_effort or reliable", c.Source("reliability"), rel))
	}
	s.Expr = c.String("expr", "")
	s.Subscribers = num(c.Int("subscribers", 1))
	s.QPS = flt(c.Float("qps", 100))
	s.Concurrency = num(c.Int("concurrency", 8))
	s.Timeout = dur(c.Duration("timeout", 5*time.Second))
	s.AggWindow = dur(c.Duration("agg-window", 0))
	s.SnapshotInterval = dur(c.Duration("snapshot-interval", time.Second))
	s.ServePrefixes = c.Strings("serve-prefix", nil)
	s.ReplySize = num(c.Int("reply-size", 64))
	if pd := c.String("proc-delay", "0"); pd != "" {
		var err error
		if s.ProcDelay, s.ProcJitter, err = ParseProcDelay(pd); err != nil {
			errs = append(errs, fmt.Errorf("proc-delay (from %s): %v", c.Source("proc-delay"), err))
		}
	}
	s.Replies = num(c.Int("replies", 1))
	s.CSV = c.String("csv", "")
	s.RunID = c.String("run-id", now.UTC().Format(experiment.DirTimeLayout))
	s.OutDir = c.String("out-dir", "results")
	s.PromPort = num(c.Int("prom-port", 0))
	s.PromAddr = c.String("prom-addr", "")
	s.LogLevel = c.String("log-level", "info")
	s.Label = c.String("label", "")
	s.Instance = num(c.Int("instance", 0)) // not given: random (check)
	s.ClockProbes = num(c.Int("clock-probes", 32))
	s.ClockOffset = kept[bool](&errs)(c.Bool("clock-offset", true))
	s.Seed = uint64(num(c.Int("seed", 1)))
	s.WaitFor = c.Strings("wait-for", nil)
	s.WaitTimeout = dur(c.Duration("wait-timeout", time.Minute))
	s.resolveClient(c)
	if len(errs) > 0 {
		return s, errs[0]
	}
	return s, s.check(c.Source)
}

// kept returns a setting's value, keeping its error, if any, in errs.
func kept[T any](errs *[]error) func(T, error) T {
	return func(v T, err error) T {
		if err != nil {
			*errs = append(*errs, err)
		}
		return v
	}
}

// resolveClient reads the settings of the system's client given (no
// default: the driver's applies).
func (s *Settings) resolveClient(c *config.Config) {
	for _, f := range clientFlags() {
		if c.Source(f.Name) != "default" {
			if s.Params == nil {
				s.Params = map[string]string{}
			}
			s.Params[f.Name] = c.String(f.Name, "")
		}
	}
	if ca := c.String("ca", ""); ca != "" || c.String("cert", "") != "" || c.String("key", "") != "" || c.String("server-name", "") != "" {
		s.Security = &driver.Security{CAFile: ca, CertFile: c.String("cert", ""), KeyFile: c.String("key", ""), ServerName: c.String("server-name", "")}
	}
}

// checkClient refuses the client settings the role's system would not
// use or would refuse, before anything connects: another system's flag
// (given as a flag; a variable may serve several roles), TLS settings
// without --ca or a certificate without its key, settings of a system
// whose roles run in a helper, and a value the driver refuses.
func (s *Settings) checkClient(source func(key string) string) error {
	for _, f := range clientFlags() {
		if _, ok := s.Params[f.Name]; ok && f.System != s.Driver && source(f.Name) == "--"+f.Name {
			return fmt.Errorf("--%s is a setting of --driver %s, not of --driver %s", f.Name, f.System, s.Driver)
		}
	}
	t, err := driver.Lookup(s.Driver)
	if err != nil {
		return nil
	}
	if _, ok := t.(driver.ClientDialer); !ok {
		for _, k := range SecurityKeys {
			if source(k) != "default" {
				return fromSource(fmt.Errorf("--%s: the %s roles run in a helper of their own, which takes no TLS settings", k, s.Driver), k, source(k))
			}
		}
		return nil
	}
	if sec := s.Security; sec != nil {
		switch {
		case sec.CAFile == "":
			return errors.New("--cert, --key and --server-name make the client's link TLS, which needs --ca (the CA certificate the server is verified against)")
		case (sec.CertFile == "") != (sec.KeyFile == ""):
			return errors.New("--cert and --key go together: the client's certificate and its private key")
		}
		for _, k := range []string{"ca", "cert", "key"} {
			if f := map[string]string{"ca": sec.CAFile, "cert": sec.CertFile, "key": sec.KeyFile}[k]; f != "" {
				if _, err := os.Stat(f); err != nil {
					return fromSource(fmt.Errorf("--%s %s: %w", k, f, err), k, source(k))
				}
			}
		}
	}
	if pc, ok := t.(driver.ParamChecker); ok {
		return pc.CheckParams(s.Options())
	}
	return nil
}

// ParseProcDelay reads "DELAY" or "DELAY±JITTER" (also "DELAY,JITTER"):
// each reply waits DELAY plus a uniform draw in [−JITTER, +JITTER], at
// least 0.
func ParseProcDelay(v string) (delay, jitter time.Duration, err error) {
	d, j, has := strings.Cut(strings.ReplaceAll(v, "±", ","), ",")
	if delay, err = config.ParseDuration(d); err == nil && has {
		jitter, err = config.ParseDuration(j)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%q: expected DELAY or DELAY±JITTER, e.g. 2ms±500us", v)
	}
	if delay < 0 || jitter < 0 {
		return 0, 0, fmt.Errorf("%q: delays are not negative", v)
	}
	return delay, jitter, nil
}

// Ranges are the valid ranges of the numeric settings, by key (stated in
// --help, checked by Resolve whatever the setting's source).
var Ranges = map[string]flagrange.Range{
	"topics":            flagrange.Int(1, load.MaxEnds),
	"publishers":        flagrange.Int(1, 256),
	"payload":           flagrange.Int(HeaderSize, 16<<20),
	"rate":              flagrange.Float(0, load.MaxRate).Above(),
	"duration":          flagrange.Duration(time.Millisecond, 24*time.Hour),
	"subscribers":       flagrange.Int(1, load.MaxEnds),
	"qps":               flagrange.Float(0, load.MaxRate).Above(),
	"concurrency":       flagrange.Int(1, 1_000_000),
	"timeout":           flagrange.Duration(time.Millisecond, time.Hour),
	"agg-window":        flagrange.Duration(time.Millisecond, time.Hour).OrZero("none"),
	"snapshot-interval": flagrange.Duration(time.Millisecond, time.Hour),
	"reply-size":        flagrange.Int(0, 16<<20),
	"replies":           flagrange.Int(1, 10_000),
	"prom-port":         flagrange.Int(1, 65535).OrZero("none"),
	"instance":          flagrange.Int(0, 255),
	"clock-probes":      flagrange.Int(1, 10_000),
	"seed":              flagrange.Int(0, 1<<53),
	"wait-timeout":      flagrange.Duration(time.Millisecond, 24*time.Hour),
}

// maxProcDelay bounds --proc-delay's delay and jitter.
const maxProcDelay = time.Hour

// check checks the settings and fills in the derived ones; source says
// where a setting's value came from ("default" when not given), so that an
// error names the variable or file a value came from.
func (s *Settings) check(source func(key string) string) error {
	values := map[string]float64{
		"topics": float64(s.Topics), "publishers": float64(s.Publishers), "payload": float64(s.Payload), "rate": s.Rate,
		"duration": float64(s.Duration), "subscribers": float64(s.Subscribers), "qps": s.QPS,
		"concurrency": float64(s.Concurrency), "timeout": float64(s.Timeout), "agg-window": float64(s.AggWindow), "snapshot-interval": float64(s.SnapshotInterval),
		"reply-size": float64(s.ReplySize), "replies": float64(s.Replies), "prom-port": float64(s.PromPort),
		"instance": float64(s.Instance), "clock-probes": float64(s.ClockProbes), "seed": float64(int64(s.Seed)),
		"wait-timeout": float64(s.WaitTimeout),
	}
	for _, k := range Keys {
		r, ok := Ranges[k]
		if !ok || (k == "instance" && source(k) == "default") { // not given: random, below
			continue
		}
		if err := r.Check(k, values[k]); err != nil {
			return fromSource(err, k, source(k))
		}
	}
	for _, a := range s.WaitFor {
		if err := CheckReadyAddr(a); err != nil {
			return fmt.Errorf("--wait-for %w", err)
		}
	}
	if s.ProcDelay > maxProcDelay || s.ProcJitter > maxProcDelay {
		return fmt.Errorf("--proc-delay %v±%v: expected delays of 0 to %v", s.ProcDelay, s.ProcJitter, flagrange.FormatDuration(maxProcDelay))
	}
	if _, err := load.PromAddr(s.PromPort, s.PromAddr, "--prom-port", "--prom-addr"); err != nil {
		return err
	}
	if s.Label != "" && !labelRE.MatchString(s.Label) {
		return fmt.Errorf("--label %q: expected lower-case letters and digits", s.Label)
	}
	if !runIDRE.MatchString(s.RunID) {
		return fmt.Errorf("--run-id %q: expected letters, digits, '.', '_' or '-' (a directory name)", s.RunID)
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, s.LogLevel) {
		return fmt.Errorf("--log-level %q: expected debug, info, warn or error", s.LogLevel)
	}
	if err := s.checkHelperKeys(source); err != nil {
		return err
	}
	if err := s.checkClient(source); err != nil {
		return err
	}
	if len(s.ServePrefixes) == 0 {
		s.ServePrefixes = []string{s.TopicPrefix + sep(s.Driver) + "query"}
	}
	if err := checkServePrefixes(s.ServePrefixes, sep(s.Driver), source("serve-prefix")); err != nil {
		return err
	}
	if s.Expr == "" {
		switch s.Role {
		case RoleSub:
			s.Expr = s.TopicPrefix + sep(s.Driver) + "data"
		case RoleReq:
			s.Expr = s.ServePrefixes[0]
		}
	}
	if s.Label == "" {
		s.Label = map[string]string{RoleSub: "pubsub", RoleReq: "query", RolePub: "pubsub", RoleQry: "query"}[s.Role]
	}
	if source("instance") == "default" {
		h := fnv.New32a()
		fmt.Fprintf(h, "%s/%d/%d", hostname(), os.Getpid(), time.Now().UnixNano())
		s.Instance, s.instanceDrawn = int(h.Sum32()%256), true
	}
	if s.CSV == "true" { // --csv alone
		s.CSV = s.reportPath(".csv")
	}
	return nil
}

// checkServePrefixes refuses a prefix given twice or below another: a
// query on it would be answered once per prefix it is below.
func checkServePrefixes(prefixes []string, sep, src string) error {
	for i, p := range prefixes {
		for _, q := range prefixes[:i] {
			switch {
			case p == q:
				return fromSource(fmt.Errorf("--serve-prefix %q is given twice: expected distinct keys", p), "serve-prefix", src)
			case strings.HasPrefix(q, p+sep):
				p, q = q, p
				fallthrough
			case strings.HasPrefix(p, q+sep):
				return fromSource(fmt.Errorf("--serve-prefix %q is below --serve-prefix %q, which answers its queries already", p, q), "serve-prefix", src)
			}
		}
	}
	return nil
}

// checkHelperKeys refuses, for a system whose roles run in a helper
// (driver.RoleRunner: Zenoh), a --serve-prefix or --expr other than the
// keys the helper uses, <prefix>/query and <prefix>/data: the helper takes
// only the topic prefix, and would ignore them.
func (s *Settings) checkHelperKeys(source func(key string) string) error {
	t, _ := driver.Lookup(s.Driver)
	if _, ok := t.(driver.RoleRunner); !ok {
		return nil
	}
	key, own := helperKey(s.TopicPrefix), s.TopicPrefix+sep(s.Driver)
	query, data := key+"/query", key+"/data"
	refuse := func(flag, v, does string) error {
		err := fmt.Errorf("--%s %q: the %s helper %s; choose the keys with --topic-prefix", flag, v, s.Driver, does)
		return fromSource(err, flag, source(flag))
	}
	for _, p := range s.ServePrefixes {
		if p != query && p != own+"query" {
			return refuse("serve-prefix", p, "serves "+query+" only")
		}
	}
	switch {
	case s.Expr == "":
	case s.Role == RoleReq && s.Expr != query && s.Expr != own+"query":
		return refuse("expr", s.Expr, "queries "+query+" only")
	case s.Role == RoleSub && s.Expr != data && s.Expr != data+"/**" && s.Expr != own+"data":
		return refuse("expr", s.Expr, "subscribes to "+data+" only (and below it)")
	}
	return nil
}

// helperKey is the key prefix the Zenoh helper uses for topic prefix p
// (the driver's: the default mqgate.bench becomes mqgate/bench).
func helperKey(p string) string {
	if p == "mqgate.bench" {
		return "mqgate/bench"
	}
	return p
}

// fromSource adds to err where the value came from when that was not the
// flag the error names (an MQ_* variable, a --config file).
func fromSource(err error, key, src string) error {
	if src == "--"+key {
		return err
	}
	return fmt.Errorf("%w (from %s)", err, src)
}

// sep is the topic separator of the system named ("." when unknown).
func sep(name string) string {
	t, _ := driver.Lookup(name)
	if ts, ok := t.(driver.RoleSystem); ok {
		return ts.Separator()
	}
	return "."
}

// Reliability is the formats §1 reliability word.
func (s Settings) Reliability() string {
	if s.Reliable {
		return "reliable"
	}
	return "best_effort"
}

// Type is the sub-experiment a measuring role writes: <driver>_<reliability>_<label>.
func (s Settings) Type() string { return s.Driver + "_" + s.Reliability() + "_" + s.Label }

// LastType is the query role's second sub-experiment: time to the last reply.
func (s Settings) LastType() string { return s.Type() + "last" }

// metaError is the error meta.json records of a role that did not
// complete for reason ("" when it completed or has none).
func (s Settings) metaError(completed bool, reason string) string {
	if completed || reason == "" {
		return ""
	}
	return s.Type() + ": " + reason
}

// params are the settings the sub-experiments of a sub or req record.
func (s Settings) params() map[string]string {
	if s.Role == RoleSub {
		return map[string]string{"clock-offset": strconv.FormatBool(s.ClockOffset), "publishers": strconv.Itoa(s.Publishers)}
	}
	return map[string]string{"qps": strconv.FormatFloat(s.QPS, 'f', -1, 64), "concurrency": strconv.Itoa(s.Concurrency),
		"replies": strconv.Itoa(s.Replies), "timeout": s.Timeout.String()}
}

// RunHash is the run id carried in message headers.
func (s Settings) RunHash() uint32 {
	h := fnv.New32a()
	h.Write([]byte(s.RunID))
	return h.Sum32()
}

// reportPath is roles/<role>-<label>-<instance><ext> in the experiment
// directory: the role's report (.json) or snapshots (.csv).
func (s Settings) reportPath(ext string) string {
	return filepath.Join(s.Dir(), ReportsDir, fmt.Sprintf("%s-%s-%d%s", s.Role, s.Label, s.Instance, ext))
}

// Dir is the experiment directory every role of the run writes into.
func (s Settings) Dir() string { return filepath.Join(s.OutDir, s.RunID) }
