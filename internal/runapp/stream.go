package runapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/burst"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/permessage"
	"github.com/mqgate/mqgate/internal/session"
	"github.com/mqgate/mqgate/internal/throughput"
)

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
// sub-experiment's transport must carry one-way traffic and, with header
// (the modes whose messages carry load's), every payload must hold the
// message header.
func prepareStream(ctx context.Context, sc Base, tool string, header bool, stderr io.Writer) (*streamRun, error) {
	if len(sc.Args) > 0 {
		return nil, exit.Usagef("unexpected argument %q (see '%s --help')", sc.Args[0], tool)
	}
	start := time.Now().UTC()
	payloads, err := engine.ParsePayloads(sc.Payloads)
	if err != nil {
		return nil, exit.Usagef("--payloads: %v", err)
	}
	cfg := sc.Session
	if cfg.ConnectTimeout <= 0 {
		return nil, exit.Usagef("--connect-timeout %v: expected a positive duration", cfg.ConnectTimeout)
	}
	cfg.Echo, cfg.Args, cfg.Scenarios = session.EchoInProcess, os.Args, splitList(sc.Subexperiments)
	cfg.OneWay = true
	// The engine's settings only size the links: one sample, no warm-up.
	cfg.Engine = engine.Config{Payloads: payloads, Samples: 1}
	dir, err := sc.experimentDir(start)
	if err != nil {
		return nil, err
	}
	if err := sc.guardExperiment(dir); err != nil {
		return nil, err
	}
	s, err := session.Prepare(ctx, cfg)
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
		if err := probeStream(ctx, st, cfg.ConnectTimeout); err != nil {
			s.Close()
			return nil, exit.Usagef("%s: %v", st.Scenario.Type, err)
		}
	}
	for _, p := range payloads {
		if header && p < load.MinMessage {
			s.Close()
			return nil, exit.Usagef("--payloads: payload %d B is smaller than the %d-byte message header", p, load.MinMessage)
		}
	}
	m := sc.meta(tool, dir, start)
	s.CompleteMeta(m)
	// The round-trip engine's settings (--samples, --warmup, --timeout,
	// --seed, --max-lost-in-row) and fill are not this mode's: they are
	// left out (meta.Config.OneWay), and each mode records its own timeout,
	// padding (and run load its warm-up) as it uses them.
	m.Config.Samples, m.Config.Warmup, m.Config.OneWay, m.Config.Echo = 0, 0, true, "none (one-way)"
	m.Config.Timeout, m.Config.Seed, m.Config.MaxLostInRow = 0, 0, 0
	m.Config.Fill = string(load.PaddingPattern) // load.NewMessage's, unless the mode pads otherwise
	r := &streamRun{session: s, streams: streams, payloads: payloads, dir: dir, meta: m,
		stderr: &syncWriter{w: stderr}, progress: !sc.Quiet}
	// A live status line on a terminal; quiet in CI, where logs are files.
	r.terminal = r.progress && isTerminal(stderr) && os.Getenv("CI") == ""
	return r, nil
}

// subs are the prepared streams as load sub-experiments, each end
// connecting within timeout.
func (r *streamRun) subs(timeout time.Duration) []load.Sub {
	var subs []load.Sub
	for _, st := range r.streams {
		subs = append(subs, load.Sub{Type: st.Scenario.Type, Transport: st.Transport.Name(), Reliable: st.Scenario.Reliable,
			Topic: st.Publish.Topic, Params: st.Params, Embedded: st.Embedded,
			Links: load.Links{Transport: st.Transport.(driver.StreamTransport), URL: st.URL, Publish: st.Publish,
				Subscribe: st.Subscribe, ConnectTimeout: timeout}})
	}
	return subs
}

// progressTo is where a runner writes its progress: nil with --quiet.
func (r *streamRun) progressTo() io.Writer {
	if r.progress {
		return r.stderr
	}
	return nil
}

// run claims the experiment folder, runs run over subs and maps its
// outcome to the exit codes of formats §5.
func (r *streamRun) run(ctx context.Context, run func(context.Context, []load.Sub) error, subs []load.Sub) error {
	if err := claimDir(r.dir); err != nil {
		return err
	}
	err := run(ctx, subs)
	switch {
	case err == nil:
		if r.progress {
			fmt.Fprintf(r.stderr, "results in %s\n", r.dir)
		}
		return nil
	case errors.Is(err, load.ErrInterrupted):
		return exit.With(exit.Interrupted, fmt.Errorf("%w; %s", err, keptIn(r.dir)))
	}
	if _, statErr := os.Stat(filepath.Join(r.dir, meta.FileName)); statErr == nil {
		return exit.With(exit.Usage, fmt.Errorf("%w; %s", err, keptIn(r.dir)))
	}
	return exit.With(exit.Usage, err)
}

// keptIn says where what a run cut short measured is, or that nothing
// was kept: a burst case interrupted before its end keeps none, and
// "what was measured is in DIR" sent the user to a folder holding
// meta.json alone.
func keptIn(dir string) string {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != meta.FileName {
			return fmt.Sprintf("what was measured is in %s (meta.json marks the run incomplete)", dir)
		}
	}
	return fmt.Sprintf("nothing measured was kept: %s holds its meta.json alone, which marks the run incomplete", dir)
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

// LoadConfig is `run load`: the shared one-way flags, the load settings
// bound to their flags (--rate, --duration, --warmup, --drain, --snapshot-interval,
// --max-raw, --padding-seed), and the flags that make the rest.
type LoadConfig struct {
	Base
	Load                            load.Config
	Scenario                        string // --scenario
	Publishers, Subscribers, Topics int    // 0: the scenario's
	Padding                         string // --padding
	NoPlots                         bool   // --no-plots
	PromPort                        int    // --prom-port
	PromAddr                        string // --prom-addr
}

// Load is `run load`: one-way latency under load (internal/load), with
// progress on stderr.
func Load(ctx context.Context, lc LoadConfig, stderr io.Writer) error {
	tp, err := load.NewTopology(lc.Scenario, lc.Publishers, lc.Subscribers, lc.Topics)
	if err != nil {
		return exit.Usagef("%v", err)
	}
	cfg := lc.Load
	cfg.Topology = tp
	if cfg.Padding, err = load.ParsePadding(lc.Padding); err != nil {
		return exit.Usagef("--padding: %v", err)
	}
	if cfg.MaxRaw == 0 {
		cfg.MaxRaw = -1 // --max-raw 0 keeps none
	}
	// The payloads are checked here too, so that a usage error comes
	// before any broker is reached.
	probe := cfg
	probe.Payloads = []int{load.MinMessage}
	if err := probe.WithDefaults().Validate(); err != nil {
		return exit.Usagef("%v", err)
	}
	promAddr, err := load.PromAddr(lc.PromPort, lc.PromAddr, "--prom-port", "--prom-addr")
	if err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(ctx, lc.Base, "run load", false, stderr)
	if err != nil {
		return err
	}
	defer r.session.Close()
	cfg.Payloads = r.payloads
	if err := cfg.WithDefaults().Validate(); err != nil {
		return exit.Usagef("--payloads: %v", err)
	}
	if w := cfg.WithDefaults().RateWarning(); w != "" {
		fmt.Fprintf(r.stderr, "run load: warning: %s\n", w)
	}
	subs := r.subs(lc.Session.ConnectTimeout)
	for _, s := range subs {
		if err := s.Links.Check(tp); err != nil {
			return exit.Usagef("%s: %v", s.Type, err)
		}
	}
	if promAddr != "" {
		exp, err := load.ServePrometheus(promAddr, lc.Version)
		if err != nil {
			return exit.Usagef("--prom-port/--prom-addr %s: %v", promAddr, err)
		}
		defer exp.Close()
		cfg.Observers = append(cfg.Observers, exp)
		if r.progress {
			fmt.Fprintf(r.stderr, "Prometheus metrics at http://%s/metrics\n", exp.Addr())
		}
	}
	// meta.json records the padding, its seed and the warm-up the runner
	// uses: its defaults filled in (the random seed drawn) here, once.
	used := cfg.WithDefaults()
	r.meta.Config.Fill, r.meta.Config.PaddingSeed = string(used.Padding), used.PaddingSeed
	warmup := meta.Duration(used.Warmup)
	r.meta.Config.WarmupDuration = &warmup
	runner := &load.Runner{Config: used, Dir: r.dir, Meta: r.meta, Terminal: r.terminal, Also: throughput.WriteLoadSummary,
		NoPlots: lc.NoPlots, Progress: r.progressTo()}
	return r.run(ctx, runner.Run, subs)
}

// ThroughputConfig is `run throughput`: the shared one-way flags and the
// search's settings (--windows, --window, --max-in-flight, --precision,
// --timeout).
type ThroughputConfig struct {
	Base
	Throughput throughput.Config
	Padding    string // --padding ("": throughput's default, pattern)
}

// Throughput is `run throughput`: the maximum throughput with a bounded
// in-flight window (internal/throughput), with progress on stderr.
func Throughput(ctx context.Context, tc ThroughputConfig, stderr io.Writer) error {
	if tc.Padding != "" {
		p, err := load.ParsePadding(tc.Padding)
		if err != nil {
			return exit.Usagef("--padding: %v", err)
		}
		tc.Throughput.Padding = p
	}
	if err := tc.Throughput.WithDefaults().Validate(); err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(ctx, tc.Base, "run throughput", true, stderr)
	if err != nil {
		return err
	}
	defer r.session.Close()
	used := tc.Throughput.WithDefaults()
	if used.Padding == load.PaddingRandom && used.PaddingSeed == 0 {
		used.PaddingSeed = rand.Uint64() | 1 // as Runner.Run would draw it, recorded
	}
	r.meta.Config.Fill, r.meta.Config.PaddingSeed = string(used.Padding), used.PaddingSeed
	r.meta.Config.Timeout = meta.Duration(used.Timeout)
	runner := &throughput.Runner{Config: used, Payloads: r.payloads, Dir: r.dir, Meta: r.meta, Progress: r.progressTo()}
	return r.run(ctx, runner.Run, r.subs(tc.Session.ConnectTimeout))
}

// PerMessageConfig is `run permessage`: the shared one-way flags, the
// measurement's settings (--count, --window, --cpu-every, --timeout) and
// --no-plots.
type PerMessageConfig struct {
	Base
	PerMessage permessage.Config
	NoPlots    bool
}

// PerMessage is `run permessage`: per-message throughput (the ZeroMQ
// method, internal/permessage), with progress on stderr.
func PerMessage(ctx context.Context, pc PerMessageConfig, stderr io.Writer) error {
	cfg := pc.PerMessage
	if cfg.Window >= cfg.Count {
		return exit.Usagef("--window %d: expected 1 to --count − 1 (%d)", cfg.Window, cfg.Count-1)
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(ctx, pc.Base, "run permessage", true, stderr)
	if err != nil {
		return err
	}
	defer r.session.Close()
	if err := permessage.CheckMemory(cfg.WithDefaults().Count, len(r.payloads)); err != nil {
		return exit.Usagef("%v", err)
	}
	r.meta.Config.Timeout = meta.Duration(cfg.WithDefaults().Timeout)
	runner := &permessage.Runner{Config: cfg, Payloads: r.payloads, Dir: r.dir, Meta: r.meta, NoPlots: pc.NoPlots, Progress: r.progressTo()}
	return r.run(ctx, runner.Run, r.subs(pc.Session.ConnectTimeout))
}

// BurstConfig is `run burst`: the shared one-way flags, the bursts'
// settings bound to their flags (--demand, --recovery_time, --timeout), and
// the flags that make the rest.
type BurstConfig struct {
	Base
	Burst                                 burst.Config
	Time                                  float64 // --time, in seconds
	File, RecoveriesFile                  string  // --file, --recoveries_file
	PayloadsSet, DemandSet, RecoveriesSet bool    // --payloads, --demand, --recovery_time were given
}

// Burst is `run burst`: the Fast-RTPS throughput pipeline's bursts
// (internal/burst), with progress on stderr.
func Burst(ctx context.Context, bc BurstConfig, stderr io.Writer) error {
	cfg := bc.Burst
	cfg.TestTime = time.Duration(bc.Time * float64(time.Second))
	if path := bc.File; path != "" {
		if bc.PayloadsSet || bc.DemandSet {
			return exit.Usagef("--file gives the payloads and demands: it excludes --payloads and --demand")
		}
		payloads, demands, err := burst.ReadDemandsFile(path)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		list := make([]string, len(payloads))
		for i, p := range payloads {
			list[i] = strconv.Itoa(p)
		}
		bc.Payloads = strings.Join(list, ",")
		cfg.PayloadDemands = demands
	}
	if path := bc.RecoveriesFile; path != "" {
		if bc.RecoveriesSet {
			return exit.Usagef("--recoveries_file excludes --recovery_time")
		}
		var err error
		if cfg.Recoveries, err = burst.ReadRecoveriesFile(path); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(ctx, bc.Base, "run burst", true, stderr)
	if err != nil {
		return err
	}
	defer r.session.Close()
	r.meta.Config.Timeout = meta.Duration(cfg.WithDefaults().Timeout)
	runner := &burst.Runner{Config: cfg, Payloads: r.payloads, Dir: r.dir, Meta: r.meta, Progress: r.progressTo()}
	return r.run(ctx, runner.Run, r.subs(bc.Session.ConnectTimeout))
}
