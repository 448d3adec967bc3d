package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/paired"
	"github.com/mqgate/mqgate/internal/stats/trend"
)

// Pairing says whether compare analyses several runs per side in pairs.
type Pairing int

const (
	// PairAuto: in pairs when a series file of run ab (Config.Series)
	// says the runs were interleaved, else unpaired: runs of the same
	// names taken apart (two separate loops) are not pairs, whatever
	// their names.
	PairAuto Pairing = iota
	// PairAlways (--paired): in pairs, by the series file or else by
	// name (the caller says the runs were interleaved); runs that do not
	// pair are an input error naming them.
	PairAlways
	// PairNever (--unpaired): unpaired, as for results taken apart.
	PairNever
)

// DefaultMargins are the margins of the paired verdict, δ_pass and δ_fail:
// 5 % each (paired.DefaultMargins). A change below 5 % is within what
// run-to-run noise and unrelated commits move a messaging benchmark by; a
// 10 % regression lies clearly beyond the fail margin, so that enough pairs
// fail it (with a fail margin of 10 % no number of pairs could).
var DefaultMargins = paired.DefaultMargins

// pairsOf returns the pairs of references and targets when cfg.Series or
// PairAlways says the runs were interleaved and there are at least two
// runs per side: nil when the comparison is unpaired (PairAuto without a
// series: names alone do not make pairs), an error when PairAlways and the
// runs do not pair. With cfg.Series the pairs are the series' units, and
// the runs must match it (an input error naming the file and line
// otherwise); warnings name the runs of an incomplete last unit, left out.
// A series of one unit is compared unpaired unless PairAlways.
func pairsOf(references, targets []*experiment.Experiment, cfg Config) ([]pairing.Pair, []string, error) {
	if cfg.Pairing == PairNever {
		return nil, nil, nil
	}
	if s := cfg.Series; s != nil {
		pairs, warnings, err := s.Pairs(references, targets)
		if err != nil {
			return nil, nil, err
		}
		if s.Units < 2 {
			if cfg.Pairing != PairAlways {
				return nil, warnings, nil // one run per side: the single-run rule
			}
			return nil, nil, fileerr.New(s.Path, 0, "", "%d complete unit(s) of the series: a paired comparison needs at least 2 %s", s.Units, s.UnitWord())
		}
		return pairs, warnings, nil
	}
	if cfg.Pairing != PairAlways {
		return nil, nil, nil
	}
	if len(references) < 2 || len(targets) < 2 {
		return nil, nil, fmt.Errorf("--paired: %d reference runs and %d runs to gate: a paired comparison needs at least 2 pairs", len(references), len(targets))
	}
	pairs, err := pairing.Match(references, targets)
	if err != nil {
		return nil, nil, fmt.Errorf("--paired: %w (or compare them unpaired with --unpaired)", err)
	}
	return pairs, nil, nil
}

// unitWord names the units of the paired comparison: the series file's
// ("pairs", "blocks"), else pairs.
func (c Config) unitWord() string {
	if c.Series != nil {
		return c.Series.UnitWord()
	}
	return "pairs"
}

// design is the paired design of the comparison's units: the series
// file's, else pairs.
func (c Config) design() paired.Design {
	if c.Series != nil {
		return c.Series.PairedDesign()
	}
	return paired.Pairs
}

// judgePaired judges every check present on both sides from the per-pair
// log ratios (package stats/paired): exact sign tests of each check's
// median pair ratio, FAIL at the family level over the checks
// (Bonferroni), PASS when every check passes at the level
// (intersection–union), three zones. A check with a value that is not
// positive has no ratio: it is Missing and left out of the family.
func (r *Result) judgePaired() error {
	checks, origins, err := pairing.Checks(r.Pairs, r.Config.metrics())
	if err != nil {
		return err
	}
	set := map[pairing.Origin]func(gate.Check){}
	r.slots(func(o pairing.Origin, _ gate.Series, f func(gate.Check)) { set[o] = f })
	var family []paired.Check
	var from []pairing.Origin
	for k, c := range checks {
		if !positive(c.A) || !positive(c.B) {
			o := origins[k]
			set[o](gate.MissingCheck(checkSub(o), o.Key.Payload, o.Metric, stats.Median(c.A), stats.Median(c.B),
				fmt.Sprintf("%d B %s: %s", o.Key.Payload, o.Metric.Name, paired.ErrNotPositive)))
			continue
		}
		family, from = append(family, c), append(from, origins[k])
	}
	if len(family) == 0 {
		return nil
	}
	a, err := paired.Analyze(family, r.Config.design(), paired.Config{Tail: r.Config.FalseFail, Margins: r.Config.margins()})
	if err != nil {
		return err
	}
	for k, o := range from {
		set[o](r.pairedCheck(o, family[k], a.Checks[k], &a))
	}
	r.Analysis = &a
	return nil
}

func positive(x []float64) bool {
	return !slices.ContainsFunc(x, func(v float64) bool { return !(v > 0) || math.IsInf(v, 0) })
}

// checkSub is the sub-experiment column of a check from o.
func checkSub(o pairing.Origin) string {
	if o.Throughput {
		return result.ThroughputLabel(o.SubExperiment, o.Key)
	}
	return o.SubExperiment
}

// badBounds returns a check's bounds as badness (log ratio, positive is
// worse): the low and the high end.
func badBounds(cr paired.CheckResult) (low, high float64) {
	if cr.HigherIsBetter {
		return -math.Log(cr.High), -math.Log(cr.Low)
	}
	return math.Log(cr.Low), math.Log(cr.High)
}

// marginRatio is the ratio candidate/reference at which a check is worse by
// fraction m: 1+m for lower is better, 1/(1+m) for higher.
func marginRatio(higherIsBetter bool, m float64) float64 {
	return paired.Ratio(paired.Worse(m), higherIsBetter)
}

// pairedCheck turns a check's paired analysis into a gate check: the
// medians of each side as value and reference, the fail margin as
// threshold and limit, the check's own zone (paired.CheckResult.Zone) as
// its status. Its interval is the sign tests' bounds of the median pair
// ratio, the end on the fail side at level/K (Bonferroni over the K checks)
// and the other at the level (intersection–union), so its confidence is
// 1 − level/K − level.
func (r *Result) pairedCheck(o pairing.Origin, c paired.Check, cr paired.CheckResult, a *paired.Analysis) gate.Check {
	m := o.Metric
	ref, val := stats.Median(c.A), stats.Median(c.B)
	mg := a.Margins
	k := float64(len(a.Checks))
	gc := gate.Check{SubExperiment: checkSub(o), Payload: o.Key.Payload, Metric: m, Reference: ref, Threshold: mg.Fail, Value: val,
		Limit: ref * marginRatio(c.HigherIsBetter, mg.Fail), Difference: math.Abs(ref - val), Percent: (val - ref) * 100 / ref}
	gc.Margin = m.Worse(val, gc.Limit)
	gc.Stats = &gate.Stats{NReference: a.Units, NCandidate: a.Units, Estimate: cr.Ratio, Low: cr.Low, High: cr.High,
		Tail: a.Tail / k, PassTail: a.Tail, Confidence: 1 - a.Tail/k - a.Tail, P: cr.P, PAdjusted: cr.PAdjusted, Exact: a.Exact,
		Dispersion: cr.Spread, Gateable: true, Method: gate.MethodPaired}
	// The units are pairs, or the A B B A blocks of a series file: "pairs
	// 8" of 8 blocks miscounted the 16 pairs measured.
	units := r.Config.unitWord()
	head := fmt.Sprintf("%d B %s: candidate/%s ×%.3f (median of the %s' ratios), sign-test bounds [%.3f, %.3f] (%s end at %g%%/%d, %s end at %g%%), p %s (%s %s), %s %d",
		o.Key.Payload, m.Name, referenceName, cr.Ratio, units, cr.Low, cr.High, failEnd(c.HigherIsBetter), 100*a.Tail, len(a.Checks),
		failEnd(!c.HigherIsBetter), 100*a.Tail, gate.PText(cr.P), gate.Bonferroni, gate.PText(cr.PAdjusted), units, a.Units)
	pass, fail := marginRatio(c.HigherIsBetter, mg.Pass), marginRatio(c.HigherIsBetter, mg.Fail)
	switch cr.Zone {
	case paired.Fail:
		gc.Status = gate.Failed
		gc.Message = fmt.Sprintf("%s: worse than the fail margin ×%.3f", head, fail)
	case paired.Pass:
		gc.Status = gate.Passed
		gc.Message = fmt.Sprintf("%s: within the pass margin ×%.3f", head, pass)
	default:
		gc.Status = gate.Inconclusive
		gc.Message = fmt.Sprintf("%s: neither within the pass margin ×%.3f nor shown worse than the fail margin ×%.3f; %s",
			head, pass, fail, openWhy(a, units))
	}
	return gc
}

// failEnd names the end of a check's ratio bounds that the FAIL test
// reads, the PASS test reading the other: for lower is better, a FAIL is
// the low end beyond 1+δ_fail and a PASS the high end within 1+δ_pass; for
// higher is better, the other way round.
func failEnd(higherIsBetter bool) string {
	if higherIsBetter {
		return "high"
	}
	return "low"
}

// openWhy says why a check is neither passed nor failed: too few pairs for
// any decision (naming the fewest), a refused verdict, or pairs that do
// not yet decide.
func openWhy(a *paired.Analysis, units string) string {
	switch dep := a.Dependence; {
	case dep.Refused:
		return "the verdict is refused, the pairs being serially dependent"
	case dep.Block > 1 && dep.Units < a.MinPairs:
		return fmt.Sprintf("no FAIL and no PASS below %d units, and the serially dependent %s make %d blocks of %d", a.MinPairs, units, dep.Units, dep.Block)
	case a.Units < a.MinPairs:
		return fmt.Sprintf("no FAIL and no PASS below %d %s", a.MinPairs, units)
	}
	return "more " + units + " would decide"
}

// pairedDecision says how the paired analysis decided: the zone's rule and
// reason, the interval of the check that decided (for fail the check
// furthest beyond the fail margin, else the one with the highest upper
// bound, among the open ones when inconclusive), the family level, the
// number of pairs, and the facts every paired verdict states
// (gate.Decision.SetPaired: the estimand, the fewest pairs that can
// decide, the serial-dependence diagnostic).
func (r *Result) pairedDecision() *gate.Decision {
	a := r.Analysis
	if a == nil {
		return nil
	}
	d := &gate.Decision{Reason: a.Verdict.Reason, Level: a.Tail, N: a.Units,
		Drift: "controlled: each pair's ratio cancels a drift common to its two runs"}
	d.SetPaired(a)
	if s := r.Config.Series; s != nil {
		d.Units = s.UnitWord()
		d.Drift += fmt.Sprintf("; the pairs are the units recorded in the series file %s (design %s, %d %s)", s.Path, s.Design, s.Units, s.UnitWord())
		if s.Design == pairing.DesignABBA {
			d.Drift = fmt.Sprintf("controlled: each A B B A block's ratio (mean log ratio of its two pairs) cancels a drift linear over its four runs; "+
				"the blocks are those recorded in the series file %s (design %s; N counts blocks)", s.Path, s.Design)
		}
	}
	pick, best := -1, math.Inf(-1)
	for k, cr := range a.Checks {
		lo, hi := badBounds(cr)
		score := hi
		switch a.Verdict.Zone {
		case paired.Fail:
			score = lo
		case paired.Inconclusive:
			if !slices.Contains(a.Verdict.Checks, cr.Name) {
				continue
			}
		}
		if score > best {
			pick, best = k, score
		}
	}
	switch a.Verdict.Zone {
	case paired.Fail:
		d.Rule = "fail: a check's sign test at the level over the checks (Bonferroni) shows its median pair ratio worse than the fail margin"
	case paired.Pass:
		d.Rule = "pass: every check's sign test at the level shows its median pair ratio within the pass margin (intersection–union)"
	default:
		d.Rule = "inconclusive: no check shown worse than the fail margin, some not shown within the pass margin"
		d.Open = a.Verdict.Checks
	}
	if pick >= 0 {
		d.Check, d.Low, d.High = a.Checks[pick].Name, a.Checks[pick].Low, a.Checks[pick].High
	}
	return d
}

// unpairedDecision says how the unpaired statistical gate decided (Holm
// over per-check tests) and what is known of drift: not controlled, and a
// Mann–Kendall test of each side's run order.
func (r *Result) unpairedDecision(v *gate.Verdict) *gate.Decision {
	nr, nc := len(r.References), len(r.Targets)
	d := &gate.Decision{Level: r.Config.FalseFail, N: min(nr, nc), Low: math.NaN(), High: math.NaN()}
	if nr != nc {
		// N is the smaller side's; "runs per side" would say both had it.
		d.Units = fmt.Sprintf("runs on the smaller side (%d reference, %d candidate)", nr, nc)
	}
	var pick *gate.Check
	worst := math.Inf(-1)
	var open []string
	for i, c := range v.Checks {
		if c.Stats == nil {
			continue
		}
		name := fmt.Sprintf("%s %d B %s", c.SubExperiment, c.Payload, c.Metric.Name)
		score := c.Margin / math.Abs(c.Limit)
		switch {
		case v.Status == gate.Failed && c.Status != gate.Failed,
			v.Status == gate.Inconclusive && c.Status != gate.Inconclusive:
			continue
		case v.Status == gate.Inconclusive:
			open = append(open, name)
		}
		if score > worst || pick == nil {
			pick, worst = &v.Checks[i], score
		}
	}
	switch v.Status {
	case gate.Failed:
		d.Rule = "fail: Holm's correction rejects a check and its ratio is beyond the threshold"
		d.Reason = fmt.Sprintf("%d check(s) failed", v.Failed)
	case gate.Passed:
		d.Rule = "pass: every check's interval lies within its threshold"
		d.Reason = fmt.Sprintf("%d check(s) passed", v.Passed)
	default:
		d.Rule = "inconclusive: some check's interval reaches beyond its threshold without a regression shown"
		d.Reason = fmt.Sprintf("%d check(s) inconclusive", v.Inconclusive)
		d.Open = open
	}
	if pick != nil {
		d.Check = fmt.Sprintf("%s %d B %s", pick.SubExperiment, pick.Payload, pick.Metric.Name)
		d.Low, d.High = pick.Stats.Low, pick.Stats.High
	}
	why := "no series file of run ab (nor --paired) says the runs were interleaved, so the two sides are compared unpaired"
	if r.Config.Pairing == PairNever {
		why = "--unpaired compares the two sides unpaired"
	}
	d.Drift = "not controlled: " + why + ", and a drift of the machine between or during them moves every ratio " +
		"(interleave them with run ab, or give --paired if they were interleaved, for a paired comparison); " + r.driftText()
	return d
}

// driftText tests each side's runs for a trend in their start order (the
// order given when a run has no start time):
// per run, the mean over the gated checks of its log value less the
// check's mean (a worse run is higher), in start order, by Mann–Kendall.
func (r *Result) driftText() string {
	var parts []string
	for _, side := range []struct {
		name string
		exps []*experiment.Experiment
		vals func(gate.Series) []float64
	}{
		{"reference", r.References, func(s gate.Series) []float64 { return s.Reference }},
		{"results", r.Targets, func(s gate.Series) []float64 { return s.Candidate }},
	} {
		level := make([]float64, len(side.exps))
		n := 0
		for _, s := range r.series {
			x := side.vals(s)
			if len(x) != len(level) || !positive(x) {
				continue
			}
			var mean float64
			logs := make([]float64, len(x))
			for i, v := range x {
				logs[i] = math.Log(v)
				if s.Metric.Better == result.HigherIsBetter {
					logs[i] = -logs[i]
				}
				mean += logs[i]
			}
			mean /= float64(len(x))
			for i := range level {
				level[i] += logs[i] - mean
			}
			n++
		}
		parts = append(parts, side.name+" "+trendText(side.exps, level, n))
	}
	return "run-order trend (Mann–Kendall of the runs' mean log value across the gated checks, worse is up): " + strings.Join(parts, "; ")
}

// trendText tests level, one value per run, for a trend in the runs' start
// order.
func trendText(exps []*experiment.Experiment, level []float64, checks int) string {
	if checks == 0 {
		return "not tested (no check)"
	}
	order := make([]int, len(exps))
	by := "by start time"
	for i := range order {
		order[i] = i
		if exps[i].Start.IsZero() && by == "by start time" {
			by = fmt.Sprintf("in the order given, as %s has no start time", exps[i].Dir)
		}
	}
	if by == "by start time" {
		slices.SortStableFunc(order, func(a, b int) int { return exps[a].Start.Compare(exps[b].Start) })
	}
	x := make([]float64, len(order))
	for i, k := range order {
		x[i] = level[k] / float64(checks)
	}
	mk, err := trend.Test(x)
	if err != nil {
		return "not tested (" + err.Error() + ")"
	}
	return fmt.Sprintf("τ %+.2f, p %s, Sen's slope %+.2f %% per run over %d runs (%s)", mk.Tau, gate.PText(mk.P), 100*math.Expm1(mk.Slope), mk.N, by)
}
