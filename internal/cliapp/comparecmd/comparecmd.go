package comparecmd

import (
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/compare"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// description is the compare command's help text.
const description = `Compares every sub-experiment (measurements_<type>_summary.csv) of the results
with the same sub-experiment of the reference. For each it writes
<type>_comparison.csv and the comparison plots <type>_min_median and
<type>_max_99% into the plots directory, and prints PASSED, FAILED or
INCONCLUSIVE with what regressed and by how much.

--reference and --results may each be given several times, and each DIR may be
one experiment or a folder of experiments (every experiment folder in it).
The mode depends on the runs per side, and every report states it:

  one run per side (single-run threshold, as the Fast-RTPS script): a latency
  value regresses when it exceeds reference × (1 + threshold); a value exactly
  at that limit passes. Run-to-run noise is not allowed for: unchanged runs of
  this machine differ by up to 20 % in the median and 50× in the maximum.

  two or more runs per side (statistical): per sub-experiment, payload and
  column, each run gives one value; the ratio results/reference is estimated
  (Hodges–Lehmann on log values) with a Mann–Whitney confidence interval and
  one-sided p-value, and Holm's correction over all checks keeps the chance
  that an unchanged system fails the gate at most --false-fail. A check fails
  when the interval lies above 1 and the ratio exceeds 1 + threshold, passes
  when the interval lies below 1 + threshold, and is inconclusive otherwise,
  saying how many more runs would decide (or that a column is not gateable
  with these runs). Default columns: Min, Median, 99% (Max is too noisy).
  Take 10 runs per side or more.

  paired (when the runs are known to be interleaved: run ab's series file
  NAME-series.csv, formats §12, lies beside the two sides' folders, or
  --series FILE or --paired is given): each pair of interleaved runs gives one
  log ratio per check, so that a drift of the machine common to the pair
  cancels. The verdict is about each check's median pair ratio, by exact sign
  tests (whatever the pairs' distribution): the gate fails when a check is
  shown worse than --fail-margin at --false-fail divided by the number of
  checks (Bonferroni), passes when every check is shown within --pass-margin,
  each at --false-fail (intersection–union), and is inconclusive otherwise,
  naming the checks. Below the fewest pairs n with 2⁻ⁿ ≤ --false-fail/checks
  there is no FAIL and no PASS (exit 3, saying how many are needed): at 1 %,
  7 for one check, 9 for 3, 11 for 14, 13 for 42 (14 payloads × Min, Median,
  99%). Pairs that a lag-1 randomisation test finds serially dependent in
  measured order are judged in blocks of consecutive pairs, or the verdict is
  refused (exit 3) when too few blocks would remain. The units are the series
  file's pairs, or its A B B A blocks (each block's ratio cancels a drift
  linear over its four runs); a run that the file does not list, or a listed
  run that is not given, is an input error (exit 2) naming the file and line,
  and the reports name the file. Without a series file, --paired pairs the runs by
  name (<name>-NN on both sides; exit 2 naming the runs that do not pair).
  Runs of the same names taken apart (two separate loops) are not pairs:
  without a series file or --paired they get the statistical mode above, and
  so do runs given --unpaired; its reports say that drift is not controlled,
  with a Mann–Kendall trend test of each side's run order.

A flag the mode does not use is refused (exit 2), never ignored:
--fail-threshold and --threshold decide the single-run and statistical modes,
--pass-margin and --fail-margin the paired one (a pass margin above the fail
margin is refused), --false-fail the statistical and paired ones; --regression
goes with --plan, --seed with --plan or --calibrate, and --runs-per-side,
--splits, --split, --factors and --thresholds with --calibrate.

The same experiment or folder on both sides (however spelled, or through a
symbolic link), or a run given twice (a copy too: the same meta.json, naming a
start and a host), is refused (exit 2). The plots directory
belongs to one compare while it writes: another compare writing into it is
refused (exit 2 naming it); a folder an earlier compare left is reused, its
comparisons replaced.

Every report states the rule that decided, the interval, the family level and
N (pairs, or runs per side); a paired one also the estimand, the fewest pairs
with which it can decide and the serial-dependence test.

Throughput summaries (throughput_<type>.csv, from run throughput or run load)
are compared too, higher is better: the Median [msg/s] of each payload and
offered load regresses when it falls below reference × (1 − threshold); rows
match on payload, mode and offered rate (a window row on payload: its F is the
search's result, each side's is reported), and a row only one side has is an
input error. They get throughput_<type>_comparison.csv and the plot
throughput_<type>_<load>; reports give msg/s with Mb/s (formats §4).

A threshold is a fraction (0.1) or a percentage with its sign (10%), at least
0 % and below 100 %; a bare number above 1 is refused (--fail-threshold 10 asks
whether 10% was meant: read as a fraction it would allow 1000 %).

--plan sizes the paired gate instead of gating: given A/A pairs (--reference
and --results the same build, interleaved: run ab's series file beside them,
--series FILE or --paired), it prints the number of pairs at
which an unchanged system passes and a --regression (default 10%) of any one
check fails, each with probability ≥ 95% at the family level, and the fewest
pairs with which the gate can decide at all.

--calibrate measures the statistical gate on this machine instead of gating:
given at least 2N unchanged runs (every run of --reference and --results,
pooled), it splits them many times into N reference and N candidate runs,
judges each split as above, and prints the measured false-fail rate of the
whole gate with its 95 % Clopper–Pearson interval; then, making every
candidate value worse by known factors, the power curve and the smallest
regression detected with 95 % power at N runs per side. It writes the power
curve as calibration_power.png (or .svg) into the plots directory and, with
--json, the figures as JSON.

An incomplete run (meta.json "completed": false) on either side is an error
unless --allow-incomplete is given, and so are experiments that measure
latency differently (meta.json "latency"; without meta.json: half-rtt).

Examples:
   compare --reference results/2026-11-20_09-00-00 --results results/2026-11-21_09-00-00 --plots-directory comparison
   compare --reference results/2026-11-20_09-00-00 --results results/2026-11-21_09-00-00 --plots_directory comparison --fail_threshold 0.2
   compare --reference results/2026-11-20_09-00-00 --results results/2026-11-21_09-00-00 --plots-directory comparison --fail-threshold 20%
   compare --reference results/2026-11-20_09-00-00 --results results/2026-11-21_09-00-00 --plots-directory comparison --columns Median,99%,99.99% --threshold 99.99%=0.5 --junit compare.xml --markdown compare.md --json compare.json --html compare.html

With several runs per side (baseline-runs and candidate-runs each a folder of
experiment folders, 10 or more each), and calibration on 20 unchanged runs:
   compare --reference baseline-runs --results candidate-runs --plots-directory comparison --false-fail 1%
   compare --calibrate --results baseline-runs --results candidate-runs --plots-directory calibration --runs-per-side 10 --json calibration.json

With pairs from run ab (ab/reference/<name>-NN and ab/candidate/<name>-NN; at
least 13 for the 42 default checks of 14 payloads, more to decide a small
change: --plan says how many), and a plan from A/A pairs:
   compare --reference ab/reference --results ab/candidate --plots-directory comparison --paired
   compare --plan --reference aa/reference --results aa/candidate --plots-directory plan

-s/--subexperiments A,B compares those sub-experiments alone (a name neither
side holds is an error). A sub-experiment that one side lacks passes only with
--allow-missing: one the results lost fails the gate, and with --allow-missing
neither passes nor fails; one the results gained (new: the reference has none)
is an input error, and with --allow-missing is reported as new and not compared.

Exit status: 0 no regression, 1 a regression was found or a reference
sub-experiment is missing from the results, 2 usage or input error (a result
sub-experiment without a reference and no --allow-missing, different payloads on the two sides,
unreadable or stale summaries, an incomplete run, different latency
definitions, one run on one side and several on the other, an output that
would overwrite an input, a bad flag or one the mode does not use, the same
run on both sides, a plots directory another compare is writing into), 3
inconclusive: no check failed, but more runs are needed to decide some, 130
interrupted (SIGINT, SIGTERM: at once, in every mode).`

// App returns the compare command. Flags are kebab-case, with the Fast-RTPS
// script's names (and its one-letter flags) as aliases.
func App() *cli.App {
	return &cli.App{
		Name:            "compare",
		Usage:           "gate experiments against reference experiments",
		UsageText:       "compare --reference DIR... --results DIR... --plots-directory DIR [--fail-threshold 0.1] [options]",
		Description:     description,
		HideHelpCommand: true,
		// Directories may hold commas; repeat a flag to give several.
		DisableSliceFlagSeparator: true,
		Flags:                     slices.Concat(inputFlags(), gateFlags(), reportFlags(), pairedFlags(), calibrateFlags()),
		Action:                    action,
	}
}

// inputFlags are compare's flags of what is compared and where the
// comparisons go: the two sides, the plots directory and the
// sub-experiments.
func inputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "reference", Aliases: []string{"R"}, Usage: "reference experiment `DIR`, or folder of experiments (repeatable)"},
		&cli.StringSliceFlag{Name: "results", Aliases: []string{"r"}, Usage: "experiment `DIR` to gate, or folder of experiments (repeatable)"},
		&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Usage: "`DIR` for the comparison CSVs and plots (created); required"},
		&cli.StringFlag{Name: "subexperiments", Aliases: []string{"s"}, Usage: "compare only these comma-separated sub-experiments (default: every one); a name neither side holds is an error"},
	}
}

// gateFlags are compare's flags of how the single-run and statistical
// gates judge: the thresholds, the columns, the family level, and what
// may be missing or incomplete.
func gateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "fail-threshold", Aliases: []string{"fail_threshold", "t"}, Value: strconv.FormatFloat(compare.DefaultThreshold, 'g', -1, 64),
			Usage: "single-run and statistical modes: relative margin allowed over the reference, a fraction (0.1) or a percentage (10%), " + numflag.Tolerance.Text()},
		&cli.StringFlag{Name: "columns", Usage: "comma-separated `COLUMNS` to gate, among " + result.Names(result.CompareMetrics) +
			" (default: " + result.Names(result.DefaultCompareMetrics) + " with one run per side, " + result.Names(result.DefaultStatisticalMetrics) + " with several)"},
		&cli.StringFlag{Name: "false-fail", Aliases: []string{"false_fail"}, Value: strconv.FormatFloat(gate.DefaultFalseFail, 'g', -1, 64),
			Usage: "with several runs per side: the largest chance that an unchanged system fails the gate, a fraction (0.01) or a percentage (1%), " + numflag.CompareLevel.Text()},
		&cli.StringSliceFlag{Name: "threshold", Usage: "per-column threshold `COLUMN=VALUE`, e.g. 99%=0.2 or 99%=20% (repeatable), " + numflag.Tolerance.Text()},
		&cli.BoolFlag{Name: "allow-missing", Aliases: []string{"allow_missing"}, Usage: "pass when a reference sub-experiment is missing from the results, and report one the reference lacks as new, not compared"},
		&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"}, Usage: "gate experiments whose run did not complete (meta.json \"completed\": false), with a warning in every report"},
	}
}

// reportFlags are compare's flags of the reports for CI (JUnit, Markdown,
// JSON, HTML), the plots' image format and the summaries printed.
func reportFlags() []cli.Flag {
	return append(cliapp.ReportFlags("", ""),
		&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML report to `FILE`"},
		&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot `FORMAT`: png or svg"},
		&cli.BoolFlag{Name: "print-summaries", Aliases: []string{"print_summaries", "P"}, Usage: "print each comparison CSV"})
}

// pairedFlags are compare's flags of the paired gate and its plan.
func pairedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "paired", Usage: "the runs were interleaved: compare them in pairs, by the series file if there is one, else by name (the reference and results experiments of the same name); runs that do not pair are an error (default: in pairs only when run ab's series file is beside the two sides' folders)"},
		&cli.BoolFlag{Name: "unpaired", Usage: "compare several runs per side unpaired even when a series file pairs them (drift is then not controlled)"},
		&cli.StringFlag{Name: "pass-margin", Value: numflag.Percent(compare.DefaultMargins.Pass), Usage: "paired: the gate passes when every check is shown worse by less than this, a fraction or a percentage above 0 and below 100%"},
		&cli.StringFlag{Name: "fail-margin", Value: numflag.Percent(compare.DefaultMargins.Fail), Usage: "paired: the gate fails when a check is shown worse by more than this, " + numflag.Tolerance.Text()},
		&cli.BoolFlag{Name: "plan", Usage: "instead of gating, plan the paired gate from A/A pairs (--reference and --results the same build, interleaved: a series file, --series or --paired): the pairs at which an unchanged system passes and --regression fails, each with ≥ 95% probability"},
		&cli.StringFlag{Name: "regression", Value: numflag.Percent(compare.DefaultRegression), Usage: "with --plan: the regression that must fail, a fraction or a percentage above 0 and below 100%"},
		&cli.StringFlag{Name: "series", Usage: "run ab's series `FILE` (NAME-series.csv): take the pairs or ABBA blocks from it; every run given must match it (default: the one series file beside the two sides' folders, if any)"},
	}
}

// calibrateFlags are compare's flags for --calibrate.
func calibrateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "calibrate", Usage: "instead of gating, calibrate the statistical gate on the unchanged runs given by --reference and --results (pooled): measured false-fail rate and power curve"},
		&cli.IntFlag{Name: "runs-per-side", Usage: "with --calibrate: runs per side `N`, " + calibrate.PerSideRange.Text()},
		&cli.IntFlag{Name: "splits", Value: 200, Usage: "with --calibrate: random reference/candidate splits judged, " + calibrate.SplitsRange.Text()},
		&cli.StringFlag{Name: "split", Value: calibrate.SplitRandom, Usage: "with --calibrate: random (seeded halves), ordered (consecutive blocks in run order, reference first, as CI: exposes drift) or blocked (alternating blocks of consecutive runs); random splits cannot see drift"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "with --calibrate or --plan: seed of the random splits or resamples, any whole number from 0 to 2^64-1"},
		&cli.StringFlag{Name: "factors", Usage: "with --calibrate: comma-separated regression `FACTORS` for the power curve, each above 1 and at most 1000 (default 1.02,1.05,1.1,1.15,1.2,1.3,1.5,1.75,2)"},
		&cli.StringFlag{Name: "thresholds", Usage: "with --calibrate: comma-separated thresholds `T1,T2,…` (fractions or percentages, " + numflag.Tolerance.Text() + ") at which the unchanged splits are judged again: the verdict shares per threshold (plot calibration_thresholds)"},
	}
}

// action turns the command line into a compare.Invocation.
func action(c *cli.Context) error {
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	return compare.Run(c.Context, compare.Invocation{
		Reference:       c.StringSlice("reference"),
		Results:         c.StringSlice("results"),
		PlotsDirectory:  c.String("plots-directory"),
		FailThreshold:   c.String("fail-threshold"),
		Columns:         c.String("columns"),
		FalseFail:       c.String("false-fail"),
		Thresholds:      c.StringSlice("threshold"),
		AllowMissing:    c.Bool("allow-missing"),
		AllowIncomplete: c.Bool("allow-incomplete"),
		Reports:         cliapp.Reports(c, ""),
		HTML:            c.String("html"),
		Format:          c.String("format"),
		PrintSummaries:  c.Bool("print-summaries"),
		Series:          c.String("series"),
		SubExperiments:  c.String("subexperiments"),
		Calibrate:       c.Bool("calibrate"),
		RunsPerSide:     c.Int("runs-per-side"),
		Splits:          c.Int("splits"),
		Split:           c.String("split"),
		Seed:            c.Uint64("seed"),
		Factors:         c.String("factors"),
		CalibThresholds: c.String("thresholds"),
		Paired:          c.Bool("paired"),
		Unpaired:        c.Bool("unpaired"),
		PassMargin:      c.String("pass-margin"),
		FailMargin:      c.String("fail-margin"),
		Plan:            c.Bool("plan"),
		Regression:      c.String("regression"),
		Given:           cliapp.Given(c),
	}, c.App.Writer)
}
