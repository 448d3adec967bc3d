//go:build !race

package gatesim

// The simulations draw thousands of families, arithmetic without
// goroutines, which the race detector slows several times over and has
// nothing to find in. go test -race leaves them out; make test runs them in
// a go test of their own, without -race (every test named TestSim…, in
// files built only without it).

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/stats/paired"
	"github.com/mqgate/mqgate/internal/stats/seq"
)

// level and margins of every case: the defaults of compare and run ab.
const level = 0.01

var margins = paired.DefaultMargins

// large says whether to run the large version (GATESIM_LARGE=1): the size
// docs/methods.md quotes, with the stricter bound.
func large() bool { return os.Getenv("GATESIM_LARGE") != "" }

// reps is the number of sequences of a case: small by default, so that
// make test stays quick, ×25 in the large run (10,000 sequences of a case at the
// margin, so that a test exact at 1 % shows an upper bound near 1.2 %).
func reps(small int) int {
	if large() {
		return 25 * small
	}
	return small
}

// drawFunc draws a family's log ratios, [check][pair], in measured order,
// positive is worse.
type drawFunc func(rng *rand.Rand, n int) [][]float64

// noise describes the per-pair noise of k checks: spread s, a common factor
// shared by the checks of a pair with weight rho, and AR(1) dependence phi
// between consecutive pairs (stationary, so the spread is s at every pair).
type noise struct {
	k        int
	s, rho   float64
	phi      float64
	centre   []float64 // per check; nil is 0 for every check
	skew     float64   // ±1: log ratio θ ± s·(E − ln 2), E exponential (median θ); 0: normal
	rareP    float64   // probability of the rare mode
	rareJump float64   // its extra log ratio
}

func (m noise) draw(rng *rand.Rand, n int) [][]float64 {
	x := make([][]float64, m.k)
	ind := make([]float64, m.k)
	var common float64
	step := func(prev float64, first bool) float64 {
		z := rng.NormFloat64()
		if first || m.phi == 0 {
			return z
		}
		return m.phi*prev + math.Sqrt(1-m.phi*m.phi)*z
	}
	for c := range x {
		x[c] = make([]float64, n)
	}
	for i := range n {
		common = step(common, i == 0)
		for c := range x {
			ind[c] = step(ind[c], i == 0)
			e := math.Sqrt(m.rho)*common + math.Sqrt(1-m.rho)*ind[c]
			v := m.s * e
			if m.skew != 0 {
				v = m.skew * m.s * (rng.ExpFloat64() - math.Ln2)
			}
			if m.rareP > 0 && rng.Float64() < m.rareP {
				v += m.rareJump
			}
			if m.centre != nil {
				v += m.centre[c]
			}
			x[c][i] = v
		}
	}
	return x
}

// rareMedianShift returns θ0 such that a log ratio θ0 + s·Z, plus jump
// with probability p, has its median at 0 (by bisection).
func rareMedianShift(s, p, jump float64) float64 {
	cdf := func(t float64) float64 {
		phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
		return (1-p)*phi(-t/s) + p*phi((-t-jump)/s)
	}
	lo, hi := -1.0, 1.0 // cdf(lo) > ½ > cdf(hi)
	for range 100 {
		mid := (lo + hi) / 2
		if cdf(mid) > 0.5 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func fill(k int, v float64) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = v
	}
	return out
}

// oneWorse is k checks at 0 but check 0 at v.
func oneWorse(k int, v float64) []float64 {
	out := make([]float64, k)
	out[0] = v
	return out
}

// outcome is a gate's decision on one family: "pass", "fail" or
// "inconclusive".
type outcome string

// fixed runs paired.Analyze on n pairs of the family.
func fixed(t *testing.T, x [][]float64, seed uint64) outcome {
	t.Helper()
	checks := make([]paired.Check, len(x))
	for c, d := range x {
		checks[c] = paired.Check{Name: fmt.Sprintf("c%d", c), A: make([]float64, len(d)), B: make([]float64, len(d))}
		for i, v := range d {
			checks[c].A[i], checks[c].B[i] = 100, 100*math.Exp(v)
		}
	}
	a, err := paired.Analyze(checks, paired.Pairs, paired.Config{Tail: level, Margins: margins, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	switch a.Verdict.Zone {
	case paired.Pass:
		return "pass"
	case paired.Fail:
		return "fail"
	}
	return "inconclusive"
}

// sequential feeds the pairs of x one at a time to a seq.Gate with budget
// len(x[0]) until it stops; it returns the outcome and the pairs used.
func sequential(t *testing.T, x [][]float64) (outcome, int) {
	t.Helper()
	specs := make([]seq.Spec, len(x))
	for c := range specs {
		specs[c] = seq.Spec{Name: fmt.Sprintf("c%d", c)}
	}
	n := len(x[0])
	g, err := seq.New(specs, seq.Config{Level: level, Margins: margins, MaxPairs: n, Horizon: min(n, 30)})
	if err != nil {
		t.Fatal(err)
	}
	a, b := fill(len(x), 100), make([]float64, len(x))
	for i := range n {
		for c := range x {
			b[c] = 100 * math.Exp(x[c][i])
		}
		d, err := g.Add(a, b)
		if err != nil {
			t.Fatal(err)
		}
		switch d.Status {
		case seq.Pass:
			return "pass", d.Pairs
		case seq.Fail:
			return "fail", d.Pairs
		case seq.Continue:
		default: // budget spent, or the verdict refused
			return "inconclusive", d.Pairs
		}
	}
	return "inconclusive", n
}

// tally counts outcomes of one case.
type tally struct {
	n           int
	pass, fail  int
	pairs, most int
}

func (c tally) rate(k int) string {
	lo, hi := dist.ClopperPearson(k, c.n, 0.05)
	return fmt.Sprintf("%.1f %% [%.1f, %.1f]", 100*float64(k)/float64(c.n), 100*lo, 100*hi)
}

// run draws reps families of n pairs and runs them through the design.
func run(t *testing.T, name, design string, draw drawFunc, n, reps int) tally {
	t.Helper()
	h := fnv.New64a()
	h.Write([]byte(name + design))
	rng := rand.New(rand.NewPCG(h.Sum64(), uint64(n)))
	tl := tally{n: reps}
	for r := range reps {
		x := draw(rng, n)
		var o outcome
		used := n
		if design == "fixed" {
			o = fixed(t, x, uint64(r))
		} else {
			o, used = sequential(t, x)
		}
		switch o {
		case "pass":
			tl.pass++
		case "fail":
			tl.fail++
		}
		tl.pairs += used
		tl.most = max(tl.most, used)
	}
	return tl
}

// atMostLevel fails the test when k of n is above the level (or the
// case's limit): by default when the 95 % Clopper–Pearson interval lies
// wholly above it (a few hundred sequences cannot show more), in the large
// run when its upper end exceeds 1.5 times it (1.5 % at the level 1 %).
func atMostLevel(t *testing.T, what string, k, n int, limit float64) {
	t.Helper()
	if limit == 0 {
		limit = level
	}
	lo, hi := dist.ClopperPearson(k, n, 0.05)
	switch {
	case large() && hi > 1.5*limit:
		t.Errorf("%s: %d of %d, upper 95 %% bound %.2f %% above %.1f %%", what, k, n, 100*hi, 150*limit)
	case !large() && lo > limit:
		t.Errorf("%s: %d of %d, 95 %% interval [%.2f, %.2f] %% above %g", what, k, n, 100*lo, 100*hi, limit)
	}
}

// errorCase is a family for which a decision of some kind is an error.
type errorCase struct {
	name   string
	design string // "fixed" or "sequential"
	n      int    // pairs (fixed) or budget (sequential)
	reps   int    // default sequences
	draw   drawFunc
	// falseFail and falsePass say which decisions are errors: at the
	// margin (pass margin = fail margin) both are; unchanged only a FAIL.
	falseFail, falsePass bool
	// limit, when set, is the rate the case is held to instead of the
	// level: a known limit, which docs/methods.md states.
	limit float64
}

func marginCases() []errorCase {
	at := paired.Worse(margins.Fail)
	var cs []errorCase
	// Small samples: one check at the margin, 2–7 pairs (run ab --runs 3).
	for n := 2; n <= 7; n++ {
		cs = append(cs, errorCase{fmt.Sprintf("fixed, %d pairs, 1 check at the margin, s 0.05", n), "fixed", n, 400,
			noise{k: 1, s: 0.05, centre: fill(1, at)}.draw, true, true, 0})
	}
	// Serial dependence between consecutive pairs (the fixed design at
	// φ 0.3 is TestSimModestDependenceFixed, 10,000 families in every run).
	for _, phi := range []float64{0.3, 0.6} {
		if phi != 0.3 {
			cs = append(cs, errorCase{fmt.Sprintf("fixed, 40 pairs, 1 check at the margin, AR(1) φ %g", phi), "fixed", 40, 400,
				noise{k: 1, s: 0.05, phi: phi, centre: fill(1, at)}.draw, true, true, 0})
		}
		cs = append(cs, errorCase{fmt.Sprintf("sequential ≤ 100 pairs, 1 check at the margin, AR(1) φ %g", phi), "sequential", 100, 400,
			noise{k: 1, s: 0.05, phi: phi, centre: fill(1, at)}.draw, true, true, 0})
	}
	cs = append(cs,
		errorCase{"sequential ≤ 100 pairs, 22 checks unchanged, AR(1) φ 0.6", "sequential", 100, 300,
			noise{k: 22, s: 0.05, rho: 0.5, phi: 0.6}.draw, true, false, 0},
		errorCase{"sequential ≤ 100 pairs, 22 checks at the margin, AR(1) φ 0.6", "sequential", 100, 300,
			noise{k: 22, s: 0.05, rho: 0.5, phi: 0.6, centre: fill(22, at)}.draw, true, true, 0},
		errorCase{"fixed, 40 pairs, 22 checks at the margin, AR(1) φ 0.6", "fixed", 40, 150,
			noise{k: 22, s: 0.05, rho: 0.5, phi: 0.6, centre: fill(22, at)}.draw, true, true, 0},
	)
	// Changes that are not a shift, the median pair ratio at the margin.
	rare := rareMedianShift(0.05, 0.1, 0.3)
	for _, d := range []string{"fixed", "sequential"} {
		n := 100
		if d == "fixed" {
			n = 40
		}
		cs = append(cs,
			errorCase{d + ", skewed right (median at the margin)", d, n, 400, noise{k: 1, s: 0.1, skew: 1, centre: fill(1, at)}.draw, true, true, 0},
			errorCase{d + ", skewed left (median at the margin)", d, n, 400, noise{k: 1, s: 0.1, skew: -1, centre: fill(1, at)}.draw, true, true, 0},
			errorCase{d + ", rare slow mode, 10 % of pairs +35 % (median at the margin)", d, n, 400,
				noise{k: 1, s: 0.05, rareP: 0.1, rareJump: 0.3, centre: fill(1, at+rare)}.draw, true, true, 0},
		)
	}
	return cs
}

// TestSimFalseDecisionsAtMostTheLevel runs every case where a FAIL or a PASS
// is an error and checks its rate against the level.
func TestSimFalseDecisionsAtMostTheLevel(t *testing.T) {
	if testing.Short() {
		t.Skip("every case at the margin")
	}
	for _, c := range marginCases() {
		tl := run(t, c.name, c.design, c.draw, c.n, reps(c.reps))
		line := fmt.Sprintf("%s: ", c.name)
		if c.falseFail {
			line += "false FAIL " + tl.rate(tl.fail)
			atMostLevel(t, c.name+": false FAIL", tl.fail, tl.n, c.limit)
		}
		if c.falsePass {
			line += ", false PASS " + tl.rate(tl.pass)
			atMostLevel(t, c.name+": false PASS", tl.pass, tl.n, c.limit)
		}
		if c.limit != 0 {
			line += fmt.Sprintf(" (held to %g: a known limit)", c.limit)
		}
		t.Logf("%s (%d sequences, pairs used on average %.1f)", line, tl.n, float64(tl.pairs)/float64(tl.n))
	}
}

// TestSimDecidesWhereTheNoiseAllows: 22 checks with a per-pair spread of
// 0.05: an unchanged family passes and a 10 % regression of one check
// fails at least 95 % of the time with 60 pairs (fixed) and within a
// budget of 100 (sequential); with a spread of 0.03, within 40 pairs
// either way.
func TestSimDecidesWhereTheNoiseAllows(t *testing.T) {
	reg := paired.Worse(0.10)
	for _, c := range []struct {
		design string
		s      float64
		n      int
	}{{"fixed", 0.05, 60}, {"sequential", 0.05, 100}, {"fixed", 0.03, 40}, {"sequential", 0.03, 40}} {
		un := run(t, "unchanged", c.design, noise{k: 22, s: c.s, rho: 0.5}.draw, c.n, reps(150))
		re := run(t, "regressed", c.design, noise{k: 22, s: c.s, rho: 0.5, centre: oneWorse(22, reg)}.draw, c.n, reps(150))
		t.Logf("%s, spread %g, %d pairs: unchanged PASS %s (pairs on average %.1f), 10 %% regression FAIL %s (pairs on average %.1f)", c.design, c.s, c.n,
			un.rate(un.pass), float64(un.pairs)/float64(un.n), re.rate(re.fail), float64(re.pairs)/float64(re.n))
		// At least 95 %: the 95 % interval must reach it.
		if _, hi := dist.ClopperPearson(un.pass, un.n, 0.05); hi < 0.95 {
			t.Errorf("%s, spread %g: unchanged passed %d of %d", c.design, c.s, un.pass, un.n)
		}
		if _, hi := dist.ClopperPearson(re.fail, re.n, 0.05); hi < 0.95 {
			t.Errorf("%s, spread %g: regression failed %d of %d", c.design, c.s, re.fail, re.n)
		}
	}
}

// TestSimOperatingCharacteristics prints, in the large run, the table of
// docs/methods.md: 22 checks (common factor 0.5), per-pair spread × pairs
// × design, the share of unchanged families passed and of families with
// one check 10 % worse failed.
func TestSimOperatingCharacteristics(t *testing.T) {
	if !large() {
		t.Skip("the table is the large run's (GATESIM_LARGE=1)")
	}
	const k, seqs = 22, 1000
	reg := paired.Worse(0.10)
	var b strings.Builder
	b.WriteString("| per-pair spread | pairs | fixed: unchanged PASS | fixed: 10 % regression FAIL | sequential: unchanged PASS (mean pairs) | sequential: 10 % regression FAIL (mean pairs) |\n|---|---|---|---|---|---|\n")
	for _, s := range []float64{0.02, 0.05, 0.1, 0.2} {
		for _, n := range []int{20, 40, 100} {
			un, re := noise{k: k, s: s, rho: 0.5}.draw, noise{k: k, s: s, rho: 0.5, centre: oneWorse(k, reg)}.draw
			fu, fr := run(t, "oc-unchanged", "fixed", un, n, seqs), run(t, "oc-regressed", "fixed", re, n, seqs)
			su, sr := run(t, "oc-unchanged", "sequential", un, n, seqs), run(t, "oc-regressed", "sequential", re, n, seqs)
			pct := func(c tally, v int) string { return fmt.Sprintf("%.1f %%", 100*float64(v)/float64(c.n)) }
			fmt.Fprintf(&b, "| %g | %d | %s | %s | %s (%.1f) | %s (%.1f) |\n", s, n, pct(fu, fu.pass), pct(fr, fr.fail),
				pct(su, su.pass), float64(su.pairs)/float64(su.n), pct(sr, sr.fail), float64(sr.pairs)/float64(sr.n))
		}
	}
	t.Log("\n" + b.String())
}

// TestSimModestDependenceFixed: one check of 40 pairs at the margin whose
// consecutive pairs correlate by 0.3 (AR(1)), the dependence the
// serial-dependence test finds least often at that size. Its false FAILs
// and PASSes all come from families the test missed; at the fixed design's
// dependence level (paired.DefaultFixedDependenceLevel) the upper 95 %
// bound of each over 10,000 families stays within 1.5 % (at 5 % they were
// 1.5 % and 1.4 %, upper bounds 1.8 % and 1.6 %).
func TestSimModestDependenceFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 families")
	}
	at := paired.Worse(margins.Fail)
	tl := run(t, "modest dependence", "fixed", noise{k: 1, s: 0.05, phi: 0.3, centre: fill(1, at)}.draw, 40, 10000)
	t.Logf("fixed, 40 pairs, AR(1) φ 0.3 at the margin: false FAIL %s, false PASS %s (%d families)", tl.rate(tl.fail), tl.rate(tl.pass), tl.n)
	for _, e := range []struct {
		what string
		k    int
	}{{"false FAIL", tl.fail}, {"false PASS", tl.pass}} {
		if _, hi := dist.ClopperPearson(e.k, tl.n, 0.05); hi > 1.5*level {
			t.Errorf("%s: %d of %d, upper 95 %% bound %.2f %% above 1.5 %%", e.what, e.k, tl.n, 100*hi)
		}
	}
}
