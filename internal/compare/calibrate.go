package compare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/plots"
)

// PowerPlotName is the file name (without extension) of the calibration's
// power curve in the plots directory.
const PowerPlotName = "calibration_power"

// Pool gathers unchanged runs into a calibration pool: one check per
// sub-experiment, payload and gated column (cfg's, defaulted as in
// statistical mode), and one per throughput row (its Median [msg/s],
// higher is better: calibrate.Run divides it by each factor), one value per
// run, runs in the order given. Every run must have the same
// sub-experiments, payloads and throughput rows.
func Pool(exps []*experiment.Experiment, cfg Config) (calibrate.Pool, error) {
	cfg, err := statisticalConfig(cfg, exps)
	if err != nil {
		return calibrate.Pool{}, err
	}
	var pool calibrate.Pool
	for _, e := range exps {
		pool.RunNames = append(pool.RunNames, e.Name)
	}
	errs := append(latencyKind.pool(&pool, exps, cfg), throughputKind.pool(&pool, exps, cfg)...)
	return pool, errors.Join(errs...)
}

// calibrateOptions reads the --calibrate flags, checked against their
// ranges before anything is read.
func (inv Invocation) calibrateOptions(cfg Config) (calibrate.Options, error) {
	opt := calibrate.Options{PerSide: inv.RunsPerSide, Splits: inv.Splits, Split: inv.Split,
		Seed: inv.Seed, FalseFail: cfg.FalseFail}
	if err := calibrate.PerSideRange.Check("--runs-per-side", opt.PerSide); err != nil {
		return opt, err
	}
	if err := calibrate.SplitsRange.Check("--splits", opt.Splits); err != nil {
		return opt, err
	}
	var err error
	opt.Factors, opt.Thresholds, err = calibrate.ParseLists(inv.Given, inv.Factors, "thresholds", inv.CalibThresholds)
	return opt, err
}

// runCalibrate is compare --calibrate.
func (inv Invocation) runCalibrate(ctx context.Context, cfg Config, opt calibrate.Options, format plots.Format, stdout io.Writer) error {
	if f := inv.given("junit", "markdown", "html", "print-summaries", "allow-missing"); f != "" {
		return exit.Usagef("--%s does not go with --calibrate: a calibration writes text, --json and its power plot", f)
	}
	refs, targets, warnings, err := inv.loadSides(ctx)
	if err != nil {
		return err
	}
	exps := append(refs, targets...)
	pool, err := Pool(exps, cfg)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	if n := opt.PerSide; n > 0 && 2*n > pool.Runs() {
		return exit.Usagef("--runs-per-side %d: the pool has %d runs; expected at most %d (half the pool)", n, pool.Runs(), pool.Runs()/2)
	}
	res, err := calibrate.Run(ctx, pool, opt)
	if err != nil {
		return inputError(ctx, err)
	}
	// The plots directory is this call's from here on (claimDir).
	release, err := claimDir("--plots-directory", inv.PlotsDirectory)
	if err != nil {
		return err
	}
	defer release()
	for _, w := range warnings {
		fmt.Fprintf(stdout, "warning: %s\n", w)
	}
	if err := calibrate.WriteText(stdout, res); err != nil {
		return err
	}
	// calibration_power and calibration_outcomes.
	paths, err := calibrate.Save(res, inv.Reports["json"], inv.PlotsDirectory, strings.TrimSuffix(PowerPlotName, "_power"), format)
	if err != nil {
		return exit.With(exit.Usage, err)
	}
	fmt.Fprintf(stdout, "power curve: %s\nverdicts: %s\n", paths[0], paths[1])
	if len(paths) > 2 {
		fmt.Fprintf(stdout, "verdicts by threshold: %s\n", paths[2])
	}
	return nil
}
