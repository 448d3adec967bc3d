package compare

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
)

// App returns the compare command. Flags are kebab-case, with the Fast-RTPS
// script's names (and its one-letter flags) as aliases.
func App() *cli.App {
	return &cli.App{
		Name:      "compare",
		Usage:     "gate experiments against reference experiments",
		UsageText: "compare --reference DIR... --results DIR... --plots-directory DIR [--fail-threshold 0.1] [options]",
		Description: `Compares every sub-experiment (measurements_<type>_summary.csv) of the results
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

Exit status: 0 no regression, 1 a regression was found or a reference
sub-experiment is missing from the results, 2 usage or input error (a result
sub-experiment without a reference, different payloads on the two sides,
unreadable or stale summaries, an incomplete run, different latency
definitions, one run on one side and several on the other, an output that
would overwrite an input, a bad flag), 3 inconclusive: no check failed, but
more runs are needed to decide some.`,
		HideHelpCommand: true,
		// Directories may hold commas; repeat a flag to give several.
		DisableSliceFlagSeparator: true,
		Flags: append(append(append([]cli.Flag{
			&cli.StringSliceFlag{Name: "reference", Aliases: []string{"R"}, Usage: "reference experiment `DIR`, or folder of experiments (repeatable)"},
			&cli.StringSliceFlag{Name: "results", Aliases: []string{"r"}, Usage: "experiment `DIR` to gate, or folder of experiments (repeatable)"},
			&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory", "p"}, Usage: "`DIR` for the comparison CSVs and plots (created)", Required: true},
			&cli.StringFlag{Name: "fail-threshold", Aliases: []string{"fail_threshold", "t"}, Value: strconv.FormatFloat(DefaultThreshold, 'g', -1, 64),
				Usage: "relative margin allowed over the reference: a fraction (0.1) or a percentage (10%), " + numflag.Tolerance.Text()},
			&cli.StringFlag{Name: "columns", Usage: "comma-separated `COLUMNS` to gate, among " + metricNames(gate.CompareMetrics) +
				" (default: " + metricNames(gate.DefaultCompareMetrics) + " with one run per side, " + metricNames(gate.DefaultStatisticalMetrics) + " with several)"},
			&cli.StringFlag{Name: "false-fail", Aliases: []string{"false_fail"}, Value: strconv.FormatFloat(gate.DefaultFalseFail, 'g', -1, 64),
				Usage: "with several runs per side: the largest chance that an unchanged system fails the gate, a fraction (0.01) or a percentage (1%), " + numflag.CompareLevel.Text()},
			&cli.StringSliceFlag{Name: "threshold", Usage: "per-column threshold `COLUMN=VALUE`, e.g. 99%=0.2 or 99%=20% (repeatable), " + numflag.Tolerance.Text()},
			&cli.BoolFlag{Name: "allow-missing", Aliases: []string{"allow_missing"}, Usage: "pass when a reference sub-experiment is missing from the results"},
			&cli.BoolFlag{Name: "allow-incomplete", Aliases: []string{"allow_incomplete"}, Usage: "gate experiments whose run did not complete (meta.json \"completed\": false), with a warning in every report"},
		}, cliapp.ReportFlags("", "")...),
			&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML report to `FILE`"},
			&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "plot `FORMAT`: png or svg"},
			&cli.BoolFlag{Name: "print-summaries", Aliases: []string{"print_summaries", "P"}, Usage: "print each comparison CSV"}),
			calibrateFlags()...),
		Action: run,
	}
}

func run(c *cli.Context) error {
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	for _, name := range []string{"reference", "results"} {
		if len(c.StringSlice(name)) == 0 && !c.Bool("calibrate") {
			return exit.Usagef("Required flag \"%s\" not set: expected an experiment directory or a folder of experiments", name)
		}
		for _, d := range c.StringSlice(name) {
			if d == "" {
				return exit.Usagef("--%s is empty: expected a directory", name)
			}
		}
	}
	if c.String("plots-directory") == "" {
		return exit.Usagef("--plots-directory is empty: expected a directory")
	}
	cfg, format, err := config(c)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	opt, err := calibrateOptions(c, cfg)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	if err := guard(c).Check(); err != nil {
		return err
	}
	if c.Bool("calibrate") {
		if len(c.StringSlice("reference"))+len(c.StringSlice("results")) == 0 {
			return exit.Usagef("--calibrate needs unchanged runs: give them with --results (and --reference; both are pooled)")
		}
		return runCalibrate(c, cfg, opt, format)
	}
	// Comparisons of an earlier run stay until this run's are written: a
	// comparison refused for bad input changes nothing (formats §1), and one
	// that completes removes the earlier ones it did not replace, so that no
	// later step takes them for its own.
	earlier, err := filepath.Glob(filepath.Join(c.String("plots-directory"), CSVFileName("*")))
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	refs, refWarnings, err := LoadSide(c.Context, c.StringSlice("reference"))
	if err != nil {
		return exit.With(exit.Usage, fmt.Errorf("reference: %w", err))
	}
	targets, targetWarnings, err := LoadSide(c.Context, c.StringSlice("results"))
	if err != nil {
		return exit.With(exit.Usage, fmt.Errorf("results: %w", err))
	}
	res, err := CompareRuns(refs, targets, cfg)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	res.Warnings = append(append(refWarnings, targetWarnings...), res.Warnings...)

	dir := c.String("plots-directory")
	var written []string
	for i := range res.Subs {
		if exit.Cancelled(c.Context) {
			return exit.With(exit.Interrupted, errors.New("interrupted"))
		}
		s := &res.Subs[i]
		path, err := res.WriteCSVFile(dir, s)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		written = append(written, path)
		if c.Bool("print-summaries") {
			fmt.Fprintf(c.App.Writer, "%s:\n", CSVFileName(s.Type))
			if err := res.WriteCSV(c.App.Writer, s); err != nil {
				return err
			}
		}
		for _, f := range res.Figures(s) {
			if err := plots.Save(f.Plot, filepath.Join(dir, f.Name+format.Ext()), format); err != nil {
				return exit.With(exit.Usage, err)
			}
		}
	}

	for i := range res.Throughputs {
		t := &res.Throughputs[i]
		path, err := res.WriteThroughputCSVFile(dir, t)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		written = append(written, path)
		if c.Bool("print-summaries") {
			fmt.Fprintf(c.App.Writer, "%s:\n", ThroughputCSVFileName(t.Type))
			if err := res.WriteThroughputCSV(c.App.Writer, t); err != nil {
				return err
			}
		}
		for _, f := range res.ThroughputFigures(t) {
			if err := plots.Save(f.Plot, filepath.Join(dir, f.Name+format.Ext()), format); err != nil {
				return exit.With(exit.Usage, err)
			}
		}
	}

	if err := removeComparisons(earlier, written); err != nil {
		return exit.With(exit.Usage, err)
	}
	v := res.Verdict()
	if err := writeReports(c, res, v); err != nil {
		return exit.With(exit.Usage, err)
	}
	fmt.Fprintf(c.App.Writer, "Comparing %s against the reference %s (allowed over reference: %s)\n",
		res.sideText(res.Targets), res.sideText(res.References), res.thresholdText())
	if err := report.Text(c.App.Writer, v); err != nil {
		return err
	}
	if code := v.ExitCode(); code != exit.OK {
		return exit.With(code, fmt.Errorf("%s", failureSummary(res, v)))
	}
	return nil
}

// guard declares what compare reads and writes (see package clobber).
func guard(c *cli.Context) *clobber.Guard {
	g := &clobber.Guard{}
	for _, flag := range []string{"reference", "results"} {
		for _, d := range c.StringSlice(flag) {
			if isExperiment(d) {
				g.Experiment("--"+flag, d)
			} else {
				g.Experiments("--"+flag, d)
			}
		}
	}
	for _, f := range report.Formats {
		g.Output("--"+f.Flag, c.String(f.Flag))
	}
	g.Output("--html", c.String("html"))
	g.ReportDir("--plots-directory", c.String("plots-directory"), "its comparison CSVs and plots", func(rel string) bool {
		if strings.Contains(rel, "/") {
			return false
		}
		return strings.HasSuffix(rel, "_comparison.csv") || strings.HasSuffix(rel, plots.FormatPNG.Ext()) || strings.HasSuffix(rel, plots.FormatSVG.Ext())
	})
	return g
}

// config reads the gating flags.
func config(c *cli.Context) (Config, plots.Format, error) {
	cfg := Config{AllowMissing: c.Bool("allow-missing"), AllowIncomplete: c.Bool("allow-incomplete")}
	t, err := numflag.Tolerance.Parse(c.String("fail-threshold"))
	if err != nil {
		return cfg, "", fmt.Errorf("--fail-threshold: %w", err)
	}
	cfg.Threshold = t
	if c.IsSet("columns") {
		ms, err := ParseColumns(c.String("columns"))
		if err != nil {
			return cfg, "", fmt.Errorf("--columns: %w", err)
		}
		cfg.Metrics = ms
	}
	ff, err := numflag.CompareLevel.Parse(c.String("false-fail"))
	if err != nil {
		return cfg, "", fmt.Errorf("--false-fail: %w", err)
	}
	cfg.FalseFail = ff
	for _, s := range c.StringSlice("threshold") {
		col, t, err := ParseThreshold(s)
		if err != nil {
			return cfg, "", fmt.Errorf("--threshold: %w", err)
		}
		if cfg.Thresholds == nil {
			cfg.Thresholds = map[string]float64{}
		}
		if _, dup := cfg.Thresholds[col]; dup {
			return cfg, "", fmt.Errorf("--threshold: column %q given twice", col)
		}
		cfg.Thresholds[col] = t
	}
	if err := cfg.Validate(); err != nil {
		return cfg, "", err
	}
	format, err := plots.ParseFormat(c.String("format"))
	if err != nil {
		return cfg, "", fmt.Errorf("--format: %w", err)
	}
	return cfg, format, nil
}

// writeReports writes the report files asked for.
func writeReports(c *cli.Context, res *Result, v *gate.Verdict) error {
	if _, err := report.WriteFiles(v, "", c.String); err != nil {
		return err
	}
	if path := c.String("html"); path != "" {
		page, err := res.Page(v)
		if err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		if err := htmlreport.WriteFile(path, page); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	return nil
}

// failureSummary says why the gate failed or could not decide, for the
// error line.
func failureSummary(res *Result, v *gate.Verdict) string {
	if v.Status == gate.Inconclusive {
		return inconclusiveSummary(v)
	}
	var regressed, missing int
	for i := range res.Subs {
		s := &res.Subs[i]
		switch {
		case s.Missing() && !res.Config.AllowMissing:
			missing++
		case !s.Missing() && len(s.Failed()) > 0:
			regressed++
		}
	}
	for i := range res.Throughputs {
		t := &res.Throughputs[i]
		switch {
		case t.Missing() && !res.Config.AllowMissing:
			missing++
		case !t.Missing() && len(t.Failed()) > 0:
			regressed++
		}
	}
	msg := fmt.Sprintf("%d of %d sub-experiments regressed (%s over threshold)", regressed, len(res.Subs)+len(res.Throughputs), plural(v.Failed, "check"))
	if missing > 0 {
		msg += fmt.Sprintf("; %d missing from the results (use --allow-missing to pass without them)", missing)
	}
	return msg
}

// plural returns "1 check", "2 checks".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// removeComparisons removes the earlier comparison CSVs
// (<type>_comparison.csv) that are not among the files written.
func removeComparisons(earlier, written []string) error {
	for _, f := range earlier {
		if slices.Contains(written, f) {
			continue
		}
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("cannot remove the earlier comparison %s: %w", f, err)
		}
	}
	return nil
}
