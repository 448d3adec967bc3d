package seq

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/dist"
)

// TestMixtureIsSignBet: the e-value is the mixture of the sign bets'
// wealths, each the product over the pairs of 2p (pair beyond the margin)
// or 2(1−p) (not), computed pair by pair; MinPairs is the first n at which
// n pairs all beyond reach the threshold.
func TestMixtureIsSignBet(t *testing.T) {
	m := newMixture(0.8)
	var wsum float64
	for _, lw := range m.logW {
		wsum += math.Exp(lw)
	}
	if math.Abs(wsum-1) > 1e-12 {
		t.Fatalf("weights sum to %v", wsum)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		n := 1 + rng.IntN(60)
		y := rng.IntN(n + 1)
		var e float64
		for j, p := range m.p {
			w := math.Exp(m.logW[j])
			for i := range n {
				if i < y {
					w *= 2 * p
				} else {
					w *= 2 * (1 - p)
				}
			}
			e += w
		}
		if got := math.Exp(m.logE(n, y)); math.Abs(got-e) > 1e-9*e {
			t.Errorf("n %d y %d: e-value %v, product %v", n, y, got, e)
		}
	}
	thr := math.Log(100.0)
	k := m.minPairs(thr)
	if !(m.logE(k, k) >= thr && m.logE(k-1, k-1) < thr) {
		t.Errorf("min pairs %d: log e %v at it, %v before, threshold %v", k, m.logE(k, k), m.logE(k-1, k-1), thr)
	}
}

// family draws pairs of K checks with log ratios theta + spread·noise, the
// noise sharing a common factor (correlation ½), normal or Student t₃.
type family struct {
	theta, spread []float64
	heavy         bool
}

func (f family) pair(rng *rand.Rand, i int) (a, b []float64) {
	noise := func() float64 {
		if !f.heavy {
			return rng.NormFloat64()
		}
		var chi float64
		for range 3 {
			g := rng.NormFloat64()
			chi += g * g
		}
		return rng.NormFloat64() / math.Sqrt(chi/3) / math.Sqrt(3)
	}
	common := noise()
	a, b = make([]float64, len(f.theta)), make([]float64, len(f.theta))
	for k := range a {
		e := math.Sqrt(0.5)*common + math.Sqrt(0.5)*noise()
		a[k] = 100 * math.Exp(0.003*float64(i)) // drift, common to the pair
		b[k] = a[k] * math.Exp(f.theta[k]+f.spread[k]*e)
	}
	return a, b
}

// run feeds pairs until the gate stops and returns its last decision.
func run(t *testing.T, f family, cfg Config, rng *rand.Rand) Decision {
	t.Helper()
	specs := make([]Spec, len(f.theta))
	for k := range specs {
		specs[k] = Spec{Name: string(rune('a' + k))}
	}
	g, err := New(specs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		a, b := f.pair(rng, i)
		d, err := g.Add(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != Continue {
			return d
		}
	}
}

func rateCI(k, n int) (lo, hi float64) { return dist.ClopperPearson(k, n, 0.05) }

// TestDecisionAndBounds: a clear regression fails with the check named,
// its confidence-sequence bounds above 1+δ_fail, and the gate refuses more
// pairs; the budget ends an undecidable comparison as Spent.
func TestDecisionAndBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g, err := New([]Spec{{Name: "latency"}, {Name: "throughput", HigherIsBetter: true}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var d Decision
	for i := 0; d.Status == Continue; i++ {
		lat := 1.3 * math.Exp(0.03*rng.NormFloat64())
		thr := math.Exp(0.03 * rng.NormFloat64())
		if d, err = g.Add([]float64{100, 1000}, []float64{100 * lat, 1000 * thr}); err != nil {
			t.Fatal(err)
		}
	}
	if d.Status != Fail || len(d.Checks) != 1 || d.Checks[0] != "latency" {
		t.Fatalf("decision %+v", d)
	}
	st := g.Checks()
	if !(st[0].Low > 1.05 && st[0].Low < st[0].Ratio && st[0].Ratio < st[0].High) || st[0].EFail < 2/0.01 {
		t.Errorf("latency state %+v", st[0])
	}
	if !(st[1].Low < st[1].Ratio && st[1].Ratio < st[1].High) {
		t.Errorf("throughput state %+v", st[1])
	}
	if _, err := g.Add([]float64{1, 1}, []float64{1, 1}); err == nil {
		t.Error("a pair after the decision was accepted")
	}
	g, _ = New([]Spec{{Name: "x"}}, Config{MaxPairs: 3})
	for range 3 {
		d, _ = g.Add([]float64{100}, []float64{100 * math.Exp(0.05*rng.NormFloat64())})
	}
	if d.Status != Spent || d.Pairs != 3 || len(d.Checks) != 1 {
		t.Errorf("after the budget: %+v", d)
	}
}

// TestReasonLevels: the per-check level of a decision's reason is given to
// three significant digits, as the reports' mode line gives it: 0.05 over
// 60 checks once read 0.0008333333333333334.
func TestReasonLevels(t *testing.T) {
	specs := make([]Spec, 60)
	for i := range specs {
		specs[i] = Spec{Name: fmt.Sprintf("c%d", i)}
	}
	g, err := New(specs, Config{Level: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, len(specs)), make([]float64, len(specs))
	var d Decision
	for i := 0; d.Status == Continue && i < 10000; i++ {
		for k := range a {
			a[k], b[k] = 100, 200 // every pair twice as slow: a FAIL
		}
		if d, err = g.Add(a, b); err != nil {
			t.Fatal(err)
		}
	}
	if d.Status != Fail || !strings.Contains(d.Reason, "each of 60 checks at 0.000833)") {
		t.Errorf("%v: %s", d.Status, d.Reason)
	}
}
