package runapp

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/throughput"
)

func init() { addSubcommand(perMessageCommand) }

// perMessageCommand is `run permessage`: per-message throughput (the
// ZeroMQ method, internal/throughput).
func perMessageCommand() *cli.Command {
	return &cli.Command{
		Name:      "permessage",
		Usage:     "per-message throughput and latency (ZeroMQ method): O_n, I_n, L_n, SO_n, RO_n, ST_n, RT_n, CPU per message",
		UsageText: "run permessage [-s SUB-EXPERIMENTS] [--payloads 16..1024] [--count 10000] [--window 100] [--rate 0] [--cpu-every 1000] [flags]",
		Description: `run permessage sends --count messages from one publisher to one subscriber
for every payload, back to back or paced at --rate messages per second, and
records, in memory allocated before the first message, when each was sent (O_n,
when Send returned) and delivered (I_n). From them: latency L_n = I_n − O_n,
sender and receiver overheads SO_n = (O_n − O_{n−M}) / M and RO_n = (I_n −
I_{n−M}) / M and throughputs ST_n = 1 / SO_n and RT_n = 1 / RO_n over a window
of M = --window messages, and the CPU usage (% of a core, and ns per message)
of the sender and receiver threads and of the broker's process (a local
broker; this process for an embedded one), read every --cpu-every messages.

Beside each median it gives the overall rate (N − 1 messages over the whole
run) and says when they disagree: messages sent or delivered in bursts (a
client library buffering sends, a queue drained at once) make the median of
M-message windows the rate within a burst. A sender paced below the link's
capacity makes a steady run, whose medians agree with the overall rates.

It writes into results/<experiment>/ (formats §9): permessage_<type>.csv (one
row per message), permessage_<type>_cpu.csv, permessage_<type>_summary.csv
(count, mean, median, lower median, robust deviation = mean |x − median|, min,
max, p50, p90, p99, Sarle's bimodality coefficient with its verdict: > 5/9
suggests several modes, the overall figure and whether the median agrees),
throughput_<type>.csv (the RT_n samples), and the figures in permessage/:
latency, ST/RT and CPU against message number, histograms, and the median
throughput against the payload size.

Examples:
   run permessage -s nats_best_effort --broker embedded --payloads 16..4096
   run permessage -s nats_best_effort --broker embedded --rate 100000 --window 1000
   run permessage -s interprocess_best_effort_tcp --count 100000 --window 1000`,
		Flags: append([]cli.Flag{
			cliapp.Ranged(&cli.IntFlag{Name: "count", Value: 10000, Usage: "messages per payload"}, flagrange.Int(2, 100_000_000)),
			cliapp.Ranged(&cli.IntFlag{Name: "window", Value: 100, Usage: "M, the window of ST_n and RT_n, in messages, less than --count"}, flagrange.Int(1, 100_000_000-1)),
			cliapp.Ranged(&cli.Float64Flag{Name: "rate", Usage: "pace the sender at this many messages per second, below the link's capacity for a steady run (default 0: back to back)"},
				flagrange.Float(0, load.MaxRate).Above().OrZero("back to back")),
			cliapp.Ranged(&cli.IntFlag{Name: "cpu-every", Value: 1000, Usage: "sample CPU time every k-th message"}, flagrange.Int(1, 100_000_000)),
			cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: throughput.DefaultTimeout, Usage: "stop waiting for deliveries after this long without one (the rest are lost)"}, timeoutRange),
			&cli.BoolFlag{Name: "no-plots", Usage: "do not draw the figures"},
		}, streamFlags("16..1024")...),
		Action: perMessageAction,
	}
}

func perMessageAction(c *cli.Context) error {
	cfg := throughput.PerMessageConfig{Count: c.Int("count"), Window: c.Int("window"), Rate: c.Float64("rate"), CPUEvery: c.Int("cpu-every"), Timeout: c.Duration("timeout")}
	if cfg.Window >= cfg.Count {
		return exit.Usagef("--window %d: expected 1 to --count − 1 (%d)", cfg.Window, cfg.Count-1)
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(c, "run permessage")
	if err != nil {
		return err
	}
	defer r.session.Close()
	if err := r.checkPayloads(); err != nil {
		return err
	}
	runner := &throughput.PerMessageRunner{Config: cfg, Payloads: r.payloads, Dir: r.dir, Meta: r.meta, NoPlots: c.Bool("no-plots")}
	if r.progress {
		runner.Progress = r.stderr
	}
	err = runner.Run(c.Context, r.subs(c))
	return r.finish(err, func(err error) bool { return errors.Is(err, load.ErrInterrupted) })
}
