package trend

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Serial is the Mann–Kendall test of a series whose runs may be serially
// correlated (TestSerial). Test's p-value assumes independent runs: on
// AR(1) runs without any trend (lag-1 correlation φ = 0.3 / 0.6) it rejects
// "no trend" at 5 % in 11–14 % / 22–29 % of series of 10–40 runs, since
// runs that follow each other wander together and look like a drift.
type Serial struct {
	// Test is the plain Mann–Kendall test (Test).
	Test MannKendall
	// Lag1 is the lag-1 autocorrelation of the runs less Sen's line (the
	// trend removed, so that a drift is not taken for correlation); NaN
	// below 4 runs or when the residuals are all equal.
	Lag1 float64
	// Lag1P is the one-sided p-value of "no positive lag-1
	// autocorrelation": the share of 999 seeded permutations of the
	// residuals whose Lag1 is at least the observed one (the observed
	// order counted); 1 when Lag1 is NaN.
	Lag1P float64
	// Phi is the AR(1) correlation the variance of S is corrected for:
	// the upper end of a one-sided 95 % interval of φ from Lag1, after its
	// bias (Lag1 + (3 + 4·Lag1)/n + 1.645·√((1 − φ̂²)/n)), in [0, 0.95].
	// Estimated from a short series, φ is low as often as high; a point
	// estimate would leave the test above its level.
	Phi float64
	// Factor is the variance of S under AR(1) runs with correlation Phi
	// over its variance under independent runs (≥ 1; Hamed & Rao 1998,
	// with the rank correlations (6/π)·asin(Phi^k/2) of AR(1) normal runs).
	Factor float64
	// P is the two-sided p-value of "no trend" with the variance of S
	// multiplied by Factor (normal approximation); never below Test.P, and
	// Test.P itself when Factor is 1.
	P float64
}

// serialPermutations is the number of permutations behind Lag1P.
const serialPermutations = 999

// TestSerial computes the Mann–Kendall test of x, in run order, with the
// variance of its statistic corrected for lag-1 autocorrelation
// (Hamed & Rao 1998, "A modified Mann–Kendall trend test for
// autocorrelated data", J. Hydrology 204: 182–196, restricted to AR(1)
// with φ at its upper 95 % bound so that short series hold the level), and
// the lag-1 autocorrelation itself tested. On AR(1) normal runs without
// trend the corrected test rejects at 5 % in at most about 4 % of series of
// 10, 20 and 40 runs for φ up to 0.6 (5 % at φ = 0.8 and 10 runs); the price
// is power: a drift of 0.1 standard deviations per run over 20 independent
// runs is found in about 28 % of series against 63 % by Test. Test is
// unchanged and stays the test of independent runs.
func TestSerial(x []float64) (Serial, error) {
	return testSerial(x, math.NaN())
}

// TestSerialPhi is TestSerial with the variance of S corrected for the
// AR(1) correlation phi the caller gives (Phi = phi, at most 0.95) instead
// of the upper bound estimated from x itself; Lag1 and Lag1P are still
// those of x. A steady trend over a few runs looks like autocorrelation to
// their own lag-1 estimate (the residuals of Sen's line still wander), so
// over 10 runs that estimate, raised to its upper bound, takes most of the
// power: a caller that knows φ from a longer series of the same noise (runs
// before the ones tested) should give it. phi must be in [0, 1).
func TestSerialPhi(x []float64, phi float64) (Serial, error) {
	if !(phi >= 0 && phi < 1) {
		return Serial{}, fmt.Errorf("autocorrelation %v: expected a number from 0 to below 1", phi)
	}
	return testSerial(x, phi)
}

// testSerial is TestSerial when phi is NaN, TestSerialPhi otherwise.
func testSerial(x []float64, phi float64) (Serial, error) {
	mk, err := Test(x)
	if err != nil {
		return Serial{}, err
	}
	s := Serial{Test: mk, Lag1: math.NaN(), Lag1P: 1, Factor: 1, P: mk.P}
	n := len(x)
	if n < 4 {
		return s, nil
	}
	res := make([]float64, n)
	for i, v := range x {
		res[i] = v - mk.Slope*float64(i)
	}
	s.Lag1 = lag1(res)
	if !math.IsNaN(s.Lag1) {
		s.Lag1P = lag1P(res, s.Lag1)
	}
	nf := float64(n)
	switch {
	case !math.IsNaN(phi):
		s.Phi = min(phi, 0.95)
	case math.IsNaN(s.Lag1):
		return s, nil
	default:
		phi := math.Min(s.Lag1+(3+4*s.Lag1)/nf, 0.95)
		phi += 1.645 * math.Sqrt(math.Max(1-phi*phi, 0)/nf)
		s.Phi = math.Max(0, math.Min(phi, 0.95))
	}
	s.Factor = math.Max(1, ar1Factor(n, s.Phi))
	if s.Factor > 1 && mk.P < 1 {
		v := nf * (nf - 1) * (2*nf + 5) / 18
		if !mk.Exact {
			_, v = ties(x)
		}
		z := math.Abs(float64(mk.S)) / math.Sqrt(v*s.Factor)
		s.P = math.Max(mk.P, math.Erfc(z/math.Sqrt2))
	}
	return s, nil
}

// ar1Factor is Hamed & Rao's n/n*: 1 + 2/(n(n−1)(n−2)) ·
// Σ_{k<n} (n−k)(n−k−1)(n−k−2)·ρ_k, with ρ_k the rank correlation at lag k
// of AR(1) normal runs of correlation phi.
func ar1Factor(n int, phi float64) float64 {
	if phi <= 0 || n < 3 {
		return 1
	}
	nf := float64(n)
	var sum float64
	pk := 1.0
	for k := 1; k < n; k++ {
		pk *= phi
		kf := float64(k)
		sum += (nf - kf) * (nf - kf - 1) * (nf - kf - 2) * 6 / math.Pi * math.Asin(pk/2)
	}
	return 1 + 2/(nf*(nf-1)*(nf-2))*sum
}

// ties returns the pairs of runs of x tied in value, t(t−1)/2 per group of
// t equal values, and the variance of S under independent runs, corrected
// for those ties (t(t−1)(2t+5) per group).
func ties(x []float64) (pairs int, variance float64) {
	counts := map[float64]int{}
	for _, v := range x {
		counts[v]++
	}
	nf := float64(len(x))
	variance = nf * (nf - 1) * (2*nf + 5)
	for _, t := range counts {
		pairs += t * (t - 1) / 2
		tf := float64(t)
		variance -= tf * (tf - 1) * (2*tf + 5)
	}
	return pairs, variance / 18
}

// lag1 is the lag-1 autocorrelation of x about its mean; NaN when x is
// constant.
func lag1(x []float64) float64 {
	m := mean(x)
	var num, den float64
	for i, v := range x {
		den += (v - m) * (v - m)
		if i > 0 {
			num += (v - m) * (x[i-1] - m)
		}
	}
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// lag1P is the permutation p-value of an observed lag-1 autocorrelation
// r of x, one-sided (positive), seeded so that a series always gets the
// same p-value.
func lag1P(x []float64, r float64) float64 {
	rng := rand.New(rand.NewPCG(0x5e71a1, uint64(len(x))))
	y := append([]float64(nil), x...)
	hits := 1
	for range serialPermutations {
		rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
		if lag1(y) >= r-1e-12 {
			hits++
		}
	}
	return float64(hits) / float64(serialPermutations+1)
}
