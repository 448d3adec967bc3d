package paired

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mqgate/mqgate/internal/stats/dist"
)

// PlanConfig sets what a plan must achieve. Zero fields take the defaults.
type PlanConfig struct {
	// Config is the analysis the plan is for (level, margins, flips).
	// Flips defaults to 1000 here: each simulated comparison's critical
	// value is then a little noisy, which averages out over the resamples,
	// and a plan for 66 checks takes tens of seconds of CPU, not hours.
	Config
	// Regression is the relative regression that must fail (default 0.10,
	// 10 % worse).
	Regression float64
	// Power is the probability with which an unchanged system must pass
	// and the regression fail (default 0.95).
	Power float64
	// MaxUnits bounds the search (default 200).
	MaxUnits int
	// Resamples is the number of simulated comparisons per number of units
	// (default 400).
	Resamples int
}

func (c PlanConfig) withDefaults() PlanConfig {
	c.Flips = cmp.Or(c.Flips, 1000)
	c.Config = c.Config.withDefaults()
	c.Regression = cmp.Or(c.Regression, 0.10)
	c.Power = cmp.Or(c.Power, 0.95)
	c.MaxUnits = cmp.Or(c.MaxUnits, 200)
	c.Resamples = cmp.Or(c.Resamples, 400)
	return c
}

// PlanPoint is the simulated behaviour of the gate with a number of units.
type PlanPoint struct {
	Units int
	// Pass is the share of simulated unchanged comparisons that pass.
	Pass float64
	// Fail is the share of simulated comparisons that fail when the
	// regression hits one check, for the check where that is least likely.
	Fail float64
	// PassLow … FailHigh are 95 % Clopper–Pearson intervals of the two
	// shares.
	PassLow, PassHigh, FailLow, FailHigh float64
}

// Plan is the number of units a comparison needs.
type Plan struct {
	// Units is the smallest number of units found with which both shares
	// reach the power, 0 when MaxUnits does not suffice.
	Units int
	// Safe is Units allowing for the A/A units being few: the spread they
	// show is an estimate, and the units needed grow with its square, so
	// Safe scales Units by the one-sided 90 % upper confidence bound of a
	// normal variance over its estimate, (n−1)/χ²₀.₁₀(n−1) for n A/A units
	// (1.38 for 40, 1.22 for 100). 0 with Units.
	Safe int
	// Points are the numbers of units tried, in the order tried.
	Points []PlanPoint
}

// PlanUnits finds from A/A units (both sides the same build, interleaved
// as the real comparison will be) the number of units at which the gate
// passes an unchanged system, and fails a regression, each with probability
// at least Power at the family level.
//
// It simulates comparisons by resampling whole A/A units with replacement,
// so that the dependence between checks is kept, each centred per check
// (nothing changed) and given a random sign (a unit's log ratio is
// symmetric when nothing changed). The regression is added to one check at
// a time, and the fail share reported is that of the check where it is
// least likely to be found: a regression that hits more checks fails at
// least as often, because a check's interval does not depend on the other
// checks' shifts. The shares are estimates; their intervals say how close.
func PlanUnits(aa []Check, d Design, cfg PlanConfig) (Plan, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Plan{}, err
	}
	if !(cfg.Power > 0 && cfg.Power < 1) || !(cfg.Regression > 0) || cfg.MaxUnits < 2 || cfg.Resamples < 1 {
		return Plan{}, fmt.Errorf("power %v, regression %v, at most %d units, %d resamples: power must lie in (0, 1), "+
			"the regression be positive, units ≥ 2 and resamples ≥ 1", cfg.Power, cfg.Regression, cfg.MaxUnits, cfg.Resamples)
	}
	bad, err := badnessAll(aa, d)
	if err != nil {
		return Plan{}, err
	}
	for _, x := range bad {
		m, _, _ := signBounds(x, 0, 0) // the median: the estimand's no change
		for i := range x {
			x[i] -= m
		}
	}
	var p Plan
	ok := func(n int) bool {
		pt := simulatePlan(bad, n, cfg)
		p.Points = append(p.Points, pt)
		return pt.Pass >= cfg.Power && pt.Fail >= cfg.Power
	}
	// Double until enough, then bisect between the last two tried.
	lo, hi := 0, 0
	for n := 4; ; n *= 2 {
		n = min(n, cfg.MaxUnits)
		if ok(n) {
			hi = n
			break
		}
		if n == cfg.MaxUnits {
			return p, nil
		}
		lo = n
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	p.Units = hi
	df := float64(len(bad[0]) - 1)
	p.Safe = int(math.Ceil(float64(hi) * df / distuv.ChiSquared{K: df}.Quantile(0.10)))
	return p, nil
}

// simulatePlan resamples n units Resamples times and counts the verdicts;
// the seed depends on n only, so repeated plans agree.
func simulatePlan(aa [][]float64, n int, cfg PlanConfig) PlanPoint {
	k := len(aa)
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(n)))
	bw := bandwidths(aa)
	d := make([][]float64, k)
	for c := range d {
		d[c] = make([]float64, n)
	}
	pass := 0
	fails := make([]int, k) // regression in check j
	shift := Worse(cfg.Regression)
	failAt, passAt := Worse(cfg.Margins.Fail), Worse(cfg.Margins.Pass)
	failTail := cfg.Tail / float64(k)
	minPairs := max(MinPairs(failTail), MinPairs(cfg.Tail))
	cFail, cPass := signCritical(n, failTail), signCritical(n, cfg.Tail)
	low, high := make([]float64, k), make([]float64, k)
	for r := 0; r < cfg.Resamples; r++ {
		for i := 0; i < n; i++ {
			u := rng.IntN(len(aa[0]))
			sign := 1.0
			if rng.IntN(2) == 0 {
				sign = -1
			}
			for c := range d {
				d[c][i] = sign*aa[c][u] + bw[c]*rng.NormFloat64()
			}
		}
		others, passes := 0, n >= minPairs
		for c := range d {
			_, low[c], high[c] = signBounds(d[c], cFail, cPass)
			if beyondFail(low[c], failAt) {
				others++
			}
			passes = passes && withinPass(high[c], passAt)
		}
		if passes && others == 0 {
			pass++
		}
		for j := range d {
			own := 0
			if beyondFail(low[j], failAt) {
				own = 1
			}
			if n >= minPairs && beyondFail(low[j]+shift, failAt) || others-own > 0 {
				fails[j]++
			}
		}
	}
	worst := fails[0]
	for _, v := range fails {
		worst = min(worst, v)
	}
	pt := PlanPoint{Units: n, Pass: float64(pass) / float64(cfg.Resamples), Fail: float64(worst) / float64(cfg.Resamples)}
	pt.PassLow, pt.PassHigh = dist.ClopperPearson(pass, cfg.Resamples, 0.05)
	pt.FailLow, pt.FailHigh = dist.ClopperPearson(worst, cfg.Resamples, 0.05)
	return pt
}

// bandwidths returns each check's smoothing bandwidth for the resampled
// units, Silverman's rule 0.9·min(sd, IQR/1.34)·n^(−1/5): the sign tests'
// power depends on the density of the ratios near the margins, which a
// few dozen A/A units give only as steps; smoothing them (Silverman and
// Young 1987, the smoothed bootstrap) spreads each unit over its
// neighbourhood, and widens the spread a little, on the side of more units.
func bandwidths(aa [][]float64) []float64 {
	out := make([]float64, len(aa))
	for c, x := range aa {
		_, sd := meanSD(x)
		s := slices.Clone(x)
		slices.Sort(s)
		n := len(s)
		iqr := s[(3*n)/4] - s[n/4]
		spread := sd
		if iqr > 0 {
			spread = math.Min(sd, iqr/1.34)
		}
		out[c] = 0.9 * spread * math.Pow(float64(n), -0.2)
	}
	return out
}
