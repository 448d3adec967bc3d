package runapp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/session"
)

// streamFlags are the flags shared by the one-way subcommands (run load,
// run throughput): what to measure over, where results go, brokers and
// certificates, and every driver's own flags.
func streamFlags(defaultPayloads string) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Value: "intraprocess_best_effort",
			Usage: "comma-separated sub-experiments to run, in order (see 'run --list'; every transport with one-way links)"},
		&cli.StringFlag{Name: "payloads", Value: defaultPayloads, Usage: "payload sizes in bytes (at least 16): a list (16,1024) or a range of powers of two (16..16384)"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results", Usage: "results root directory"},
		&cli.StringFlag{Name: "name", Usage: "experiment name (default: UTC start time, " + experiment.DirTimeLayout + ")"},
		&cli.StringFlag{Name: "sut-name", Value: "mqgate-builtin", Usage: "name of the system under test, for meta.json"},
		&cli.StringFlag{Name: "sut-version", Usage: "version of the system under test, for meta.json"},
		&cli.StringFlag{Name: "sut-commit", Usage: "commit of the system under test, for meta.json"},
		&cli.StringSliceFlag{Name: "target", Usage: "a broker URL (nats://, amqp://, mqtt://, …) or TRANSPORT=URL (repeatable)"},
		&cli.StringFlag{Name: "broker", Value: session.BrokerExternal, Usage: "broker sub-experiments: external (the URL given) or embedded (started inside run)"},
		&cli.StringFlag{Name: "topic", Usage: "broker sub-experiments: the base topic (default: one per sub-experiment, unique to the run)"},
		cliapp.Ranged(&cli.DurationFlag{Name: "connect-timeout", Value: session.DefaultConnectTimeout, Usage: "bound on connecting each end, TLS/DTLS handshakes included"}, connectTimeoutRange),
		cliapp.Ranged(&cli.IntFlag{Name: "queue-depth", Usage: "receive queue of in-process and socket subscribers, in messages (default: the transport's)"}, queueDepthRange),
		&cli.StringFlag{Name: "ca", Usage: "secure sub-experiments: CA certificate (PEM); default: a CA generated for this run"},
		&cli.StringFlag{Name: "cert", Usage: "secure sub-experiments: the publishers' certificate (PEM)"},
		&cli.StringFlag{Name: "key", Usage: "secure sub-experiments: the publishers' private key (PEM)"},
		&cli.StringFlag{Name: "echo-cert", Usage: "the subscribers' (or embedded broker's) certificate (default: --cert)"},
		&cli.StringFlag{Name: "echo-key", Usage: "the subscribers' (or embedded broker's) private key (default: --key)"},
		&cli.StringFlag{Name: "server-name", Usage: "name expected in the subscriber's or broker's certificate (default: the host dialled)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error"},
	}, driverFlags()...)
}

// streamRun is a prepared one-way run: the session, where results go and
// the meta.json to complete.
type streamRun struct {
	session  *session.Session
	streams  []session.Stream
	payloads []int
	dir      string
	meta     *meta.Meta
	stderr   *syncWriter
	progress bool // print progress
	terminal bool // a live status line
}

// prepareStream checks the shared flags and prepares the session: every
// sub-experiment's transport must carry one-way traffic.
func prepareStream(c *cli.Context, tool string) (*streamRun, error) {
	if c.Args().Present() {
		return nil, exit.Usagef("unexpected argument %q (see 'run %s --help')", c.Args().First(), c.Command.Name)
	}
	start := time.Now().UTC()
	payloads, err := engine.ParsePayloads(c.String("payloads"))
	if err != nil {
		return nil, exit.Usagef("--payloads: %v", err)
	}
	if c.Duration("connect-timeout") <= 0 {
		return nil, exit.Usagef("--connect-timeout %v: expected a positive duration", c.Duration("connect-timeout"))
	}
	cfg := session.Config{
		Echo: session.EchoInProcess, Targets: c.StringSlice("target"), Broker: c.String("broker"), Topic: c.String("topic"),
		Params: driverParams(c), QueueDepth: c.Int("queue-depth"), ConnectTimeout: c.Duration("connect-timeout"),
		Security: session.Security{CAFile: c.String("ca"), CertFile: c.String("cert"), KeyFile: c.String("key"),
			EchoCertFile: c.String("echo-cert"), EchoKeyFile: c.String("echo-key"), ServerName: c.String("server-name")},
		// The engine's settings only size the links: one sample, no warm-up.
		Engine: engine.Config{Payloads: payloads, Samples: 1},
		Args:   os.Args,
	}
	for _, name := range strings.Split(c.String("subexperiments"), ",") {
		cfg.Scenarios = append(cfg.Scenarios, strings.TrimSpace(name))
	}
	dir, err := experimentDir(c, start)
	if err != nil {
		return nil, err
	}
	if err := guardExperiment(c, dir); err != nil {
		return nil, err
	}
	s, err := session.Prepare(c.Context, cfg)
	if err != nil {
		if errors.Is(err, engine.ErrInterrupted) {
			return nil, exit.With(exit.Interrupted, err)
		}
		return nil, exit.With(exit.Usage, err)
	}
	streams := s.Streams()
	for _, st := range streams {
		if _, ok := st.Transport.(driver.StreamTransport); !ok {
			s.Close()
			return nil, exit.Usagef("%s: transport %s carries round trips only, not one-way traffic", st.Scenario.Type, st.Transport.Name())
		}
		if err := probeStream(c.Context, st, cfg.ConnectTimeout); err != nil {
			s.Close()
			return nil, exit.Usagef("%s: %v", st.Scenario.Type, err)
		}
	}
	m := &meta.Meta{
		Tool:       meta.Tool{Name: "mqgate " + tool, Version: c.App.Version},
		Experiment: filepath.Base(dir),
		Start:      start,
		System:     meta.System{Name: c.String("sut-name"), Version: c.String("sut-version"), Commit: c.String("sut-commit")},
		Host:       meta.HostFingerprint(),
	}
	m.Config = s.MetaConfig()
	m.Config.Out = c.String("out")
	m.Config.Samples, m.Config.Warmup, m.Config.Echo = 0, 0, "none (one-way)"
	for _, st := range streams {
		scope, _, _ := strings.Cut(st.Scenario.Type, "_")
		if !contains(m.System.Scopes, scope) {
			m.System.Scopes = append(m.System.Scopes, scope)
		}
	}
	r := &streamRun{session: s, streams: streams, payloads: payloads, dir: dir, meta: m,
		stderr: &syncWriter{w: c.App.ErrWriter}, progress: !c.Bool("quiet")}
	// A live status line on a terminal; quiet in CI, where logs are files.
	r.terminal = r.progress && isTerminal(c.App.ErrWriter) && os.Getenv("CI") == ""
	return r, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// subs are the prepared streams as load sub-experiments.
func (r *streamRun) subs(c *cli.Context) []load.Sub {
	var subs []load.Sub
	for _, st := range r.streams {
		subs = append(subs, load.Sub{Type: st.Scenario.Type, Transport: st.Transport.Name(), Reliable: st.Scenario.Reliable,
			Topic: st.Publish.Topic, Params: st.Params, Embedded: st.Embedded,
			Links: load.Links{Transport: st.Transport.(driver.StreamTransport), URL: st.URL, Publish: st.Publish,
				Subscribe: st.Subscribe, ConnectTimeout: c.Duration("connect-timeout")}})
	}
	return subs
}

// checkPayloads refuses a payload too small for the message header.
func (r *streamRun) checkPayloads() error {
	for _, p := range r.payloads {
		if p < load.MinMessage {
			return exit.Usagef("--payloads: payload %d B is smaller than the %d-byte message header", p, load.MinMessage)
		}
	}
	return nil
}

// finish maps the outcome of a one-way run to the exit codes of formats §5.
func (r *streamRun) finish(err error, interrupted func(error) bool) error {
	switch {
	case err == nil:
		if r.progress {
			fmt.Fprintf(r.stderr, "results in %s\n", r.dir)
		}
		return nil
	case interrupted(err):
		return exit.With(exit.Interrupted, fmt.Errorf("%w; what was measured is in %s (meta.json marks the run incomplete)", err, r.dir))
	}
	if _, statErr := os.Stat(filepath.Join(r.dir, meta.FileName)); statErr == nil {
		return exit.With(exit.Usage, fmt.Errorf("%w; what was measured is in %s (meta.json marks the run incomplete)", err, r.dir))
	}
	return exit.With(exit.Usage, err)
}

// probeStream opens one subscriber and one publisher of a socket or
// in-process link and closes them, so that a link the transport cannot
// carry one way (reliable UDP, which has no acknowledgements) is refused
// before the experiment directory exists. Brokers were probed by the
// session.
func probeStream(ctx context.Context, st session.Stream, timeout time.Duration) error {
	if st.URL != "" {
		return nil
	}
	tr := st.Transport.(driver.StreamTransport)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	listen := "127.0.0.1:0"
	if driver.IsProcessBound(tr) {
		listen = ""
	}
	sub, err := tr.Subscribe(cctx, listen, st.Subscribe)
	if err != nil {
		return err
	}
	defer sub.Close()
	pub, err := tr.Publish(cctx, sub.Addr(), st.Publish)
	if err != nil {
		return err
	}
	return pub.Close()
}
