package runapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// SelfEnv, when set, replaces os.Executable() as the program started in
// the echo role (a space-separated command line). Tests use it.
const SelfEnv = "MQGATE_RUN_SELF"

// echoStartTimeout bounds how long an echo process may take to listen.
const echoStartTimeout = 15 * time.Second

// App returns the run command.
func App() *cli.App {
	return &cli.App{
		Name:      "run",
		Usage:     "measure round-trip latency of the built-in sub-experiments and write raw results",
		UsageText: "run [flags]\nrun echo --listen ADDR --transport NAME [flags]",
		Description: `run measures, for every selected sub-experiment and payload size, --warmup
round trips (discarded) then --samples round trips, one message in flight at a
time, and writes results/<experiment>/measurements_<type>.csv and meta.json.
Latency is half the round trip unless --latency rtt. Interprocess
sub-experiments start this program in the echo role on this host, or use
--target to reach a 'run echo' on another host.

Exit codes: 0 done; 2 usage or environment error, including a link that broke
during the run (echoer died, connection reset, --max-lost-in-row consecutive
losses); 130 interrupted. Measured samples and meta.json are written in every
case; meta.json says whether the run completed.

Examples:
   run --samples 500 --warmup 50 --payloads 16,1024
   run -s intraprocess_reliable,interprocess_reliable_tcp --payloads 16..256 --samples 1000 --cpus 0,1
   run echo --listen 0.0.0.0:7400 --transport tcp
   run -s interprocess_reliable_tcp --target otherhost:7400`,
		Version: version(),
		Flags:   runFlags(),
		Action:  runAction,
		Commands: []*cli.Command{{
			Name:      "echo",
			Usage:     "echo every message back: the far end of an interprocess sub-experiment",
			UsageText: "run echo --listen ADDR --transport NAME [--reliable] [--ca FILE --cert FILE --key FILE]",
			Description: `Prints the address it listens at as the first line of standard output, then
echoes until SIGINT/SIGTERM (or until standard input closes, with
--stdin-lifeline). Transports: ` + strings.Join(driver.Names(), ", ") + ".",
			Flags:  echoFlags(),
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

func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Value: strings.Join(experiment.Builtin, ","),
			Usage: "comma-separated sub-experiments to run, in order"},
		&cli.StringFlag{Name: "payloads", Value: "16..16384", Usage: "payload sizes in bytes: a list (16,64) or a range of powers of two (16..16384)"},
		&cli.IntFlag{Name: "samples", Value: engine.DefaultSamples, Usage: "round trips kept per payload"},
		&cli.IntFlag{Name: "warmup", Value: engine.DefaultWarmup, Usage: "round trips discarded per payload before the samples"},
		&cli.DurationFlag{Name: "timeout", Value: engine.DefaultTimeout, Usage: "a message not echoed within this is lost"},
		&cli.IntFlag{Name: "max-lost-in-row", Value: engine.DefaultMaxLostInRow, Usage: "stop when this many consecutive messages are lost (the echoer is taken for dead)"},
		&cli.StringFlag{Name: "fill", Value: engine.FillZero, Usage: "message bytes after the 16-byte header: zero or random"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of --fill random"},
		&cli.StringFlag{Name: "latency", Value: meta.LatencyHalfRTT, Usage: "what the Latency column holds: half-rtt or rtt"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results", Usage: "results root directory"},
		&cli.StringFlag{Name: "name", Usage: "experiment name (default: UTC start time, " + experiment.DirTimeLayout + ")"},
		&cli.StringFlag{Name: "sut-name", Value: "mqgate-builtin", Usage: "name of the system under test, for meta.json"},
		&cli.StringFlag{Name: "sut-version", Usage: "version of the system under test, for meta.json"},
		&cli.StringFlag{Name: "sut-commit", Usage: "commit of the system under test, for meta.json"},
		&cli.StringSliceFlag{Name: "target", Usage: "reach a 'run echo' on another host: ADDR for every interprocess sub-experiment, or TRANSPORT=ADDR (repeatable)"},
		&cli.StringFlag{Name: "cpus", Usage: "pin the pinger and the echoer: PINGER_CPU,ECHOER_CPU"},
		&cli.DurationFlag{Name: "retransmit-timeout", Usage: "reliable UDP/DTLS: resend after this long without an echo (default: the transport's)"},
		&cli.IntFlag{Name: "max-retries", Usage: "reliable UDP/DTLS: resends per message (default: the transport's)"},
		&cli.IntFlag{Name: "queue-depth", Usage: "in-process queue depth in messages (default: the transport's)"},
		&cli.StringFlag{Name: "ca", Usage: "secure sub-experiments: CA certificate (PEM); default: a CA generated for this run"},
		&cli.StringFlag{Name: "cert", Usage: "secure sub-experiments: this end's certificate (PEM)"},
		&cli.StringFlag{Name: "key", Usage: "secure sub-experiments: this end's private key (PEM)"},
		&cli.StringFlag{Name: "echo-cert", Usage: "the local echo process's certificate (default: --cert)"},
		&cli.StringFlag{Name: "echo-key", Usage: "the local echo process's private key (default: --key)"},
		&cli.StringFlag{Name: "server-name", Usage: "name expected in the echoer's certificate (default: the target host)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error"},
	}
}

// certSet is the security material of both ends of the secure links.
type certSet struct {
	pinger, echo driver.Security
}

// settings is the resolved command line.
type settings struct {
	cfg      engine.Config
	subs     []driver.Route
	dir      string
	name     string
	targets  map[string]string // transport ("" = any) → address
	cpus     *meta.CPUs
	opts     driver.Options // shared options, without Reliable and Security
	security *certSet
	tls      *meta.TLS
	cleanup  func()
	// rawStderr is the command's own standard error.
	rawStderr io.Writer
}

func resolve(c *cli.Context, start time.Time) (*settings, error) {
	s := &settings{cleanup: func() {}}
	if n := countSet(c.String("ca"), c.String("cert"), c.String("key")); n != 0 && n != 3 {
		return nil, cliapp.Usagef("--ca, --cert and --key go together (or give none to generate certificates for this run)")
	}
	payloads, err := engine.ParsePayloads(c.String("payloads"))
	if err != nil {
		return nil, cliapp.Usagef("--payloads: %v", err)
	}
	s.cfg = engine.Config{
		Payloads: payloads, Samples: c.Int("samples"), Warmup: c.Int("warmup"), Timeout: c.Duration("timeout"),
		MaxLostInRow: c.Int("max-lost-in-row"), Fill: c.String("fill"), Seed: c.Uint64("seed"), Latency: c.String("latency"),
	}
	if err := s.cfg.Validate(); err != nil {
		return nil, cliapp.Usagef("%v", err)
	}
	for _, name := range strings.Split(c.String("subexperiments"), ",") {
		name = strings.TrimSpace(name)
		r, ok := driver.RouteOf(name)
		if !ok {
			return nil, cliapp.Usagef("--subexperiments: unknown sub-experiment %q; expected some of %s", name, strings.Join(experiment.Builtin, ", "))
		}
		if slices.ContainsFunc(s.subs, func(x driver.Route) bool { return x.Type == name }) {
			return nil, cliapp.Usagef("--subexperiments: %s is listed twice", name)
		}
		if _, err := driver.Lookup(r.Transport); err != nil {
			return nil, cliapp.Usagef("--subexperiments: %s: %v", name, err)
		}
		s.subs = append(s.subs, r)
	}
	s.name = c.String("name")
	if s.name == "" {
		s.name = start.UTC().Format(experiment.DirTimeLayout)
	}
	if s.name != filepath.Base(s.name) || s.name == "." || s.name == ".." {
		return nil, cliapp.Usagef("--name %q: expected a plain directory name", s.name)
	}
	s.dir = filepath.Join(c.String("out"), s.name)
	if _, err := os.Stat(filepath.Join(s.dir, meta.FileName)); err == nil {
		return nil, cliapp.Usagef("experiment %s exists already; choose another --name or remove it", s.dir)
	}
	s.targets = map[string]string{}
	for _, t := range c.StringSlice("target") {
		tr, addr, ok := strings.Cut(t, "=")
		if !ok {
			tr, addr = "", t
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, cliapp.Usagef("--target %q: expected HOST:PORT or TRANSPORT=HOST:PORT", t)
		}
		// A target no selected sub-experiment would use is a mistake (a
		// misspelt transport would silently measure a local echo instead).
		var used []string
		for _, r := range s.subs {
			if r.Interprocess && !slices.Contains(used, r.Transport) {
				used = append(used, r.Transport)
			}
		}
		switch {
		case len(used) == 0:
			return nil, cliapp.Usagef("--target %q: no selected sub-experiment is interprocess", t)
		case tr != "" && !slices.Contains(used, tr):
			return nil, cliapp.Usagef("--target %q: no selected sub-experiment uses transport %q; expected one of %s",
				t, tr, strings.Join(used, ", "))
		}
		s.targets[tr] = addr
	}
	if cpus := c.String("cpus"); cpus != "" {
		a, b, ok := strings.Cut(cpus, ",")
		p, err1 := strconv.Atoi(strings.TrimSpace(a))
		q, err2 := strconv.Atoi(strings.TrimSpace(b))
		n := runtime.NumCPU()
		if !ok || err1 != nil || err2 != nil || p < 0 || q < 0 || p >= n || q >= n {
			return nil, cliapp.Usagef("--cpus %q: expected PINGER_CPU,ECHOER_CPU with CPUs 0..%d", cpus, n-1)
		}
		s.cpus = &meta.CPUs{Pinger: p, Ponger: q}
	}
	s.opts = driver.Options{
		RetransmitTimeout: c.Duration("retransmit-timeout"), MaxRetries: c.Int("max-retries"),
		QueueDepth: c.Int("queue-depth"), MaxMessageSize: s.cfg.MaxPayload(),
	}
	if s.opts.RetransmitTimeout == 0 {
		s.opts.RetransmitTimeout = defaultRetransmitTimeout
	}
	if s.opts.MaxRetries == 0 {
		s.opts.MaxRetries = defaultMaxRetries
	}
	if s.opts.RetransmitTimeout < 0 || s.opts.MaxRetries < 0 || s.opts.QueueDepth < 0 {
		return nil, cliapp.Usagef("--retransmit-timeout, --max-retries and --queue-depth must not be negative")
	}
	if slices.ContainsFunc(s.subs, func(r driver.Route) bool { return strings.HasSuffix(r.Type, "_security") }) {
		if err := s.resolveSecurity(c); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// resolveSecurity uses the certificates given by flags or generates a CA
// and certificates for this run in a temporary directory.
func (s *settings) resolveSecurity(c *cli.Context) error {
	ca, cert, key := c.String("ca"), c.String("cert"), c.String("key")
	if ca == "" && cert == "" && key == "" {
		for _, r := range s.subs {
			if _, remote := s.target(r.Transport); remote && strings.HasSuffix(r.Type, "_security") {
				return cliapp.Usagef("%s with --target needs --ca, --cert and --key from the CA the remote 'run echo' uses (certificates generated for this run stay on this host)", r.Type)
			}
		}
		dir, err := os.MkdirTemp("", "mqgate-run-certs-")
		if err != nil {
			return err
		}
		var hosts []string
		for _, addr := range s.targets {
			h, _, _ := net.SplitHostPort(addr)
			hosts = append(hosts, h)
		}
		echo, pinger, err := secure.GenerateFiles(dir, hosts...)
		cs := certSet{pinger: pinger, echo: echo}
		if err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("cannot generate certificates: %w", err)
		}
		s.cleanup = func() { os.RemoveAll(dir) }
		s.security = &cs
		s.tls = &meta.TLS{Generated: true}
	} else {
		for _, f := range []string{ca, cert, key, c.String("echo-cert"), c.String("echo-key")} {
			if f == "" {
				continue
			}
			if _, err := os.Stat(f); err != nil {
				return cliapp.Usagef("cannot read %s: %v", f, err)
			}
		}
		cs := certSet{pinger: driver.Security{CAFile: ca, CertFile: cert, KeyFile: key}}
		cs.echo = cs.pinger
		if ec := c.String("echo-cert"); ec != "" {
			cs.echo.CertFile = ec
		}
		if ek := c.String("echo-key"); ek != "" {
			cs.echo.KeyFile = ek
		}
		s.security = &cs
		s.tls = &meta.TLS{CAFile: ca, CertFile: cert, KeyFile: key}
	}
	s.security.pinger.ServerName = c.String("server-name")
	return nil
}

func runAction(c *cli.Context) error {
	if c.Args().Present() {
		return cliapp.Usagef("unexpected argument %q (run takes flags only; see 'run --help')", c.Args().First())
	}
	start := time.Now().UTC()
	s, err := resolve(c, start)
	if err != nil {
		return err
	}
	defer s.cleanup()

	// Progress and the echo processes' diagnostics share standard error.
	stderr := &syncWriter{w: c.App.ErrWriter}
	s.rawStderr = c.App.ErrWriter
	m := &meta.Meta{
		Tool:       meta.Tool{Name: "mqgate run", Version: c.App.Version},
		Experiment: s.name,
		Start:      start,
		System:     meta.System{Name: c.String("sut-name"), Version: c.String("sut-version"), Commit: c.String("sut-commit")},
		Host:       meta.HostFingerprint(),
		Config:     s.metaConfig(c),
	}
	for _, r := range s.subs {
		scope, _, _ := strings.Cut(r.Type, "_")
		if !slices.Contains(m.System.Scopes, scope) {
			m.System.Scopes = append(m.System.Scopes, scope)
		}
	}
	runner := &engine.Runner{Config: s.cfg, Dir: s.dir, Meta: m}
	if !c.Bool("quiet") {
		runner.Progress = stderr
		runner.Terminal = isTerminal(c.App.ErrWriter)
	}
	subs := make([]engine.Sub, len(s.subs))
	for i, r := range s.subs {
		subs[i] = s.sub(r, stderr)
	}

	// The pinger runs on a goroutine of its own so that pinning it never
	// leaks a pinned thread to the rest of the program.
	errc := make(chan error, 1)
	go func() {
		if s.cpus != nil {
			if err := pinThread(s.cpus.Pinger); err != nil {
				errc <- cliapp.Exit(cliapp.ExitUsage, err)
				return
			}
		}
		errc <- runner.Run(c.Context, subs)
	}()
	err = <-errc
	switch {
	case err == nil:
		if !c.Bool("quiet") {
			fmt.Fprintf(stderr, "results in %s\n", s.dir)
		}
		return nil
	case errors.Is(err, engine.ErrInterrupted):
		return cliapp.Exit(cliapp.ExitInterrupted, fmt.Errorf("%w; samples measured so far are in %s (meta.json marks the run incomplete)", err, s.dir))
	default:
		var se *engine.StopError
		if errors.As(err, &se) {
			return cliapp.Exit(cliapp.ExitUsage, fmt.Errorf("%w; samples measured so far are in %s (meta.json marks the run incomplete)", err, s.dir))
		}
		return err
	}
}

func (s *settings) metaConfig(c *cli.Context) meta.Config {
	mc := meta.Config{
		Args:              os.Args,
		Payloads:          s.cfg.Payloads,
		Samples:           s.cfg.Samples,
		Warmup:            s.cfg.Warmup,
		Timeout:           meta.Duration(s.cfg.Timeout),
		MaxLostInRow:      s.cfg.MaxLostInRow,
		Fill:              s.cfg.Fill,
		Seed:              int64(s.cfg.Seed),
		RetransmitTimeout: meta.Duration(s.opts.RetransmitTimeout),
		MaxRetries:        s.opts.MaxRetries,
		QueueDepth:        s.opts.QueueDepth,
		Echo:              engine.EchoSubprocess,
		CPUs:              s.cpus,
		TLS:               s.tls,
		Out:               c.String("out"),
	}
	if !slices.ContainsFunc(s.subs, func(r driver.Route) bool { return r.Interprocess }) {
		mc.Echo = engine.EchoInProcess
	}
	for _, r := range s.subs {
		mc.SubExperiments = append(mc.SubExperiments, r.Type)
	}
	if len(s.targets) > 0 {
		var ts []string
		for tr, addr := range s.targets {
			if tr != "" {
				addr = tr + "=" + addr
			}
			ts = append(ts, addr)
		}
		slices.Sort(ts)
		mc.Target = strings.Join(ts, ",")
		mc.Echo = engine.EchoRemote
	}
	return mc
}

// target returns the remote address for a transport, if any.
func (s *settings) target(transport string) (string, bool) {
	if a, ok := s.targets[transport]; ok {
		return a, true
	}
	a, ok := s.targets[""]
	return a, ok
}

// sub builds the engine's view of one sub-experiment.
func (s *settings) sub(r driver.Route, stderr io.Writer) engine.Sub {
	opts := s.opts
	opts.Reliable = r.Reliable
	echoOpts := opts
	if strings.HasSuffix(r.Type, "_security") {
		pinger, echo := s.security.pinger, s.security.echo
		opts.Security, echoOpts.Security = &pinger, &echo
	}
	sub := engine.Sub{Type: r.Type, Transport: r.Transport, Reliable: r.Reliable}
	tr, _ := driver.Lookup(r.Transport)
	pongerCPU := -1
	if s.cpus != nil {
		pongerCPU = s.cpus.Ponger
	}
	switch addr, remote := s.target(r.Transport); {
	case !r.Interprocess:
		sub.Echo = engine.EchoInProcess
		sub.Open = func(ctx context.Context) (*engine.Link, error) {
			return openInProcess(ctx, tr, opts, echoOpts, pongerCPU)
		}
	case remote:
		sub.Echo = engine.EchoRemote
		sub.Open = func(ctx context.Context) (*engine.Link, error) {
			p, err := dial(ctx, tr, addr, opts)
			if err != nil {
				return nil, err
			}
			return &engine.Link{Pinger: p}, nil
		}
	default:
		sub.Echo = engine.EchoSubprocess
		sub.Open = func(ctx context.Context) (*engine.Link, error) {
			return openSubprocess(ctx, tr, r, opts, echoOpts, pongerCPU, stderr, s.rawStderr)
		}
	}
	return sub
}

// dial connects a pinger, bounding the handshake.
func dial(ctx context.Context, tr driver.Transport, addr string, opts driver.Options) (driver.Pinger, error) {
	ctx, cancel := context.WithTimeout(ctx, echoStartTimeout)
	defer cancel()
	return tr.Dial(ctx, addr, opts)
}

func openInProcess(ctx context.Context, tr driver.Transport, opts, echoOpts driver.Options, cpu int) (*engine.Link, error) {
	e, err := tr.Listen(ctx, "", echoOpts)
	if err != nil {
		return nil, err
	}
	p, err := dial(ctx, tr, e.Addr(), opts)
	if err != nil {
		e.Close()
		return nil, err
	}
	sctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := pinThread(cpu); err != nil {
			failed <- err
			return
		}
		if err := e.Serve(sctx); err != nil && sctx.Err() == nil {
			failed <- err
		}
	}()
	return &engine.Link{Pinger: p, Failed: failed, Close: func() error {
		cancel()
		e.Close()
		wg.Wait()
		return nil
	}}, nil
}

func openSubprocess(ctx context.Context, tr driver.Transport, r driver.Route, opts, echoOpts driver.Options, cpu int, stderr, rawStderr io.Writer) (*engine.Link, error) {
	// Give the child this process's standard error itself when it is a
	// file, so that no goroutine copies it during the measurement.
	if f, ok := rawStderr.(*os.File); ok {
		stderr = f
	}
	argv, err := self()
	if err != nil {
		return nil, err
	}
	argv = append(argv, "echo", "--listen", "127.0.0.1:0", "--transport", r.Transport, "--stdin-lifeline",
		"--max-message-size", strconv.Itoa(echoOpts.MaxMessageSize))
	if r.Reliable {
		argv = append(argv, "--reliable")
	}
	if cpu >= 0 {
		argv = append(argv, "--cpu", strconv.Itoa(cpu))
	}
	if echoOpts.QueueDepth > 0 {
		argv = append(argv, "--queue-depth", strconv.Itoa(echoOpts.QueueDepth))
	}
	if sec := echoOpts.Security; sec != nil {
		argv = append(argv, "--ca", sec.CAFile, "--cert", sec.CertFile, "--key", sec.KeyFile)
	}
	ep, err := startEchoProcess(ctx, argv, os.Environ(), stderr, echoStartTimeout)
	if err != nil {
		return nil, err
	}
	p, err := dial(ctx, tr, ep.addr, opts)
	if err != nil {
		ep.stop()
		return nil, err
	}
	return &engine.Link{Pinger: p, Failed: ep.failed, Close: ep.stop}, nil
}

// self returns the command line that starts this program.
func self() ([]string, error) {
	if s := os.Getenv(SelfEnv); s != "" {
		return strings.Fields(s), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program to start the echo process: %w", err)
	}
	return []string{exe}, nil
}

func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
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
