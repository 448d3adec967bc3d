package compare

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// errNotInterleaved refuses a plan from runs nothing says were
// interleaved: a plan of the paired gate needs pairs.
var errNotInterleaved = errors.New("--plan needs A/A pairs known to be interleaved: run ab's series file beside the two sides' folders, --series FILE, or --paired")

// DefaultRegression is the regression compare --plan plans to fail: 10 %.
const DefaultRegression = 0.10

// PlanPower is the probability with which a planned comparison passes an
// unchanged system and fails the regression.
const PlanPower = 0.95

// Plan finds from A/A pairs (the same build on both sides, interleaved as
// run ab writes them) the number of pairs at which the paired gate of cfg
// passes an unchanged system, and fails a regression of the given fraction
// in any one check, each with probability at least PlanPower at the family
// level (paired.PlanUnits: whole A/A pairs resampled, so that the
// dependence between checks is kept). The pairs are cfg.Series' units, or
// the runs paired by name when cfg.Pairing is PairAlways; otherwise
// nothing says the runs were interleaved, and Plan refuses them.
func Plan(references, targets []*experiment.Experiment, cfg Config, regression float64, seed uint64) (paired.Plan, []string, error) {
	cfg, err := statisticalConfig(cfg, slices.Concat(references, targets))
	if err != nil {
		return paired.Plan{}, nil, err
	}
	if cfg.Series == nil && cfg.Pairing != PairAlways {
		return paired.Plan{}, nil, errNotInterleaved
	}
	cfg.Pairing = PairAlways
	pairs, _, err := pairsOf(references, targets, cfg)
	if err != nil {
		return paired.Plan{}, nil, err
	}
	checks, _, err := pairing.Checks(pairs, cfg.Metrics)
	if err != nil {
		return paired.Plan{}, nil, err
	}
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = c.Name
	}
	p, err := paired.PlanUnits(checks, cfg.design(), paired.PlanConfig{
		Config:     paired.Config{Tail: cfg.FalseFail, Margins: cfg.margins(), Seed: seed},
		Regression: regression, Power: PlanPower})
	return p, names, err
}

// statisticalConfig is cfg with the columns of the statistical mode when
// it gives none, checked, for runs exps that must be comparable
// (experiment.Admit): what calibration and plans take.
func statisticalConfig(cfg Config, exps []*experiment.Experiment) (Config, error) {
	if len(cfg.Metrics) == 0 {
		cfg.Metrics = result.DefaultStatisticalMetrics
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	_, _, err := experiment.Admit(exps, cfg.AllowIncomplete)
	return cfg, err
}

// runPlan is compare --plan.
func (inv Invocation) runPlan(ctx context.Context, cfg Config, stdout io.Writer) error {
	if inv.Calibrate || inv.Unpaired {
		return exit.Usagef("--plan does not go with --calibrate or --unpaired: it plans the paired gate")
	}
	if f := inv.given("html", "print-summaries", "allow-missing"); f != "" {
		return exit.Usagef("--%s does not go with --plan: a plan prints text only", f)
	}
	if slices.ContainsFunc(report.Formats, func(f report.Format) bool { return inv.Given[f.Flag] }) {
		return exit.Usagef("the report flags do not go with --plan: a plan prints text only")
	}
	regression, err := numflag.Level.Parse(inv.Regression)
	if err != nil {
		return exit.Usagef("--regression: %v", err)
	}
	if cfg.Series == nil && cfg.Pairing != PairAlways {
		return exit.With(exit.Usage, errNotInterleaved)
	}
	cfg.FalseFail = cmp.Or(cfg.FalseFail, gate.DefaultFalseFail)
	refs, tgts, warnings, err := inv.loadSides(ctx)
	if err != nil {
		return err
	}
	// The resampling takes minutes on large families and does not watch
	// ctx: a signal ends the plan at once (exit 130), printing nothing.
	var names []string // read only once Plan has returned
	p, err := cancellable(ctx, func() (p paired.Plan, err error) {
		p, names, err = Plan(refs, tgts, cfg, regression, inv.Seed)
		return p, err
	})
	if err != nil {
		return inputError(ctx, err)
	}
	for _, w := range warnings {
		fmt.Fprintf(stdout, "warning: %s\n", w)
	}
	mg := cfg.margins()
	units, word := len(refs), "pairs"
	if s := cfg.Series; s != nil {
		units, word = s.Units, s.UnitWord()
		fmt.Fprintf(stdout, "units from the series file %s: %d %s (design %s)\n", s.Path, s.Units, word, s.Design)
	}
	fmt.Fprintf(stdout, "plan of the paired gate from %d A/A %s, %d checks: pass margin %g%%, fail margin %g%%, exact sign tests of the median pair ratio, FAIL at family-wise error %g%% (Bonferroni), PASS intersection–union at %g%%\n",
		units, word, len(names), 100*mg.Pass, 100*mg.Fail, 100*cfg.FalseFail, 100*cfg.FalseFail)
	least := max(paired.MinPairs(cfg.FalseFail/float64(len(names))), paired.MinPairs(cfg.FalseFail))
	fmt.Fprintf(stdout, "no FAIL and no PASS below %d %s: the fewest with which an exact sign test of %d checks can reach the level\n", least, word, len(names))
	fmt.Fprintf(stdout, "goal: an unchanged system passes, and a %g%% regression of any one check fails, each with probability ≥ %g%%\n",
		100*regression, 100*PlanPower)
	fmt.Fprintln(stdout, "pairs   pass (95% interval)        fail (95% interval)")
	points := slices.Clone(p.Points)
	slices.SortFunc(points, func(a, b paired.PlanPoint) int { return a.Units - b.Units })
	for _, pt := range points {
		fmt.Fprintf(stdout, "%5d   %5.1f%% [%5.1f%%, %5.1f%%]   %5.1f%% [%5.1f%%, %5.1f%%]\n", pt.Units,
			100*pt.Pass, 100*pt.PassLow, 100*pt.PassHigh, 100*pt.Fail, 100*pt.FailLow, 100*pt.FailHigh)
	}
	if p.Units == 0 {
		fmt.Fprintf(stdout, "no number of pairs up to %d reaches it: widen the margins, or reduce the run-to-run spread\n", points[len(points)-1].Units)
		return nil
	}
	fmt.Fprintf(stdout, "pairs needed: %d; %d allowing for the A/A pairs' spread being an estimate from %d pairs (90%% upper bound of the variance)\n",
		p.Units, p.Safe, units)
	return nil
}
