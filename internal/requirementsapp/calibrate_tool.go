package requirementsapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/requirements"
)

// CalibrationPlotStem starts the file names of the check calibration's
// plots: <stem>_power and <stem>_outcomes in the plots directory.
const CalibrationPlotStem = "calibration_check"

// calibrateOnly are the flags that mean nothing without --calibrate.
var calibrateOnly = []string{"reference-runs", "candidate-runs", "margin", "columns", "splits", "split", "seed", "factors", "margins", "regressed", "json", "plots-directory", "format"}

// runCalibrate is requirements --calibrate: the gate that statistical
// requirements and a multi-run check make together, calibrated on a pool
// of unchanged runs (CheckGate, package calibrate).
func runCalibrate(ctx context.Context, cfg Config, st requirements.StatConfig, stdout, stderr io.Writer) error {
	opt, format, err := calibrateOptions(cfg, st)
	if err != nil {
		return err
	}
	if err := calibrateOutputs(cfg); err != nil {
		return err
	}
	in, obs, regressed, err := loadCalibrationPool(ctx, cfg)
	if err != nil {
		return err
	}
	pool, err := requirements.CheckPool(obs)
	if err != nil {
		return exit.With(exit.Usage, fmt.Errorf("%s: %w", cfg.ExperimentsResults, err))
	}
	opt.Regressed = regressed
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
	return writeCalibration(cfg, res, format, in.Warnings, stdout, stderr)
}

// calibrateOptions checks the flags of requirements --calibrate and
// returns the calibration's options but those the pool sets, and the
// plots' format.
func calibrateOptions(cfg Config, st requirements.StatConfig) (calibrate.Options, plots.Format, error) {
	var none calibrate.Options
	for _, f := range []string{"percentile", "runs", "out", "output-file", "throughput-output-file"} {
		if cfg.Set[f] {
			return none, "", exit.Usagef("--%s does not go with --calibrate: a calibration derives requirements from each split of --experiments-results and writes text, --json and plots", f)
		}
	}
	if err := noArgs(cfg.Args); err != nil {
		return none, "", err
	}
	if err := calibrate.SplitFlagsUsed(cfg.Split, cfg.Set["splits"], cfg.Set["seed"]); err != nil {
		return none, "", exit.With(exit.Usage, err)
	}
	if cfg.ExperimentsResults == "" {
		return none, "", exit.Usagef("--calibrate needs the unchanged runs: --experiments-results DIR")
	}
	if cfg.PlotsDirectory == "" {
		return none, "", exit.Usagef("--calibrate needs --plots-directory DIR for its plots")
	}
	format, err := plots.ParseFormat(cfg.Format)
	if err != nil {
		return none, "", exit.Usagef("--format: %v", err)
	}
	margin, err := numflag.Tolerance.Parse(cfg.Margin)
	if err != nil {
		return none, "", exit.Usagef("--margin: %v", err)
	}
	columns, err := requirements.ParseColumns(cfg.Columns)
	if err != nil {
		return none, "", exit.Usagef("--columns: %v", err)
	}
	for _, r := range []struct {
		flag string
		r    numflag.Int
		n    int
	}{{"splits", calibrate.SplitsRange, cfg.Splits}, {"reference-runs", calibrate.ReferenceRange, cfg.ReferenceRuns}, {"candidate-runs", calibrate.CandidateRange, cfg.CandidateRuns}} {
		if err := r.r.Check("--"+r.flag, r.n); err != nil {
			return none, "", exit.With(exit.Usage, err)
		}
	}
	factors, margins, err := calibrate.ParseLists(cfg.Set, cfg.Factors, "margins", cfg.Margins)
	if err != nil {
		return none, "", exit.With(exit.Usage, err)
	}
	if factors == nil {
		factors = requirements.DefaultCheckFactors
	}
	return calibrate.Options{
		Gate:      requirements.CheckGate{Config: st, Margin: margin, Columns: columns},
		Reference: cfg.ReferenceRuns, Candidate: cfg.CandidateRuns,
		Splits: cfg.Splits, Split: cfg.Split, Seed: cfg.Seed,
		FalseFail: st.FalseFail, Factors: factors, Thresholds: margins,
	}, format, nil
}

// calibrateOutputs refuses, before anything is read, outputs over the
// inputs, paths that cannot be written and --regressed the pool itself.
func calibrateOutputs(cfg Config) error {
	if err := calibrateGuard(cfg).Check(); err != nil {
		return err
	}
	if err := checkOutputFile("--json", cfg.JSON); err != nil {
		return err
	}
	if err := atomicfile.CheckDir(cfg.PlotsDirectory); err != nil {
		return exit.Usagef("--plots-directory: %v", err)
	}
	return sameFolder(cfg.Regressed, cfg.ExperimentsResults)
}

// loadCalibrationPool reads the unchanged runs of --experiments-results
// and the regressed runs of --regressed, if given, and returns their
// observations (the regressed runs' last, named regressed/<run>) and the
// number of regressed runs.
func loadCalibrationPool(ctx context.Context, cfg Config) (in *requirements.Input, obs []requirements.Observation, regressed int, err error) {
	dir := cfg.ExperimentsResults
	in, err = loadInput(ctx, dir, cfg.AllowIncomplete)
	if err != nil {
		return nil, nil, 0, err
	}
	// The pool's run order is the runs' start times, which ordered and
	// blocked splits and the held-out validation rely on.
	experiment.SortChronological(in.Experiments)
	obs = in.Observations()
	rdir := cfg.Regressed
	if rdir == "" {
		return in, obs, 0, nil
	}
	if err := regressedIsPoolRun(rdir, dir, in); err != nil {
		return nil, nil, 0, err
	}
	reg, err := loadInput(ctx, rdir, cfg.AllowIncomplete)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := sharedRuns(rdir, reg, dir, in); err != nil {
		return nil, nil, 0, err
	}
	if reg.Latency != in.Latency {
		return nil, nil, 0, exit.With(exit.Usage, fmt.Errorf("--regressed %s measures %s latency, --experiments-results %s %s", rdir, reg.Latency, dir, in.Latency))
	}
	experiment.SortChronological(reg.Experiments)
	in.Warnings = append(in.Warnings, reg.Warnings...)
	for _, o := range reg.Observations() {
		// Names apart from the unchanged runs' (run ab names both
		// sides alike).
		o.Experiment = "regressed/" + o.Experiment
		obs = append(obs, o)
	}
	return in, obs, len(reg.Experiments), nil
}

// writeCalibration prints warnings to stderr, writes the --json file and
// the plots of res, which land together or not at all, and prints res to
// stdout.
func writeCalibration(cfg Config, res *calibrate.Result, format plots.Format, warnings []string, stdout, stderr io.Writer) error {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "requirements: warning: %s\n", w)
	}
	paths, err := calibrate.Save(res, cfg.JSON, cfg.PlotsDirectory, CalibrationPlotStem, format)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	if err := calibrate.WriteText(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "plots: %s\n", strings.Join(paths, ", "))
	return nil
}

// calibrateGuard declares what requirements --calibrate reads (the pool and
// the regressed runs) and writes (--json, and the plots in
// --plots-directory), see package clobber.
func calibrateGuard(cfg Config) *clobber.Guard {
	g := &clobber.Guard{}
	g.Experiments("--experiments-results", cfg.ExperimentsResults)
	g.Experiments("--regressed", cfg.Regressed)
	g.OutputOutside("--json", cfg.JSON)
	g.ReportDir("--plots-directory", cfg.PlotsDirectory, "its calibration plots", func(rel string) bool {
		return slices.ContainsFunc([]string{"_power", "_outcomes", "_thresholds"}, func(plot string) bool {
			return rel == CalibrationPlotStem+plot+plots.FormatPNG.Ext() || rel == CalibrationPlotStem+plot+plots.FormatSVG.Ext()
		})
	})
	return g
}

// sameFolder refuses --regressed naming the pool's own folder, however
// spelled: its runs would be the regressed and the unchanged runs at once.
func sameFolder(regressed, pool string) error {
	if regressed == "" || !sameDir(regressed, pool) {
		return nil
	}
	return exit.Usagef("--regressed %s is the folder of --experiments-results %s: the regressed runs must be other runs than the unchanged ones; give the folder of runs with the regression",
		regressed, pool)
}

// regressedIsPoolRun refuses --regressed naming one of the pool's runs.
func regressedIsPoolRun(regressed, pool string, in *requirements.Input) error {
	for _, e := range in.Experiments {
		if sameDir(regressed, e.Dir) {
			return exit.Usagef("--regressed %s is the run %s of --experiments-results %s: the regressed runs must be other runs than the unchanged ones; give the folder of runs with the regression",
				regressed, e.Dir, pool)
		}
	}
	return nil
}

// sharedRuns refuses regressed runs that are runs of the pool too (through
// a symbolic link, or the same run copied: meta.json's start and host
// alike): the same run would count as unchanged and as regressed.
func sharedRuns(regressed string, reg *requirements.Input, pool string, in *requirements.Input) error {
	for _, r := range reg.Experiments {
		for _, e := range in.Experiments {
			how := ""
			switch {
			case sameDir(r.Dir, e.Dir):
				how = "the same folder"
			case pairing.SameRun(r, e):
				how = "the same run (the same meta.json: start, host and all)"
			default:
				continue
			}
			return exit.Usagef("--regressed %s holds %s, and --experiments-results %s holds %s, %s: a run cannot be unchanged and regressed at once; keep each run in one of the folders",
				regressed, r.Dir, pool, e.Dir, how)
		}
	}
	return nil
}

// sameDir reports whether a and b are one directory: the same path once
// made absolute with symbolic links resolved, or the same file.
func sameDir(a, b string) bool {
	if clobber.Canonical(a) == clobber.Canonical(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// copiedRuns refuses two experiments of one pool that are the same run
// (pairing.SameRun: a folder copied, a CI artifact downloaded twice):
// counted twice, it set the limits from n runs where there were fewer, and
// a statistical limit's false-fail level assumes n distinct runs.
func copiedRuns(root string, exps []*experiment.Experiment) error {
	for i, a := range exps {
		for _, b := range exps[:i] {
			if pairing.SameRun(a, b) {
				return fileerr.New(a.Dir, 0, "", "the same run as %s (the same meta.json: start %s, host %s and all), a copy counted twice among the runs of %s; keep one of them",
					b.Dir, a.Meta.Start.UTC().Format(time.RFC3339Nano), a.Meta.Host.Hostname, root)
			}
		}
	}
	return nil
}

// calibrateMisused reports a calibration flag given without --calibrate.
func calibrateMisused(set map[string]bool) error {
	if i := slices.IndexFunc(calibrateOnly, func(f string) bool { return set[f] }); i >= 0 {
		return exit.Usagef("--%s is a --calibrate flag: add --calibrate, or leave it out", calibrateOnly[i])
	}
	return nil
}
