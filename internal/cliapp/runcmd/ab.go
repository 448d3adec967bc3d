package runcmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/process"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/runapp"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// abDefaultColumns are the columns the sequential gate judges unless told
// otherwise: the medians, as the README's gate does, because on a shared
// machine the 99th percentile and maximum of unchanged runs vary too much
// for any practical number of pairs to show them within a few per cent.
var abDefaultColumns = []result.Metric{result.Median}

// abCommand is `run ab`: interleaved runs of a reference and a candidate,
// and with --max-runs the sequential gate on them.
func abCommand() *cli.Command {
	ab := &runapp.ABConfig{Check: checkRunArgs, Run: func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		return cliapp.Run(ctx, App(), args, stdout, stderr)
	}, Summarise: func(ctx context.Context, dir string) error {
		return process.Run(ctx, process.Config{Dirs: []string{dir}, NoPlots: true, Format: "png", Quiet: true}, io.Discard)
	}}
	return &cli.Command{
		Name:        "ab",
		Usage:       "interleave runs of a reference and a candidate system on one machine; with --max-runs, gate the candidate as the runs come in",
		UsageText:   "run ab --max-runs N [--block B] | --runs N [--reference 'RUN FLAGS'] [--candidate 'RUN FLAGS'] [--design interleave|random|abba] [--seed S] [--out DIR] [--name NAME] [gate flags] -- RUN FLAGS FOR BOTH",
		Description: abDescription,
		Flags:       slices.Concat(abDesignFlags(ab), abSideFlags(ab), abGateFlags()),
		Action: func(c *cli.Context) error {
			// An unset variable (--json "$REPORT", --out "$DIR") read as
			// not given wrote no report, or the runs and the rounds file
			// into the working folder, and exited by the verdict.
			if err := cliapp.NoEmpty(c, "out", "name", "junit", "markdown", "json"); err != nil {
				return err
			}
			ab.Common = c.Args().Slice()
			if err := abDesign(c, ab); err != nil {
				return err
			}
			if err := abGate(c, ab); err != nil {
				return err
			}
			return runapp.AB(c.Context, *ab, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// abDescription is the help text of `run ab`.
const abDescription = `ab compares two systems on one machine without letting the machine's state
(other load, placement, thermal state, frequency scaling, the scheduling
mode a process settles in) favour either.

With --max-runs N, the sequential gate, the default design is interleave:
ab starts both sides' far ends at once (each side's echo process, or
in-process echo, or its own subject on a broker) and measures them in one
run each, with one pinger that alternates blocks of --block round trips
between the two (2 over a network, 1 through a broker, 100 in process),
the order of each block pair drawn from a coin seeded by --seed. A round
opens both sides' links afresh, discards --warmup round trips of each
payload (100, or 20 when a sub-experiment goes through a broker) and
measures --blocks block pairs of every sub-experiment and payload (500
round trips of each side, 300 through a broker); it is a unit of the
gate, judged by the ratio of the two sides' medians over the round. What
stays the same over a run weighs on both blocks of a pair alike and
cancels, the more so the finer the alternation: on a 2-vCPU virtual
machine the spread of a unit's log ratio falls from 0.5-1.4 (whole runs,
unpinned) to 0.01-0.07 in process, about 0.01 over TCP and 0.02 through
NATS. DIR/reference/NAME and
DIR/candidate/NAME are each side's experiment, every block's round trips
in its raw files; DIR/NAME-rounds.csv has one row per round and check: its
order and both sides' values (formats §12). The sides may differ in what
their far ends are (--echo-command, --echo-delay, --target, transport
flags); the pinger's settings (--payloads, --warmup, --timeout, --fill,
--seed, --cpus) are one for both, and --samples is replaced by --block.

--design random and abba interleave whole runs instead, the only designs
of --runs N: with random the runs come in pairs, each pair reference then
candidate or candidate then reference as the coin falls; with abba in
blocks reference, candidate, candidate, reference or candidate,
reference, reference, candidate, each block's orientation drawn from the
same coin: a block cancels a drift linear over it, and the coin gives
whatever a block's first run costs to either side alike. DIR/NAME-series.csv
records each run's pair or block, position, side, experiment and start
time, the design and the seed (formats §12), so that the order can be
checked and repeated (same --seed, same order).

Every run is an ordinary 'run' with the flags after -- (common to both
sides) followed by the side's own --reference or --candidate flags (a
command line, quoted as in a shell): typically --echo-command naming each
build's program for the built-in links, or --target naming each side's
broker. Runs are written to DIR/reference/NAME-01, DIR/candidate/NAME-01,
DIR/reference/NAME-02, …: each an experiment folder, so that DIR/reference
and DIR/candidate are the two results roots the gates compare, run by run.
ab chooses --out and --name of each run: neither may be given among the run
flags.

--runs N makes N runs per side; to gate them, summarise every run and
compare the two roots:
   for d in ab/*/NAME-*; do process --no-plots "$d"; done
   compare --reference ab/reference --results ab/candidate --plots-directory ab/comparison

--max-runs N is the sequential gate: after every round (or pair or block of
whole runs, summarised first) ab judges, for every sub-experiment, payload and --columns column,
the median of the units' ratios candidate/reference, by exact sign tests:
the count of units beyond a margin, whatever their distribution. With
the budget of N units it looks after every unit from the 20th (the first
look the serial-dependence test below needs) against group-sequential
boundaries with O'Brien–Fleming-type α-spending (Lan and DeMets 1983), and
stops as soon as
  - some check is shown worse than --fail-margin: FAILED, exit 1;
  - every check is shown worse by less than --pass-margin: PASSED, exit 0;
  - N units are spent without either: INCONCLUSIVE, exit 3, naming
    the checks that keep it open, the pairs the measured spread implies at
    these margins and the margins with which these pairs would have decided.
With --design interleave, a sub-experiment whose echo ends are processes
this run starts (over TCP, not in process; pinned, not --cpus none) has one
more check: the echo process's CPU time per message over the round's blocks,
read from /proc, at --cpu-margin (5 %; none: no such checks).
An unchanged system (no check worse than --fail-margin) is ever failed with
chance at most --false-fail over the whole family of checks (each at
--false-fail/checks), however early the gate stops; one with a check worse
than --pass-margin is ever passed with chance at most --false-fail (each
check must be shown within the pass margin, each at the full level:
intersection–union). When a decision comes due, a randomisation test of the
lag-1 autocorrelation of the pairs' log ratios in measured order runs first:
pairs alike from one to the next (a machine's slowly changing state) would
void the level, so the gate then holds: it judges means of blocks of
consecutive pairs at the budget, or refuses a verdict (exit 3) when too few
blocks remain, and with room for them at up to two looks before it, at least
40 pairs apart, fails a check all of whose pairs lie far beyond the margins;
the looks share the level not yet spent. It prints a line per pair on standard
error (pairs so far and left, time, the widest open check with its median
ratio, bounds and margins), then its verdict once on standard output, and
writes --junit, --markdown and --json reports. No decision comes before 20
pairs (with --max-runs below 20, before the budget's last pair), nor before
the boundaries can be crossed (more with many checks and a large budget:
the first line names that pair).

Everything is checked before the first run, and nothing is written if it
fails: both sides' flags (their values and ranges; a flag that would print
run's help or version instead of measuring is refused), that no run's folder
and no series file of that name exist, and that the report files can be
written and replace no file of the series or of an experiment. Then the
report files say the gate has no verdict yet; a gate that stops without
one (a run that broke, exit 2; interrupted, 130) leaves them saying why, and
no earlier report there to be read as its own; so does one whose side's
broker or remote echo does not answer (a wrong --target: exit 2). A run that fails stops the series with its exit code; the runs already made stay, and
compare leaves out the unit it interrupted.

Examples:
   run ab --max-runs 150 --reference "--echo-command ./old/bin/run" --candidate "--echo-command ./new/bin/run" --json ab.json -- -s intraprocess_reliable,interprocess_reliable_tcp
   run ab --max-runs 150 --candidate "--echo-delay 2us" -- -s interprocess_reliable_tcp
   run ab --runs 12 --out ab --reference "--echo-command ./old/bin/run" --candidate "--echo-command ./new/bin/run" -- -s interprocess_reliable_tcp --payloads 16,1024 --samples 2000
   run ab --runs 12 --candidate "--echo-delay 50us" -- -s interprocess_reliable_tcp --payloads 64 --samples 500
   run ab --runs 24 --design abba --reference "--target nats://old-host:4222" --candidate "--target nats://new-host:4222" -- -s nats_reliable --payloads 256`

// abDesignFlags are run ab's flags of how many runs are made and in what
// order: a fixed number or the sequential gate's budget, the design, its
// blocks and the seed of its coin.
func abDesignFlags(ab *runapp.ABConfig) []cli.Flag {
	return []cli.Flag{
		cliapp.Ranged(&cli.IntFlag{Name: "runs", Value: 10, Usage: "runs per side, a fixed number (a paired compare decides from 7 pairs at 1 %, 11 with 14 checks; compare --plan says how many)", Destination: &ab.Runs}, flagrange.Int(1, 1000)),
		cliapp.Ranged(&cli.IntFlag{Name: "max-runs", Usage: "the sequential gate: judge after every pair (or block) and stop when it decides, at most `N` runs per side", Destination: &ab.MaxRuns}, flagrange.Int(1, 1000)),
		&cli.StringFlag{Name: "design", Usage: "interleave (only with --max-runs, where it is the default: one run per side, blocks of --block round trips alternating between the sides, each block pair's order drawn from --seed), random (whole runs, each pair A B or B A drawn from --seed; so with --runs unless abba) or abba (whole runs in blocks A B B A or B A A B, drawn from --seed)", Destination: &ab.Design},
		cliapp.Ranged(&cli.IntFlag{Name: "block", Usage: "with --design interleave: round trips per block", DefaultText: fmt.Sprintf("%d, %d through a broker, %d where the echo is in process", runapp.DefaultBlock, runapp.DefaultBrokerBlock, runapp.DefaultInProcessBlock), Destination: &ab.Block}, flagrange.Int(1, 1000000)),
		cliapp.Ranged(&cli.IntFlag{Name: "blocks", Usage: "with --design interleave: block pairs of each sub-experiment and payload in a round", DefaultText: fmt.Sprintf("%d round trips of each side and payload per round, or %d (and --warmup %d) through a broker", runapp.DefaultRoundTrips, runapp.DefaultBrokerRoundTrips, runapp.DefaultBrokerRoundWarmup), Destination: &ab.Pairs}, flagrange.Int(1, 10000)),
		cliapp.Ranged(&cli.Uint64Flag{Name: "seed", Usage: "seed of the order of each pair or block (default: from the clock; printed and recorded in the series file)", Destination: &ab.Seed}, flagrange.Uint64()),
	}
}

// abSideFlags are run ab's flags of the two sides: each side's own run
// flags, and where and under what name their runs are written.
func abSideFlags(ab *runapp.ABConfig) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reference", Usage: "run flags of the reference side only, e.g. \"--echo-command ./old/run\"", Destination: &ab.Reference},
		&cli.StringFlag{Name: "candidate", Usage: "run flags of the candidate side only, e.g. \"--echo-command ./new/run\"", Destination: &ab.Candidate},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "ab", Usage: "directory of the reference/ and candidate/ results roots and the series file", Destination: &ab.Out},
		&cli.StringFlag{Name: "name", Usage: "experiment name stem, numbered per run (default: UTC start time, " + experiment.DirTimeLayout + ")", Destination: &ab.Name},
	}
}

// abGateFlags are run ab's flags of the sequential gate (--max-runs): its
// margins, level and columns, and its reports.
func abGateFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "pass-margin", Value: numflag.Percent(paired.DefaultMargins.Pass),
			Usage: "with --max-runs: pass when every check is shown worse by less than this, a fraction (0.05) or a percentage (5%) above 0, " + numflag.Tolerance.Text()},
		&cli.StringFlag{Name: "fail-margin", Value: numflag.Percent(paired.DefaultMargins.Fail),
			Usage: "with --max-runs: fail when a check is shown worse by more than this, " + numflag.Tolerance.Text()},
		&cli.StringFlag{Name: "cpu-margin", Value: numflag.Percent(runapp.DefaultCPUMargin),
			Usage: "with --design interleave: the fail margin of the echo CPU checks, one per sub-experiment whose echo ends are processes this run starts (the CPU time of the echo process per message, over the round's blocks of every payload), " + numflag.Tolerance.Text() + "; none (or 0): no such checks"},
		&cli.StringFlag{Name: "false-fail", Aliases: []string{"level"}, Value: "1%",
			Usage: "with --max-runs: the largest chance that the gate ever fails an unchanged system (or ever passes one worse than --pass-margin), however long it runs, " + numflag.CompareLevel.Text()},
		&cli.StringFlag{Name: "columns", Value: metricNames(abDefaultColumns), Usage: "with --max-runs: comma-separated summary `COLUMNS` to gate, among " + metricNames(result.CompareMetrics)},
	}
	for _, f := range report.Formats {
		flags = append(flags, &cli.StringFlag{Name: f.Flag, Usage: "with --max-runs: " + f.Usage})
	}
	return flags
}

// abDesign completes ab with the design the flags give: a fixed number of
// runs or the sequential gate (refusing the gate's flags without it), the
// seed, the design and its blocks.
func abDesign(c *cli.Context, ab *runapp.ABConfig) error {
	if c.IsSet("max-runs") {
		if c.IsSet("runs") {
			return exit.Usagef("--runs and --max-runs: give --runs for a fixed number of runs or --max-runs for the sequential gate, not both")
		}
		ab.Runs = 0
	} else {
		for _, f := range []string{"pass-margin", "fail-margin", "cpu-margin", "false-fail", "columns", "junit", "markdown", "json"} {
			if c.IsSet(f) {
				return exit.Usagef("--%s: only the sequential gate (--max-runs) judges; with --runs, compare the two roots", f)
			}
		}
	}
	if !c.IsSet("seed") {
		ab.Seed = uint64(time.Now().UnixNano())
	}
	if !c.IsSet("design") {
		ab.Design = runapp.DesignRandom
		if ab.MaxRuns > 0 {
			ab.Design = runapp.DesignInterleave
		}
	}
	for _, f := range []string{"block", "blocks"} {
		if c.IsSet(f) && ab.Design != runapp.DesignInterleave {
			return exit.Usagef("--%s: only --design interleave (the default of --max-runs) measures in blocks of round trips; --design %s alternates whole runs", f, ab.Design)
		}
	}
	return nil
}

// abGate completes ab with the sequential gate's settings: its margins,
// the echo CPU checks' margin, its level, columns and reports.
func abGate(c *cli.Context, ab *runapp.ABConfig) error {
	var err error
	if ab.Margins.Pass, err = numflag.Tolerance.Parse(c.String("pass-margin")); err != nil {
		return exit.Usagef("--pass-margin: %v", err)
	}
	if ab.Margins.Pass == 0 {
		// As compare: an unchanged system would have to be shown better.
		// With --fail-margin 0 too the gate judged at the default 5 %
		// while its reports said 0 %.
		return exit.Usagef("--pass-margin 0: no comparison could pass; expected a margin above 0, e.g. 5%%")
	}
	if ab.Margins.Fail, err = numflag.Tolerance.Parse(c.String("fail-margin")); err != nil {
		return exit.Usagef("--fail-margin: %v", err)
	}
	switch s := c.String("cpu-margin"); {
	case c.IsSet("cpu-margin") && ab.Design != runapp.DesignInterleave:
		return exit.Usagef("--cpu-margin: only --design interleave (the default of --max-runs) reads the echo processes' CPU time; --design %s alternates whole runs", ab.Design)
	case s == "none" || s == "0":
		ab.CPUMargin = 0
	default:
		if ab.CPUMargin, err = numflag.Tolerance.Parse(s); err != nil {
			return exit.Usagef("--cpu-margin: %v, or none", err)
		}
	}
	if ab.Level, err = numflag.CompareLevel.Parse(c.String("false-fail")); err != nil {
		return exit.Usagef("--false-fail: %v", err)
	}
	if ab.Metrics, err = parseColumns(c.String("columns")); err != nil {
		return exit.Usagef("--columns: %v", err)
	}
	ab.Reports = cliapp.Reports(c, "")
	return nil
}

// parseColumns reads a comma-separated list of summary columns compare can
// gate.
func parseColumns(s string) ([]result.Metric, error) {
	var out []result.Metric
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		m, ok := result.Lookup(name)
		if !ok || !slices.ContainsFunc(result.CompareMetrics, func(x result.Metric) bool { return x.Name == m.Name }) {
			return nil, fmt.Errorf("%q: expected columns among %s", name, metricNames(result.CompareMetrics))
		}
		out = append(out, m)
	}
	return out, nil
}

func metricNames(ms []result.Metric) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return strings.Join(names, ",")
}
