package runapp

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/throughput"
)

func init() { addSubcommand(throughputCommand) }

// throughputCommand is `run throughput`: the maximum throughput with a
// bounded in-flight window (internal/throughput).
func throughputCommand() *cli.Command {
	return &cli.Command{
		Name:      "throughput",
		Usage:     "find the maximum throughput with a bounded number of messages in flight (RabbitMQ method)",
		UsageText: "run throughput [-s SUB-EXPERIMENTS] [--payloads 16,1024] [--windows 100] [--window 10ms] [--max-in-flight 100000] [flags]",
		Description: `run throughput keeps F messages in flight from one publisher to one
subscriber and measures the throughput once 2F messages were received, over
--windows windows of at least --window each (a sample per window: messages /
window length). F is searched: 1, 10, 100, ... (up to --max-in-flight) until
the median throughput falls, then the bracket around the best F is bisected
until it is narrower than --precision of its mean. Every step is printed.

It writes into results/<experiment>/:

  throughput_<type>.csv          the best F of each payload: samples and the
                                 median, mean and stdev in msg/s and Mb/s
  throughput_<type>_search.csv   every step of the search, same columns
  meta.json

(formats §9; higher is better). A message not delivered within --timeout is
taken for lost and frees its place in the window.

Exit codes: 0 done; 2 usage or environment error, or a link that broke; 130
interrupted.

Examples:
   run throughput -s nats_best_effort --broker embedded --payloads 16,1024
   run throughput -s interprocess_best_effort_tcp --payloads 16384 --windows 200`,
		Flags: append([]cli.Flag{
			cliapp.Ranged(&cli.IntFlag{Name: "windows", Value: throughput.DefaultWindows, Usage: "windows (samples) per measurement"}, flagrange.Int(2, 1_000_000)),
			cliapp.Ranged(&cli.DurationFlag{Name: "window", Value: throughput.DefaultMinWindow, Usage: "shortest window"}, flagrange.Duration(time.Microsecond, time.Hour)),
			cliapp.Ranged(&cli.IntFlag{Name: "max-in-flight", Value: throughput.DefaultMaxF, Usage: "largest F of the exponential scale"}, flagrange.Int(1, 10_000_000)),
			cliapp.Ranged(&cli.Float64Flag{Name: "precision", Value: throughput.DefaultPrecision, Usage: "stop bisecting when the bracket is narrower than this fraction of its mean"},
				flagrange.Float(0, 1).Above().Below()),
			cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: throughput.DefaultTimeout, Usage: "a message not delivered within this is lost"}, timeoutRange),
		}, streamFlags("16")...),
		Action: throughputAction,
	}
}

func throughputAction(c *cli.Context) error {
	cfg := throughput.Config{MinWindow: c.Duration("window"), Windows: c.Int("windows"), MaxF: c.Int("max-in-flight"),
		Precision: c.Float64("precision"), Timeout: c.Duration("timeout")}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return exit.Usagef("%v", err)
	}
	r, err := prepareStream(c, "run throughput")
	if err != nil {
		return err
	}
	defer r.session.Close()
	if err := r.checkPayloads(); err != nil {
		return err
	}
	runner := &throughput.Runner{Config: cfg, Payloads: r.payloads, Dir: r.dir, Meta: r.meta}
	if r.progress {
		runner.Progress = r.stderr
	}
	err = runner.Run(c.Context, r.subs(c))
	return r.finish(err, func(err error) bool { return errors.Is(err, load.ErrInterrupted) })
}
