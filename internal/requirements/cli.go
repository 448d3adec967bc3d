package requirements

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/result"
)

// The ranges of requirements' whole-number flags (formats §4, §11).
var (
	runsRange      = numflag.Int{Min: 1, Max: 10000}
	orderRankRange = numflag.Int{Min: 1, Max: 10000}
)

// App returns the requirements command.
func App() *cli.App {
	return &cli.App{
		Name:  "requirements",
		Usage: "derive latency requirements from many experiments",
		UsageText: "requirements --experiments-results DIR [--output-file FILE] --false-fail 0.01 [--method order|lognormal]\n" +
			"requirements --experiments-results DIR [--output-file FILE] [--percentile 99]\n" +
			"requirements --runs N --out DIR [--output-file FILE] [--false-fail 0.01 | --percentile 99] -- [run arguments]\n" +
			"requirements --calibrate --experiments-results POOL --plots-directory DIR [--false-fail 0.01] [--method order|lognormal]\n" +
			"      [--reference-runs N] [--candidate-runs K] [--margin 0] [--columns Median,99%,Max] [--margins 0,0.1] [--regressed DIR] [--json FILE]",
		Description: `Reads every experiment folder in DIR (each holding measurements_<type>_summary.csv files) and
writes the requirements CSV (Experiment type,Bytes,Median,99%,Max,…): a limit per sub-experiment,
payload and column (a "check"), set from the runs' values of that column.

Statistical mode (--false-fail P, or --method; formats §11): the limits are set so that an
unchanged system fails a whole 'check' (any one of its checks) with chance at most P. The
level is split evenly over the m checks of the file (Bonferroni: each gets false-fail/m, whatever
the dependence between checks). Per check, --method says how:
  order      distribution-free (the default): the limit is the largest of the n runs. It assumes
             only that runs of an unchanged system are exchangeable. One new run exceeds it with
             chance 1/(n+1), and k new runs all exceed it with chance 1/C(n+k, k), so 'check' fails
             it only when enough candidate runs exceed it; the table says how many runs that takes.
  lognormal  a one-sided log-normal prediction bound, exp(mean + t·sd·√(1+1/n)) of the log values
             with t at 1 − false-fail/m: one new run exceeds it with chance false-fail/m if the log
             values are normal. Shapiro–Wilk tests that on every check; where it is rejected at
             --normality-level the check falls back to the distribution-free bound, with a warning.
The file says which mode and method wrote it (the Mode and "<column> method" columns).

Percentile mode (the default, the Fast-RTPS compatibility mode; --percentile P, default 99):
each limit is the P-th percentile (numpy's linear method) over the experiments; the file is in the
Fast-RTPS format. It says nothing reliable about false failures: the 99th percentile of a few
runs fails an unchanged system often (see below); prefer the statistical mode for a CI gate.
It prints, per requirement, the chance that an unchanged system fails that check on its next
run: a new run exceeds the k-th smallest of n runs with chance (n-k+1)/(n+1), so the 99th
percentile of 5 runs (rank 4.96) fails about 1 run in 6.

An experiment folder is a directory, or a symbolic link to one, holding summaries; every other
entry is skipped with a warning. A run that did not complete (meta.json "completed": false) is an
error unless --allow-incomplete, and so are experiments that measure latency differently and a
--output-file inside one of the experiments. Requirements derived from rtt or one-way runs, and
statistical ones, carry a Latency column saying what they measure.

With --runs N --out DIR it first runs 'run --out DIR --name <UTC start> [run arguments]' N
times, and 'process' on each new experiment (the tools are looked up beside this program,
then on PATH), then derives the requirements from every experiment in DIR, as the Fast-RTPS
latency_extrapolate_requirements.bash script does:
  requirements --runs 12 --out runs_for_requirements --false-fail 0.01 -- --subexperiments interprocess_reliable
Run arguments that start with a subcommand (throughput, load) get --out and --name after its
name; experiments without raw latency files (run throughput's) are not processed:
  requirements --runs 12 --out runs_for_requirements --false-fail 0.01 -- throughput -s nats_best_effort

Throughput (formats §4, §11): experiments holding throughput summaries (throughput_<type>.csv,
written by run throughput and run load) also get throughput requirements, written to
--throughput-output-file: a lower limit on the Median [msg/s] of every sub-experiment, payload and
offered load (higher is better). Percentile mode takes the (100 − P)th percentile of the runs;
statistical mode the smallest run (order) or the lower log-normal prediction bound (lognormal),
with the false-fail level split over the latency and throughput checks together.

--calibrate measures, instead of writing requirements, what statistical requirements and a
multi-run 'check' do together on this machine (formats §11): POOL holds unchanged runs; each of
--splits seeded splits derives requirements from N of them (--reference-runs) with these
--false-fail, --method and --normality-level, and checks K others (--candidate-runs) with
--margin and --columns, as 'check' would. It prints the measured false-fail rate of the whole
check (95% Clopper–Pearson interval), how often it passed or was inconclusive, and the power
curve with every candidate value made worse by each of --factors, with the smallest regression
detected with 95% power and notes on what these runs allow. --regressed DIR adds runs of a known
regression (run --echo-delay, run ab's candidate side): its detection rate. Plots:
DIR/calibration_check_power and DIR/calibration_check_outcomes (verdict shares per factor).
  requirements --calibrate -e unchanged --method order --reference-runs 10 --candidate-runs 10 \
               --regressed delayed --plots-directory calibration --json calibration.json

Exit status: 0 done, 2 usage or input error (or a run that failed), 130 interrupted.`,
		HideHelpCommand: true,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "experiments-results", Aliases: []string{"experiments_results", "e"}, TakesFile: true,
				Usage: "directory holding one folder per experiment"},
			&cli.IntFlag{Name: "runs", Aliases: []string{"n"}, Usage: "first run and process `N` experiments into --out, " + runsRange.Text()},
			&cli.StringFlag{Name: "out", TakesFile: true, Usage: "results root for --runs; the requirements are derived from every experiment in it"},
			&cli.StringFlag{Name: "output-file", Aliases: []string{"output_file", "o"}, Value: DefaultFileName, TakesFile: true,
				Usage: "requirements CSV to write"},
			&cli.StringFlag{Name: "throughput-output-file", TakesFile: true,
				Usage: "throughput requirements CSV to write when the experiments hold throughput summaries (default: " + DefaultThroughputFileName + " beside --output-file)"},
			&cli.StringFlag{Name: "false-fail", Value: strconv.FormatFloat(DefaultFalseFail, 'g', -1, 64),
				Usage: "statistical mode: chance that an unchanged system fails a whole check, a fraction (0.01) or a percentage (1%), " + numflag.Level.Text()},
			&cli.StringFlag{Name: "method", Value: DefaultMethod,
				Usage: "statistical mode: order (distribution-free) or lognormal (tested per check by Shapiro–Wilk)"},
			&cli.IntFlag{Name: "order-rank", Value: 1,
				Usage: "statistical mode: a distribution-free limit is the `J`-th largest run (1: the largest); 2 or 3 keeps one slow reference run from raising it, so that fewer candidate runs fail it (formats §11); " + orderRankRange.Text() + ", fewer than the runs"},
			&cli.StringFlag{Name: "normality-level", Value: strconv.FormatFloat(DefaultNormalityLevel, 'g', -1, 64),
				Usage: "statistical mode, lognormal: Shapiro–Wilk p-value below which a check falls back to the distribution-free bound, a fraction (0.05) or a percentage (5%), " + numflag.Level.Text()},
			&cli.Float64Flag{Name: "percentile", Value: DefaultPercentile,
				Usage: "percentile mode (Fast-RTPS): percentile over the experiments, above 0 and at most 100; 100 is their maximum"},
			&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"},
				Usage: "derive from experiments whose run did not complete (meta.json \"completed\": false) too, with a warning"},
		}, calibrateFlags()...),
		Action: action,
	}
}

func action(c *cli.Context) error {
	// Statistical when any of its flags is given; otherwise the Fast-RTPS
	// percentile mode, which stays the default for compatibility.
	percentile := !(c.IsSet("false-fail") || c.IsSet("method") || c.IsSet("normality-level") || c.IsSet("order-rank") || c.Bool("calibrate"))
	p := c.Float64("percentile")
	cfg := StatConfig{Method: c.String("method"), OrderRank: c.Int("order-rank")}
	var err error
	if cfg.FalseFail, err = numflag.Level.Parse(c.String("false-fail")); err != nil {
		return exit.Usagef("--false-fail: %v", err)
	}
	if cfg.NormalityLevel, err = numflag.Level.Parse(c.String("normality-level")); err != nil {
		return exit.Usagef("--normality-level: %v", err)
	}
	if err := orderRankRange.Check("--order-rank", cfg.OrderRank); err != nil {
		return exit.With(exit.Usage, err)
	}
	if c.IsSet("runs") {
		if err := runsRange.Check("--runs", c.Int("runs")); err != nil {
			return exit.With(exit.Usage, err)
		}
		if c.IsSet("order-rank") && cfg.OrderRank >= c.Int("runs") {
			return exit.Usagef("--order-rank %d with --runs %d: expected fewer than the runs (1 is the largest run)", cfg.OrderRank, c.Int("runs"))
		}
	}
	if !c.Bool("calibrate") {
		if err := calibrateMisused(c); err != nil {
			return err
		}
	}
	switch {
	case !percentile && c.IsSet("percentile"):
		return exit.Usagef("--percentile (the Fast-RTPS mode) excludes --false-fail, --method and --normality-level (the statistical mode)")
	case percentile && !(p > 0 && p <= 100):
		return exit.Usagef("--percentile %v: expected a number above 0 and at most 100, e.g. 99", p)
	case !percentile && cfg.Method != gate.MethodOrder && cfg.Method != gate.MethodLogNormal:
		return exit.Usagef("--method %q: expected %s or %s", cfg.Method, gate.MethodOrder, gate.MethodLogNormal)
	}
	if c.Bool("calibrate") {
		return runCalibrate(c, cfg)
	}
	dir, out := c.String("experiments-results"), c.String("output-file")
	if out == "" {
		return exit.Usagef("--output-file is empty: expected the requirements CSV to write")
	}
	tout := c.String("throughput-output-file")
	if !c.IsSet("throughput-output-file") {
		tout = filepath.Join(filepath.Dir(out), DefaultThroughputFileName)
	}
	if tout == "" {
		return exit.Usagef("--throughput-output-file is empty: expected the throughput requirements CSV to write")
	}
	switch {
	case c.IsSet("runs") || c.IsSet("out"):
		if dir != "" {
			return exit.Usagef("--experiments-results and --runs/--out exclude each other: --runs derives from --out")
		}
		if !c.IsSet("runs") || c.String("out") == "" {
			return exit.Usagef("--runs needs a number of runs ≥ 1 and --out DIR (see '%s --help')", c.App.Name)
		}
		if err := guard("--out", c.String("out"), out, tout).Check(); err != nil {
			return err
		}
		r := Runs{N: c.Int("runs"), Out: c.String("out"), RunArgs: c.Args().Slice(), Stdout: c.App.Writer, Stderr: c.App.ErrWriter}
		if _, err := r.Execute(c.Context); err != nil {
			return err
		}
		dir = r.Out
	case dir == "":
		return exit.Usagef("--experiments-results DIR (or --runs N --out DIR) is required (see '%s --help')", c.App.Name)
	default:
		// Arguments are run's, and only with --runs.
		if err := cliapp.NoArgs(c); err != nil {
			return err
		}
	}
	rootFlag := "--experiments-results"
	if c.IsSet("out") {
		rootFlag = "--out"
	}
	if err := guard(rootFlag, dir, out, tout).Check(); err != nil {
		return err
	}
	in, err := Load(c.Context, dir, c.Bool("allow-incomplete"))
	if err != nil {
		if exit.Cancelled(c.Context) {
			return exit.With(exit.Interrupted, err)
		}
		return exit.With(exit.Usage, err)
	}
	latObs, tputObs := in.Observations(), in.ThroughputObservations()
	_, tputKeys := groupThroughput(tputObs)
	var d *Derivation
	var treqs []ThroughputRequirement
	var twarnings []string
	if len(latObs) > 0 {
		if percentile {
			d, err = Derive(latObs, p)
		} else {
			d, err = DeriveStatisticalWith(latObs, cfg, len(tputKeys))
		}
		if err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	if len(tputObs) > 0 {
		if percentile {
			treqs, err = DeriveThroughput(tputObs, p)
		} else {
			latRows := 0
			if d != nil {
				latRows = len(d.Requirements)
			}
			treqs, twarnings, err = DeriveThroughputStatistical(tputObs, cfg, CheckLevelFor(cfg.FalseFail, latRows, len(tputKeys)))
		}
		if err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	if d != nil {
		rows := d.Rows()
		for i := range rows {
			rows[i].Latency = in.Latency
		}
		if err := WriteFile(out, rows); err != nil {
			return err
		}
	}
	if treqs != nil {
		rows := make([]ThroughputRow, len(treqs))
		for i, r := range treqs {
			rows[i] = r.ThroughputRow
		}
		if err := WriteThroughputFile(tout, rows); err != nil {
			return err
		}
	}
	warnings := in.Warnings
	if d != nil {
		warnings = append(warnings, d.Warnings...)
	}
	for _, w := range append(warnings, twarnings...) {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", c.App.Name, w)
	}
	if d != nil {
		print := PrintTable
		if !percentile {
			print = PrintStatTable
		}
		if err := print(c.App.Writer, d); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "%d requirement(s) from %d experiment(s) written to %s\n", len(d.Requirements), len(in.Experiments), out)
	}
	if treqs != nil {
		if err := PrintThroughputTable(c.App.Writer, treqs, percentile, p); err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "%d throughput requirement(s) (lower limits, higher is better) from %d experiment(s) written to %s\n", len(treqs), len(in.Experiments), tout)
	}
	return nil
}

// PrintThroughputTable writes throughput requirements for people: the
// lower limits, the runs behind them and the chance that an unchanged
// system falls below each on its next run.
func PrintThroughputTable(w io.Writer, reqs []ThroughputRequirement, percentile bool, p float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-58s %8s %16s %5s  %s\n", "Throughput (higher is better)", "Bytes", "Min [msg/s]", "Runs", "Chance an unchanged run fails the check; candidate runs needed to fail")
	for _, r := range reqs {
		need := strconv.Itoa(r.NeedRuns)
		if r.NeedRuns < 0 {
			need = ">100000"
		}
		fmt.Fprintf(bw, "%-58s %8d %16.3f %5d  %.3g%%; %s\n", result.ThroughputLabel(r.Type, r.Key), r.Key.Payload, r.Min, r.N, 100*r.FailChance, need)
	}
	if percentile {
		fmt.Fprintf(bw, "Mode: percentile: each limit is the %s percentile of the runs' Median [msg/s] (the low end, as latency takes the %s).\n", ordinal(100-p), ordinal(p))
	} else if len(reqs) > 0 {
		st := reqs[0].Stat
		fmt.Fprintf(bw, "Mode: statistical (%s), %s per check; with the latency requirements derived with them, an unchanged system fails a whole check with chance ≤ %s.\n",
			st.Method, pct(st.CheckLevel), pct(st.FalseFail))
	}
	return bw.Flush()
}

// guard declares what requirements reads (the experiments under root, named
// by rootFlag) and writes (out), see package clobber.
func guard(rootFlag, root, out, tout string) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments(rootFlag, root)
	g.OutputOutside("--output-file", out)
	g.OutputOutside("--throughput-output-file", tout)
	return g
}

// PrintTable writes d for people: the requirements with their backing and
// failure chances, then the chance that a whole check fails.
func PrintTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %10s %10s %10s %5s %6s  %s\n",
		"Experiment type", "Bytes", "Median", "99%", "Max", "Runs", "Rank", "Chance an unchanged system fails each check")
	for _, r := range d.Requirements {
		chance := fmt.Sprintf("%5.1f%% (1 run in %.1f)", r.FailChance*100, 1/r.FailChance)
		if r.FailChanceMin != r.FailChanceMax {
			chance += fmt.Sprintf(", between %.1f%% and %.1f%%", r.FailChanceMin*100, r.FailChanceMax*100)
		}
		fmt.Fprintf(bw, "%-40s %8d %10.3f %10.3f %10.3f %5d %6.2f  %s\n",
			r.Type, r.Bytes, r.Median, r.P99, r.Max, r.N, r.Rank, chance)
	}
	n := len(d.Requirements) * ChecksPerRequirement
	fmt.Fprintf(bw, "Chance that a check of an unchanged system fails at least one of its %d checks: %.1f%%", n, d.CheckFailChance*100)
	if d.CheckFailChance > 0 && d.CheckFailChance < 1 {
		fmt.Fprintf(bw, " (1 run in %.1f)", 1/d.CheckFailChance)
	}
	fmt.Fprintln(bw, "\n(assuming checks fail independently; checks of one run are usually positively correlated, which makes the true chance lower)")
	return bw.Flush()
}

// PrintStatTable writes a statistical derivation for people: per
// requirement its limits, runs and, per column, the method used (L
// log-normal, O distribution-free) and the candidate runs a check needs
// before it can fail; then the family-wise statement.
func PrintStatTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %10s %10s %10s %5s  %s\n",
		"Experiment type", "Bytes", "Median", "99%", "Max", "Runs", "Method, candidate runs needed to fail (Median; 99%; Max)")
	gateable := 0
	for _, r := range d.Requirements {
		var cols []string
		for i, f := range r.Stat.Fits {
			tag := "O"
			if f.Method == gate.MethodLogNormal {
				tag = "L"
			}
			if r.NeedRuns[i] == 1 {
				gateable++
			}
			need := strconv.Itoa(r.NeedRuns[i])
			if r.NeedRuns[i] < 0 {
				need = ">100000"
			}
			cols = append(cols, tag+" "+need)
		}
		fmt.Fprintf(bw, "%-40s %8d %10.3f %10.3f %10.3f %5d  %s\n", r.Type, r.Bytes, r.Median, r.P99, r.Max, r.N, strings.Join(cols, "; "))
	}
	m := len(d.Requirements) * ChecksPerRequirement
	method := "distribution-free (order statistics; runs assumed exchangeable)"
	if d.Mode == gate.MethodLogNormal {
		method = "log-normal prediction bounds (log values assumed normal, tested by Shapiro–Wilk), distribution-free where rejected"
	}
	fmt.Fprintf(bw, "Mode: statistical, %s.\n", method)
	fmt.Fprintf(bw, "An unchanged system fails a whole check with chance ≤ %s: Bonferroni over the %d checks, %s each.\n",
		pct(d.FalseFail), m, pct(d.CheckLevel))
	fmt.Fprintf(bw, "%d of %d checks can fail on a single candidate run; the others need the candidate runs listed, all above the limit (L: log-normal, O: distribution-free).\n", gateable, m)
	return bw.Flush()
}
