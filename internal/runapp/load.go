package runapp

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/throughput"
)

func init() { addSubcommand(loadCommand) }

// loadCommand is `run load`: one-way latency under load (internal/load).
func loadCommand() *cli.Command {
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
  load_<type>_snapshots.csv      every --interval: t,metric,value,tags
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
message of a publisher times the subscribers of its topic. Socket and
in-process links are point to point: a publisher sends each message to every
subscriber of its topic on a link of its own. Over AMQP, several subscribers
of one topic need --amqp-exchange (amq.direct): the default exchange gives a
message to one queue.

Scenarios: fan-in (N publishers, 1 subscriber), fan-out (1 publisher, M
subscribers), straight-run (N pairs, a topic each), round-robin (N publishers,
M subscribers, T topics: publisher i on topic i mod T, subscriber j on j mod T).

Exit codes: 0 done; 2 usage or environment error, or a link that broke; 130
interrupted. What was measured is written in every case.

Examples:
   run load -s nats_best_effort --broker embedded --scenario fan-in --publishers 4 --rate 1000 --duration 30s
   run load -s mqtt_reliable --target mqtt://127.0.0.1:1883 --scenario fan-out --subscribers 8 --rate 200
   run load -s interprocess_best_effort_tcp --payloads 16,1024 --rate 10000 --prom-port 9102

--prom-port serves the metrics on 127.0.0.1 only; to let another host scrape
them, say where with --prom-addr (--prom-addr 0.0.0.0:9102).`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "scenario", Value: load.FanIn, Usage: "fan-in, fan-out, straight-run or round-robin"},
			cliapp.Ranged(&cli.IntFlag{Name: "publishers", Usage: "publishers (default: the scenario's, 1)"}, flagrange.Int(1, load.MaxEnds)),
			cliapp.Ranged(&cli.IntFlag{Name: "subscribers", Usage: "subscribers (default: the scenario's)"}, flagrange.Int(1, load.MaxEnds)),
			cliapp.Ranged(&cli.IntFlag{Name: "topics", Usage: "topics of round-robin (default: min(publishers, subscribers))"}, flagrange.Int(1, load.MaxEnds)),
			cliapp.Ranged(&cli.Float64Flag{Name: "rate", Usage: "messages per second per publisher, open loop (default 0: as fast as possible)"},
				flagrange.Float(0, load.MaxRate).Above().OrZero("as fast as possible")),
			cliapp.Ranged(&cli.DurationFlag{Name: "duration", Value: load.DefaultDuration, Usage: "measured period per payload"}, flagrange.Duration(time.Millisecond, 24*time.Hour)),
			cliapp.Ranged(&cli.DurationFlag{Name: "warmup", Value: load.DefaultWarmup, Usage: "warm-up per payload, discarded (0: none)"}, flagrange.Duration(0, 24*time.Hour)),
			cliapp.Ranged(&cli.DurationFlag{Name: "drain", Value: load.DefaultDrain, Usage: "bound on waiting for the last messages after the measured period (0: no wait)"}, flagrange.Duration(0, time.Hour)),
			cliapp.Ranged(&cli.DurationFlag{Name: "interval", Value: load.DefaultInterval, Usage: "period of the snapshots (and of the progress line)"}, flagrange.Duration(time.Millisecond, time.Hour)),
			cliapp.Ranged(&cli.IntFlag{Name: "max-raw", Value: load.DefaultMaxRaw, Usage: "latencies kept for the raw file per payload (the histogram keeps every one; 0: none)"}, flagrange.Int(0, 100_000_000)),
			&cli.StringFlag{Name: "padding", Value: string(load.PaddingRandom), Usage: "what fills each message after its header: random (seeded pseudo-random bytes), zeros or pattern (byte i mod 251)"},
			cliapp.Ranged(&cli.Uint64Flag{Name: "padding-seed", Usage: "seed of --padding random, recorded in the summary JSON to repeat a run's bytes (default 0: a random seed)"}, flagrange.Uint64()),
			&cli.BoolFlag{Name: "no-plots", Usage: "do not draw the figures in load/"},
			cliapp.Ranged(&cli.IntFlag{Name: "prom-port", Usage: "serve Prometheus metrics and /health on this port of 127.0.0.1 (loopback only) while running (default 0: off); --prom-addr exposes them elsewhere"},
				flagrange.Int(1, 65535).OrZero("off")),
			&cli.StringFlag{Name: "prom-addr", Usage: "serve Prometheus metrics and /health at HOST:PORT instead, e.g. 0.0.0.0:9102 to expose them on every interface (port 0: any free port)"},
		}, streamFlags("16")...),
		Action: loadAction,
	}
}

func loadAction(c *cli.Context) error {
	tp, err := load.NewTopology(c.String("scenario"), c.Int("publishers"), c.Int("subscribers"), c.Int("topics"))
	if err != nil {
		return exit.Usagef("%v", err)
	}
	cfg := load.Config{Topology: tp, Rate: c.Float64("rate"), Duration: c.Duration("duration"), Warmup: c.Duration("warmup"),
		Drain: c.Duration("drain"), Interval: c.Duration("interval"), MaxRaw: c.Int("max-raw"), PaddingSeed: c.Uint64("padding-seed")}
	if cfg.Padding, err = load.ParsePadding(c.String("padding")); err != nil {
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
	promAddr, err := load.PromAddr(c.Int("prom-port"), c.String("prom-addr"), "--prom-port", "--prom-addr")
	if err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(c, "run load")
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
	for _, st := range r.streams {
		if fc, ok := st.Transport.(driver.FanOutChecker); ok {
			if err := fc.CheckFanOut(tp.Subscribers, tp.Topics, st.Params); err != nil {
				return exit.Usagef("%s: %v", st.Scenario.Type, err)
			}
		}
	}
	subs := r.subs(c)
	if promAddr != "" {
		exp, err := load.ServePrometheus(promAddr)
		if err != nil {
			return exit.Usagef("--prom-port/--prom-addr %s: %v", promAddr, err)
		}
		defer exp.Close()
		cfg.Observers = append(cfg.Observers, exp)
		if r.progress {
			fmt.Fprintf(r.stderr, "Prometheus metrics at http://%s/metrics\n", exp.Addr())
		}
	}
	runner := &load.Runner{Config: cfg, Dir: r.dir, Meta: r.meta, Terminal: r.terminal, Also: throughput.WriteLoadSummary,
		NoPlots: c.Bool("no-plots")}
	if r.progress {
		runner.Progress = r.stderr
	}
	err = runner.Run(c.Context, subs)
	return r.finish(err, func(err error) bool { return errors.Is(err, load.ErrInterrupted) })
}
