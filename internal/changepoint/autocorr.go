package changepoint

import (
	"math"
)

// MaxAutocorrelation caps the estimated lag-1 autocorrelation: nearer 1 a
// pre-whitened series keeps almost nothing of a shift.
const MaxAutocorrelation = 0.9

// Lag1 estimates the lag-1 autocorrelation φ of the noise of one or more
// series around their segmentations (see the package documentation): Add
// each series with the result of its plain test, then Estimate. Series of
// one history (one machine) can be pooled, which estimates φ far more
// precisely than one series of 30 values can. The zero value is empty.
type Lag1 struct {
	// sum is Σ n_i·r_i over the series added, n = Σ n_i and k the number of
	// segments of all of them.
	sum  float64
	n, k int
}

// Add adds series x (NaN gaps are left out, as Detect does) around the
// segments of res, a result of Detect for x.
func (a *Lag1) Add(x []float64, res Result) {
	vals := make([]float64, 0, len(x))
	cut := make([]int, 0, len(res.ChangePoints)+2)
	cut = append(cut, 0)
	next := 0
	for i, v := range x {
		for next < len(res.ChangePoints) && res.ChangePoints[next].Index <= i {
			cut = append(cut, len(vals))
			next++
		}
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	a.add(vals, append(cut, len(vals)))
}

// add adds the values v, without gaps, around the segment bounds (0 = b_0
// < b_1 < … < b_K = len(v)): their lag-1 autocorrelation r around the
// segment means, pairs within a segment only, weighted by len(v).
func (a *Lag1) add(v []float64, bounds []int) {
	var num, den float64
	k := 0
	for s := 0; s+1 < len(bounds); s++ {
		seg := v[bounds[s]:bounds[s+1]]
		if len(seg) == 0 {
			continue
		}
		k++
		mean := 0.0
		for _, x := range seg {
			mean += x
		}
		mean /= float64(len(seg))
		for i, x := range seg {
			r := x - mean
			den += r * r
			if i > 0 {
				num += r * (seg[i-1] - mean)
			}
		}
	}
	if !(den > 0) {
		return // constant: no information
	}
	a.sum += float64(len(v)) * num / den
	a.n += len(v)
	a.k += k
}

// Estimate returns the φ to pre-whiten with, 0 for none. The weighted mean
// r of the series' autocorrelations is corrected for the bias of the K
// estimated segment means among n values (E[r] ≈ φ − K(1+3φ)/n; Kendall
// 1954, Marriott & Pope 1954). An estimate of at most 1.5 standard errors
// √((1−φ²)/n) gives 0 (no pre-whitening; a negative autocorrelation only
// makes the permutation test conservative); a larger one is raised by 2
// standard errors, because whitening too little is what makes the test find
// changes that are not there, and clamped to MaxAutocorrelation.
func (a Lag1) Estimate() float64 {
	if a.n < 4 {
		return 0
	}
	b := float64(a.k) / float64(a.n)
	if 3*b >= 1 {
		return 0 // too many segments for what their values can say
	}
	phi := (a.sum/float64(a.n) + b) / (1 - 3*b)
	se := math.Sqrt((1 - min(phi*phi, 1)) / float64(a.n))
	if !(phi > 1.5*se) {
		return 0
	}
	return min(MaxAutocorrelation, phi+2*se)
}

// whiten returns u pre-whitened with φ: w_0 = √(1−φ²)·u_0, w_i = u_i −
// φ·u_{i−1} (Prais–Winsten). u should be centred (the detector's values
// are), so that w_0 has the level of the others.
func whiten(u []float64, phi float64) []float64 {
	if phi == 0 || len(u) == 0 {
		return u
	}
	w := make([]float64, len(u))
	w[0] = math.Sqrt(1-phi*phi) * u[0]
	for i := 1; i < len(u); i++ {
		w[i] = u[i] - phi*u[i-1]
	}
	return w
}
