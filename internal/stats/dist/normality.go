package dist

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// ShapiroWilk tests whether x is a sample of a normal distribution, by
// Royston's algorithm AS R94 (1995), as R's shapiro.test and scipy's
// stats.shapiro compute it: the W statistic (the squared correlation between
// the sorted sample and the expected normal order statistics' weights) and
// its p-value, the chance of a W this small or smaller if x is normal.
//
// It needs 3 to 5000 values that are not all equal. For 4 ≤ n ≤ 11 the
// p-value uses Royston's small-sample approximation; a W below its support
// gives p = 1e-99, as in AS R94.
func ShapiroWilk(x []float64) (w, p float64, err error) {
	n := len(x)
	if n < 3 {
		return math.NaN(), math.NaN(), errors.New("the Shapiro–Wilk test needs at least 3 values")
	}
	if n > 5000 {
		return math.NaN(), math.NaN(), errors.New("the Shapiro–Wilk test takes at most 5000 values")
	}
	xs := append([]float64(nil), x...)
	sort.Float64s(xs)
	rng := xs[n-1] - xs[0]
	if !(rng > 1e-19*math.Max(1, math.Abs(xs[0]))) {
		return math.NaN(), math.NaN(), errors.New("all values are equal")
	}
	a := swilkCoefficients(n)

	// W is the squared correlation between xs and the antisymmetric weights
	// c (c[i] = −a[i], c[n−1−i] = a[i]); computed on range-scaled values.
	c := make([]float64, n)
	for i := 0; i < n/2; i++ {
		c[i], c[n-1-i] = -a[i], a[i]
	}
	var mx, mc float64
	for i := range xs {
		mx += xs[i] / rng
		mc += c[i]
	}
	mx /= float64(n)
	mc /= float64(n)
	var sxx, scc, sxc float64
	for i := range xs {
		dx, dc := xs[i]/rng-mx, c[i]-mc
		sxx += dx * dx
		scc += dc * dc
		sxc += dx * dc
	}
	// 1 − W, written to keep precision when W is near 1 (AS R94).
	root := math.Sqrt(scc * sxx)
	w1 := (root - sxc) * (root + sxc) / (scc * sxx)
	w = 1 - w1

	if n == 3 {
		// Exact: p = 6/π · (asin √W − π/3).
		p = 6 / math.Pi * (math.Asin(math.Sqrt(w)) - math.Pi/3)
		return w, math.Max(p, 0), nil
	}
	y := math.Log(w1)
	an := float64(n)
	var m, s float64
	if n <= 11 {
		gamma := poly([]float64{-2.273, 0.459}, an)
		if y >= gamma {
			return w, 1e-99, nil
		}
		y = -math.Log(gamma - y)
		m = poly([]float64{0.544, -0.39978, 0.025054, -6.714e-4}, an)
		s = math.Exp(poly([]float64{1.3822, -0.77857, 0.062767, -0.0020322}, an))
	} else {
		ln := math.Log(an)
		m = poly([]float64{-1.5861, -0.31082, -0.083751, 0.0038915}, ln)
		s = math.Exp(poly([]float64{-0.4803, -0.082676, 0.0030302}, ln))
	}
	return w, distuv.Normal{Mu: m, Sigma: s}.Survival(y), nil
}

// swilkCoefficients returns the AS R94 weights a[0..n/2−1] of the upper
// half of the sorted sample (positive, largest first), normalised so that
// the full antisymmetric vector has unit length.
func swilkCoefficients(n int) []float64 {
	nn2 := n / 2
	a := make([]float64, nn2)
	if n == 3 {
		a[0] = math.Sqrt2 / 2
		return a
	}
	an := float64(n)
	m := make([]float64, nn2)
	var summ2 float64
	for i := range m {
		m[i] = distuv.UnitNormal.Quantile((float64(i+1) - 0.375) / (an + 0.25))
		summ2 += m[i] * m[i]
	}
	summ2 *= 2
	ssumm2 := math.Sqrt(summ2)
	rsn := 1 / math.Sqrt(an)
	a1 := poly([]float64{0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056}, rsn) - m[0]/ssumm2
	first := 1
	var fac float64
	if n > 5 {
		first = 2
		a2 := -m[1]/ssumm2 + poly([]float64{0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633}, rsn)
		fac = math.Sqrt((summ2 - 2*m[0]*m[0] - 2*m[1]*m[1]) / (1 - 2*a1*a1 - 2*a2*a2))
		a[1] = a2
	} else {
		fac = math.Sqrt((summ2 - 2*m[0]*m[0]) / (1 - 2*a1*a1))
	}
	a[0] = a1
	for i := first; i < nn2; i++ {
		a[i] = -m[i] / fac
	}
	return a
}

// poly evaluates c[0] + c[1]·x + c[2]·x² + …
func poly(c []float64, x float64) float64 {
	r := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		r = r*x + c[i]
	}
	return r
}
