package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Reference values of Q, computed independently with numpy straight from the
// definition (every pair of values, no incremental sums): for the splits
// x[:tau] | x[tau:] with both sides ≥ 5 values (q), for a few splits
// x[:tau] | x[tau:kappa] that leave values out at the end (inner), and the
// split with the largest Q over every tau and kappa (best).
var energyReference = []struct {
	name              string
	x                 []float64
	q                 map[int]float64
	inner             map[[2]int]float64 // {tau, kappa}: Q
	bestTau, bestKapp int
	bestQ             float64
}{
	{
		name: "shift at 9",
		x:    []float64{100.004, 100.896, 99.178, 97.328, 98.636, 97.025, 100.18, 104.021, 98.523, 110.139, 113.47, 113.071, 112.316, 109.209, 111.912, 114.086},
		q: map[int]float64{5: 30.747125, 6: 44.0946666667, 7: 56.07925, 8: 58.1571071429, 9: 80.5045625, 10: 65.7281666667,
			11: 46.3289375},
		inner:   map[[2]int]float64{{5, 10}: 0.233, {7, 14}: 41.0516666667, {6, 15}: 37.7630666667},
		bestTau: 9, bestKapp: 16, bestQ: 80.5045625,
	},
	{
		name: "ties",
		x:    []float64{5, 5, 6, 5, 7, 5, 6, 6, 5, 9, 9, 8, 9, 9, 10, 9, 8, 9},
		q: map[int]float64{5: 7.53703703704, 6: 11.5838383838, 7: 14.0222222222, 8: 17.3862433862, 9: 23.75,
			10: 18.0458553792, 11: 13.5185185185, 12: 12.202020202, 13: 8.7962962963},
		inner:   map[[2]int]float64{{5, 10}: -0.8, {7, 14}: 8.09523809524, {6, 17}: 10.3058823529},
		bestTau: 9, bestKapp: 18, bestQ: 23.75,
	},
	{
		name: "log-normal, no shift",
		x: []float64{11.732, 16.726, 9.389, 11.991, 9.615, 18.283, 12.098, 22.388, 21.385, 18.638, 7.34, 16.192, 19.7,
			21.017, 10.891, 16.592, 13.58, 14.534, 30.703, 14.541, 19.826, 28.61, 15.904},
		q: map[int]float64{5: 15.6507519182, 6: 9.03964782609, 7: 14.6637565217, 8: 5.74536645963, 9: 1.13374916388,
			10: -0.555333333333, 11: 4.86643478261, 12: 3.89008695652, 13: 1.6205410628, 14: 0.4357090301,
			15: 4.61257142857, 16: 4.29684637681, 17: 6.76475217391, 18: 9.70782608696},
		inner:   map[[2]int]float64{{5, 10}: 14.8242, {7, 14}: 15.5031904762, {6, 22}: 9.20749090909},
		bestTau: 5, bestKapp: 22, bestQ: 15.7786931818,
	},
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestEnergyReference: the fast scan and the direct pairwise sum both give
// numpy's Q, and the scan's best split is numpy's.
func TestEnergyReference(t *testing.T) {
	for _, c := range energyReference {
		n := len(c.x)
		q := Scan(c.x, 5)
		for tau := range q[n] {
			want, ok := c.q[tau]
			if !ok {
				if !math.IsNaN(q[n][tau]) {
					t.Errorf("%s: Scan[%d][%d] = %v, want NaN (a side under 5 values)", c.name, n, tau, q[n][tau])
				}
				continue
			}
			if !near(q[n][tau], want) {
				t.Errorf("%s: Scan[%d][%d] = %.12g, want %.12g", c.name, n, tau, q[n][tau], want)
			}
			direct, err := Energy(c.x, tau)
			if err != nil || !near(direct, want) {
				t.Errorf("%s: Energy(%d) = %.12g, %v; want %.12g", c.name, tau, direct, err, want)
			}
		}
		for tk, want := range c.inner {
			if got := q[tk[1]][tk[0]]; !near(got, want) {
				t.Errorf("%s: Scan[%d][%d] = %.12g, want %.12g", c.name, tk[1], tk[0], got, want)
			}
		}
		tau, kappa, best := newScanner(n).best(c.x, 5)
		if tau != c.bestTau || kappa != c.bestKapp || !near(best, c.bestQ) {
			t.Errorf("%s: best split %d..%d Q %.12g, want %d..%d Q %.12g", c.name, tau, kappa, best, c.bestTau, c.bestKapp, c.bestQ)
		}
	}
}

// TestScanMatchesEnergy: on random series with and without ties, lengths
// 10 to 60, the O(n²) scan of every split equals the definition.
func TestScanMatchesEnergy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 100; k++ {
		n := 10 + rng.IntN(51)
		x := make([]float64, n)
		for i := range x {
			if k%2 == 0 {
				x[i] = 1000 + 50*rng.NormFloat64()
			} else {
				x[i] = float64(rng.IntN(4)) // many ties
			}
		}
		q := Scan(x, 5)
		for kappa := 10; kappa <= n; kappa++ {
			for tau := 5; tau <= kappa-5; tau++ {
				want, _ := Energy(x[:kappa], tau)
				if math.Abs(q[kappa][tau]-want) > 1e-7*math.Max(1, math.Abs(want)) {
					t.Fatalf("series %d (n=%d): Scan[%d][%d] = %.12g, Energy = %.12g", k, n, kappa, tau, q[kappa][tau], want)
				}
			}
		}
	}
}

// TestLocalTestExactP: with two segments of five values every split of the
// values into halves is one of C(10,5) = 252; the exact permutation p-values
// (counted by enumerating all 252 in Python) are 8/252 and 96/252. The Monte
// Carlo p-value with 20,000 permutations lies within 4 standard errors.
func TestLocalTestExactP(t *testing.T) {
	for _, c := range []struct {
		x     []float64
		exact float64
	}{
		{[]float64{3.1, 2.9, 3.4, 3.0, 3.3, 3.6, 3.2, 3.9, 3.5, 3.8}, 8.0 / 252},
		{[]float64{10, 12, 11, 13, 12, 14, 11, 15, 13, 12}, 96.0 / 252},
	} {
		const r = 20000
		p, err := LocalTest(c.x, 0, len(c.x), 5, r, 3, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		se := math.Sqrt(c.exact * (1 - c.exact) / r)
		if math.Abs(p-c.exact) > 4*se {
			t.Errorf("%v: p = %.5f, exact %.5f (4 SE = %.5f)", c.x, p, c.exact, 4*se)
		}
	}
}

// series returns n normal values, sd 1, with mean levels[i] from starts[i]
// on (starts[0] = 0).
func series(rng *rand.Rand, n int, starts []int, levels []float64) []float64 {
	x := make([]float64, n)
	k := 0
	for i := range x {
		for k+1 < len(starts) && i >= starts[k+1] {
			k++
		}
		x[i] = levels[k] + rng.NormFloat64()
	}
	return x
}

func indices(cps []ChangePoint) []int {
	var idx []int
	for _, c := range cps {
		idx = append(idx, c.Index)
	}
	return idx
}

// TestMinSegment: no segment is ever shorter than MinSegment, even with
// shifts every 3 values, and a shift 3 values before the end is not a
// change point at that index.
func TestMinSegment(t *testing.T) {
	for _, m := range []int{5, 8} {
		for seed := uint64(0); seed < 30; seed++ {
			rng := rand.New(rand.NewPCG(seed, 5))
			x := make([]float64, 60)
			for i := range x {
				x[i] = float64(10*((i/3)%4)) + rng.NormFloat64()
			}
			res, err := Detect(x, Options{MinSegment: m, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			prev := 0
			for _, c := range append(indices(res.ChangePoints), len(x)) {
				if c-prev < m {
					t.Fatalf("m=%d seed %d: segment [%d, %d) shorter than %d (change points %v)", m, seed, prev, c, m, indices(res.ChangePoints))
				}
				prev = c
			}
		}
	}
	x := series(rand.New(rand.NewPCG(1, 1)), 30, []int{0, 27}, []float64{100, 110})
	res, _ := Detect(x, Options{})
	if slices.Contains(indices(res.ChangePoints), 27) {
		t.Errorf("change point at 27 in a series of 30: last segment shorter than 5")
	}
}

// TestConstantAndTies: a constant series, and one alternating between two
// values, have no change point; a step between two tied plateaus is found
// where it is, with its exact ratio.
func TestConstantAndTies(t *testing.T) {
	constant := slices.Repeat([]float64{42}, 40)
	res, err := Detect(constant, Options{})
	if err != nil || len(res.ChangePoints) != 0 || res.Tests != 1 {
		t.Errorf("constant: %+v, %v; want no change point after 1 test", res, err)
	}
	alt := make([]float64, 40)
	for i := range alt {
		alt[i] = float64(5 + i%2)
	}
	if res, _ := Detect(alt, Options{}); len(res.ChangePoints) != 0 {
		t.Errorf("alternating: change points %v", indices(res.ChangePoints))
	}
	step := append(slices.Repeat([]float64{5}, 12), slices.Repeat([]float64{9}, 10)...)
	res, _ = Detect(step, Options{})
	if got := indices(res.ChangePoints); !slices.Equal(got, []int{12}) {
		t.Fatalf("step: change points %v, want [12]", got)
	}
	if c := res.ChangePoints[0]; c.Before != 5 || c.After != 9 || c.Ratio != 1.8 || c.P != 1.0/200 {
		t.Errorf("step: %+v", c)
	}
}

// TestShortSeries: fewer than 2 × MinSegment values are not tested, however
// large the shift, and the result says why.
func TestShortSeries(t *testing.T) {
	x := []float64{1, 1, 1, 1, 1, 100, 100, 100, 100}
	res, err := Detect(x, Options{})
	if err != nil || len(res.ChangePoints) != 0 || res.Tests != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
	if !strings.Contains(res.Reason, "fewer than 2 × the minimum segment length (5)") {
		t.Errorf("reason %q", res.Reason)
	}
	// NaN gaps do not count: 12 entries, 9 values.
	gappy := []float64{1, math.NaN(), 1, 1, math.NaN(), 1, 1, 100, math.NaN(), 100, 100, 100}
	if res, _ := Detect(gappy, Options{}); res.Values != 9 || res.Reason == "" {
		t.Errorf("gappy: %+v", res)
	}
	// Ten values and a clear step: tested, found.
	if res, _ := Detect(append(x, 100), Options{}); !slices.Equal(indices(res.ChangePoints), []int{5}) {
		t.Errorf("10 values: change points %v, want [5]", indices(res.ChangePoints))
	}
}

// TestGapsAndDeterminism: indices count NaN gaps; equal seeds give equal
// results.
func TestGapsAndDeterminism(t *testing.T) {
	x := series(rand.New(rand.NewPCG(3, 3)), 30, []int{0, 15}, []float64{100, 105})
	g := slices.Clone(x)
	g = slices.Insert(g, 3, math.NaN())
	g = slices.Insert(g, 20, math.NaN(), math.NaN())
	res, err := Detect(g, Options{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	// Value 15 of x is entry 16 of g (one gap before it).
	if got := indices(res.ChangePoints); !slices.Equal(got, []int{16}) {
		t.Errorf("change points %v, want [16]", got)
	}
	again, _ := Detect(g, Options{Seed: 9})
	if !slices.Equal(res.ChangePoints, again.ChangePoints) {
		t.Errorf("not deterministic: %+v vs %+v", res.ChangePoints, again.ChangePoints)
	}
	if _, err := Detect([]float64{1, math.Inf(1)}, Options{}); err == nil {
		t.Error("infinite value accepted")
	}
}

// TestOptions: bad options are refused with what is expected.
func TestOptions(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Alpha: 1.5}, "between 0 and 1"},
		{Options{MinSegment: 3}, "at least 5"},
		{Options{Alpha: 0.001, Permutations: 199}, "take at least 999"},
		{Options{Permutations: -1}, "at least 1"},
	} {
		_, err := Detect(make([]float64, 20), c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.opt, err, c.want)
		}
	}
}

// TestLocalTestStops: stopping early returns a p-value above the bound and
// below the full run's; a clear shift gets the smallest p-value.
func TestLocalTestStops(t *testing.T) {
	x := series(rand.New(rand.NewPCG(4, 4)), 20, []int{0}, []float64{100})
	full, _ := LocalTest(x, 0, 20, 5, 999, 1, 0, 1)
	early, _ := LocalTest(x, 0, 20, 5, 999, 1, 0, 0.01)
	if !(early > 0.01 && early <= full) {
		t.Errorf("early %v, full %v", early, full)
	}
	step := series(rand.New(rand.NewPCG(4, 4)), 20, []int{0, 10}, []float64{100, 110})
	if p, _ := LocalTest(step, 0, 20, 5, 999, 1, 0, 0.01); p != 1.0/1000 {
		t.Errorf("step: p = %v, want 1/1000", p)
	}
}

// ar1 returns n values 100 + AR(1) noise of lag-1 autocorrelation phi,
// stationary from the first value, innovations of sd 1.
func ar1(rng *rand.Rand, n int, phi float64) []float64 {
	x := make([]float64, n)
	e := rng.NormFloat64() / math.Sqrt(1-phi*phi)
	for i := range x {
		if i > 0 {
			e = phi*e + rng.NormFloat64()
		}
		x[i] = 100 + e
	}
	return x
}

// TestLag1: pooled over 20 series of 30 AR(1) values, the estimate lies
// within 0.15 of φ = 0.6 (raised by its 2 standard errors, ≈ 0.06); it does
// not see the steps of independent series (segments given) as
// autocorrelation; a gap is left out.
func TestLag1(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var ar, steps Lag1
	for i := 0; i < 20; i++ {
		ar.Add(ar1(rng, 30, 0.6), Result{})
		x := series(rng, 30, []int{0, 15}, []float64{100, 110})
		x[3] = math.NaN()
		steps.Add(x, Result{ChangePoints: []ChangePoint{{Index: 15}}})
	}
	if phi := ar.Estimate(); math.Abs(phi-0.6-0.06) > 0.15 {
		t.Errorf("AR(1) 0.6: estimate %.3f", phi)
	}
	if phi := steps.Estimate(); phi != 0 {
		t.Errorf("independent steps: estimate %.3f, want 0", phi)
	}
	if _, err := Detect(make([]float64, 20), Options{Autocorrelation: 1}); err == nil || !strings.Contains(err.Error(), "autocorrelation 1") {
		t.Errorf("autocorrelation 1: %v", err)
	}
}

// TestLag1Kendall: the lag-1 autocorrelation r of values around their K
// segment means, n values, is corrected to (r + K/n)/(1 − 3K/n) by
// default and to (r + K/n)/(1 − 4K/n) by Kendall; AddResiduals counts
// its parameters as segments.
func TestLag1Kendall(t *testing.T) {
	x := []float64{1, 3, 2, 5, 4, 6, 5, 8, 7, 9, 8, 7, 9, 6, 8, 5, 7, 4, 6, 3}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var num, den float64
	for i, v := range x {
		den += (v - mean) * (v - mean)
		if i > 0 {
			num += (v - mean) * (x[i-1] - mean)
		}
	}
	r, b := num/den, 1/float64(len(x))
	var a, res Lag1
	a.Add(x, Result{})
	u := make([]float64, len(x))
	for i, v := range x {
		u[i] = v - mean
	}
	res.AddResiduals(u, 1)
	for _, c := range []struct {
		name string
		a    Lag1
		want float64
	}{
		{"default", a, (r + b) / (1 - 3*b)},
		{"Kendall", a.Kendall(), (r + b) / (1 - 4*b)},
		{"residuals, Kendall", res.Kendall(), (r + b) / (1 - 4*b)},
	} {
		if got := c.a.Upper(0); math.Abs(got-min(MaxAutocorrelation, c.want)) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestLag1Without: a pooled estimate less one of its series is the
// estimate of the others; Enough says when the bias can be corrected.
func TestLag1Without(t *testing.T) {
	x := []float64{1, 3, 2, 5, 4, 6, 5, 8, 7, 9, 8, 7, 9, 6, 8, 5, 7, 4, 6, 3}
	y := []float64{2, 2, 3, 1, 4, 2, 5, 3, 3, 4, 2, 5, 1, 4, 3, 2, 4, 3, 5, 2}
	var a, b, both Lag1
	a.Add(x, Result{})
	b.Add(y, Result{})
	both.Add(x, Result{})
	both.Add(y, Result{})
	if got, want := both.Kendall().Without(b).Upper(1), a.Kendall().Upper(1); math.Abs(got-want) > 1e-12 {
		t.Errorf("pooled less y: %v, want x's %v", got, want)
	}
	if !a.Enough() {
		t.Error("20 values around 1 mean: not enough")
	}
	var few Lag1
	few.AddResiduals([]float64{1, -1, 2, -2, 1, -1}, 3)
	if few.Enough() {
		t.Error("6 residuals of 3 parameters: enough")
	}
}
