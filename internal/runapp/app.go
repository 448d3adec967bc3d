package runapp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/session"
)

// SelfEnv, when set, replaces os.Executable() as the program started in
// the echo role (a space-separated command line). Tests use it.
const SelfEnv = "MQGATE_RUN_SELF"

// baseApp returns the run command without the subcommands defined in files
// of their own (App adds them).
func baseApp() *cli.App {
	return &cli.App{
		Name:      "run",
		Usage:     "measure round-trip latency of sub-experiments (built-in links and brokers) and write raw results",
		UsageText: "run [flags]\nrun --list\nrun echo --transport NAME [--listen ADDR] [flags]\nrun pub|sub|req|qry [--config FILE] [flags]\nrun ab --runs N --reference 'FLAGS' --candidate 'FLAGS' -- [flags]",
		Description: `run measures, for every selected sub-experiment and payload size, --warmup
round trips (discarded) then --samples round trips, one message in flight at a
time, and writes results/<experiment>/measurements_<type>.csv and meta.json.
Latency is half the round trip unless --latency rtt. Interprocess
sub-experiments start this program in the echo role on this host (--echo
subprocess, the default), run the echo on a goroutine with its own connection
(--echo inprocess), or use a 'run echo' started elsewhere (--echo remote, implied
by --target HOST:PORT for the built-in links).

--echo-delay DURATION[±JITTER] makes every echo end this run starts wait that
long on each message before replying (uniform jitter drawn from --seed), as a
stand-in for processing; meta.json records it. A remote 'run echo' takes its
own --echo-delay.

Broker sub-experiments (see 'run --list') reach the broker at the URL given by
--target (nats://host:4222, amqp://user:pass@host:5672/vhost, mqtts://…) or by
the driver's --<transport>-url flag, or start it inside run with --broker
embedded; each gets a topic of its own unless --topic is given.

Everything is checked before the experiment directory is created: payload
sizes against each transport's maximum message, memory for the samples,
certificates, and a connection to every broker and remote echo.

Exit codes: 0 done; 2 usage or environment error, including a link that broke
during the run (echoer or broker died, connection reset, --max-lost-in-row
consecutive losses); 130 interrupted. Measured samples and meta.json are
written in every case; meta.json says whether the run completed.

Sub-experiments: ` + strings.Join(scenarioNames(), ", ") + `.

Examples:
   run --samples 500 --warmup 50 --payloads 16,1024
   run -s intraprocess_reliable,interprocess_reliable_tcp --payloads 16..256 --samples 1000 --cpus 0,1
   run --list
   run -s interprocess_reliable_tcp --echo-delay 50us±10us --payloads 64
   run ab --runs 3 --candidate "--echo-delay 50us" -- -s interprocess_reliable_tcp --payloads 64 --samples 500
   run echo --listen 0.0.0.0:7400 --transport tcp
   run -s interprocess_reliable_tcp --target otherhost:7400`,
		Version: version(),
		Flags:   append(runFlags(), driverFlags()...),
		Action:  runAction,
		Commands: []*cli.Command{{
			Name:      "echo",
			Usage:     "echo every message back: the far end of an interprocess or broker sub-experiment",
			UsageText: "run echo --transport NAME [--listen ADDR] [--topic TOPIC] [--reliable] [--ca FILE --cert FILE --key FILE]",
			Description: `Prints the address it listens at (a broker URL without its password) as the
first line of standard output, then echoes until SIGINT/SIGTERM (or until
standard input closes, with --stdin-lifeline). A broker echo subscribes to
the requests of --topic and publishes the replies. Transports: ` + strings.Join(session.EchoTransports(), ", ") + ".",
			Flags:  append(echoFlags(), driverFlags()...),
			Action: echoAction,
		}},
	}
}

func version() string {
	if cliapp.Version != "" {
		return cliapp.Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
		}
		if v != "" {
			return v
		}
	}
	return "(devel)"
}

// The valid ranges of the numeric flags of the round-trip run, its echo
// role and the one-way subcommands (stated in --help, checked before
// anything starts).
var (
	samplesRange        = flagrange.Int(1, 1_000_000_000)
	warmupRange         = flagrange.Int(0, 1_000_000_000)
	timeoutRange        = flagrange.Duration(time.Microsecond, time.Hour)
	connectTimeoutRange = flagrange.Duration(time.Millisecond, time.Hour)
	maxLostRange        = flagrange.Int(1, 1_000_000_000)
	retransmitRange     = flagrange.Duration(time.Microsecond, time.Minute)
	maxRetriesRange     = flagrange.Int(1, 1000)
	queueDepthRange     = flagrange.Int(1, 65536)
	maxMessageRange     = flagrange.Int(engine.HeaderSize, 1<<30)
)

func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Value: strings.Join(driver.BuiltinTypes(), ","),
			Usage: "comma-separated sub-experiments to run, in order (see --list)"},
		&cli.BoolFlag{Name: "list", Usage: "list the sub-experiments available and exit"},
		&cli.StringFlag{Name: "payloads", Value: "16..16384", Usage: "payload sizes in bytes: a list (16,64) or a range of powers of two (16..16384)"},
		cliapp.Ranged(&cli.IntFlag{Name: "samples", Value: engine.DefaultSamples, Usage: "round trips kept per payload"}, samplesRange),
		cliapp.Ranged(&cli.IntFlag{Name: "warmup", Value: engine.DefaultWarmup, Usage: "round trips discarded per payload before the samples (0: none)"}, warmupRange),
		cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: engine.DefaultTimeout, Usage: "a message not echoed within this is lost"}, timeoutRange),
		cliapp.Ranged(&cli.DurationFlag{Name: "connect-timeout", Value: session.DefaultConnectTimeout, Usage: "bound on connecting to an echo or a broker, TLS/DTLS handshakes included"}, connectTimeoutRange),
		cliapp.Ranged(&cli.IntFlag{Name: "max-lost-in-row", Value: engine.DefaultMaxLostInRow, Usage: "stop when this many consecutive messages are lost (the echoer is taken for dead)"}, maxLostRange),
		&cli.StringFlag{Name: "fill", Value: engine.FillZero, Usage: "message bytes after the 16-byte header: zero or random"},
		cliapp.Ranged(&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of --fill random and of the --echo-delay jitter"}, flagrange.Uint64()),
		&cli.StringFlag{Name: "latency", Value: meta.LatencyHalfRTT, Usage: "what the Latency column holds: half-rtt or rtt"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results", Usage: "results root directory"},
		&cli.StringFlag{Name: "name", Usage: "experiment name (default: UTC start time, " + experiment.DirTimeLayout + ")"},
		&cli.StringFlag{Name: "sut-name", Value: "mqgate-builtin", Usage: "name of the system under test, for meta.json"},
		&cli.StringFlag{Name: "sut-version", Usage: "version of the system under test, for meta.json"},
		&cli.StringFlag{Name: "sut-commit", Usage: "commit of the system under test, for meta.json"},
		&cli.StringSliceFlag{Name: "target", Usage: "where the far end is: HOST:PORT of a 'run echo' for the built-in links, TRANSPORT=ADDR for one transport, or a broker URL (nats://, amqp://, mqtt://, …) (repeatable)"},
		&cli.StringFlag{Name: "echo", Usage: "where interprocess echoes run: inprocess, subprocess or remote (default: subprocess, remote with --target HOST:PORT)"},
		&cli.StringFlag{Name: "broker", Value: session.BrokerExternal, Usage: "broker sub-experiments: external (the URL given) or embedded (started inside run)"},
		&cli.StringFlag{Name: "topic", Usage: "broker sub-experiments: the topic (default: one per sub-experiment, unique to the run); a remote echo's --topic"},
		&cli.StringFlag{Name: "cpus", Usage: "pin the pinger and the echoer: PINGER_CPU,ECHOER_CPU"},
		&cli.StringFlag{Name: "echo-command", Usage: "command line started in the echo role instead of this program (another build of run, a wrapper), quoted as in a shell; 'echo' and its flags are appended"},
		&cli.StringFlag{Name: "echo-delay", Usage: "processing delay the echo ends this run starts spend on each message before replying: DURATION or DURATION±JITTER (also +-), e.g. 50us or 50us±10us; the jitter is uniform, drawn from --seed"},
		cliapp.Ranged(&cli.DurationFlag{Name: "retransmit-timeout", Usage: "reliable UDP/DTLS: resend after this long without an echo (default: the transport's, 10ms)"}, retransmitRange),
		cliapp.Ranged(&cli.IntFlag{Name: "max-retries", Usage: "reliable UDP/DTLS: resends per message (default: the transport's, 10)"}, maxRetriesRange),
		cliapp.Ranged(&cli.IntFlag{Name: "queue-depth", Usage: "in-process queue depth in messages (default: the transport's)"}, queueDepthRange),
		&cli.StringFlag{Name: "ca", Usage: "secure sub-experiments: CA certificate (PEM); default: a CA generated for this run"},
		&cli.StringFlag{Name: "cert", Usage: "secure sub-experiments: this end's certificate (PEM)"},
		&cli.StringFlag{Name: "key", Usage: "secure sub-experiments: this end's private key (PEM)"},
		&cli.StringFlag{Name: "echo-cert", Usage: "the local echo's (or embedded broker's) certificate (default: --cert)"},
		&cli.StringFlag{Name: "echo-key", Usage: "the local echo's (or embedded broker's) private key (default: --key)"},
		&cli.StringFlag{Name: "server-name", Usage: "name expected in the echoer's or broker's certificate (default: the host dialled)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error"},
	}
}

func echoFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "listen", EnvVars: []string{session.ListenEnv}, Usage: "address to listen at, or for a broker transport the broker URL; when not given: 127.0.0.1:0 (port 0: any free port), or the transport's URL flag"},
		&cli.StringFlag{Name: "transport", Required: true, Usage: "transport name"},
		&cli.BoolFlag{Name: "reliable", Usage: "reliable mode of the transport"},
		&cli.StringFlag{Name: "topic", Usage: "broker transports: the topic to serve (run's --topic)"},
		&cli.StringFlag{Name: "ca", Usage: "secure transports: CA certificate the peer is verified against (PEM)"},
		&cli.StringFlag{Name: "cert", Usage: "secure transports: this echoer's certificate (PEM); a broker transport's echo, a client, may do without (--ca alone verifies the broker)"},
		&cli.StringFlag{Name: "key", Usage: "secure transports: this echoer's private key (PEM), with --cert"},
		cliapp.Ranged(&cli.IntFlag{Name: "cpu", Value: -1, Usage: "pin the echo process to this CPU (default: not pinned)"}, flagrange.Int(0, int64(runtime.NumCPU()-1))),
		cliapp.Ranged(&cli.IntFlag{Name: "max-message-size", Value: 16384, Usage: "largest message in bytes"}, maxMessageRange),
		cliapp.Ranged(&cli.IntFlag{Name: "queue-depth", Usage: "queue depth in messages (default: the transport's)"}, queueDepthRange),
		&cli.StringFlag{Name: "echo-delay", Usage: "processing delay before each echo: DURATION or DURATION±JITTER (also +-), e.g. 50us±10us"},
		cliapp.Ranged(&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the --echo-delay jitter"}, flagrange.Uint64()),
		&cli.BoolFlag{Name: "stdin-lifeline", Usage: "exit when standard input closes (set by a parent run)"},
	}
}

// driverFlags are the flags every registered transport declares
// (driver.FlagOwner), with their environment variables.
func driverFlags() []cli.Flag {
	var out []cli.Flag
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		for _, f := range driver.FlagsOf(t) {
			usage := f.Usage + " (" + n + ")"
			if f.Secret {
				usage += "; secret: never written to meta.json"
			}
			sf := &cli.StringFlag{Name: f.Name, Value: f.Default, Usage: usage,
				EnvVars: []string{session.FlagEnv(f)}, Category: "transport " + n}
			if r, ok := driverRange(f.Range); ok {
				cliapp.Ranged(sf, r)
			}
			out = append(out, sf)
		}
	}
	return out
}

// driverRange is the flagrange form of a driver flag's range; false for a
// text flag.
func driverRange(r driver.Range) (flagrange.Range, bool) {
	switch r.Kind {
	case driver.WholeNumber:
		return flagrange.Int(r.Min, r.Max), true
	case driver.DurationValue:
		return flagrange.Duration(time.Duration(r.Min), time.Duration(r.Max)), true
	}
	return flagrange.Range{}, false
}

// driverParams collects the values of the drivers' flags.
func driverParams(c *cli.Context) map[string]string {
	params := map[string]string{}
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		for _, f := range driver.FlagsOf(t) {
			params[f.Name] = c.String(f.Name)
		}
	}
	return params
}

// scenarioNames lists the registered sub-experiments whose transport is
// available in this program.
func scenarioNames() []string {
	var out []string
	for _, sc := range driver.Scenarios() {
		if _, err := driver.Lookup(sc.Transport); err == nil {
			out = append(out, sc.Type)
		}
	}
	return out
}

// list prints the registered sub-experiments.
func list(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUB-EXPERIMENT\tTRANSPORT\tRELIABLE\tSECURE\tFAR END\tMAX MESSAGE")
	for _, sc := range driver.Scenarios() {
		t, err := driver.Lookup(sc.Transport)
		if err != nil {
			continue
		}
		far := "in-process"
		switch {
		case driver.IsBroker(t):
			far = "broker (" + strings.Join(driver.SchemesOf(t), ", ") + ")"
		case sc.Interprocess:
			far = "echo process"
		}
		size := "-"
		if n := driver.MaxMessageSize(t, driver.Options{Reliable: sc.Reliable}); n > 0 {
			size = strconv.Itoa(n) + " B"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", sc.Type, sc.Transport, yesNo(sc.Reliable), yesNo(sc.Security), far, size)
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// config turns the command line into a session configuration.
func config(c *cli.Context) (session.Config, error) {
	cfg := session.Config{
		Echo:              c.String("echo"),
		Targets:           c.StringSlice("target"),
		Broker:            c.String("broker"),
		Topic:             c.String("topic"),
		Params:            driverParams(c),
		RetransmitTimeout: c.Duration("retransmit-timeout"),
		MaxRetries:        c.Int("max-retries"),
		QueueDepth:        c.Int("queue-depth"),
		ConnectTimeout:    c.Duration("connect-timeout"),
		Security: session.Security{CAFile: c.String("ca"), CertFile: c.String("cert"), KeyFile: c.String("key"),
			EchoCertFile: c.String("echo-cert"), EchoKeyFile: c.String("echo-key"), ServerName: c.String("server-name")},
		Args: os.Args,
	}
	if c.Duration("connect-timeout") <= 0 {
		return cfg, fmt.Errorf("--connect-timeout %v: expected a positive duration", c.Duration("connect-timeout"))
	}
	if s := c.String("echo-delay"); s != "" {
		d, err := driver.ParseDelay(s)
		if err != nil {
			return cfg, fmt.Errorf("--echo-delay %v", err)
		}
		cfg.EchoDelay = d
	}
	payloads, err := engine.ParsePayloads(c.String("payloads"))
	if err != nil {
		return cfg, fmt.Errorf("--payloads: %v", err)
	}
	cfg.Engine = engine.Config{
		Payloads: payloads, Samples: c.Int("samples"), Warmup: c.Int("warmup"), Timeout: c.Duration("timeout"),
		MaxLostInRow: c.Int("max-lost-in-row"), Fill: c.String("fill"), Seed: c.Uint64("seed"), Latency: c.String("latency"),
	}
	for _, name := range strings.Split(c.String("subexperiments"), ",") {
		cfg.Scenarios = append(cfg.Scenarios, strings.TrimSpace(name))
	}
	if cpus := c.String("cpus"); cpus != "" {
		a, b, ok := strings.Cut(cpus, ",")
		p, err1 := strconv.Atoi(strings.TrimSpace(a))
		q, err2 := strconv.Atoi(strings.TrimSpace(b))
		n := runtime.NumCPU()
		if !ok || err1 != nil || err2 != nil || p < 0 || q < 0 || p >= n || q >= n {
			return cfg, fmt.Errorf("--cpus %q: expected PINGER_CPU,ECHOER_CPU with CPUs 0..%d", cpus, n-1)
		}
		cfg.CPUs = &meta.CPUs{Pinger: p, Ponger: q}
	}
	if s := os.Getenv(SelfEnv); s != "" {
		cfg.Self = strings.Fields(s)
	}
	if s := c.String("echo-command"); s != "" {
		words, err := splitCommand(s)
		if err != nil || len(words) == 0 {
			return cfg, fmt.Errorf("--echo-command %q: expected a command line (%v)", s, err)
		}
		cfg.EchoCommand = words
	}
	return cfg, nil
}

// experimentDir is --out/--name, the name the start time when not given.
func experimentDir(c *cli.Context, start time.Time) (string, error) {
	name := c.String("name")
	if name == "" {
		name = start.Format(experiment.DirTimeLayout)
	}
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", exit.Usagef("--name %q: expected a plain directory name", name)
	}
	return filepath.Join(c.String("out"), name), nil
}

// guardExperiment refuses an experiment directory that holds one already,
// and outputs that would overwrite the certificates.
func guardExperiment(c *cli.Context, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, meta.FileName)); err == nil {
		return exit.Usagef("experiment %s exists already; choose another --name or remove it", dir)
	}
	var guard clobber.Guard
	for _, f := range []string{"ca", "cert", "key", "echo-cert", "echo-key"} {
		guard.File("--"+f, c.String(f))
	}
	guard.OutputDir("--out/--name", dir, "its raw measurements and meta.json", func(rel string) bool {
		_, ok := experiment.Owned(rel)
		return ok
	})
	return guard.Check()
}

func runAction(c *cli.Context) error {
	if c.Args().Present() {
		return exit.Usagef("unexpected argument %q (run takes flags only; see 'run --help')", c.Args().First())
	}
	if c.Bool("list") {
		return list(c.App.Writer)
	}
	start := time.Now().UTC()
	cfg, err := config(c)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	dir, err := experimentDir(c, start)
	if err != nil {
		return err
	}
	// A file or a looping/dangling link in the way is said as such, before
	// anything is created (MkdirAll would only say "file exists").
	if err := atomicfile.CheckDir(dir); err != nil {
		return exit.Usagef("--out/--name: %v", err)
	}
	if err := guardExperiment(c, dir); err != nil {
		return err
	}
	// Progress and the echo processes' diagnostics share standard error;
	// the children get it directly when it is a file, so that no goroutine
	// copies it during the measurement.
	stderr := &syncWriter{w: c.App.ErrWriter}
	cfg.EchoStderr = stderr
	if f, ok := c.App.ErrWriter.(*os.File); ok {
		cfg.EchoStderr = f
	}
	s, err := session.Prepare(c.Context, cfg)
	if err != nil {
		if errors.Is(err, engine.ErrInterrupted) {
			return exit.With(exit.Interrupted, err)
		}
		return exit.With(exit.Usage, err)
	}
	defer s.Close()
	m := &meta.Meta{
		Tool:       meta.Tool{Name: "mqgate run", Version: c.App.Version},
		Experiment: filepath.Base(dir),
		Start:      start,
		System:     meta.System{Name: c.String("sut-name"), Version: c.String("sut-version"), Commit: c.String("sut-commit")},
		Host:       meta.HostFingerprint(),
		Config:     meta.Config{Out: c.String("out")},
	}
	out := session.Output{Dir: dir, Meta: m}
	if !c.Bool("quiet") {
		out.Progress = stderr
		out.Terminal = isTerminal(c.App.ErrWriter)
	}
	err = s.Run(c.Context, out)
	switch {
	case err == nil:
		if !c.Bool("quiet") {
			fmt.Fprintf(stderr, "results in %s\n", dir)
		}
		return nil
	case errors.Is(err, engine.ErrInterrupted):
		return exit.With(exit.Interrupted, fmt.Errorf("%w; samples measured so far are in %s (meta.json marks the run incomplete)", err, dir))
	default:
		var se *engine.StopError
		if errors.As(err, &se) {
			return exit.With(exit.Usage, fmt.Errorf("%w; samples measured so far are in %s (meta.json marks the run incomplete)", err, dir))
		}
		return exit.With(exit.Usage, err)
	}
}

func echoAction(c *cli.Context) error {
	if c.Args().Present() {
		return exit.Usagef("unexpected argument %q (see 'run echo --help')", c.Args().First())
	}
	ec := session.EchoConfig{
		Transport: c.String("transport"), Listen: c.String("listen"), Reliable: c.Bool("reliable"),
		CPU: c.Int("cpu"), MaxMessageSize: c.Int("max-message-size"), QueueDepth: c.Int("queue-depth"),
		Topic: c.String("topic"), Params: driverParams(c), Ready: c.App.Writer,
	}
	if s := c.String("echo-delay"); s != "" {
		d, err := driver.ParseDelay(s)
		if err != nil {
			return exit.Usagef("--echo-delay %v", err)
		}
		ec.Delay = d
		ec.Delay.Seed = c.Uint64("seed")
	}
	if ca, cert, key := c.String("ca"), c.String("cert"), c.String("key"); ca != "" || cert != "" || key != "" {
		switch {
		case ca == "":
			return exit.Usagef("--cert and --key need --ca, the CA the peer's certificate is verified against")
		case (cert == "") != (key == ""):
			return exit.Usagef("--cert and --key go together")
		case cert == "":
			// A broker's echo is a client: --ca alone verifies the broker
			// (server verification only). A socket echo serves TLS/DTLS.
			if tr, err := driver.Lookup(ec.Transport); err == nil && !driver.IsBroker(tr) {
				return exit.Usagef("--transport %s: the echo serves TLS/DTLS and needs its certificate: give --cert and --key with --ca", ec.Transport)
			}
		}
		ec.Security = &driver.Security{CAFile: ca, CertFile: cert, KeyFile: key}
	}
	if c.Bool("stdin-lifeline") {
		ec.Lifeline = os.Stdin
	}
	// Every failure of the echo role, a usage error or a broken link, exits 2.
	return exit.With(exit.Usage, session.ServeEcho(c.Context, ec))
}

// syncWriter serialises writes from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
