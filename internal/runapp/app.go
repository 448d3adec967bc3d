package runapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/session"
)

// SelfEnv, when set, replaces the program as it was started (mqgate run,
// or run's own executable; session.Config.Self) as the program started
// in the echo role (a space-separated command line). Tests use it.
const SelfEnv = "MQGATE_RUN_SELF"

// Base is what every measuring command of run shares: the session's
// settings bound to their flags, the flags that make the rest of them, and
// where results go.
type Base struct {
	// Session holds what the flags bind (--target, --broker, --samples, the
	// drivers' flags, …); Run and the one-way subcommands complete it.
	Session        session.Config
	Args           []string    // arguments after the flags (refused)
	Subexperiments string      // --subexperiments, comma-separated
	Payloads       string      // --payloads
	Out, Name      string      // --out, --name ("": the start time)
	System         meta.System // --sut-name, --sut-version, --sut-commit
	Quiet          bool        // --quiet
	Version        string      // the tool's version, for meta.json
}

// Config is one round-trip run (run without a subcommand), as its command
// line gives it (internal/cliapp/runcmd).
type Config struct {
	Base
	List        bool   // --list
	CPUs        string // --cpus
	EchoCommand string // --echo-command
	EchoDelay   string // --echo-delay
	// EchoWork is --echo-work: CPU work each echo end this run starts
	// spends on each message (driver.Delay.Work).
	EchoWork time.Duration
}

// EchoConfig is `run echo`: the session's echo settings, and the flags
// that make its delay, its certificates and its lifeline.
type EchoConfig struct {
	session.EchoConfig
	Args          []string      // arguments after the flags (refused)
	EchoDelay     string        // --echo-delay
	EchoWork      time.Duration // --echo-work
	Seed          uint64        // --seed of the jitter
	CA, Cert, Key string        // --ca, --cert, --key
	StdinLifeline bool          // --stdin-lifeline
}

// list prints the registered sub-experiments, then what each registered
// transport declares it can do (driver.Capabilities).
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
		if n := driver.MessageLimitOf(t, driver.Options{Reliable: sc.Reliable}); n > 0 {
			size = strconv.Itoa(n) + " B"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", sc.Type, sc.Transport, yesNo(sc.Reliable), yesNo(sc.Security), far, size)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "TRANSPORT\tCAPABILITIES")
	for _, n := range driver.Names() {
		if t, err := driver.Lookup(n); err == nil {
			fmt.Fprintf(tw, "%s\t%s\n", n, driver.CapabilitiesOf(t))
		}
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// sessionConfig turns cfg into a session configuration.
func sessionConfig(cfg Config) (session.Config, error) {
	sc := cfg.Session
	sc.Args = os.Args
	if sc.ConnectTimeout <= 0 {
		return sc, fmt.Errorf("--connect-timeout %v: expected a positive duration", sc.ConnectTimeout)
	}
	if err := echoDelay(&sc.EchoDelay, cfg.EchoDelay, cfg.EchoWork); err != nil {
		return sc, err
	}
	payloads, err := engine.ParsePayloads(cfg.Payloads)
	if err != nil {
		return sc, fmt.Errorf("--payloads: %v", err)
	}
	sc.Engine.Payloads = payloads
	sc.Scenarios = splitList(cfg.Subexperiments)
	if cpus := cfg.CPUs; cpus == "none" {
		sc.CPUs = &meta.CPUs{Pinger: -1, Ponger: -1}
	} else if cpus != "" {
		a, b, ok := strings.Cut(cpus, ",")
		p, err1 := strconv.Atoi(strings.TrimSpace(a))
		q, err2 := strconv.Atoi(strings.TrimSpace(b))
		n := runtime.NumCPU()
		if !ok || err1 != nil || err2 != nil || p < 0 || q < 0 || p >= n || q >= n {
			return sc, fmt.Errorf("--cpus %q: expected PINGER_CPU,ECHOER_CPU with CPUs 0..%d, or none", cpus, n-1)
		}
		sc.CPUs = &meta.CPUs{Pinger: p, Ponger: q}
	}
	if s := os.Getenv(SelfEnv); s != "" {
		sc.Self = strings.Fields(s)
	}
	if s := cfg.EchoCommand; s != "" {
		words, err := splitCommand(s)
		if err != nil || len(words) == 0 {
			return sc, fmt.Errorf("--echo-command %q: expected a command line (%v)", s, err)
		}
		sc.EchoCommand = words
	}
	return sc, nil
}

// echoDelay sets d to --echo-delay s, when given, and its Work to
// --echo-work.
func echoDelay(d *driver.Delay, s string, work time.Duration) error {
	if s != "" {
		parsed, err := driver.ParseDelay(s)
		if err != nil {
			return fmt.Errorf("--echo-delay %v", err)
		}
		*d = parsed
	}
	if work < 0 || work > time.Minute {
		return fmt.Errorf("--echo-work %v: expected a duration from 0 to 1m", work)
	}
	d.Work = work
	return nil
}

// splitList splits a comma-separated list, trimming each name.
func splitList(s string) []string {
	var out []string
	for _, name := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(name))
	}
	return out
}

// experimentDir is --out/--name, the name the start time when not given.
func (o Base) experimentDir(start time.Time) (string, error) {
	name, err := runName(o.Name, start)
	if err != nil {
		return "", err
	}
	return filepath.Join(o.Out, name), nil
}

// runName is --name (of a run, or of run ab's series), or the start time
// when not given, checked as a plain folder name.
func runName(name string, start time.Time) (string, error) {
	if name == "" {
		name = start.Format(experiment.DirTimeLayout)
	}
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", exit.Usagef("--name %q: expected a plain directory name", name)
	}
	return name, nil
}

// guardExperiment refuses an experiment directory that holds one already,
// and outputs that would overwrite the certificates.
func (o Base) guardExperiment(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, meta.FileName)); err == nil {
		return exit.Usagef("experiment %s exists already; choose another --name or remove it", dir)
	}
	if _, err := os.Lstat(dir); err == nil {
		return exit.Usagef("--out/--name: %s exists already: an experiment folder is created by the one run that writes it; choose another --name or --out", dir)
	}
	var guard clobber.Guard
	s := o.Session.Security
	for _, f := range []struct{ flag, path string }{
		{"--ca", s.CAFile}, {"--cert", s.CertFile}, {"--key", s.KeyFile}, {"--echo-cert", s.EchoCertFile}, {"--echo-key", s.EchoKeyFile},
	} {
		guard.File(f.flag, f.path)
	}
	guard.OutputDir("--out/--name", dir, "its raw measurements and meta.json", func(rel string) bool {
		_, ok := experiment.Owned(rel)
		return ok
	})
	return guard.Check()
}

// claimDir creates the experiment directory dir, which must not exist
// yet, and its parents: the folder belongs to this run alone. Of two runs
// given the same --out and --name at once, both pass guardExperiment, but
// only one creates the folder; the other stops here, before writing
// anything, instead of mixing its files with the first one's.
func claimDir(dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return exit.Usagef("--out: cannot create %s: %v", parent, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return exit.Usagef("--out/--name: %s was created by another process meanwhile (another run given the same --out and --name?): "+
				"an experiment folder belongs to one run; choose another --name or --out", dir)
		}
		return exit.Usagef("--out/--name: cannot create the experiment folder %s: %v", dir, err)
	}
	return nil
}

// meta is the meta.json of a run of tool started at start into dir, before
// the session completes it.
func (o Base) meta(tool, dir string, start time.Time) *meta.Meta {
	return &meta.Meta{
		Tool:       meta.Tool{Name: "mqgate " + tool, Version: o.Version},
		Experiment: filepath.Base(dir),
		Start:      start,
		System:     o.System,
		Host:       meta.HostFingerprint(),
		Config:     meta.Config{Out: o.Out},
	}
}

// Check checks cfg as Run would, without measuring: run ab checks each
// side's run flags before the first run.
func Check(cfg Config) error {
	if len(cfg.Args) > 0 {
		return exit.Usagef("unexpected argument %q", cfg.Args[0])
	}
	if cfg.List {
		return exit.Usagef("--list measures nothing")
	}
	_, err := sessionConfig(cfg)
	return exit.With(exit.Usage, err)
}

// Run does what run does for cfg: it lists the sub-experiments (List), or
// checks cfg and every output before creating the experiment directory,
// prepares the session and measures, with progress on stderr. Errors carry
// their exit code (package exit).
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	if len(cfg.Args) > 0 {
		return exit.Usagef("unexpected argument %q (run takes flags only; see 'run --help')", cfg.Args[0])
	}
	if cfg.List {
		return list(stdout)
	}
	start := time.Now().UTC()
	sc, err := sessionConfig(cfg)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	dir, err := cfg.experimentDir(start)
	if err != nil {
		return err
	}
	// A file or a looping/dangling link in the way is said as such, before
	// anything is created (MkdirAll would only say "file exists").
	if err := atomicfile.CheckDir(dir); err != nil {
		return exit.Usagef("--out/--name: %v", err)
	}
	if err := cfg.guardExperiment(dir); err != nil {
		return err
	}
	// Progress and the echo processes' diagnostics share standard error;
	// the children get it directly when it is a file, so that no goroutine
	// copies it during the measurement.
	progress := &syncWriter{w: stderr}
	sc.EchoStderr = progress
	if f, ok := stderr.(*os.File); ok {
		sc.EchoStderr = f
	}
	s, err := session.Prepare(ctx, sc)
	if err != nil {
		if errors.Is(err, engine.ErrInterrupted) {
			return exit.With(exit.Interrupted, err)
		}
		return exit.With(exit.Usage, err)
	}
	defer s.Close()
	if err := claimDir(dir); err != nil {
		return err
	}
	out := session.Output{Dir: dir, Meta: cfg.meta("run", dir, start)}
	if !cfg.Quiet {
		out.Progress = progress
		out.Terminal = isTerminal(stderr)
	}
	switch err := s.Run(ctx, out); {
	case err == nil:
		if !cfg.Quiet {
			fmt.Fprintf(progress, "results in %s\n", dir)
		}
		return nil
	case errors.Is(err, engine.ErrInterrupted):
		return exit.With(exit.Interrupted, fmt.Errorf("%w; samples measured so far are in %s (meta.json marks the run incomplete)", err, dir))
	case errors.As(err, new(*engine.StopError)):
		return exit.With(exit.Usage, fmt.Errorf("%w; samples measured so far are in %s (meta.json marks the run incomplete)", err, dir))
	default:
		return exit.With(exit.Usage, err)
	}
}

// Echo is `run echo`: it serves cfg until ctx ends (or its lifeline
// closes), the address it listens at first on stdout.
func Echo(ctx context.Context, cfg EchoConfig, stdout io.Writer) error {
	if len(cfg.Args) > 0 {
		return exit.Usagef("unexpected argument %q (see 'run echo --help')", cfg.Args[0])
	}
	ec := cfg.EchoConfig
	ec.Ready = stdout
	if err := echoDelay(&ec.Delay, cfg.EchoDelay, cfg.EchoWork); err != nil {
		return exit.With(exit.Usage, err)
	}
	if cfg.EchoDelay != "" {
		ec.Delay.Seed = cfg.Seed
	}
	if ca, cert, key := cfg.CA, cfg.Cert, cfg.Key; ca != "" || cert != "" || key != "" {
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
	if cfg.StdinLifeline {
		ec.Lifeline = os.Stdin
	}
	// Every failure of the echo role, a usage error or a broken link, exits 2.
	return exit.With(exit.Usage, session.ServeEcho(ctx, ec))
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

// The two sides of an A/B measurement, and the folders their runs go to.
const (
	SideReference = pairing.SideReference
	SideCandidate = pairing.SideCandidate
)

// splitCommand splits a command line into words as a POSIX shell would,
// for quotes and backslashes only (no variables, no globbing).
func splitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated \" quote")
			}
			inWord = true
		case ch == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a backslash ends the line")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
