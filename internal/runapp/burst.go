package runapp

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/burst"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/load"
)

func init() { addSubcommand(burstCommand) }

// burstCommand is `run burst`: the Fast-RTPS throughput pipeline's bursts
// (internal/burst), with the flag names of Fast-RTPS's ThroughputTest.
func burstCommand() *cli.Command {
	flags := streamFlags("16..16384")
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
			&cli.IntSliceFlag{Name: "recovery_time", Value: cli.NewIntSlice(burst.DefaultRecoveries...), Usage: "recovery times in ms, a list"},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "payload demands file (Fast-RTPS payloads_demands.csv: payload;demand;… per line); replaces --payloads and --demand"},
			&cli.StringFlag{Name: "recoveries_file", Usage: "recovery times file (Fast-RTPS recoveries.csv: ms;ms;…); replaces --recovery_time"},
			cliapp.Ranged(&cli.Float64Flag{Name: "time", Aliases: []string{"t"}, Value: burst.DefaultTestTime.Seconds(), Usage: "test time of each case, seconds"},
				flagrange.Float(0, 86400).Above()),
			cliapp.Ranged(&cli.DurationFlag{Name: "timeout", Value: burst.DefaultTimeout, Usage: "after the last burst, wait this long without a delivery for messages in flight"}, timeoutRange),
		}, flags...),
		Action: burstAction,
	}
}

func burstAction(c *cli.Context) error {
	cfg := burst.Config{Demands: c.IntSlice("demand"), Recoveries: c.IntSlice("recovery_time"),
		TestTime: time.Duration(c.Float64("time") * float64(time.Second)), Timeout: c.Duration("timeout")}
	if path := c.String("file"); path != "" {
		if c.IsSet("payloads") || c.IsSet("demand") {
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
		if err := c.Set("payloads", strings.Join(list, ",")); err != nil {
			return exit.Usagef("--file: %v", err)
		}
		cfg.PayloadDemands = demands
	}
	if path := c.String("recoveries_file"); path != "" {
		if c.IsSet("recovery_time") {
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
	r, err := prepareStream(c, "run burst")
	if err != nil {
		return err
	}
	defer r.session.Close()
	if err := r.checkPayloads(); err != nil {
		return err
	}
	runner := &burst.Runner{Config: cfg, Payloads: r.payloads, Dir: r.dir, Meta: r.meta}
	if r.progress {
		runner.Progress = r.stderr
	}
	err = runner.Run(c.Context, r.subs(c))
	return r.finish(err, func(err error) bool { return errors.Is(err, load.ErrInterrupted) })
}
