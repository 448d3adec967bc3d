package changepoint

import (
	"math"
	"slices"

	"github.com/mqgate/mqgate/internal/stats"
)

// Wander returns the φ to whiten the tests of res's change points in x
// with when x (gaps left out) is better explained as an AR(1) process
// about one level than as the segment means res gives it, and 0
// otherwise or when res has no change point. The two are weighed by the
// Bayesian information criterion of Gaussian noise, each change point
// costing its level and 2 log n more for its location (3 log n in all,
// the main term of the modified BIC of Zhang & Siegmund 2007, R's
// changepoint default), the AR(1) fit its level, φ and variance. The
// segments are res's and as many more cuts, each where it lowers the sum
// of squares most, as lower the criterion: a staircase whose first step
// the detector has not resolved yet is not taken for wander. The φ
// returned is the lag-1 autocorrelation about one level with Kendall's
// bias corrected and raised by 2 standard errors (Lag1.Upper), at most
// MaxAutocorrelation.
//
// One series of 30 values wandering with φ = 0.8 is cut by the detector
// into segments whose residuals show no autocorrelation, and its change
// points' tests, unwhitened, fail far above their level; a step of 2.5
// noise standard deviations (10 % in 4 % noise) is explained by its two
// levels far better than by any AR(1) process, and keeps its power.
func Wander(x []float64, res Result) float64 {
	if len(res.ChangePoints) == 0 {
		return 0
	}
	v, bounds := segments(x, res)
	var a Lag1
	a.add(v, []int{0, len(v)})
	if a.n < 4 {
		return 0 // too few values, or constant
	}
	phi := a.sum / float64(a.n) // the plain lag-1 autocorrelation about the mean
	if phi <= 0 {
		return 0
	}
	bicSteps := stepsBIC(v, bounds)
	for {
		nb, ok := bestSplit(v, bounds)
		if !ok {
			break
		}
		b := stepsBIC(v, nb)
		if !(b < bicSteps) {
			break
		}
		bounds, bicSteps = nb, b
	}
	n := float64(len(v))
	if !(n*math.Log(ar1Squares(v, phi)/n)+3*math.Log(n) < bicSteps) {
		return 0
	}
	return a.Kendall().Upper(2)
}

// centredSquares returns Σ (v_i − v̄)², 0 for no values.
func centredSquares(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	mean := stats.Mean(v)
	s := 0.0
	for _, y := range v {
		s += (y - mean) * (y - mean)
	}
	return s
}

// ar1Squares returns the residual sum of squares of v as an AR(1) process
// of lag-1 autocorrelation phi about its mean, the first residual scaled
// by √(1−φ²) (Prais–Winsten).
func ar1Squares(v []float64, phi float64) float64 {
	mean := stats.Mean(v)
	rss := (1 - phi*phi) * (v[0] - mean) * (v[0] - mean)
	for i := 1; i < len(v); i++ {
		e := (v[i] - mean) - phi*(v[i-1]-mean)
		rss += e * e
	}
	return rss
}

// stepsBIC returns the BIC of v as segment means between bounds, each
// change point costing 3 log n.
func stepsBIC(v []float64, bounds []int) float64 {
	rss := 0.0
	for k := 0; k+1 < len(bounds); k++ {
		rss += centredSquares(v[bounds[k]:bounds[k+1]])
	}
	n := float64(len(v))
	return n*math.Log(rss/n) + (2+3*float64(len(bounds)-2))*math.Log(n)
}

// bestSplit returns bounds with one more cut, where it lowers the sum of
// squares most, no segment shorter than MinSegmentFloor; false when none
// fits.
func bestSplit(v []float64, bounds []int) ([]int, bool) {
	best, at := math.Inf(1), -1
	for k := 0; k+1 < len(bounds); k++ {
		lo, hi := bounds[k], bounds[k+1]
		whole := centredSquares(v[lo:hi])
		for c := lo + MinSegmentFloor; c <= hi-MinSegmentFloor; c++ {
			if d := centredSquares(v[lo:c]) + centredSquares(v[c:hi]) - whole; d < best {
				best, at = d, c
			}
		}
	}
	if at < 0 {
		return nil, false
	}
	i, _ := slices.BinarySearch(bounds, at)
	return slices.Insert(slices.Clone(bounds), i, at), true
}
