package paired

import (
	"errors"
	"fmt"
	"math"
)

// Estimand names what the paired gates are about, for every report.
const Estimand = "the median of the pairs' ratios B/A, per check (sign tests: exact for independent pairs, whatever their distribution)"

// CheckResult is the paired analysis of one check.
type CheckResult struct {
	Name           string
	HigherIsBetter bool
	// Ratio is the estimand: the median of the units' ratios B/A.
	Ratio float64
	// GeometricMean is the geometric mean of the units' ratios, for
	// reference; the verdict is not about it.
	GeometricMean float64
	// Low and High bound the median ratio B/A, each an order statistic of
	// the units' ratios read from the sign test's exact critical count: a
	// Low beyond 1+δ_fail (in the worse direction) is the fail-side test's
	// rejection of "worse by at most δ_fail" at Tail/K (Bonferroni over the
	// K checks, so that FAIL has family-wise error Tail); a High within
	// 1+δ_pass is the pass-side test's rejection of "worse by at least
	// δ_pass" at Tail (intersection–union: a PASS needs every check's, so
	// each may use the full level). 0 or +Inf when the units are too few
	// for the test to reject.
	Low, High float64
	// Spread is the standard deviation of the units' log ratios: 0.05
	// means a unit's ratio typically varies by about 5 %.
	Spread float64
	// T is the studentised mean log ratio, positive when B is worse.
	T float64
	// P is the one-sided exact sign-test p-value of "B is no worse" (the
	// median ratio at most 1) for this check alone.
	P float64
	// PAdjusted is P adjusted for the family by Bonferroni, at most 1.
	PAdjusted float64
	// Wilcoxon is the one-sided signed-rank test of the log ratios.
	Wilcoxon SignedRank
	// Zone is the check's own decision: Fail when shown worse than the
	// fail margin, Pass when shown within the pass margin, else
	// Inconclusive (always, below MinPairs or when the verdict is refused).
	Zone Zone
}

// Analysis is the paired comparison of a family of checks.
type Analysis struct {
	// Units is the number of pairs (or ABBA blocks) measured.
	Units int
	// Exact is true: every test is an exact sign test. Flips is the number
	// of random orders of the serial-dependence test.
	Exact bool
	Flips int
	// CriticalFail is the count of units beyond the fail margin at which
	// a check fails (the sign test's exact critical value at Tail/K);
	// CriticalPass the count within the pass margin at which a check
	// passes (at Tail). Above the number of units when they are too few.
	CriticalFail, CriticalPass float64
	Tail                       float64
	Margins                    Margins
	// MinPairs is the fewest units with which both tests can reject:
	// below it there is no FAIL and no PASS.
	MinPairs int
	// Estimand names what the verdict is about.
	Estimand string
	// Dependence is the serial-dependence diagnostic of the units in
	// measured order and what the verdict did about it.
	Dependence Dependence
	Checks     []CheckResult
	Verdict    Verdict
}

// Analyze compares B with A on every check of the family from the same
// interleaved units (each check has one value per run of each side, the
// runs in the same order, the order they were measured in), and decides
// the verdict:
//
//   - the units are tested for serial dependence (SerialDependence); when
//     it is significant they are averaged in blocks of consecutive units,
//     or the verdict is refused when too few blocks would be left;
//   - a check fails when its sign test rejects "the median ratio is worse
//     by at most δ_fail" at Tail/K, and the family fails when any check
//     does (family-wise error Tail);
//   - a check passes when its sign test rejects "worse by at least δ_pass"
//     at Tail, and the family passes when every check does (an
//     intersection–union test at level Tail, Berger 1982);
//   - with fewer units than MinPairs neither is possible, and the verdict
//     says how many it needs.
func Analyze(checks []Check, d Design, cfg Config) (Analysis, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Analysis{}, err
	}
	bad, err := badnessAll(checks, d)
	if err != nil {
		return Analysis{}, err
	}
	k := len(checks)
	failTail := cfg.Tail / float64(k)
	minPairs := MinUnits(cfg.Tail, k)
	view := func(d [][]float64) [][]float64 { return d }
	if cfg.Clipped {
		view = func(d [][]float64) [][]float64 { return ClippedView(d, cfg.Margins) }
	}
	units, dep := diagnose(bad, view, cfg.DependenceLevel, cfg.Flips, cfg.Seed, minPairs, cfg.MinBlock)
	dep.Clipped = cfg.Clipped
	n := len(units[0])
	cFail, cPass := signCritical(n, failTail), signCritical(n, cfg.Tail)
	a := Analysis{Units: len(bad[0]), Exact: true, Flips: cfg.Flips, CriticalFail: float64(cFail), CriticalPass: float64(cPass),
		Tail: cfg.Tail, Margins: cfg.Margins, MinPairs: minPairs, Estimand: Estimand, Dependence: dep, Checks: make([]CheckResult, k)}
	if dep.Block > 1 && !dep.Refused {
		a.Estimand = fmt.Sprintf("the median, per check, of the ratios B/A of blocks of %d consecutive pairs (geometric mean within a block; sign tests, exact for independent blocks)", dep.Block)
	}
	decidable := n >= minPairs && !dep.Refused
	failAt, passAt := Worse(cfg.Margins.Fail), Worse(cfg.Margins.Pass)
	names := make([]string, k)
	low, high := make([]float64, k), make([]float64, k)
	for c, ch := range checks {
		med, lo, hi := signBounds(units[c], cFail, cPass)
		if !decidable {
			lo, hi = math.Inf(-1), math.Inf(1)
		}
		zone := Inconclusive
		switch {
		case beyondFail(lo, failAt):
			zone = Fail
		case withinPass(hi, passAt):
			zone = Pass
		}
		// Bounds within rounding of a margin agree with the tests' ties.
		if !beyondFail(lo, failAt) {
			lo = math.Min(lo, failAt)
		}
		if !withinPass(hi, passAt) {
			hi = math.Max(hi, passAt)
		}
		low[c], high[c] = lo, hi
		rlo, rhi := RatioBounds(lo, hi, ch.HigherIsBetter)
		mean, sd := meanSD(bad[c])
		p := signP(n, countAbove(units[c], 0))
		a.Checks[c] = CheckResult{Name: ch.Name, HigherIsBetter: ch.HigherIsBetter, Ratio: Ratio(med, ch.HigherIsBetter),
			GeometricMean: Ratio(mean, ch.HigherIsBetter), Low: rlo, High: rhi, Spread: sd, T: tstat(bad[c]), P: p,
			PAdjusted: math.Min(1, p*float64(k)), Wilcoxon: SignedRankTest(bad[c]), Zone: zone}
		names[c] = ch.Name
	}
	a.Verdict = decide(names, low, high, cfg.Margins, cfg.Tail)
	switch {
	case dep.Refused:
		a.Verdict = Verdict{Zone: Inconclusive, Checks: names, Reason: "refused: " + dep.Text()}
	case !decidable:
		a.Verdict = Verdict{Zone: Inconclusive, Checks: names, Reason: fmt.Sprintf(
			"%d %s: no FAIL and no PASS below %d, the fewest with which an exact test of %d check(s) can reach the level %g (its smallest p-value is 2⁻ⁿ, %.3g here)",
			n, unitWord(dep.Block), minPairs, k, cfg.Tail, math.Ldexp(1, -n))}
	}
	return a, nil
}

func unitWord(block int) string {
	if block > 1 {
		return "blocks"
	}
	return "units"
}

// badnessAll returns [check][unit] log ratios, checking that every check
// has the same number of units, at least two.
func badnessAll(checks []Check, d Design) ([][]float64, error) {
	if len(checks) == 0 {
		return nil, errors.New("no checks to compare")
	}
	bad := make([][]float64, len(checks))
	for k, c := range checks {
		var err error
		if bad[k], err = Badness(c, d); err != nil {
			return nil, err
		}
		if len(bad[k]) != len(bad[0]) {
			return nil, fmt.Errorf("%s has %d units but %s has %d: every check needs a value from each run",
				c.Name, len(bad[k]), checks[0].Name, len(bad[0]))
		}
	}
	if len(bad[0]) < 2 {
		return nil, fmt.Errorf("%d unit(s): a paired comparison needs at least 2", len(bad[0]))
	}
	return bad, nil
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// tstat is the one-sample t statistic of x: mean / (sd/√n). Values all
// equal and non-zero give ±Inf, values all zero give 0.
func tstat(x []float64) float64 {
	mean, sd := meanSD(x)
	if sd <= 1e-12*math.Abs(mean) || sd == 0 {
		switch {
		case mean > 0:
			return math.Inf(1)
		case mean < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return mean / (sd / math.Sqrt(float64(len(x))))
}
