package seq

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/stats"
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
	// Refused: a decision was due but the pairs are serially dependent
	// (Decision.Dependence): the gate stops, inconclusive, as more pairs
	// of a dependent series cannot be judged at the level.
	Refused
)

func (s Status) String() string {
	return [...]string{"continue", "pass", "fail", "inconclusive (budget spent)", "inconclusive (refused: serially dependent pairs)"}[s]
}

// Config sets a sequential comparison. Zero fields take the defaults.
type Config struct {
	// Level is the probability of ever failing a family with no check's
	// median ratio worse than δ_fail (family-wise), and of ever passing one
	// with a check's median ratio worse than δ_pass (intersection–union),
	// however the gate is monitored. Default 0.01.
	Level float64
	// Margins of the verdict; default paired.DefaultMargins, which the zero
	// value stands for (so a pass margin of 0 with a fail margin of 0
	// cannot be asked: the tools refuse a pass margin of 0).
	Margins paired.Margins
	// MaxPairs is the budget: after that many pairs without a decision the
	// gate stops as Spent. 0: no budget.
	MaxPairs int
	// Spread is the anticipated standard deviation of a pair's log ratio
	// (default 0.05): it puts half the mixture's weight on the bet that
	// suits pairs of that spread at the margin (see New). It never
	// touches the guarantee. Horizon is accepted for callers of the
	// earlier normal mixture and has no effect.
	Spread  float64
	Horizon int
	// DependenceLevel is the level of the serial-dependence test run
	// before any decision; default paired.DefaultDependenceLevel.
	DependenceLevel float64
	// DecideFrom is the fewest pairs before any decision (default
	// DefaultDecideFrom): the serial-dependence test needs them to see a
	// strong dependence, which an early stop would otherwise hide.
	DecideFrom int
}

// DefaultDecideFrom is the default of Config.DecideFrom. With one check
// whose consecutive pairs correlate by 0.6 (AR(1)) at the margin, the gate
// decided falsely 8.5 % of the time deciding from 9 pairs, 6.5 % from 16,
// 1.8 % from 24 (400 sequences each, internal/stats/gatesim); 20 keeps the
// earliest decisions in the 20–40 pairs a CI budget allows.
const DefaultDecideFrom = 20

func (c Config) withDefaults() Config {
	c.Level = cmp.Or(c.Level, 0.01)
	c.Margins = cmp.Or(c.Margins, paired.DefaultMargins)
	c.Spread = cmp.Or(c.Spread, 0.05)
	c.Horizon = cmp.Or(c.Horizon, 30)
	c.DependenceLevel = cmp.Or(c.DependenceLevel, paired.DefaultDependenceLevel)
	c.DecideFrom = cmp.Or(c.DecideFrom, DefaultDecideFrom)
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
	// Estimand names what the verdict is about (paired.Estimand).
	Estimand string
	// MinPairs is the fewest pairs with which the gate can decide at all:
	// the larger of Config.DecideFrom and the pairs, all beyond a margin,
	// with which an e-value first reaches its threshold.
	MinPairs int
	// Dependence is the serial-dependence diagnostic of the pairs so far,
	// last run when a decision was due (Tested false before that).
	Dependence paired.Dependence
	// Method names the construction that decided, or decides, the
	// verdict (Gate.Method; for a gate held for serial dependence, the
	// fixed design on blocks of pairs at the level not yet spent), for the
	// rule text of every report.
	Method string
}

// CheckState is one check's estimate and confidence-sequence bounds.
type CheckState struct {
	Name string
	// Ratio is the estimand: the median of the pairs' ratios B/A.
	Ratio float64
	// Low and High bound the median ratio B/A: every median between them
	// is one the check's e-processes do not reject now, Low at the fail
	// threshold K/Level, High at the pass threshold 1/Level (0 or +Inf
	// when none is rejected yet). Each is an order statistic of the
	// pairs' ratios.
	Low, High float64
	// EFail and EPass are the e-values against "the median is worse by at
	// most δ_fail" and "worse by at least δ_pass"; the gate fails when an
	// EFail reaches K/Level and passes when every check's EPass has reached
	// 1/Level.
	EFail, EPass float64
	// ShownWithin says EPass has reached 1/Level at some pair: the check
	// is shown within the pass margin for good.
	ShownWithin bool
}

// Gate is a sequential paired comparison of a family of checks.
type Gate struct {
	cfg   Config
	specs []Spec
	// bad holds each check's log ratios (positive is worse) in order.
	bad    [][]float64
	within []bool
	// above and below count each check's pairs beyond the fail margin and
	// within the pass margin, ties at a margin to neither.
	above, below []int
	// logFail and logPass are the thresholds' logs: log(K/Level) and
	// log(1/Level).
	logFail, logPass float64
	mix              mixture
	// gsFail and gsPass are the group-sequential boundaries, count by
	// pairs, when the budget allows them (nil: the mixture decides).
	gsFail, gsPass []int
	minPairs       int
	// held says a decision came due with the pairs serially dependent
	// (after heldAt pairs): with a budget the gate then decides by the
	// fixed design on blocks of pairs, at heldLooks.
	held   bool
	heldAt int
	// heldLooks are the pairs at which a held gate runs its analysis,
	// the budget last (heldShare: the level each spends).
	heldLooks []int
	dep       paired.Dependence
	decided   bool
	last      Decision
}

// mixture is a discrete mixture of sign bets: weight w[j] on the bet that
// a pair lies beyond the margin with probability p[j].
type mixture struct{ p, logW, logUp, logDown []float64 }

// grid are the bets' probabilities: from barely better than a coin to
// nearly always.
var grid = []float64{0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95}

// newMixture puts half the weight on the grid point nearest to tuned and
// spreads the other half evenly over the grid.
func newMixture(tuned float64) mixture {
	m := mixture{p: grid, logW: make([]float64, len(grid)), logUp: make([]float64, len(grid)), logDown: make([]float64, len(grid))}
	near := 0
	for j, p := range grid {
		if math.Abs(p-tuned) < math.Abs(grid[near]-tuned) {
			near = j
		}
	}
	for j := range grid {
		w := 0.5 / float64(len(grid))
		if j == near {
			w += 0.5
		}
		m.logW[j] = math.Log(w)
		m.logUp[j], m.logDown[j] = math.Log(2*grid[j]), math.Log(2*(1-grid[j]))
	}
	return m
}

// logE is the log e-value of n pairs, y of them beyond the margin:
// log Σ_j w_j·(2p_j)^y·(2(1−p_j))^(n−y). Each term is the wealth of
// betting a fixed share on every pair's indicator, a nonnegative
// martingale when the indicator is 1 with probability ½ and a
// supermartingale when with less (p_j > ½); so is their mixture, and
// Ville's inequality bounds the chance that it ever reaches 1/α by α.
func (m mixture) logE(n, y int) float64 {
	var terms [16]float64
	best := math.Inf(-1)
	for j := range m.p {
		terms[j] = m.logW[j] + float64(y)*m.logUp[j] + float64(n-y)*m.logDown[j]
		best = max(best, terms[j])
	}
	var s float64
	for _, t := range terms[:len(m.p)] {
		s += math.Exp(t - best)
	}
	return best + math.Log(s)
}

// minPairs is the fewest pairs, all beyond the margin, whose e-value
// reaches exp(logThr).
func (m mixture) minPairs(logThr float64) int {
	n := 1
	for m.logE(n, n) < logThr {
		n++
	}
	return n
}

// New starts a sequential comparison of the checks.
func New(specs []Spec, cfg Config) (*Gate, error) {
	cfg = cfg.withDefaults()
	if len(specs) == 0 {
		return nil, errors.New("no checks to compare")
	}
	if !(cfg.Level > 0 && cfg.Level < 1) || !(cfg.Margins.Pass >= 0) || !(cfg.Margins.Fail >= 0) ||
		!(cfg.Spread > 0) || cfg.Horizon < 1 || cfg.MaxPairs < 0 || !(cfg.DependenceLevel > 0 && cfg.DependenceLevel < 1) || cfg.DecideFrom < 1 {
		return nil, fmt.Errorf("config %+v: level must lie in (0, 1), margins be ≥ 0, spread > 0, horizon ≥ 1, budget ≥ 0, dependence level in (0, 1), decisions from ≥ 1 pair", cfg)
	}
	// The chance that a pair of an unchanged family lies within the pass
	// margin when its log ratio is normal with the anticipated spread: the
	// bet that suits a gate at the margins.
	tuned := 0.5 * math.Erfc(-paired.Worse(cfg.Margins.Pass)/cfg.Spread/math.Sqrt2)
	g := &Gate{cfg: cfg, specs: specs, bad: make([][]float64, len(specs)), within: make([]bool, len(specs)),
		above: make([]int, len(specs)), below: make([]int, len(specs)),
		logFail: math.Log(float64(len(specs)) / cfg.Level), logPass: math.Log(1 / cfg.Level), mix: newMixture(tuned)}
	if cfg.MaxPairs > 0 && cfg.MaxPairs <= maxSpendingPairs {
		first := min(cfg.DecideFrom, cfg.MaxPairs)
		g.gsFail = boundaries(cfg.MaxPairs, first, cfg.Level/float64(len(specs)))
		g.gsPass = boundaries(cfg.MaxPairs, first, cfg.Level)
		g.minPairs = max(reachable(g.gsFail), reachable(g.gsPass))
		return g, nil
	}
	g.minPairs = max(g.mix.minPairs(g.logFail), g.mix.minPairs(g.logPass), cfg.DecideFrom)
	return g, nil
}

// reachable is the first look at which a boundary can be crossed,
// len(c) when none can.
func reachable(c []int) int {
	for n, v := range c {
		if v <= n {
			return n
		}
	}
	return len(c)
}

// Method names the construction that decides: group-sequential boundaries
// when the budget allows them, else the mixture of sign bets.
func (g *Gate) Method() string {
	if g.gsFail != nil {
		return fmt.Sprintf("exact group-sequential sign tests, looks at every pair from %d to the budget of %d, O'Brien–Fleming-type α-spending (Lan and DeMets 1983)",
			min(g.cfg.DecideFrom, g.cfg.MaxPairs), g.cfg.MaxPairs)
	}
	return "e-processes of sign bets (a mixture of fixed bets on each pair lying beyond the margin), Ville's inequality"
}

// cross reports whether a check's count crosses a boundary after n pairs:
// gs's (the group-sequential boundary, when the budget allows one), else
// the mixture's threshold exp(logThr).
func (g *Gate) cross(n, count int, gs []int, logThr float64) bool {
	if gs != nil {
		return count >= gs[n]
	}
	return g.mix.logE(n, count) >= logThr
}

// MinPairs is the fewest pairs with which the gate can decide.
func (g *Gate) MinPairs() int { return g.minPairs }

// Add feeds one pair: a[k] and b[k] are check k's baseline and candidate
// values of the pair (for an ABBA block, the geometric means of its two
// runs per side), in the order measured. After a Pass, Fail or Spent it
// returns an error.
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
	fail, pass := paired.Worse(g.cfg.Margins.Fail), paired.Worse(g.cfg.Margins.Pass)
	for k, x := range bad {
		g.bad[k] = append(g.bad[k], x)
		if x > fail+paired.TieSlack {
			g.above[k]++
		}
		if x < pass-paired.TieSlack {
			g.below[k]++
		}
	}
	g.last = g.decide()
	g.decided = g.last.Status != Continue
	return g.last, nil
}

func (g *Gate) decide() Decision {
	n := len(g.bad[0])
	if g.held {
		return g.heldDecision(n)
	}
	var failing, open []string
	for k := range g.specs {
		if g.cross(n, g.above[k], g.gsFail, g.logFail) {
			failing = append(failing, g.specs[k].Name)
		}
		if g.cross(n, g.below[k], g.gsPass, g.logPass) {
			g.within[k] = true
		}
		if !g.within[k] {
			open = append(open, g.specs[k].Name)
		}
	}
	d := Decision{Pairs: n, Estimand: paired.Estimand, MinPairs: g.minPairs, Method: g.Method()}
	level := func() string {
		return fmt.Sprintf("median pair ratio; FAIL at family-wise level %g (each of %d checks at %.3g), PASS intersection–union at %g; %s",
			g.cfg.Level, len(g.specs), g.cfg.Level/float64(len(g.specs)), g.cfg.Level, g.Method())
	}
	due := (len(failing) > 0 || len(open) == 0) && n >= g.minPairs
	if due && g.dependent(n) {
		if g.gsFail != nil {
			// Hold: the level not yet spent goes to blocked analyses
			// at set looks, the last at the budget (hold).
			g.hold(n)
			return g.heldDecision(n)
		}
		d.Dependence, d.Status, d.Checks = g.dep, Refused, failing
		if len(failing) == 0 {
			d.Checks = g.names()
		}
		d.Reason = fmt.Sprintf("a decision was due after %d pairs but is refused: %s", n, g.dep.Text())
		return d
	}
	d.Dependence = g.dep
	switch {
	case due && len(failing) > 0:
		d.Status, d.Checks = Fail, failing
		d.Reason = fmt.Sprintf("%s shown worse than %+.1f %% after %d pairs (%s)", strings.Join(failing, ", "), 100*g.cfg.Margins.Fail, n, level())
	case due:
		d.Status = Pass
		d.Reason = fmt.Sprintf("every check shown worse by less than %+.1f %% by %d pairs (%s)", 100*g.cfg.Margins.Pass, n, level())
	case g.cfg.MaxPairs > 0 && n >= g.cfg.MaxPairs:
		d.Status, d.Checks = Spent, open
		d.Reason = fmt.Sprintf("budget of %d pairs spent: %s not shown within %+.1f %%", g.cfg.MaxPairs, strings.Join(open, ", "), 100*g.cfg.Margins.Pass)
	default:
		d.Status, d.Checks = Continue, open
		d.Reason = "the checks named are not yet shown within the pass margin"
		if n < g.minPairs {
			d.Reason = fmt.Sprintf("no decision is possible before %d pairs", g.minPairs)
		}
	}
	return d
}

// dependent runs the serial-dependence test of the pairs so far when a
// decision is due and reports whether it refuses the decision. It runs
// once: testing again until dependence went unseen would let a dependent
// series through.
//
// It tests the log ratios themselves, pooled over the checks (a machine's
// slow changes reach them all), not as clipped about the margin: the
// first decisions a budget allows need every pair, or nearly, beyond the
// margin, which is what a dependent family at the margin does on a long
// excursion, and over such a stretch the log ratios vary so little that
// clipped to two of their spreads about the margin they were a constant,
// with no dependence to see (one check at the margin, AR(1) pairs of φ
// 0.95, budget 60: 8.5 % false FAIL, nearly all at the first look). A
// regression far beyond the margin whose size wanders with the machine
// looks the same over such a stretch, and is held too; the held analysis
// at the budget, which sees the pairs clipped, fails it there.
func (g *Gate) dependent(n int) bool {
	r, p, ok := paired.SerialDependence(g.bad, 999, uint64(n))
	if !ok {
		r, p = 0, 1 // no check varies: no order to test
	}
	g.dep = paired.Dependence{Tested: ok, R: r, P: p, Perms: 999, Level: g.cfg.DependenceLevel, Significant: ok && p <= g.cfg.DependenceLevel,
		Block: 1, Units: n}
	g.dep.Refused = g.dep.Significant
	return g.dep.Significant
}

func (g *Gate) names() []string {
	out := make([]string, len(g.specs))
	for k, s := range g.specs {
		out[k] = s.Name
	}
	return out
}

// Checks returns every check's estimate, e-values and bounds now.
func (g *Gate) Checks() []CheckState {
	out := make([]CheckState, len(g.specs))
	for k, sp := range g.specs {
		n, above, below := len(g.bad[k]), g.above[k], g.below[k]
		st := CheckState{Name: sp.Name, Ratio: math.NaN(), Low: math.NaN(), High: math.NaN(), EFail: 1, EPass: 1, ShownWithin: g.within[k]}
		if n > 0 {
			s := slices.Clone(g.bad[k])
			slices.Sort(s)
			med := stats.MedianSorted(s)
			lo, hi := math.Inf(-1), math.Inf(1)
			// The c-th largest is the lower bound when c pairs above a
			// median reject it; likewise the c-th smallest.
			cf, cp := g.critical(n, g.logFail), g.critical(n, g.logPass)
			if g.gsFail != nil {
				cf, cp = g.gsFail[min(n, len(g.gsFail)-1)], g.gsPass[min(n, len(g.gsPass)-1)]
			}
			if cf <= n {
				lo = s[n-cf]
			}
			if cp <= n {
				hi = s[cp-1]
			}
			st.Low, st.High = paired.RatioBounds(lo, hi, sp.HigherIsBetter)
			st.Ratio = paired.Ratio(med, sp.HigherIsBetter)
			st.EFail, st.EPass = math.Exp(g.mix.logE(n, above)), math.Exp(g.mix.logE(n, below))
			if g.gsFail != nil && g.cross(n, above, g.gsFail, g.logFail) {
				st.EFail = math.Inf(1)
			}
			if g.gsPass != nil && g.within[k] {
				st.EPass = math.Inf(1)
			}
		}
		out[k] = st
	}
	return out
}

// critical returns the fewest of n pairs beyond a margin whose e-value
// reaches exp(logThr); n+1 when none does.
func (g *Gate) critical(n int, logThr float64) int {
	for c := 0; c <= n; c++ {
		if g.mix.logE(n, c) >= logThr {
			return c
		}
	}
	return n + 1
}

// hold holds the gate at pair n for serial dependence and places its
// looks: up to two before the budget, evenly spread and at least
// heldSpacing pairs apart, which share heldEarlyShare of the level not
// yet spent, and the budget, which has the rest (all of it when there is
// no room for another look). Each look judges every check on blocks
// (heldAnalysis), so that a regression whose size wanders fails at the
// first of them (held at pair 39 with a budget of 150: at pair 95), not
// only at the budget, and a held unchanged system may pass there.
func (g *Gate) hold(n int) {
	g.held, g.heldAt = true, n
	left := g.cfg.MaxPairs - n
	j := min(3, max(1, left/heldSpacing))
	for i := 1; i <= j; i++ {
		g.heldLooks = append(g.heldLooks, n+(i*left+j-1)/j)
	}
}

// heldShare is the share of the level not yet spent that the held gate's
// look spends (Bonferroni over the looks): heldEarlyShare split over the
// looks before the budget, the rest at the budget.
func (g *Gate) heldShare(look int) float64 {
	early := len(g.heldLooks) - 1
	switch {
	case early == 0:
		return 1
	case look < early:
		return heldEarlyShare / float64(early)
	}
	return 1 - heldEarlyShare
}

// heldEarlyShare is the share of a held gate's level its looks before the
// budget spend. With a tenth, a regression whose size wanders over most of
// its own scale, near the margin in its own spreads, failed before the
// budget in 113–122 of about 385 held gates (the simulation of
// TestSimWideWanderingFailsAtALook with φ 0.5): the blocks its dependence
// needs left too few units for so small a share. With three tenths 366–393
// did, and none was refused; with half, as many failed early but 4–9 more
// were refused at the budget, whose blocked analysis refuses when its
// blocks leave fewer units than its level needs (with 23 checks, 12 at the
// whole level, 13 at half). The simulations' levels hold at three tenths
// (TestSimDependentTable at a budget of 150).
const heldEarlyShare = 0.3

// HeldLooks are the pairs at which a gate held for serial dependence
// judges blocks of its pairs, the budget last; nil while it is not held.
func (g *Gate) HeldLooks() []int { return slices.Clone(g.heldLooks) }

// heldSpacing is the fewest pairs between the looks of a held gate. A
// first look 20 pairs after the hold falsely failed a check at the margin
// with AR(1) pairs of φ 0.95 in 1.6 % of gates at a budget of 60 (0.8 %
// with none): over so few pairs such a check can lie far beyond the margin
// as its own spread measures it.
const heldSpacing = 40

// ListPairs lists pair numbers as a sentence does, "64, 107 and 150".
func ListPairs(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// heldDecision is the state of a gate held for serial dependence: at each
// of its looks (hold), paired.Analyze of every pair so far (blocks of
// consecutive pairs, or refused, as its dependence test finds) at the
// look's share of the level the boundaries had not spent by the pair at
// which the gate was held; Continue between them, and after a look before
// the budget that neither failed nor passed. A false decision needs a
// crossing before the hold or a false verdict of one of these analyses,
// so the level holds by Bonferroni over them.
func (g *Gate) heldDecision(n int) Decision {
	d := Decision{Pairs: n, Estimand: paired.Estimand, MinPairs: g.minPairs, Dependence: g.dep,
		Method: fmt.Sprintf("held at pair %d for serial dependence: exact fixed-design sign tests of every pair so far at pairs %s (on blocks of consecutive pairs when they test dependent), sharing the level the group-sequential boundaries had not spent",
			g.heldAt, ListPairs(g.heldLooks))}
	look := slices.Index(g.heldLooks, n)
	if look < 0 {
		d.Status, d.Checks = Continue, g.names()
		d.Reason = fmt.Sprintf("held since pair %d, the pairs being serially dependent (%s): it is judged on blocks of pairs at pairs %s",
			g.heldAt, g.dep.Text(), ListPairs(g.heldLooks))
		return d
	}
	t := float64(g.heldAt-1) / float64(g.cfg.MaxPairs) // spent up to the last look before the hold
	k := float64(len(g.specs))
	tail := g.heldShare(look) * min(g.cfg.Level-k*spend(g.cfg.Level/k, t), g.cfg.Level-spend(g.cfg.Level, t))
	last := look == len(g.heldLooks)-1
	checks := make([]paired.Check, len(g.specs))
	for c, sp := range g.specs {
		checks[c] = paired.Check{Name: sp.Name, A: make([]float64, n), B: make([]float64, n)}
		for i, x := range g.bad[c] {
			checks[c].A[i], checks[c].B[i] = 1, math.Exp(x)
		}
	}
	a, err := g.heldAnalysis(checks, tail, n)
	if err != nil {
		d.Status, d.Checks, d.Reason = Refused, g.names(), "the held analysis failed: "+err.Error()
		return d
	}
	d.Dependence, d.Estimand = a.Dependence, a.Estimand
	at := "then judged"
	if !last {
		at = fmt.Sprintf("at look %d of %d judged", look+1, len(g.heldLooks))
	}
	why := fmt.Sprintf("held at pair %d for serial dependence, %s on all %d pairs by the fixed design at its share of the level not yet spent, %.3g: %s",
		g.heldAt, at, n, tail, a.Verdict.Reason)
	if a.Dependence.Refused {
		if f, ok := g.farFail(checks, tail, n); ok {
			d.Status, d.Checks = Fail, f.Verdict.Checks
			d.Reason = why + fmt.Sprintf("; but %s, every pair clipped to a constant about the margins so that no dependence moves its count, fails on its own pairs: %s",
				strings.Join(f.Verdict.Checks, ", "), f.Verdict.Reason)
			return d
		}
	}
	d.Reason = why
	switch {
	case a.Verdict.Zone == paired.Fail:
		d.Status, d.Checks = Fail, a.Verdict.Checks
	case a.Verdict.Zone == paired.Pass:
		d.Status = Pass
	case !last:
		d.Status, d.Checks = Continue, g.names()
		d.Reason = fmt.Sprintf("%s; the next verdict comes at pair %d", why, g.heldLooks[look+1])
	case a.Dependence.Refused:
		d.Status, d.Checks = Refused, a.Verdict.Checks
	default:
		d.Status, d.Checks = Spent, a.Verdict.Checks
	}
	return d
}

// heldAnalysis is the fixed design of a held look over the n pairs so far
// at level tail.
//
// The blocks are sized when the pairs as the sign tests feel them
// (clipped about the margins, the view the analysis tests) are dependent,
// from the autocorrelation of the log ratios of the checks near a margin,
// corrected for its bias: clipping, and the few pairs, both make the
// autocorrelation look smaller than the dependence the blocks must
// remove. They are never shrunk to fit the pairs: a test of the few
// blocks left has little power, so blocks too small for the dependence
// passed it and their sign tests failed a dependent family at the margin.
// When the blocks needed leave too few for a decision the analysis
// refuses. A check far beyond the margin clips to a constant, moves no
// count, and neither sizes the blocks nor keeps a regression from failing
// on every pair.
func (g *Gate) heldAnalysis(checks []paired.Check, tail float64, n int) (paired.Analysis, error) {
	b := 1
	if _, p, ok := paired.SerialDependence(paired.ClippedView(g.bad, g.cfg.Margins), 999, uint64(n)); ok && p <= g.cfg.DependenceLevel {
		b = paired.BlockForSample(lag1(g.nearMargin()), n)
	}
	return paired.Analyze(checks, paired.Pairs, paired.Config{Tail: tail, Margins: g.cfg.Margins, DependenceLevel: g.cfg.DependenceLevel,
		Seed: uint64(n), MinBlock: b, Clipped: true})
}

// near reports whether some pair puts check k near a margin: its log
// ratios not clipped to a constant about either one.
func (g *Gate) near(k int) bool {
	for _, m := range []float64{g.cfg.Margins.Fail, g.cfg.Margins.Pass} {
		if c := paired.ClipAbout(g.bad[k], paired.Worse(m)); slices.Min(c) < slices.Max(c) {
			return true
		}
	}
	return false
}

// nearMargin returns the log ratios of the checks near a margin.
func (g *Gate) nearMargin() [][]float64 {
	var out [][]float64
	for k, x := range g.bad {
		if g.near(k) {
			out = append(out, x)
		}
	}
	return out
}

// farFail is the held analysis of the checks far from both margins alone,
// for when the family's was refused: their counts move with no dependence
// (all their pairs clip to a constant), so each may still fail at its
// share of the level, tail/K, as in the family's analysis; the checks
// near a margin, whose dependence refused the family, can neither fail
// nor pass. ok says some far check fails.
func (g *Gate) farFail(checks []paired.Check, tail float64, n int) (paired.Analysis, bool) {
	var far []paired.Check
	for k, c := range checks {
		if !g.near(k) {
			far = append(far, c)
		}
	}
	if len(far) == 0 {
		return paired.Analysis{}, false
	}
	a, err := paired.Analyze(far, paired.Pairs, paired.Config{Tail: tail * float64(len(far)) / float64(len(checks)), Margins: g.cfg.Margins,
		DependenceLevel: g.cfg.DependenceLevel, Seed: uint64(n), Clipped: true})
	return a, err == nil && a.Verdict.Zone == paired.Fail
}

// lag1 is the lag-1 autocorrelation of the log ratios, averaged over the
// checks that vary (SerialDependence's statistic).
func lag1(bad [][]float64) float64 {
	if len(bad) == 0 {
		return 0
	}
	r, _, _ := paired.SerialDependence(bad, 1, 0)
	return r
}
