package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// shareInputs segments each series as Detect does and returns the two
// Lag1 of each for Share.
func shareInputs(t *testing.T, xs [][]float64) (seg, whole []Lag1) {
	t.Helper()
	seg, whole = make([]Lag1, len(xs)), make([]Lag1, len(xs))
	for i, x := range xs {
		res, err := Detect(x, Options{Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		seg[i].Add(x, res)
		whole[i].Add(x, Result{})
	}
	return seg, whole
}

// TestShareSeparates: of 11 series of 30 values, 3 with AR(1) noise of
// φ = 0.8 and 8 independent, the 3 are shown to differ and whitened with
// at least 0.4 in at least 85 % of 200 groups, while the 8 share one φ
// (pooling all 11 gave the 3 the pooled estimate, 0.22 on average here, and
// left some unwhitened).
func TestShareSeparates(t *testing.T) {
	high, low, groups := 0, 0, 200
	var highSum, pooledSum float64
	for g := 0; g < groups; g++ {
		rng := rand.New(rand.NewPCG(uint64(g), 41))
		xs := make([][]float64, 11)
		for i := range xs {
			phi := 0.0
			if i%4 == 1 {
				phi = 0.8
			}
			xs[i] = ar1(rng, 30, phi)
		}
		seg, whole := shareInputs(t, xs)
		phis := Share(seg, whole)
		var all Lag1
		for _, s := range seg {
			all = all.merge(s)
		}
		pooledSum += all.Estimate()
		allLow := true
		for i, phi := range phis {
			if i%4 == 1 {
				highSum += phi
				if phi >= 0.4 {
					high++
				}
			} else if phi != phis[0] {
				allLow = false
			}
		}
		if allLow {
			low++
		}
	}
	t.Logf("φ = 0.8 series whitened with at least 0.4: %d of %d (mean φ %.2f; pooled over all 11: %.2f); independent series sharing one φ in %d of %d groups",
		high, 3*groups, highSum/float64(3*groups), pooledSum/float64(groups), low, groups)
	if high < 3*groups*85/100 || low < groups*9/10 {
		t.Errorf("high %d of %d, independent sharing %d of %d", high, 3*groups, low, groups)
	}
}

// TestShareHomogeneous: 11 series with one φ = 0.6 share one estimate in
// most groups, that estimate is near the pooled one, and a lone series gets
// its own Estimate. (A series that leaves the group but whose own estimate
// is lower keeps the group's, pooled without it.)
func TestShareHomogeneous(t *testing.T) {
	shared, groups := 0, 100
	for g := 0; g < groups; g++ {
		rng := rand.New(rand.NewPCG(uint64(g), 43))
		xs := make([][]float64, 11)
		for i := range xs {
			xs[i] = ar1(rng, 30, 0.6)
		}
		seg, whole := shareInputs(t, xs)
		phis := Share(seg, whole)
		same := true
		for _, phi := range phis {
			same = same && phi == phis[0]
		}
		if same {
			shared++
			var pooled Lag1
			for _, s := range seg {
				pooled = pooled.merge(s)
			}
			if math.Abs(phis[0]-pooled.Estimate()) > 0.15 {
				t.Errorf("group %d: shared φ %v, pooled estimate of all %v", g, phis[0], pooled.Estimate())
			}
		}
		if one := Share(seg[:1], whole[:1]); one[0] != seg[0].Estimate() {
			t.Errorf("group %d: a lone series got %v, its Estimate is %v", g, one[0], seg[0].Estimate())
		}
	}
	t.Logf("%d of %d homogeneous groups share one φ", shared, groups)
	if shared < groups*85/100 {
		t.Errorf("%d of %d homogeneous groups share one φ", shared, groups)
	}
	if got := chi2Upper(10, 0.05); math.Abs(got-18.307) > 0.1 {
		t.Errorf("χ² 95 %% quantile, 10 df: %v, want 18.307", got)
	}
}

// TestLag1NewestSegmentStep: 100 series of 30 independent values, then 5
// values 8 sd higher and 5 values 5 sd higher. The plain test cannot split
// the newest 10 (two halves of 5 reach p = 2/252 at best) and leaves them
// one segment; a step inside a segment looks like autocorrelation, and 45
// of these series got some around their segmentation. Split at its best
// split, the newest segment gives no autocorrelation in at least 85 % of
// them (89 here).
func TestLag1NewestSegmentStep(t *testing.T) {
	zero, unresolved := 0, 0
	for s := uint64(0); s < 100; s++ {
		rng := rand.New(rand.NewPCG(s, 47))
		x := ar1(rng, 40, 0)
		for i := 30; i < 40; i++ {
			x[i] += 8
			if i >= 35 {
				x[i] -= 3
			}
		}
		res, err := Detect(x, Options{Seed: s})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.ChangePoints) == 1 && res.ChangePoints[0].Index == 30 {
			unresolved++
		}
		var a Lag1
		a.Add(x, res)
		if a.Estimate() == 0 {
			zero++
		}
	}
	t.Logf("newest 10 values left one segment in %d of 100 series; no autocorrelation estimated in %d", unresolved, zero)
	if zero < 85 || unresolved < 50 {
		t.Errorf("no autocorrelation estimated in %d of 100 series (newest 10 one segment in %d)", zero, unresolved)
	}
}

// TestLag1Upper: Upper is the bias-corrected estimate raised by z standard
// errors, without Estimate's threshold: 0 raised by z on a series whose
// estimate is below 0, Estimate's own value at z = 2 when Estimate pre-
// whitens, never above MaxAutocorrelation, and 0 for too few values.
func TestLag1Upper(t *testing.T) {
	alt := make([]float64, 30) // lag-1 autocorrelation near −1
	for i := range alt {
		alt[i] = float64(i % 2)
	}
	var a Lag1
	a.Add(alt, Result{})
	if got, want := a.Upper(1), math.Sqrt(1.0/30); math.Abs(got-want) > 1e-12 {
		t.Errorf("alternating: Upper(1) = %v, want %v", got, want)
	}
	if a.Estimate() != 0 {
		t.Errorf("alternating: Estimate %v", a.Estimate())
	}
	walk := make([]float64, 30) // strongly autocorrelated
	for i := range walk {
		walk[i] = math.Sin(float64(i) / 5)
	}
	var b Lag1
	b.Add(walk, Result{})
	if e := b.Estimate(); e == 0 || b.Upper(2) != e || b.Upper(1) > e || b.Upper(10) != MaxAutocorrelation {
		t.Errorf("walk: Estimate %v, Upper(1) %v, Upper(2) %v, Upper(10) %v", e, b.Upper(1), b.Upper(2), b.Upper(10))
	}
	var c Lag1
	c.Add([]float64{1, 2, 3}, Result{})
	if c.Upper(1) != 0 {
		t.Errorf("3 values: Upper(1) = %v", c.Upper(1))
	}
}
