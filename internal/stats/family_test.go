package stats

import (
	"math"
	"testing"
)

func TestHolm(t *testing.T) {
	// Worked example: K = 4, α = 0.05. Sorted p 0.005 ≤ 0.0125 rejected,
	// 0.011 ≤ 0.01667 rejected, 0.03 > 0.025 stops; 0.04 is not rejected
	// although 0.04 ≤ 0.05.
	p := []float64{0.04, 0.005, math.NaN(), 0.03, 0.011}
	holm := Holm(p, 0.05)
	var adj, tail []float64
	var rej []bool
	for _, h := range holm {
		adj, rej, tail = append(adj, h.Adjusted), append(rej, h.Rejected), append(tail, h.Tail)
	}
	wantAdj := []float64{0.06, 0.02, math.NaN(), 0.06, 0.033}
	wantRej := []bool{false, true, false, false, true}
	wantTail := []float64{0.025, 0.0125, math.NaN(), 0.025, 0.05 / 3}
	for i := range p {
		same := func(a, b float64) bool { return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12 }
		if !same(adj[i], wantAdj[i]) || rej[i] != wantRej[i] || !same(tail[i], wantTail[i]) {
			t.Errorf("p %v: adjusted %v rejected %v tail %v; want %v %v %v", p[i], adj[i], rej[i], tail[i], wantAdj[i], wantRej[i], wantTail[i])
		}
		if !math.IsNaN(adj[i]) && (adj[i] <= 0.05) != rej[i] {
			t.Errorf("adjusted %v disagrees with rejected %v", adj[i], rej[i])
		}
	}
}

// TestHolmLevel: the level each p-value is compared with, α/(K−r+1) in the
// step-down order, whether or not an earlier one stopped the rejections;
// Tail freezes at the first one not rejected.
func TestHolmLevel(t *testing.T) {
	got := Holm([]float64{1, 0.001, 0.5, 1}, 0.04)
	want := []Decision{{1, false, 0.02, 0.04 / 3}, {0.004, true, 0.01, 0.01}, {1, false, 0.04 / 3, 0.04 / 3}, {1, false, 0.04, 0.04 / 3}}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
