package requirements

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
)

// CalibrationPlotStem starts the file names of the check calibration's
// plots: <stem>_power and <stem>_outcomes in the plots directory.
const CalibrationPlotStem = "calibration_check"

// DefaultCheckFactors are the regressions of the check calibration's power
// curve.
var DefaultCheckFactors = []float64{1.05, 1.1, 1.25, 1.5, 2}

// calibrateFlags are requirements' flags for --calibrate.
func calibrateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "calibrate", Usage: "instead of writing requirements, calibrate the statistical requirements and multi-run check on the unchanged runs in --experiments-results: measured false-fail rate, verdict rates and power curve"},
		&cli.IntFlag{Name: "reference-runs", Usage: "with --calibrate: runs `N` the requirements are derived from in each split, " + calibrate.ReferenceRange.Text()},
		&cli.IntFlag{Name: "candidate-runs", Usage: "with --calibrate: candidate runs `K` each split checks, " + calibrate.CandidateRange.Text()},
		&cli.StringFlag{Name: "margin", Value: "0", Usage: "with --calibrate: check --margin, a fraction (0.1) or percentage (10%), " + numflag.Tolerance.Text()},
		&cli.StringFlag{Name: "columns", Value: "Median,99%,Max", Usage: "with --calibrate: check --columns, the columns checked"},
		&cli.IntFlag{Name: "splits", Value: 200, Usage: "with --calibrate: random reference/candidate splits judged, " + calibrate.SplitsRange.Text()},
		&cli.StringFlag{Name: "split", Value: calibrate.SplitRandom, Usage: "with --calibrate: random (seeded) or ordered (consecutive blocks in run order, reference first: exposes drift)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "with --calibrate: seed of the random splits, any whole number from 0 to 2^64-1"},
		&cli.StringFlag{Name: "factors", Usage: "with --calibrate: comma-separated regression `FACTORS` for the power curve, each above 1 and at most 1000 (default 1.05,1.1,1.25,1.5,2)"},
		&cli.StringFlag{Name: "margins", Usage: "with --calibrate: comma-separated margins `M1,M2,…` (fractions or percentages, " + numflag.Tolerance.Text() + ") at which the unchanged splits are judged again: the verdict shares per margin (plot calibration_check_thresholds)"},
		&cli.StringFlag{Name: "regressed", TakesFile: true, Usage: "with --calibrate: folder of runs of the same system with a known, real regression (run --echo-delay, run ab's candidate side): the detection rate with them as candidate runs"},
		&cli.StringFlag{Name: "json", TakesFile: true, Usage: "with --calibrate: write the calibration as JSON to `FILE`"},
		&cli.StringFlag{Name: "plots-directory", TakesFile: true, Usage: "with --calibrate: `DIR` for the plots calibration_check_power and calibration_check_outcomes (created)"},
		&cli.StringFlag{Name: "format", Value: string(plots.FormatPNG), Usage: "with --calibrate: plot image format, png or svg"},
	}
}

// calibrateOnly are the flags that mean nothing without --calibrate.
var calibrateOnly = []string{"reference-runs", "candidate-runs", "margin", "columns", "splits", "split", "seed", "factors", "margins", "regressed", "json", "plots-directory", "format"}

// ParseColumns parses check's --columns: a comma-separated list of Median,
// 99%, Max (any case), returned in the requirements' order.
func ParseColumns(s string) ([]gate.Metric, error) {
	asked := map[gate.Metric]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, m := range gate.RequirementMetrics {
			if strings.EqualFold(m.Name, name) {
				asked[m], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown column %q: expected a comma-separated list of Median, 99%%, Max", name)
		}
	}
	var ms []gate.Metric
	for _, m := range gate.RequirementMetrics {
		if asked[m] {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no column in %q: expected a comma-separated list of Median, 99%%, Max", s)
	}
	return ms, nil
}

// runCalibrate is requirements --calibrate: the gate that statistical
// requirements and a multi-run check make together, calibrated on a pool
// of unchanged runs (CheckGate, package calibrate).
func runCalibrate(c *cli.Context, cfg StatConfig) error {
	for _, f := range []string{"percentile", "runs", "out", "output-file", "throughput-output-file"} {
		if c.IsSet(f) {
			return exit.Usagef("--%s does not go with --calibrate: a calibration derives requirements from each split of --experiments-results and writes text, --json and plots", f)
		}
	}
	if err := cliapp.NoArgs(c); err != nil {
		return err
	}
	dir := c.String("experiments-results")
	if dir == "" {
		return exit.Usagef("--calibrate needs the unchanged runs: --experiments-results DIR")
	}
	plotsDir := c.String("plots-directory")
	if plotsDir == "" {
		return exit.Usagef("--calibrate needs --plots-directory DIR for its plots")
	}
	format, err := plots.ParseFormat(c.String("format"))
	if err != nil {
		return exit.Usagef("--format: %v", err)
	}
	margin, err := numflag.Tolerance.Parse(c.String("margin"))
	if err != nil {
		return exit.Usagef("--margin: %v", err)
	}
	columns, err := ParseColumns(c.String("columns"))
	if err != nil {
		return exit.Usagef("--columns: %v", err)
	}
	for _, r := range []struct {
		flag string
		r    numflag.Int
	}{{"splits", calibrate.SplitsRange}, {"reference-runs", calibrate.ReferenceRange}, {"candidate-runs", calibrate.CandidateRange}} {
		if err := r.r.Check("--"+r.flag, c.Int(r.flag)); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	factors := DefaultCheckFactors
	if s := c.String("factors"); s != "" {
		if factors, err = calibrate.ParseFactors(s); err != nil {
			return exit.Usagef("--factors: %v", err)
		}
	}
	margins, err := numflag.Tolerance.ParseList(c.String("margins"))
	if err != nil {
		return exit.Usagef("--margins: %v", err)
	}
	in, err := Load(c.Context, dir, c.Bool("allow-incomplete"))
	if err != nil {
		if exit.Cancelled(c.Context) {
			return exit.With(exit.Interrupted, err)
		}
		return exit.With(exit.Usage, err)
	}
	obs := in.Observations()
	regressed := 0
	if rdir := c.String("regressed"); rdir != "" {
		reg, err := Load(c.Context, rdir, c.Bool("allow-incomplete"))
		if err != nil {
			if exit.Cancelled(c.Context) {
				return exit.With(exit.Interrupted, err)
			}
			return exit.With(exit.Usage, err)
		}
		if reg.Latency != in.Latency {
			return exit.With(exit.Usage, fmt.Errorf("--regressed %s measures %s latency, --experiments-results %s %s", rdir, reg.Latency, dir, in.Latency))
		}
		regressed = len(reg.Experiments)
		in.Warnings = append(in.Warnings, reg.Warnings...)
		for _, o := range reg.Observations() {
			// Names apart from the unchanged runs' (run ab names both
			// sides alike).
			o.Experiment = "regressed/" + o.Experiment
			obs = append(obs, o)
		}
	}
	pool, err := CheckPool(obs)
	if err != nil {
		return exit.With(exit.Usage, fmt.Errorf("%s: %w", dir, err))
	}
	opt := calibrate.Options{
		Gate:      CheckGate{Config: cfg, Margin: margin, Columns: columns},
		Reference: c.Int("reference-runs"), Candidate: c.Int("candidate-runs"),
		Splits: c.Int("splits"), Split: c.String("split"), Seed: c.Uint64("seed"),
		FalseFail: cfg.FalseFail, Factors: factors, Regressed: regressed, Thresholds: margins,
	}
	if opt.Reference == 0 && opt.Candidate == 0 {
		opt.Candidate = (pool.Runs() - regressed) / 2
	}
	res, err := calibrate.Run(c.Context, pool, opt)
	if err != nil {
		if exit.Cancelled(c.Context) {
			return exit.With(exit.Interrupted, errors.New("interrupted"))
		}
		return exit.With(exit.Usage, err)
	}
	for _, w := range in.Warnings {
		fmt.Fprintf(c.App.ErrWriter, "%s: warning: %s\n", c.App.Name, w)
	}
	if err := calibrate.WriteText(c.App.Writer, res); err != nil {
		return err
	}
	if path := c.String("json"); path != "" {
		if err := atomicfile.Write(path, func(w io.Writer) error { return calibrate.WriteJSON(w, res) }); err != nil {
			return exit.With(exit.Usage, fmt.Errorf("--json: %w", err))
		}
	}
	paths, err := calibrate.SavePlots(res, plotsDir, CalibrationPlotStem, format)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	fmt.Fprintf(c.App.Writer, "plots: %s\n", strings.Join(paths, ", "))
	return nil
}

// calibrateMisused reports a calibration flag given without --calibrate.
func calibrateMisused(c *cli.Context) error {
	for _, f := range calibrateOnly {
		if c.IsSet(f) {
			return exit.Usagef("--%s is a --calibrate flag: add --calibrate, or leave it out", f)
		}
	}
	return nil
}
