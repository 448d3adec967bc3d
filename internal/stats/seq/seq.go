package seq

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mqgate/mqgate/internal/stats/paired"
)

// Status is where a sequential comparison stands after a pair.
type Status int

const (
	// Continue: add another pair.
	Continue Status = iota
	// Pass: every check is shown worse by less than δ_pass.
	Pass
	// Fail: some check is shown worse by more than δ_fail.
	Fail
	// Spent: the budget of pairs is spent without a decision; the verdict
	// is inconclusive.
	Spent
)

func (s Status) String() string {
	return [...]string{"continue", "pass", "fail", "inconclusive (budget spent)"}[s]
}

// Config sets a sequential comparison. Zero fields take the defaults.
type Config struct {
	// Level is the family-wise probability of ever failing a family with
	// no check worse than δ_fail, and of ever passing one with a check
	// worse than δ_pass, however the gate is monitored. Default 0.01.
	Level float64
	// Margins of the verdict; default paired.DefaultMargins.
	Margins paired.Margins
	// MaxPairs is the budget: after that many pairs without a decision the
	// gate stops as Spent. 0: no budget.
	MaxPairs int
	// Spread (the anticipated standard deviation of a pair's log ratio,
	// default 0.05) and Horizon (default 30 pairs) tune the mixture: its
	// bounds are tightest near Horizon pairs of that spread. Neither
	// touches the guarantee; a plan from A/A pairs (paired.PlanUnits)
	// gives both.
	Spread  float64
	Horizon int
}

func (c Config) withDefaults() Config {
	if c.Level == 0 {
		c.Level = 0.01
	}
	if c.Margins == (paired.Margins{}) {
		c.Margins = paired.DefaultMargins
	}
	if c.Spread == 0 {
		c.Spread = 0.05
	}
	if c.Horizon == 0 {
		c.Horizon = 30
	}
	return c
}

// Spec names a check and its direction.
type Spec struct {
	Name           string
	HigherIsBetter bool
}

// Decision is the gate's state after a pair.
type Decision struct {
	Status Status
	// Pairs is the number of pairs fed so far.
	Pairs int
	// Checks are, for Fail, the checks shown worse than δ_fail; for
	// Continue and Spent, those not yet shown better than δ_pass.
	Checks []string
	// Reason says which rule decided or what keeps it open, with the
	// level.
	Reason string
}

// CheckState is one check's estimate and confidence-sequence bounds.
type CheckState struct {
	Name string
	// Ratio is the geometric mean of the pairs' ratios B/A.
	Ratio float64
	// Low and High bound the ratio B/A: every ratio between them and
	// Ratio is one the e-process at level Level/K does not reject now
	// (0 or +Inf when none is rejected yet).
	Low, High float64
	// EFail and EPass are the e-values against "worse by at most δ_fail"
	// and "worse by at least δ_pass"; the gate acts when they reach K/Level.
	EFail, EPass float64
}

// sums are a check's running sums of badness (log ratio, positive =
// worse): enough for the e-process at any margin.
type sums struct {
	n     int
	s, ss float64
}

// at returns S and V of the increments x_i − theta (sign +1) or
// theta − x_i (sign −1).
func (u sums) at(theta, sign float64) (s, v float64) {
	n := float64(u.n)
	return sign * (u.s - n*theta), u.ss - 2*theta*u.s + n*theta*theta
}

// Gate is a sequential paired comparison of a family of checks.
type Gate struct {
	cfg    Config
	specs  []Spec
	checks []sums
	logThr float64 // log(K/Level)
	// rhoFail and rhoPass are the mixtures' precisions of the two sides,
	// tuned to each margin.
	rhoFail, rhoPass float64
	decided          bool
	last             Decision
}

// New starts a sequential comparison of the checks.
func New(specs []Spec, cfg Config) (*Gate, error) {
	cfg = cfg.withDefaults()
	if len(specs) == 0 {
		return nil, errors.New("no checks to compare")
	}
	if !(cfg.Level > 0 && cfg.Level < 1) || !(cfg.Margins.Pass >= 0) || !(cfg.Margins.Fail >= 0) ||
		!(cfg.Spread > 0) || cfg.Horizon < 1 || cfg.MaxPairs < 0 {
		return nil, fmt.Errorf("config %+v: level must lie in (0, 1), margins be ≥ 0, spread > 0, horizon ≥ 1, budget ≥ 0", cfg)
	}
	thr := float64(len(specs)) / cfg.Level
	// The increments' second moment when nothing changed: spread² plus the
	// margin².
	rho := func(margin float64) float64 {
		m := paired.Worse(margin)
		return tunedRho(float64(cfg.Horizon)*(cfg.Spread*cfg.Spread+m*m), thr)
	}
	return &Gate{cfg: cfg, specs: specs, checks: make([]sums, len(specs)), logThr: math.Log(thr),
		rhoFail: rho(cfg.Margins.Fail), rhoPass: rho(cfg.Margins.Pass)}, nil
}

// tunedRho returns the mixture precision ρ that minimises the two-sided
// normal-mixture boundary √((v+ρ)·log((v+ρ)/(ρ/thr²))) at intrinsic time v
// (tuning ρ for a target time as Howard et al. 2021 do): the root of
// log((v+ρ)·thr²/ρ) = v/ρ, by bisection on log ρ.
func tunedRho(v, thr float64) float64 {
	g := func(rho float64) float64 { return math.Log((v+rho)*thr*thr/rho) - v/rho }
	lo, hi := math.Log(v)-20, math.Log(v)+5 // g < 0 at lo, > 0 at hi
	for range 100 {
		mid := (lo + hi) / 2
		if g(math.Exp(mid)) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// Add feeds one pair: a[k] and b[k] are check k's baseline and candidate
// values of the pair (for an ABBA block, the geometric means of its two
// runs per side). After a Pass, Fail or Spent it returns an error.
func (g *Gate) Add(a, b []float64) (Decision, error) {
	if g.decided {
		return g.last, fmt.Errorf("the comparison has already stopped: %s", g.last.Status)
	}
	if len(a) != len(g.specs) || len(b) != len(g.specs) {
		return g.last, fmt.Errorf("a pair needs a value per check on each side: %d checks, %d and %d values",
			len(g.specs), len(a), len(b))
	}
	bad := make([]float64, len(g.specs))
	for k, sp := range g.specs {
		var err error
		if bad[k], err = paired.LogRatio(a[k], b[k], sp.HigherIsBetter); err != nil {
			return g.last, fmt.Errorf("%s: %w", sp.Name, err)
		}
	}
	for k, x := range bad {
		c := &g.checks[k]
		c.n++
		c.s += x
		c.ss += x * x
	}
	g.last = g.decide()
	g.decided = g.last.Status != Continue
	return g.last, nil
}

func (g *Gate) decide() Decision {
	n := g.checks[0].n
	fail, pass := paired.Worse(g.cfg.Margins.Fail), paired.Worse(g.cfg.Margins.Pass)
	var failing, open []string
	for k, c := range g.checks {
		if logE(g.rhoFail)(c.at(fail, 1)) >= g.logThr {
			failing = append(failing, g.specs[k].Name)
		}
		if logE(g.rhoPass)(c.at(pass, -1)) < g.logThr {
			open = append(open, g.specs[k].Name)
		}
	}
	level := func() string {
		return fmt.Sprintf("family-wise level %g under continuous monitoring: e-values reached %d checks / %g",
			g.cfg.Level, len(g.checks), g.cfg.Level)
	}
	switch {
	case len(failing) > 0:
		return Decision{Status: Fail, Pairs: n, Checks: failing, Reason: fmt.Sprintf("%s shown worse than %+.1f %% after %d pairs (%s)",
			strings.Join(failing, ", "), 100*g.cfg.Margins.Fail, n, level())}
	case len(open) == 0:
		return Decision{Status: Pass, Pairs: n, Reason: fmt.Sprintf("every check shown worse by less than %+.1f %% after %d pairs (%s)",
			100*g.cfg.Margins.Pass, n, level())}
	}
	if g.cfg.MaxPairs > 0 && n >= g.cfg.MaxPairs {
		return Decision{Status: Spent, Pairs: n, Checks: open, Reason: fmt.Sprintf("budget of %d pairs spent: %s not shown within %+.1f %%",
			g.cfg.MaxPairs, strings.Join(open, ", "), 100*g.cfg.Margins.Pass)}
	}
	return Decision{Status: Continue, Pairs: n, Checks: open, Reason: "the checks named are not yet shown within the pass margin"}
}

// logE returns the log of the one-sided normal-mixture e-value, mixture
// precision rho, of increments with sum s and sum of squares v:
// log(2·√(ρ/(v+ρ))) + s²/(2(v+ρ)) + log Φ(s/√(v+ρ)).
func logE(rho float64) func(s, v float64) float64 {
	return func(s, v float64) float64 {
		a := v + rho
		z := s / math.Sqrt(a)
		return math.Ln2 + 0.5*math.Log(rho/a) + z*z/2 + logPhi(z)
	}
}

// logPhi is log Φ(z), accurate in the far lower tail (Φ(z) ≈
// φ(z)/|z|·(1 − 1/z² + 3/z⁴) below −30, where erfc underflows).
func logPhi(z float64) float64 {
	if z > -30 {
		return math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	}
	z2 := z * z
	return -z2/2 - math.Log(-z) - 0.5*math.Log(2*math.Pi) + math.Log1p(-1/z2+3/(z2*z2))
}

// Checks returns every check's estimate, e-values and bounds now.
func (g *Gate) Checks() []CheckState {
	fail, pass := paired.Worse(g.cfg.Margins.Fail), paired.Worse(g.cfg.Margins.Pass)
	out := make([]CheckState, len(g.checks))
	for k, c := range g.checks {
		mean := c.s / float64(max(c.n, 1))
		lowBad := g.bound(c, mean, 1)
		highBad := g.bound(c, mean, -1)
		lo, hi := paired.RatioBounds(lowBad, highBad, g.specs[k].HigherIsBetter)
		out[k] = CheckState{Name: g.specs[k].Name, Ratio: paired.Ratio(mean, g.specs[k].HigherIsBetter), Low: lo, High: hi,
			EFail: math.Exp(logE(g.rhoFail)(c.at(fail, 1))), EPass: math.Exp(logE(g.rhoPass)(c.at(pass, -1)))}
	}
	return out
}

// bound returns the badness nearest to the mean, below it (sign +1) or
// above it (sign −1), that the e-process rejects, ∓Inf when none within a
// factor e⁸ does: the distance is doubled until rejected, then bisected.
func (g *Gate) bound(c sums, mean, sign float64) float64 {
	rho := g.rhoFail
	if sign < 0 {
		rho = g.rhoPass
	}
	rejects := func(d float64) bool { return logE(rho)(c.at(mean-sign*d, sign)) >= g.logThr }
	lo, hi := 0.0, 1e-4
	for !rejects(hi) {
		lo, hi = hi, 2*hi
		if hi > 8 {
			return -sign * math.Inf(1)
		}
	}
	for range 60 {
		mid := (lo + hi) / 2
		if rejects(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return mean - sign*hi
}
