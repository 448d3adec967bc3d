package requirements

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// CalibrationPlotStem starts the file names of the check calibration's
// plots: <stem>_power and <stem>_outcomes in the plots directory.
const CalibrationPlotStem = "calibration_check"

// DefaultCheckFactors are the regressions of the check calibration's power
// curve.
var DefaultCheckFactors = []float64{1.05, 1.1, 1.25, 1.5, 2}

// calibrateOnly are the flags that mean nothing without --calibrate.
var calibrateOnly = []string{"reference-runs", "candidate-runs", "margin", "columns", "splits", "split", "seed", "factors", "margins", "regressed", "json", "plots-directory", "format"}

// ParseColumns parses check's --columns: a comma-separated list of Median,
// 99%, Max (any case), returned in the requirements' order.
func ParseColumns(s string) ([]result.Metric, error) {
	asked, err := result.ParseList(s, result.RequirementMetrics)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(result.RequirementMetrics), func(m result.Metric) bool { return !slices.Contains(asked, m) }), nil
}

// runCalibrate is requirements --calibrate: the gate that statistical
// requirements and a multi-run check make together, calibrated on a pool
// of unchanged runs (CheckGate, package calibrate).
func runCalibrate(ctx context.Context, cfg Config, st StatConfig, stdout, stderr io.Writer) error {
	for _, f := range []string{"percentile", "runs", "out", "output-file", "throughput-output-file"} {
		if cfg.Set[f] {
			return exit.Usagef("--%s does not go with --calibrate: a calibration derives requirements from each split of --experiments-results and writes text, --json and plots", f)
		}
	}
	if err := noArgs(cfg.Args); err != nil {
		return err
	}
	dir := cfg.ExperimentsResults
	if dir == "" {
		return exit.Usagef("--calibrate needs the unchanged runs: --experiments-results DIR")
	}
	plotsDir := cfg.PlotsDirectory
	if plotsDir == "" {
		return exit.Usagef("--calibrate needs --plots-directory DIR for its plots")
	}
	format, err := plots.ParseFormat(cfg.Format)
	if err != nil {
		return exit.Usagef("--format: %v", err)
	}
	margin, err := numflag.Tolerance.Parse(cfg.Margin)
	if err != nil {
		return exit.Usagef("--margin: %v", err)
	}
	columns, err := ParseColumns(cfg.Columns)
	if err != nil {
		return exit.Usagef("--columns: %v", err)
	}
	for _, r := range []struct {
		flag string
		r    numflag.Int
		n    int
	}{{"splits", calibrate.SplitsRange, cfg.Splits}, {"reference-runs", calibrate.ReferenceRange, cfg.ReferenceRuns}, {"candidate-runs", calibrate.CandidateRange, cfg.CandidateRuns}} {
		if err := r.r.Check("--"+r.flag, r.n); err != nil {
			return exit.With(exit.Usage, err)
		}
	}
	factors := DefaultCheckFactors
	if s := cfg.Factors; s != "" {
		if factors, err = calibrate.ParseFactors(s); err != nil {
			return exit.Usagef("--factors: %v", err)
		}
	}
	margins, err := numflag.Tolerance.ParseList(cfg.Margins)
	if err != nil {
		return exit.Usagef("--margins: %v", err)
	}
	in, err := Load(ctx, dir, cfg.AllowIncomplete)
	if err != nil {
		if exit.Cancelled(ctx) {
			return exit.With(exit.Interrupted, err)
		}
		return exit.With(exit.Usage, err)
	}
	// The pool's run order is the runs' start times, which ordered and
	// blocked splits and the held-out validation rely on.
	experiment.SortChronological(in.Experiments)
	obs := in.Observations()
	regressed := 0
	if rdir := cfg.Regressed; rdir != "" {
		reg, err := Load(ctx, rdir, cfg.AllowIncomplete)
		if err != nil {
			if exit.Cancelled(ctx) {
				return exit.With(exit.Interrupted, err)
			}
			return exit.With(exit.Usage, err)
		}
		if reg.Latency != in.Latency {
			return exit.With(exit.Usage, fmt.Errorf("--regressed %s measures %s latency, --experiments-results %s %s", rdir, reg.Latency, dir, in.Latency))
		}
		regressed = len(reg.Experiments)
		experiment.SortChronological(reg.Experiments)
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
		Gate:      CheckGate{Config: st, Margin: margin, Columns: columns},
		Reference: cfg.ReferenceRuns, Candidate: cfg.CandidateRuns,
		Splits: cfg.Splits, Split: cfg.Split, Seed: cfg.Seed,
		FalseFail: st.FalseFail, Factors: factors, Regressed: regressed, Thresholds: margins,
	}
	if opt.Reference == 0 && opt.Candidate == 0 {
		opt.Candidate = (pool.Runs() - regressed) / 2
	}
	res, err := calibrate.Run(ctx, pool, opt)
	if err != nil {
		if exit.Cancelled(ctx) {
			return exit.With(exit.Interrupted, errors.New("interrupted"))
		}
		return exit.With(exit.Usage, err)
	}
	for _, w := range in.Warnings {
		fmt.Fprintf(stderr, "requirements: warning: %s\n", w)
	}
	if err := calibrate.WriteText(stdout, res); err != nil {
		return err
	}
	if path := cfg.JSON; path != "" {
		if err := atomicfile.Write(path, func(w io.Writer) error { return calibrate.WriteJSON(w, res) }); err != nil {
			return exit.With(exit.Usage, fmt.Errorf("--json: %w", err))
		}
	}
	paths, err := calibrate.SavePlots(res, plotsDir, CalibrationPlotStem, format)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	fmt.Fprintf(stdout, "plots: %s\n", strings.Join(paths, ", "))
	return nil
}

// calibrateMisused reports a calibration flag given without --calibrate.
func calibrateMisused(set map[string]bool) error {
	for _, f := range calibrateOnly {
		if set[f] {
			return exit.Usagef("--%s is a --calibrate flag: add --calibrate, or leave it out", f)
		}
	}
	return nil
}
