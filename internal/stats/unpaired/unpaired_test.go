package unpaired

import (
	"math"
	"testing"
)

// TestWelchWorse: the t statistic and Satterthwaite degrees of freedom of
// a hand-worked case, the direction, and where the test does not apply.
func TestWelchWorse(t *testing.T) {
	ref := []float64{math.E, math.Exp(2), math.Exp(3)}       // logs 1, 2, 3: mean 2, variance 1
	cand := []float64{math.Exp(3), math.Exp(5), math.Exp(7)} // logs 3, 5, 7: mean 5, variance 4
	// t = 3 / √(1/3 + 4/3) = 3/√(5/3) ≈ 2.3238; df = (5/3)² / ((1/3)²/2 + (4/3)²/2) = 50/17 ≈ 2.941.
	p, ok := WelchWorse(ref, cand, false)
	if !ok || math.Abs(p-0.0522394433423618) > 1e-9 { // the t density integrated numerically
		t.Errorf("latency, candidate higher: p %v %v, want 0.0522394433423618", p, ok)
	}
	if q, _ := WelchWorse(ref, cand, true); math.Abs(p+q-1) > 1e-12 {
		t.Errorf("throughput: p %v, want 1 − %v", q, p)
	}
	if q, _ := WelchWorse(ref, ref, false); math.Abs(q-0.5) > 1e-12 {
		t.Errorf("same sides: p %v", q)
	}
	for _, c := range [][2][]float64{{{1}, {1, 2}}, {{1, 2}, {0, 2}}, {{3, 3}, {3, 3}}} {
		if _, ok := WelchWorse(c[0], c[1], false); ok {
			t.Errorf("%v: applied", c)
		}
	}
}
