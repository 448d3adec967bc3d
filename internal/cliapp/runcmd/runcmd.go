package runcmd

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/burst"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/rolescmd"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/runapp"
	"github.com/mqgate/mqgate/internal/session"
	"github.com/mqgate/mqgate/internal/suggest"
	"github.com/mqgate/mqgate/internal/throughput"
)

// App returns the run command: its flags and help, round trips, its echo
// role and the subcommands, each action filling a runapp configuration.
func App() *cli.App {
	a, _ := newApp()
	return a
}

// newApp returns the run command and the Config its round-trip flags fill.
func newApp() (*cli.App, *runapp.Config) {
	cfg := &runapp.Config{}
	a := &cli.App{
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
certificates, and a connection to every broker and remote echo. run creates
the directory itself and refuses one that exists, even empty: a folder holds
one run's results.

Exit codes: 0 done; 2 usage or environment error, including a link that broke
during the run (echoer or broker died, connection reset, --max-lost-in-row
consecutive losses); 130 interrupted. Measured samples and meta.json are
written in every case; meta.json says whether the run completed.

Sub-experiments: ` + strings.Join(session.ScenarioNames(), ", ") + `.

Examples:
   run --samples 500 --warmup 50 --payloads 16,1024
   run -s intraprocess_reliable,interprocess_reliable_tcp --payloads 16..256 --samples 1000 --cpus 0,1
   run --list
   run -s interprocess_reliable_tcp --echo-delay 50us±10us --payloads 64
   run ab --runs 3 --candidate "--echo-delay 50us" -- -s interprocess_reliable_tcp --payloads 64 --samples 500
   run echo --listen 0.0.0.0:7400 --transport tcp
   run -s interprocess_reliable_tcp --target otherhost:7400`,
		Version: cliapp.VersionString(),
		Flags:   append(runFlags(cfg), driverFlags()...),
		Action: withBase(&cfg.Base, func(c *cli.Context) error {
			if err := listAlone(c); err != nil {
				return err
			}
			return runapp.Run(c.Context, *cfg, c.App.Writer, c.App.ErrWriter)
		}),
		Commands: []*cli.Command{echoCommand(), abCommand(), burstCommand(), loadCommand(), perMessageCommand()},
	}
	a.Commands = append(append(a.Commands, rolescmd.Commands()...), throughputCommand())
	roundTripFlags := a.Flags
	a.Before = func(c *cli.Context) error {
		if err := rolescmd.CheckTopFlags(c); err != nil {
			return err
		}
		if err := checkSubcommandName(c); err != nil {
			return err
		}
		return checkFlagsBeforeSubcommand(c, roundTripFlags)
	}
	// The roles' --prom-port, --config, … are run's too (run --prom-port P
	// pub …), refused before anything but a role; run's --name and --out
	// serve a role named after them.
	a.Flags = append(a.Flags, rolescmd.TopFlags()...)
	// Every numeric flag's range is checked before anything starts.
	a.Action = cliapp.RangesChecked(a.Flags, a.Action)
	for _, cmd := range a.Commands {
		cmd.Action = cliapp.RangesChecked(cmd.Flags, cmd.Action)
	}
	return a, cfg
}

// echoCommand is `run echo`: the far end of an interprocess or broker
// sub-experiment, echoing every message back.
func echoCommand() *cli.Command {
	echo := &runapp.EchoConfig{}
	return &cli.Command{
		Name:      "echo",
		Usage:     "echo every message back: the far end of an interprocess or broker sub-experiment",
		UsageText: "run echo --transport NAME [--listen ADDR] [--topic TOPIC] [--reliable] [--ca FILE --cert FILE --key FILE]",
		Description: `Prints the address it listens at (a broker URL without its password) as the
first line of standard output, then echoes until SIGINT/SIGTERM (or until
standard input closes, with --stdin-lifeline). A broker echo subscribes to
the requests of --topic and publishes the replies. Transports: ` + strings.Join(session.EchoTransports(), ", ") + ".",
		Flags: append(echoFlags(echo), driverFlags()...),
		Action: func(c *cli.Context) error {
			echo.Args, echo.Params = c.Args().Slice(), driverParams(c)
			return runapp.Echo(c.Context, *echo, c.App.Writer)
		},
	}
}

// withBase returns action after completing b, filled by the flags, with
// what they cannot bind: the arguments, --target, the drivers' flags and
// the version.
func withBase(b *runapp.Base, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		// --out "$DIR" with DIR unset wrote the results into the working
		// folder.
		if err := cliapp.NoEmpty(c, "out"); err != nil {
			return err
		}
		b.Args, b.Session.Targets, b.Session.Params, b.Version = c.Args().Slice(), c.StringSlice("target"), driverParams(c), c.App.Version
		return action(c)
	}
}

// checkRunArgs parses args as run's flags and checks them as a run would
// (the numeric flags' ranges, then runapp.Check) without measuring, giving
// the run's configuration. Flags
// that make run print its help or version instead of measuring are
// refused: every run of the series would exit 0 having measured nothing.
func checkRunArgs(args []string) (runapp.Config, error) {
	app, cfg := newApp()
	app.Commands = nil
	checked := false
	app.Action = cliapp.RangesChecked(app.Flags, withBase(&cfg.Base, func(*cli.Context) error {
		checked = true
		return runapp.Check(*cfg)
	}))
	var discard strings.Builder
	app.Writer, app.ErrWriter = &discard, &discard
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return exit.Usagef("%v", err) }
	if err := app.Run(append([]string{"run"}, args...)); err != nil || checked {
		return *cfg, err
	}
	flag := strings.Join(args, " ")
	for _, a := range args {
		if slices.Contains([]string{"-h", "--help", "-help", "-v", "--version", "-version"}, a) {
			flag = a
			break
		}
	}
	return *cfg, exit.Usagef("%s: run would print its help or version instead of measuring; ab's runs take measuring flags only (see 'run ab --help')", flag)
}

// The valid ranges of the numeric flags several commands share (stated in
// --help, checked before anything starts).
var (
	timeoutRange        = flagrange.Duration(time.Microsecond, time.Hour)
	connectTimeoutRange = flagrange.Duration(time.Millisecond, time.Hour)
	queueDepthRange     = flagrange.Int(1, 65536)
)

func runFlags(cfg *runapp.Config) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Value: strings.Join(driver.BuiltinTypes(), ","),
			Usage: "comma-separated sub-experiments to run, in order (see --list)", Destination: &cfg.Subexperiments},
		&cli.BoolFlag{Name: "list", Usage: "list the sub-experiments available and what each transport can do, and exit (given alone)", Destination: &cfg.List},
		&cli.StringFlag{Name: "payloads", Value: "16..16384", Usage: "payload sizes in bytes: a list (16,64) or a range of powers of two (16..16384)", Destination: &cfg.Payloads},
		cliapp.Ranged(&cli.IntFlag{Name: "samples", Value: engine.DefaultSamples, Usage: "round trips kept per payload", Destination: &cfg.Session.Engine.Samples}, flagrange.Int(1, 1_000_000_000)),
		cliapp.Ranged(&cli.IntFlag{Name: "warmup", Value: engine.DefaultWarmup, Usage: "round trips discarded per payload before the samples (0: none)", Destination: &cfg.Session.Engine.Warmup}, flagrange.Int(0, 1_000_000_000)),
		cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: engine.DefaultTimeout, Usage: "a message not echoed within this is lost", Destination: &cfg.Session.Engine.Timeout}, timeoutRange),
		cliapp.Ranged(&cli.DurationFlag{Name: "connect-timeout", Value: session.DefaultConnectTimeout, Usage: "bound on connecting to an echo or a broker, TLS/DTLS handshakes included", Destination: &cfg.Session.ConnectTimeout}, connectTimeoutRange),
		cliapp.Ranged(&cli.IntFlag{Name: "max-lost-in-row", Value: engine.DefaultMaxLostInRow, Usage: "stop when this many consecutive messages are lost (the echoer is taken for dead)", Destination: &cfg.Session.Engine.MaxLostInRow}, flagrange.Int(1, 1_000_000_000)),
		&cli.StringFlag{Name: "fill", Value: engine.FillZero, Usage: "message bytes after the 16-byte header: zero or random", Destination: &cfg.Session.Engine.Fill},
		cliapp.Ranged(&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of --fill random and of the --echo-delay jitter", Destination: &cfg.Session.Engine.Seed}, flagrange.Uint64()),
		&cli.StringFlag{Name: "latency", Value: meta.LatencyHalfRTT, Usage: "what the Latency column holds: half-rtt or rtt", Destination: &cfg.Session.Engine.Latency},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results", Usage: "results root directory (before pub|sub|req|qry: the role's --out)", Destination: &cfg.Out},
		&cli.StringFlag{Name: "name", Usage: "experiment name (default: UTC start time, " + experiment.DirTimeLayout + "; before pub|sub|req|qry: the role's --name)", Destination: &cfg.Name},
		&cli.StringFlag{Name: "sut-name", Value: "mqgate-builtin", Usage: "name of the system under test, for meta.json", Destination: &cfg.System.Name},
		&cli.StringFlag{Name: "sut-version", Usage: "version of the system under test, for meta.json", Destination: &cfg.System.Version},
		&cli.StringFlag{Name: "sut-commit", Usage: "commit of the system under test, for meta.json", Destination: &cfg.System.Commit},
		&cli.StringSliceFlag{Name: "target", Usage: "where the far end is: HOST:PORT of a 'run echo' for the built-in links, TRANSPORT=ADDR for one transport, or a broker URL (nats://, amqp://, mqtt://, …) (repeatable)"},
		&cli.StringFlag{Name: "echo", Usage: "where interprocess echoes run: inprocess, subprocess or remote (default: subprocess, remote with --target HOST:PORT)", Destination: &cfg.Session.Echo},
		&cli.StringFlag{Name: "broker", Value: session.BrokerExternal, Usage: "broker sub-experiments: external (the URL given) or embedded (started inside run)", Destination: &cfg.Session.Broker},
		&cli.StringFlag{Name: "topic", Usage: "broker sub-experiments: the topic (default: one per sub-experiment, unique to the run); a remote echo's --topic", Destination: &cfg.Session.Topic},
		&cli.StringFlag{Name: "cpus", Usage: "pin the pinger and the echoer: PINGER_CPU,ECHOER_CPU, or none", DefaultText: "the first two CPUs run may use, when it may use two", Destination: &cfg.CPUs},
		&cli.StringFlag{Name: "echo-command", Usage: "command line started in the echo role instead of this program (another build of run, a wrapper), quoted as in a shell; 'echo' and its flags are appended", Destination: &cfg.EchoCommand},
		&cli.StringFlag{Name: "echo-delay", Usage: "processing delay the echo ends this run starts spend on each message before replying: DURATION or DURATION±JITTER (also +-), e.g. 50us or 50us±10us; the jitter is uniform, drawn from --seed", Destination: &cfg.EchoDelay},
		cliapp.Ranged(&cli.DurationFlag{Name: "echo-work", Usage: "CPU work the echo ends this run starts spend on each message before replying: a loop calibrated once per echo end to take DURATION on an idle CPU, e.g. 2us; unlike --echo-delay it costs the same CPU on a busy machine; valid wherever --echo-delay is", Destination: &cfg.EchoWork}, flagrange.Duration(0, time.Minute)),
		cliapp.Ranged(&cli.DurationFlag{Name: "retransmit-timeout", Usage: "reliable UDP/DTLS: resend after this long without an echo (default: the transport's, 10ms)", Destination: &cfg.Session.RetransmitTimeout}, flagrange.Duration(time.Microsecond, time.Minute)),
		cliapp.Ranged(&cli.IntFlag{Name: "max-retries", Usage: "reliable UDP/DTLS: resends per message (default: the transport's, 10)", Destination: &cfg.Session.MaxRetries}, flagrange.Int(1, 1000)),
		cliapp.Ranged(&cli.IntFlag{Name: "queue-depth", Usage: "in-process queue depth in messages (default: the transport's)", Destination: &cfg.Session.QueueDepth}, queueDepthRange),
		&cli.StringFlag{Name: "ca", Usage: "secure sub-experiments: CA certificate (PEM); default: a CA generated for this run", Destination: &cfg.Session.Security.CAFile},
		&cli.StringFlag{Name: "cert", Usage: "secure sub-experiments: this end's certificate (PEM)", Destination: &cfg.Session.Security.CertFile},
		&cli.StringFlag{Name: "key", Usage: "secure sub-experiments: this end's private key (PEM)", Destination: &cfg.Session.Security.KeyFile},
		&cli.StringFlag{Name: "echo-cert", Usage: "the local echo's (or embedded broker's) certificate (default: --cert)", Destination: &cfg.Session.Security.EchoCertFile},
		&cli.StringFlag{Name: "echo-key", Usage: "the local echo's (or embedded broker's) private key (default: --key)", Destination: &cfg.Session.Security.EchoKeyFile},
		&cli.StringFlag{Name: "server-name", Usage: "name expected in the echoer's or broker's certificate (default: the host dialled)", Destination: &cfg.Session.Security.ServerName},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error", Destination: &cfg.Quiet},
	}
}

func echoFlags(echo *runapp.EchoConfig) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "listen", EnvVars: []string{session.ListenEnv}, Usage: "address to listen at, or for a broker transport the broker URL; when not given: 127.0.0.1:0 (port 0: any free port), or the transport's URL flag", Destination: &echo.Listen},
		&cli.StringFlag{Name: "transport", Required: true, Usage: "transport name", Destination: &echo.Transport},
		&cli.BoolFlag{Name: "reliable", Usage: "reliable mode of the transport", Destination: &echo.Reliable},
		&cli.StringFlag{Name: "topic", Usage: "broker transports: the topic to serve (run's --topic)", Destination: &echo.Topic},
		&cli.StringFlag{Name: "ca", Usage: "secure transports: CA certificate the peer is verified against (PEM)", Destination: &echo.CA},
		&cli.StringFlag{Name: "cert", Usage: "secure transports: this echoer's certificate (PEM); a broker transport's echo, a client, may do without (--ca alone verifies the broker)", Destination: &echo.Cert},
		&cli.StringFlag{Name: "key", Usage: "secure transports: this echoer's private key (PEM), with --cert", Destination: &echo.Key},
		cliapp.Ranged(&cli.IntFlag{Name: "cpu", Value: -1, Usage: "pin the echo process to this CPU (default: not pinned)", Destination: &echo.CPU}, flagrange.Int(0, int64(runtime.NumCPU()-1))),
		cliapp.Ranged(&cli.IntFlag{Name: "max-message-size", Value: 16384, Usage: "largest message in bytes", Destination: &echo.LargestMessage}, flagrange.Int(engine.HeaderSize, 1<<30)),
		cliapp.Ranged(&cli.IntFlag{Name: "queue-depth", Usage: "queue depth in messages (default: the transport's)", Destination: &echo.QueueDepth}, queueDepthRange),
		&cli.StringFlag{Name: "echo-delay", Usage: "processing delay before each echo: DURATION or DURATION±JITTER (also +-), e.g. 50us±10us", Destination: &echo.EchoDelay},
		cliapp.Ranged(&cli.DurationFlag{Name: "echo-work", Usage: "CPU work before each echo: a loop calibrated to take DURATION on an idle CPU, e.g. 2us", Destination: &echo.EchoWork}, flagrange.Duration(0, time.Minute)),
		cliapp.Ranged(&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the --echo-delay jitter", Destination: &echo.Seed}, flagrange.Uint64()),
		&cli.BoolFlag{Name: "stdin-lifeline", Usage: "exit when standard input closes (set by a parent run)", Destination: &echo.StdinLifeline},
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
			sf := &cli.StringFlag{Name: f.Name, Aliases: f.Aliases, Value: f.Default, Usage: usage,
				EnvVars: []string{session.FlagEnv(f)}, Category: "transport " + n}
			if r, ok := f.Range.Flagrange(); ok {
				cliapp.Ranged(sf, r)
			}
			out = append(out, sf)
		}
	}
	return out
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

// checkSubcommandName refuses a first argument that is no subcommand but
// close to one's name (run abb, run sbu), naming the subcommand meant:
// otherwise the round-trip run would refuse it as a stray argument, and the
// user would not learn that only the subcommand's name was mistyped.
func checkSubcommandName(c *cli.Context) error {
	next := c.Args().First()
	if next == "" || strings.HasPrefix(next, "-") || c.App.Command(next) != nil {
		return nil
	}
	var names [][]string
	for _, cmd := range c.App.Commands {
		names = append(names, cmd.Names())
	}
	if near := suggest.Nearest(next, names...); near != "" {
		return exit.Usagef("unknown subcommand %q: did you mean %s? (see '%s --help')", next, near, c.App.HelpName)
	}
	return nil
}

// checkFlagsBeforeSubcommand refuses a flag of the round-trip run given
// before a subcommand's name (run --out D throughput …): the subcommand has
// flags of its own and would ignore it, measuring into the wrong place or
// with the wrong settings. A flag set by its environment variable is not
// refused: the variable serves every subcommand that reads it.
func checkFlagsBeforeSubcommand(c *cli.Context, roundTrip []cli.Flag) error {
	next := c.Args().First()
	if next == "" || strings.HasPrefix(next, "-") || c.App.Command(next) == nil {
		return nil
	}
	isSet := cliapp.SetFlags(c)
	for _, f := range roundTrip {
		name := f.Names()[0]
		if !isSet(name) || fromEnv(f) || rolescmd.ServesRole(next, name) {
			continue
		}
		run := c.App.HelpName // "mqgate run" under the front
		advice := fmt.Sprintf("give it after the subcommand's name (%s %s --%s …)", run, next, name)
		if !hasFlag(c.App.Command(next), name) {
			advice = fmt.Sprintf("%s %s takes no --%s (see '%s %s --help')", run, next, name, run, next)
		}
		return exit.With(exit.Usage, fmt.Errorf("--%s was given before %s: it is a flag of the round-trip run, which %s %s ignores; %s", name, next, run, next, advice))
	}
	return nil
}

// listAlone refuses --list beside another flag of the command line: it
// lists every sub-experiment whatever they say (run --list -s nosuch listed
// them all and exited 0). A flag set by its environment variable is not
// the user's choice for this command, and passes.
func listAlone(c *cli.Context) error {
	if !c.Bool("list") {
		return nil
	}
	isSet := cliapp.SetFlags(c)
	for _, f := range c.App.Flags {
		if name := f.Names()[0]; name != "list" && isSet(name) && !fromEnv(f) {
			return exit.Usagef("--list lists every sub-experiment and what each transport can do, and measures nothing: --%s does not go with it", name)
		}
	}
	return nil
}

// hasFlag reports whether cmd takes a flag named name (or aliased so).
func hasFlag(cmd *cli.Command, name string) bool {
	return slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), name) })
}

// fromEnv reports whether one of f's environment variables is set.
func fromEnv(f cli.Flag) bool {
	ef, ok := f.(interface{ GetEnvVars() []string })
	if !ok {
		return false
	}
	for _, e := range ef.GetEnvVars() {
		if _, set := os.LookupEnv(e); set {
			return true
		}
	}
	return false
}

// burstCommand is `run burst`: the Fast-RTPS throughput pipeline's bursts
// (internal/burst), with the flag names of Fast-RTPS's ThroughputTest.
func burstCommand() *cli.Command {
	bc := &runapp.BurstConfig{}
	flags := streamFlags("16..16384", &bc.Base)
	for _, f := range flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Name == "payloads" {
			sf.Aliases = []string{"msg_size"}
		}
	}
	return &cli.Command{
		Name:      "burst",
		Usage:     "send bursts of D messages with a recovery time R between them (Fast-RTPS throughput pipeline)",
		UsageText: "run burst [-s SUB-EXPERIMENTS] [--payloads 16..16384] [--demand 100,1000] [--recovery_time 0,20] [--time 1] [flags]",
		Description: `run burst measures, for every selected sub-experiment, payload, demand D and
recovery time R, one publisher sending bursts of D messages as fast as the link
takes them to one subscriber for --time seconds; a burst shorter than R is
followed by a pause of the rest of R (Fast-RTPS ThroughputTest's rule). The
subscriber then waits up to --timeout for messages in flight; what did not
arrive is lost. It writes into results/<experiment>/ (formats §9):

  burst_<type>.csv               one row per payload, demand and recovery time:
                                 Sent, Publication time/sample rate/throughput,
                                 Received, Lost, Subscription time/sample
                                 rate/throughput (the Fast-RTPS measurements CSV)
  burst_<type>_summary.csv       per payload, the row of greatest subscription
                                 throughput
  plots/burst_<type>/            throughput_scatterplot_<payload>.png and
                                 lost_samples_scatterplot_<payload>.png
  meta.json

--file and --recoveries_file read the Fast-RTPS payloads_demands.csv and
recoveries.csv. Subscription throughput is higher-is-better, Lost lower.

Exit codes: 0 done; 2 usage or environment error, or a link that broke; 130
interrupted.

Examples:
   run burst -s nats_best_effort --broker embedded --payloads 16,1024
   run burst -s interprocess_best_effort_tcp --file payloads_demands.csv --recoveries_file recoveries.csv`,
		Flags: append([]cli.Flag{
			&cli.IntSliceFlag{Name: "demand", Aliases: []string{"d"}, Value: cli.NewIntSlice(burst.DefaultDemands...), Usage: "samples per burst, a list"},
			&cli.IntSliceFlag{Name: "recovery_time", Value: cli.NewIntSlice(burst.DefaultRecoveries...), Usage: "recovery times in ms, a list (each 0 to 86400000, 24 h)"},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "payload demands file (Fast-RTPS payloads_demands.csv: payload;demand;… per line); replaces --payloads and --demand", Destination: &bc.File},
			&cli.StringFlag{Name: "recoveries_file", Usage: "recovery times file (Fast-RTPS recoveries.csv: ms;ms;…); replaces --recovery_time", Destination: &bc.RecoveriesFile},
			cliapp.Ranged(&cli.Float64Flag{Name: "time", Aliases: []string{"t"}, Value: burst.DefaultTestTime.Seconds(), Usage: "test time of each case, seconds", Destination: &bc.Time},
				flagrange.Float(0, 86400).Above()),
			cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: burst.DefaultTimeout, Usage: "after the last burst, wait this long without a delivery for messages in flight", Destination: &bc.Burst.Timeout}, timeoutRange),
		}, flags...),
		Action: withBase(&bc.Base, func(c *cli.Context) error {
			bc.Burst.Demands, bc.Burst.Recoveries = c.IntSlice("demand"), c.IntSlice("recovery_time")
			bc.PayloadsSet, bc.DemandSet, bc.RecoveriesSet = c.IsSet("payloads"), c.IsSet("demand"), c.IsSet("recovery_time")
			return runapp.Burst(c.Context, *bc, c.App.ErrWriter)
		}),
	}
}

// loadCommand is `run load`: one-way latency under load (internal/load).
func loadCommand() *cli.Command {
	lc := &runapp.LoadConfig{}
	return &cli.Command{
		Name:      "load",
		Usage:     "measure one-way latency under load: N publishers, M subscribers, an open-loop rate",
		UsageText: "run load [-s SUB-EXPERIMENTS] [--scenario fan-in|fan-out|straight-run|round-robin] [--publishers N] [--subscribers M] [--rate MSG/S] [--duration D] [flags]",
		Description: `run load starts, for every selected sub-experiment and payload, subscribers
and publishers placed by --scenario on topics, sends --warmup (discarded) then
--duration of messages from every publisher, waits up to --drain for the last
ones, and writes into results/<experiment>/:

  measurements_<type>.csv        one-way latency of every message (formats §2),
                                 so that process, check, compare and history work
                                 unchanged; meta.json says "latency": "one-way"
  load_<type>_summary.json       parameters, counts, rates, HDR percentiles, notes
  load_<type>_snapshots.csv      every --snapshot-interval: t [s],metric,value,tags
  load_<type>.hlog               the interval histograms, HdrHistogram log format
  throughput_<type>.csv          receive rate per interval: median, mean, stdev
                                 in msg/s and Mb/s (mode rate)
  load/<type>_<payload>_*.png    latency percentiles and rates per interval

Each message carries its send time (ns since the Unix epoch) in bytes 0-7 and
a sequence word (sequence number, publisher id, flags) in bytes 8-15, then
version, topic id and run id from 24 bytes (formats §9). With --rate each
publisher follows its own schedule (period 1e9/rate ns); latency is measured
from each slot's intended send time, so that a stalled publisher or system
cannot hide its stall (coordinated omission); a publisher more than one period
behind skips to the latest slot and counts the slots skipped. Without --rate
publishers send as fast as they can and latency is from the call to Send.

Loss, duplicates and reordering come from the sequence numbers of each
publisher as each subscriber sees them; the expected deliveries are every
message of a publisher times the subscribers of its topic (one on
round-robin). Socket and in-process links are point to point: a publisher
sends each message to every subscriber of its topic on a link of its own.
Over AMQP, several subscribers of one topic need --amqp-exchange
(amq.direct), except on round-robin: the default exchange gives a message
to one queue.

Scenarios: fan-in (N publishers, 1 subscriber), fan-out (1 publisher, M
subscribers), straight-run (N pairs, a topic each), round-robin (N publishers,
M subscribers, T topics: publisher i on topic i mod T, subscriber j on j mod T;
each message to one subscriber of its topic: a NATS queue group, an MQTT 5
shared subscription, one AMQP queue with several consumers).

Exit codes: 0 done; 2 usage or environment error, or a link that broke; 130
interrupted. What was measured is written in every case.

Examples:
   run load -s nats_best_effort --broker embedded --scenario fan-in --publishers 4 --rate 1000 --duration 30s
   run load -s mqtt_reliable --target mqtt://127.0.0.1:1883 --scenario fan-out --subscribers 8 --rate 200
   run load -s interprocess_best_effort_tcp --payloads 16,1024 --rate 10000 --prom-port 9102

--prom-port serves the metrics on 127.0.0.1 only; to let another host scrape
them, say where with --prom-addr (--prom-addr 0.0.0.0:9102).`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "scenario", Value: load.FanIn, Usage: "fan-in, fan-out, straight-run or round-robin", Destination: &lc.Scenario},
			cliapp.Ranged(&cli.IntFlag{Name: "publishers", Usage: "publishers (default: the scenario's, 1)", Destination: &lc.Publishers}, flagrange.Int(1, load.MaxEnds)),
			cliapp.Ranged(&cli.IntFlag{Name: "subscribers", Usage: "subscribers (default: the scenario's)", Destination: &lc.Subscribers}, flagrange.Int(1, load.MaxEnds)),
			cliapp.Ranged(&cli.IntFlag{Name: "topics", Usage: "topics of round-robin (default: min(publishers, subscribers))", Destination: &lc.Topics}, flagrange.Int(1, load.MaxEnds)),
			cliapp.Ranged(&cli.Float64Flag{Name: "rate", Usage: "messages per second per publisher, open loop (default 0: as fast as possible)", Destination: &lc.Load.Rate},
				flagrange.Float(0, load.MaxRate).Above().OrZero("as fast as possible")),
			cliapp.Ranged(&cli.DurationFlag{Name: "duration", Value: load.DefaultDuration, Usage: "measured period per payload", Destination: &lc.Load.Duration}, flagrange.Duration(time.Millisecond, 24*time.Hour)),
			cliapp.Ranged(&cli.DurationFlag{Name: "warmup", Value: load.DefaultWarmup, Usage: "warm-up per payload, discarded (0: none)", Destination: &lc.Load.Warmup}, flagrange.Duration(0, 24*time.Hour)),
			cliapp.Ranged(&cli.DurationFlag{Name: "drain", Value: load.DefaultDrain, Usage: "bound on waiting for the last messages after the measured period (0: no wait)", Destination: &lc.Load.Drain}, flagrange.Duration(0, time.Hour)),
			cliapp.Ranged(&cli.DurationFlag{Name: "snapshot-interval", Aliases: []string{"interval"}, Value: load.DefaultInterval, Usage: "period of the snapshots (and of the progress line)", Destination: &lc.Load.Interval}, flagrange.Duration(time.Millisecond, time.Hour)),
			cliapp.Ranged(&cli.IntFlag{Name: "max-raw", Value: load.DefaultMaxRaw, Usage: "latencies kept for the raw file per payload (the histogram keeps every one; 0: none)", Destination: &lc.Load.MaxRaw}, flagrange.Int(0, 100_000_000)),
			&cli.StringFlag{Name: "padding", Value: string(load.PaddingRandom), Usage: "what fills each message after its header: random (seeded pseudo-random bytes), zeros or pattern (byte i mod 251)", Destination: &lc.Padding},
			cliapp.Ranged(&cli.Uint64Flag{Name: "padding-seed", Usage: "seed of --padding random, recorded in the summary JSON to repeat a run's bytes (default 0: a random seed)", Destination: &lc.Load.PaddingSeed}, flagrange.Uint64()),
			&cli.BoolFlag{Name: "no-plots", Usage: "do not draw the figures in load/", Destination: &lc.NoPlots},
			cliapp.Ranged(&cli.IntFlag{Name: "prom-port", Usage: "serve Prometheus metrics and /health on this port of 127.0.0.1 (loopback only) while running (default 0: off); --prom-addr exposes them elsewhere", Destination: &lc.PromPort},
				flagrange.Int(1, 65535).OrZero("off")),
			&cli.StringFlag{Name: "prom-addr", Usage: "serve Prometheus metrics and /health at HOST:PORT instead, e.g. 0.0.0.0:9102 to expose them on every interface (port 0: any free port)", Destination: &lc.PromAddr},
		}, streamFlags("16", &lc.Base)...),
		Action: withBase(&lc.Base, func(c *cli.Context) error { return runapp.Load(c.Context, *lc, c.App.ErrWriter) }),
	}
}

// throughputCommand is `run throughput`: the maximum throughput with a
// bounded in-flight window (internal/throughput).
func throughputCommand() *cli.Command {
	tc := &runapp.ThroughputConfig{}
	return &cli.Command{
		Name:      "throughput",
		Usage:     "find the maximum throughput with a bounded number of messages in flight (RabbitMQ method)",
		UsageText: "run throughput [-s SUB-EXPERIMENTS] [--payloads 16,1024] [--windows 100] [--window 10ms] [--max-in-flight 100000] [flags]",
		Description: `run throughput keeps F messages in flight from one publisher to one
subscriber and measures once 2F messages were received, over --windows
windows of at least --window each: the windows end to end are the measured
period, and the messages delivered in it over its length are the delivered
rate at F (each window also gives a sample, messages / window length, whose
median, mean and stdev are printed beside it; the median overstates what was
delivered when deliveries come in bursts). F is searched by the delivered
rate: 1, 10, 100, ... (up to --max-in-flight) until the rate falls, then the
bracket around the best F is bisected until it is narrower than --precision
of its mean, or, sooner, once neither end of the bracket differs from its
best by more than the noise between measurements (1.96·√2 times the standard
deviation of 5 measurements of the scale's best F): the closing line then
says "bisection stopped within the noise", and F is the bracket's best
point. The largest of the search's noisy rates overstates the throughput at
its F, so the chosen F is measured again in 5 confirmation periods, each on
links of its own: the headline is the delivered rate over the 5 periods,
with a 95 % prediction interval of one more period's rate. Every step is
printed.

It writes into results/<experiment>/:

  throughput_<type>.csv          per payload, the confirmation at the chosen
                                 F: the 5 periods, the delivered rate over
                                 them (Median), the periods' mean and stdev,
                                 in msg/s and Mb/s
  throughput_<type>_search.csv   every step of the search, in the order
                                 measured, the confirmations last
  meta.json

(formats §9; higher is better). A message not delivered within --timeout is
taken for lost and frees its place in the window.

Exit codes: 0 done; 2 usage or environment error, or a link that broke; 130
interrupted.

Examples:
   run throughput -s nats_best_effort --broker embedded --payloads 16,1024
   run throughput -s interprocess_best_effort_tcp --payloads 16384 --windows 200`,
		Flags: append([]cli.Flag{
			cliapp.Ranged(&cli.IntFlag{Name: "windows", Value: throughput.DefaultWindows, Usage: "windows (samples) per measurement", Destination: &tc.Throughput.Windows}, flagrange.Int(2, 1_000_000)),
			cliapp.Ranged(&cli.DurationFlag{Name: "window", Value: throughput.DefaultMinWindow, Usage: "shortest window", Destination: &tc.Throughput.MinWindow}, flagrange.Duration(time.Microsecond, time.Hour)),
			cliapp.Ranged(&cli.IntFlag{Name: "max-in-flight", Value: throughput.DefaultMaxF, Usage: "largest F of the exponential scale", Destination: &tc.Throughput.MaxF}, flagrange.Int(1, 10_000_000)),
			cliapp.Ranged(&cli.Float64Flag{Name: "precision", Value: throughput.DefaultPrecision, Usage: "stop bisecting when the bracket is narrower than this fraction of its mean", Destination: &tc.Throughput.Precision},
				flagrange.Float(0, 1).Above().Below()),
			cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: throughput.DefaultTimeout, Usage: "a message not delivered within this is lost", Destination: &tc.Throughput.Timeout}, timeoutRange),
			&cli.StringFlag{Name: "padding", Value: string(load.PaddingPattern), Usage: "what fills each message after its header, as run load's --padding: random (seeded pseudo-random bytes), zeros or pattern (byte i mod 251); meta.json's mode names it", Destination: &tc.Padding},
			cliapp.Ranged(&cli.Uint64Flag{Name: "padding-seed", Usage: "seed of --padding random, recorded in meta.json's mode (default 0: a random seed)", Destination: &tc.Throughput.PaddingSeed}, flagrange.Uint64()),
		}, streamFlags("16", &tc.Base)...),
		Action: withBase(&tc.Base, func(c *cli.Context) error { return runapp.Throughput(c.Context, *tc, c.App.ErrWriter) }),
	}
}

// perMessageCommand is `run permessage`: per-message throughput (the
// ZeroMQ method, internal/permessage).
func perMessageCommand() *cli.Command {
	pc := &runapp.PerMessageConfig{}
	return &cli.Command{
		Name:      "permessage",
		Usage:     "per-message throughput and latency (ZeroMQ method): O_n, I_n, L_n, SO_n, RO_n, ST_n, RT_n, CPU per message",
		UsageText: "run permessage [-s SUB-EXPERIMENTS] [--payloads 16..1024] [--count 10000] [--window 100] [--rate 0] [--cpu-every 1000] [flags]",
		Description: `run permessage sends --count messages from one publisher to one subscriber
for every payload, back to back or paced at --rate messages per second, and
records, in memory allocated before the first message, when each was sent (O_n,
taken just before the message is handed to Send, so that a Send that blocks
cannot make L_n negative) and delivered (I_n). From them: latency L_n = I_n − O_n
(a negative L_n, an arrival stamp not on the sender's clock, is counted and
left out of the aggregates, and fails the run: the payload's files are written
and no further payload is measured),
sender and receiver overheads SO_n = (O_n − O_{n−M}) / M and RO_n = (I_n −
I_{n−M}) / M and throughputs ST_n = 1 / SO_n and RT_n = 1 / RO_n over a window
of M = --window messages, and the CPU usage (% of a core, and ns per message),
read every --cpu-every messages, of the sender and receiver threads, of this
whole process (the client: all its threads), and of the broker (the process
listening at its port on this host, or, for a broker or transport in this
process, this process less the two measuring threads); the console gives each
over the whole run.

Beside each median it gives the overall rate (N − 1 messages over the whole
run) and says when they disagree by more than ±10 %: messages sent or
delivered in bursts (a client library buffering sends, a queue drained at
once) make the median of M-message windows the rate within a burst, and the
overall rate then leads. A sender paced below the link's capacity makes a
steady run, whose medians agree with the overall rates.

It writes into results/<experiment>/ (formats §9): permessage_<type>.csv (one
row per message), permessage_<type>_cpu.csv, permessage_<type>_summary.csv
(count, mean, median, lower median, robust deviation = mean |x − median|, min,
max, p50, p90, p99, Sarle's bimodality coefficient with its verdict: > 5/9
suggests several modes, the overall figure and whether the median agrees),
throughput_<type>.csv (what check and requirements gate: the median of the
RT_n windows, or, when it disagrees with the overall receive rate by more than
±10 % (deliveries in bursts), the overall rate, (delivered − 1) / (last I −
first I), as one sample), and the figures in permessage/:
latency, ST/RT and CPU against message number, histograms, and the median
throughput against the payload size. A payload interrupted (Ctrl-C) or cut
by a broken link is written too, marked incomplete in meta.json: the
messages sent (interrupted: up to the last one delivered).

Exit codes: 0 done; 2 usage or environment error, or a link that broke; 130
interrupted.

Examples:
   run permessage -s nats_best_effort --broker embedded --payloads 16..4096
   run permessage -s nats_best_effort --broker embedded --rate 100000 --window 1000
   run permessage -s interprocess_best_effort_tcp --count 100000 --window 1000`,
		Flags: append([]cli.Flag{
			cliapp.Ranged(&cli.IntFlag{Name: "count", Value: 10000, Usage: "messages per payload; every payload's are held until the files are written, about 600 B a message: a run that would not fit in 80 % of the available memory is refused", Destination: &pc.PerMessage.Count}, flagrange.Int(2, 100_000_000)),
			cliapp.Ranged(&cli.IntFlag{Name: "window", Value: 100, Usage: "M, the window of ST_n and RT_n, in messages, less than --count", Destination: &pc.PerMessage.Window}, flagrange.Int(1, 100_000_000-1)),
			cliapp.Ranged(&cli.Float64Flag{Name: "rate", Usage: "pace the sender at this many messages per second, below the link's capacity for a steady run (default 0: back to back)", Destination: &pc.PerMessage.Rate},
				flagrange.Float(0, load.MaxRate).Above().OrZero("back to back")),
			cliapp.Ranged(&cli.IntFlag{Name: "cpu-every", Value: 1000, Usage: "sample CPU time every k-th message", Destination: &pc.PerMessage.CPUEvery}, flagrange.Int(1, 100_000_000)),
			cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: throughput.DefaultTimeout, Usage: "stop waiting for deliveries after this long without one (the rest are lost)", Destination: &pc.PerMessage.Timeout}, timeoutRange),
			&cli.BoolFlag{Name: "no-plots", Usage: "do not draw the figures", Destination: &pc.NoPlots},
		}, streamFlags("16..1024", &pc.Base)...),
		Action: withBase(&pc.Base, func(c *cli.Context) error { return runapp.PerMessage(c.Context, *pc, c.App.ErrWriter) }),
	}
}

// streamFlags are the flags shared by the one-way subcommands (run load,
// run throughput): what to measure over, where results go, brokers and
// certificates, and every driver's own flags, filling sc.
func streamFlags(defaultPayloads string, sc *runapp.Base) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Value: "intraprocess_best_effort",
			Usage: "comma-separated sub-experiments to run, in order (see 'run --list'; every transport with one-way links)", Destination: &sc.Subexperiments},
		&cli.StringFlag{Name: "payloads", Value: defaultPayloads, Usage: "payload sizes in bytes (at least 16): a list (16,1024) or a range of powers of two (16..16384)", Destination: &sc.Payloads},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results", Usage: "results root directory", Destination: &sc.Out},
		&cli.StringFlag{Name: "name", Usage: "experiment name (default: UTC start time, " + experiment.DirTimeLayout + ")", Destination: &sc.Name},
		&cli.StringFlag{Name: "sut-name", Value: "mqgate-builtin", Usage: "name of the system under test, for meta.json", Destination: &sc.System.Name},
		&cli.StringFlag{Name: "sut-version", Usage: "version of the system under test, for meta.json", Destination: &sc.System.Version},
		&cli.StringFlag{Name: "sut-commit", Usage: "commit of the system under test, for meta.json", Destination: &sc.System.Commit},
		&cli.StringSliceFlag{Name: "target", Usage: "a broker URL (nats://, amqp://, mqtt://, …) or TRANSPORT=URL (repeatable)"},
		&cli.StringFlag{Name: "broker", Value: session.BrokerExternal, Usage: "broker sub-experiments: external (the URL given) or embedded (started inside run)", Destination: &sc.Session.Broker},
		&cli.StringFlag{Name: "topic", Usage: "broker sub-experiments: the base topic (default: one per sub-experiment, unique to the run)", Destination: &sc.Session.Topic},
		cliapp.Ranged(&cli.DurationFlag{Name: "connect-timeout", Value: session.DefaultConnectTimeout, Usage: "bound on connecting each end, TLS/DTLS handshakes included", Destination: &sc.Session.ConnectTimeout}, connectTimeoutRange),
		cliapp.Ranged(&cli.IntFlag{Name: "queue-depth", Usage: "receive queue of in-process and socket subscribers, in messages (default: the transport's)", Destination: &sc.Session.QueueDepth}, queueDepthRange),
		&cli.StringFlag{Name: "ca", Usage: "secure sub-experiments: CA certificate (PEM); default: a CA generated for this run", Destination: &sc.Session.Security.CAFile},
		&cli.StringFlag{Name: "cert", Usage: "secure sub-experiments: the publishers' certificate (PEM)", Destination: &sc.Session.Security.CertFile},
		&cli.StringFlag{Name: "key", Usage: "secure sub-experiments: the publishers' private key (PEM)", Destination: &sc.Session.Security.KeyFile},
		&cli.StringFlag{Name: "echo-cert", Usage: "the subscribers' (or embedded broker's) certificate (default: --cert)", Destination: &sc.Session.Security.EchoCertFile},
		&cli.StringFlag{Name: "echo-key", Usage: "the subscribers' (or embedded broker's) private key (default: --key)", Destination: &sc.Session.Security.EchoKeyFile},
		&cli.StringFlag{Name: "server-name", Usage: "name expected in the subscriber's or broker's certificate (default: the host dialled)", Destination: &sc.Session.Security.ServerName},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error", Destination: &sc.Quiet},
	}, driverFlags()...)
}
