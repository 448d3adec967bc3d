//go:build !race

package seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// arFamily is a family of checks with independent units whose log ratios
// are theta + spread·e, each check's e a stationary AR(1) of coefficient
// phi with unit variance and normal innovations, independent of the other
// checks' (phi 0: independent units).
type arFamily struct {
	theta  []float64
	spread float64
	phi    float64
	// wander, when set, gives check k its own spread and φ instead.
	wander map[int][2]float64
}

// of returns check k's spread and φ.
func (f arFamily) of(k int) (spread, phi float64) {
	if w, ok := f.wander[k]; ok {
		return w[0], w[1]
	}
	return f.spread, f.phi
}

// arOutcome counts how the gates of one scenario stopped.
type arOutcome struct {
	gates, fails, passes, spent, refused int
	// early are the fails decided by the group-sequential boundaries,
	// held those decided by the held gate's analysis at the budget.
	early, held int
	pairs       []int
}

func (o arOutcome) rate(k int) string {
	lo, hi := dist.ClopperPearson(k, o.gates, 0.05)
	return fmt.Sprintf("%.2f %% [%.2f, %.2f]", 100*float64(k)/float64(o.gates), 100*lo, 100*hi)
}

func (o arOutcome) medianPairs() int {
	s := slices.Clone(o.pairs)
	slices.Sort(s)
	return s[len(s)/2]
}

// simAR runs gates of the family with the budget, as run ab does (default
// level, margins and first look), and counts their verdicts.
func simAR(t *testing.T, f arFamily, budget, gates int, seed uint64) arOutcome {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(budget)))
	specs := make([]Spec, len(f.theta))
	for k := range specs {
		specs[k] = Spec{Name: fmt.Sprintf("c%d", k)}
	}
	o := arOutcome{gates: gates}
	e := make([]float64, len(f.theta))
	a, b := make([]float64, len(f.theta)), make([]float64, len(f.theta))
	for range gates {
		g, err := New(specs, Config{MaxPairs: budget})
		if err != nil {
			t.Fatal(err)
		}
		for k := range e {
			e[k] = rng.NormFloat64()
		}
		var d Decision
		for d.Status == Continue {
			for k := range e {
				spread, phi := f.of(k)
				e[k] = phi*e[k] + math.Sqrt(1-phi*phi)*rng.NormFloat64()
				a[k], b[k] = 1, math.Exp(f.theta[k]+spread*e[k])
			}
			if d, err = g.Add(a, b); err != nil {
				t.Fatal(err)
			}
		}
		o.pairs = append(o.pairs, d.Pairs)
		switch d.Status {
		case Fail:
			o.fails++
			if strings.HasPrefix(d.Method, "held") {
				o.held++
			} else {
				o.early++
			}
		case Pass:
			o.passes++
		case Spent:
			o.spent++
		case Refused:
			o.refused++
		}
	}
	return o
}

// simLarge is the number of gates per scenario of the large versions of
// the simulations, MQGATE_SIM_LARGE (0 when unset: they skip).
func simLarge(t *testing.T) int {
	var n int
	if s := os.Getenv("MQGATE_SIM_LARGE"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil || n < 100 {
			t.Fatalf("MQGATE_SIM_LARGE=%q: want a number of gates, at least 100", s)
		}
	}
	return n
}

// TestSimDependentAtTheMargin: one check exactly at the fail margin, its
// pairs an AR(1) of φ 0.6, 0.9 and 0.95 (normal innovations, spread 0.05),
// budget 60 pairs, the gate as run ab --max-runs 60 sets it: the share
// falsely failed is at most the level (1 %), with the upper 95 %
// Clopper–Pearson bound at most 1.5 %. Before the gate tested the log
// ratios themselves at its first decision it failed 1.5, 3.6 and 8.5 %
// of such families (2,000 each), nearly all at the first look: the pairs
// of a stretch wholly beyond the margin, clipped to two of their own
// spreads about it, were a constant with no dependence to see.
func TestSimDependentAtTheMargin(t *testing.T) {
	if testing.Short() {
		t.Skip("12,000 gates")
	}
	at := paired.Worse(paired.DefaultMargins.Fail)
	for _, phi := range []float64{0.6, 0.9, 0.95} {
		o := simAR(t, arFamily{theta: []float64{at}, spread: 0.05, phi: phi}, 60, 4000, 1)
		_, hi := dist.ClopperPearson(o.fails, o.gates, 0.05)
		t.Logf("φ %.2f: false FAIL %s (%d at a look, %d held to the budget), refused %d, spent %d", phi, o.rate(o.fails), o.early, o.held, o.refused, o.spent)
		if o.fails*100 > o.gates || hi > 0.015 {
			t.Errorf("φ %.2f: false FAIL %s, want at most 1 %% with the upper bound at most 1.5 %%", phi, o.rate(o.fails))
		}
	}
}

// TestSimDependentKeepsPower: what holding dependent families must not
// cost independent ones, 22 checks with independent pairs, budget 60: an
// unchanged family passes within the budget at least 90 % of the time at
// spreads 0.03 and 0.05, and one whose first check is 10 % worse fails at
// least 95 % of the time at spreads 0.02 and 0.05.
func TestSimDependentKeepsPower(t *testing.T) {
	if testing.Short() {
		t.Skip("4,000 gates of 22 checks")
	}
	for _, sp := range []float64{0.03, 0.05} {
		o := simAR(t, arFamily{theta: make([]float64, 22), spread: sp}, 60, 1000, 2)
		t.Logf("unchanged, spread %.2f: PASS %s, median pairs %d", sp, o.rate(o.passes), o.medianPairs())
		if o.passes*100 < 90*o.gates {
			t.Errorf("unchanged, spread %.2f: PASS %s, want at least 90 %%", sp, o.rate(o.passes))
		}
	}
	for _, sp := range []float64{0.02, 0.05} {
		theta := make([]float64, 22)
		theta[0] = paired.Worse(0.10)
		o := simAR(t, arFamily{theta: theta, spread: sp}, 60, 1000, 3)
		t.Logf("10 %% regression, spread %.2f: FAIL %s, median pairs %d", sp, o.rate(o.fails), o.medianPairs())
		if o.fails*100 < 95*o.gates {
			t.Errorf("10 %% regression, spread %.2f: FAIL %s, want at least 95 %%", sp, o.rate(o.fails))
		}
	}
}

// TestSimDependentTable logs the whole table, MQGATE_SIM_LARGE gates per
// row: false FAIL at the margin for φ 0 … 0.95 at budgets 60 and 150, an
// unchanged family's PASS and a regressed one's FAIL, with the median
// pairs to the decision.
func TestSimDependentTable(t *testing.T) {
	gates := simLarge(t)
	if gates == 0 {
		t.Skip("MQGATE_SIM_LARGE unset")
	}
	at := paired.Worse(paired.DefaultMargins.Fail)
	for _, budget := range []int{60, 150} {
		for _, phi := range []float64{0, 0.6, 0.9, 0.95} {
			o := simAR(t, arFamily{theta: []float64{at}, spread: 0.05, phi: phi}, budget, gates, 1)
			t.Logf("| %d | margin, 1 check, spread 0.05, φ %.2f | false FAIL %s (early %d, held %d) | PASS %d, spent %d, refused %d | median pairs %d |",
				budget, phi, o.rate(o.fails), o.early, o.held, o.passes, o.spent, o.refused, o.medianPairs())
		}
		for _, sp := range []float64{0.03, 0.05} {
			o := simAR(t, arFamily{theta: make([]float64, 22), spread: sp}, budget, gates, 2)
			t.Logf("| %d | unchanged, 22 checks, spread %.2f | PASS %s | FAIL %d, spent %d, refused %d | median pairs %d |",
				budget, sp, o.rate(o.passes), o.fails, o.spent, o.refused, o.medianPairs())
		}
		for _, sp := range []float64{0.02, 0.03, 0.05} {
			theta := make([]float64, 22)
			theta[0] = paired.Worse(0.10)
			o := simAR(t, arFamily{theta: theta, spread: sp}, budget, gates, 3)
			t.Logf("| %d | 10 %% regression of 1 of 22 checks, spread %.2f | FAIL %s | PASS %d, spent %d, refused %d | median pairs %d |",
				budget, sp, o.rate(o.fails), o.passes, o.spent, o.refused, o.medianPairs())
		}
		// Four checks 24 times slower whose size wanders with the load
		// (log ratio spread 0.7, AR(1) φ 0.9), 18 unchanged (spread 0.03).
		theta := make([]float64, 22)
		w := map[int][2]float64{}
		for k := range 4 {
			theta[k], w[k] = math.Log(24), [2]float64{0.7, 0.9}
		}
		o := simAR(t, arFamily{theta: theta, spread: 0.03, wander: w}, budget, gates, 4)
		t.Logf("| %d | ×24 in 4 of 22 checks, wandering (spread 0.7, φ 0.9) | FAIL %s (early %d, held %d) | PASS %d, spent %d, refused %d | median pairs %d |",
			budget, o.rate(o.fails), o.early, o.held, o.passes, o.spent, o.refused, o.medianPairs())
	}
}
