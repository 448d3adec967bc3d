package changepoint

import (
	"math"
	"slices"
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
	// kendall: the bias is corrected by K(1+4φ)/n (Kendall).
	kendall bool
}

// Kendall returns a whose Estimate, Shown and Upper correct the bias of the
// lag-1 autocorrelation by K(1+4φ)/n (Kendall 1954) instead of K(1+3φ)/n.
// The estimate around segment means divides n−K lagged products by n
// squares, which adds K·φ/n to the least-squares estimator's bias of
// K(1+3φ)/n (Marriott & Pope 1954; Shaman & Stine 1988). Bounds of φ for
// a test that must hold its level use it; detection keeps 1+3φ, since
// whitening independent series more often cost the power to find a fresh
// step.
func (a Lag1) Kendall() Lag1 {
	a.kendall = true
	return a
}

// Add adds series x (NaN gaps are left out, as Detect does) around the
// segments of res, a result of Detect for x.
func (a *Lag1) Add(x []float64, res Result) {
	a.add(segments(x, res))
}

// segments returns the values of x without its gaps and the bounds of the
// segments of res among them (0 = b_0 ≤ b_1 ≤ … ≤ b_K = len(v)).
func segments(x []float64, res Result) (v []float64, bounds []int) {
	v = make([]float64, 0, len(x))
	bounds = make([]int, 0, len(res.ChangePoints)+2)
	bounds = append(bounds, 0)
	next := 0
	for i, y := range x {
		for next < len(res.ChangePoints) && res.ChangePoints[next].Index <= i {
			bounds = append(bounds, len(v))
			next++
		}
		if !math.IsNaN(y) {
			v = append(v, y)
		}
	}
	return v, append(bounds, len(v))
}

// add adds the values v, without gaps, around the segment bounds (0 = b_0
// < b_1 < … < b_K = len(v)): their lag-1 autocorrelation r around the
// segment means, pairs within a segment only, weighted by len(v).
func (a *Lag1) add(v []float64, bounds []int) {
	var num, den float64
	k, used := 0, 0
	if lo := bounds[len(bounds)-2]; len(bounds) > 2 && v != nil {
		// The newest segment, when short, split where it splits best.
		if seg := v[lo:]; len(seg) < estimateSegment && len(seg) >= 2*MinSegmentFloor {
			t, _, _ := newScanner(len(seg)).best(seg, MinSegmentFloor)
			bounds = append(slices.Clone(bounds[:len(bounds)-1]), lo+t, len(v))
		}
	}
	for s := 0; s+1 < len(bounds); s++ {
		seg := v[bounds[s]:bounds[s+1]]
		if len(seg) == 0 {
			continue
		}
		k++
		used += len(seg)
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
	a.pool(num, den, used, k)
}

// pool adds the lag-1 autocorrelation num/den of n values around k
// estimated parameters (segment means, coefficients); nothing when den is
// 0 (constant values: no information).
func (a *Lag1) pool(num, den float64, n, k int) {
	if den > 0 {
		a.sum += float64(n) * num / den
		a.n += n
		a.k += k
	}
}

// Estimate returns the φ to pre-whiten with, 0 for none. The weighted mean
// r of the series' autocorrelations is corrected for the bias of the K
// estimated segment means among n values (E[r] ≈ φ − K(1+3φ)/n; Kendall
// 1954, Marriott & Pope 1954). An estimate of at most 1.5 standard errors
// √((1−φ²)/n) gives 0 (no pre-whitening; a negative autocorrelation only
// makes the permutation test conservative); a larger one is raised by 2
// standard errors, because whitening too little is what makes the test find
// changes that are not there, and clamped to MaxAutocorrelation.
func (a Lag1) Estimate() float64 { return a.Shown(1.5, 2) }

// Shown returns a's bias-corrected estimate of φ raised by raise standard
// errors √((1−φ²)/n), at most MaxAutocorrelation, when it is above shown
// standard errors, and 0 otherwise (or when a holds too little): φ as
// far as a shows that there is some. Estimate is Shown(1.5, 2).
func (a Lag1) Shown(shown, raise float64) float64 {
	phi, ok := a.corrected()
	if !ok {
		return 0
	}
	se := a.se(phi)
	if !(phi > shown*se) {
		return 0
	}
	return min(MaxAutocorrelation, phi+raise*se)
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

// estimateSegment: a newest segment (after the first) of fewer values than
// this, and at least 2 × MinSegmentFloor, is split at its best split for
// Lag1. A short newest segment can hold a step the permutation test cannot
// resolve yet (two halves of 5 values give p-values of 2/252 at best), and
// a step inside a segment looks like autocorrelation: a series of 40
// values stepping up 20 % at 30 and back 8 % at 35 was whitened with 0.9
// and lost both changes. The split is one more segment for the bias
// correction.
const estimateSegment = 3 * MinSegmentFloor

// shareLevel is the level of the test that a group of series shares one
// lag-1 autocorrelation (Share).
const shareLevel = 0.05

// corrected returns the bias-corrected lag-1 autocorrelation of a (the φ
// of Estimate before its threshold and raise) and whether a holds enough
// values to say anything.
func (a Lag1) corrected() (float64, bool) {
	if a.n < 4 {
		return 0, false
	}
	b := float64(a.k) / float64(a.n)
	c := 3.0
	if a.kendall {
		c = 4
	}
	if c*b >= 1 {
		return 0, false
	}
	return (a.sum/float64(a.n) + b) / (1 - c*b), true
}

// Without returns a less b, a series (or series) added to a: the
// estimate pooled over the others, which does not count a series' own
// values twice when a bound from the others is set beside its own.
func (a Lag1) Without(b Lag1) Lag1 {
	return Lag1{sum: a.sum - b.sum, n: a.n - b.n, k: a.k - b.k, kendall: a.kendall}
}

// Enough reports whether a holds enough values for its bias to be
// corrected: when it does not, Upper and Estimate return 0, which says
// nothing about φ.
func (a Lag1) Enough() bool {
	_, ok := a.corrected()
	return ok
}

// merge returns a and b pooled.
func (a Lag1) merge(b Lag1) Lag1 {
	return Lag1{sum: a.sum + b.sum, n: a.n + b.n, k: a.k + b.k, kendall: a.kendall || b.kendall}
}

// Share returns the φ to pre-whiten each of several series with, from two
// Lag1 per series: seg[i] holds series i around its plain segmentation
// (Add with its result), whole[i] the same values around one segment (Add
// with an empty Result). Series of one machine often share their
// autocorrelation, and pooling estimates it far better than one short
// series can; but pooling series that do not share it whitens the most
// autocorrelated ones too little, which is what makes false change points.
// So the series share a pooled estimate only as far as they can be shown
// to: their autocorrelations around one segment, r_i (bias-corrected), are
// tested for homogeneity (Cochran's Q = Σ n_i·(r_i − r̄)²/(1 − r̄²) against
// χ² with one degree of freedom less than the series, at 5 %; r̄ the mean
// weighted by n_i; each r_i has variance (1 − φ²)/n_i under AR(1)), and
// while that is rejected the series farthest from r̄ leaves the group. One
// segment, not the plain segmentation, because a drifting series' plain
// segmentation splits it where it drifts and leaves little autocorrelation
// around its segments: that is how an autocorrelated series hides among
// independent ones. The series left in the group (and any too short to
// estimate anything) get the group's pooled Estimate around their
// segmentations. Each series that left gets the larger of that and its own
// estimate around its segmentation raised by 2 standard errors, without
// Estimate's threshold of 1.5 (at most MaxAutocorrelation): it was shown to
// differ, and with 30 values its own estimate is too uncertain to drop.
// A series that left because of a real step, not autocorrelation, pays
// with some power (the step is whitened by about 0.4 at 30 values).
func Share(seg, whole []Lag1) []float64 {
	out := make([]float64, len(seg))
	r := make([]float64, len(seg))
	in := make([]bool, len(seg))
	var group []int
	for i, p := range whole {
		var ok bool
		if r[i], ok = p.corrected(); ok {
			in[i] = true
			group = append(group, i)
		}
	}
	for len(group) > 1 {
		var sum, n float64
		for _, i := range group {
			sum += float64(whole[i].n) * r[i]
			n += float64(whole[i].n)
		}
		mean := sum / n
		v := max(1-mean*mean, 1e-3)
		q, worst, far := 0.0, -1, 0.0
		for _, i := range group {
			d := float64(whole[i].n) * (r[i] - mean) * (r[i] - mean) / v
			q += d
			if d > far {
				worst, far = i, d
			}
		}
		if q <= chi2Upper(len(group)-1, shareLevel) || worst < 0 {
			break
		}
		in[worst] = false
		group = slices.DeleteFunc(group, func(i int) bool { return i == worst })
	}
	var pooled Lag1
	for i, p := range seg {
		if in[i] || len(group) == 0 {
			pooled = pooled.merge(p)
		}
	}
	shared := pooled.Estimate()
	for i, p := range seg {
		out[i] = shared
		if _, ok := whole[i].corrected(); ok && !in[i] {
			out[i] = max(shared, p.Upper(2))
		}
	}
	return out
}

// Upper is a's bias-corrected estimate of φ (at least 0) raised by z
// standard errors √((1−φ²)/n), at most MaxAutocorrelation, without
// Estimate's threshold: a bound of φ for a test that must hold its level
// when φ is above 0; 0 when a holds too little.
func (a Lag1) Upper(z float64) float64 {
	phi, ok := a.corrected()
	if !ok {
		return 0
	}
	phi = max(0, phi)
	return min(MaxAutocorrelation, phi+z*a.se(phi))
}

// se is the standard error √((1−φ²)/n) of a's estimate phi.
func (a Lag1) se(phi float64) float64 { return math.Sqrt((1 - min(phi*phi, 1)) / float64(a.n)) }

// chi2Upper is the upper alpha quantile of χ² with df degrees of freedom
// (Wilson–Hilferty: 3.75 for 1 degree of freedom at 5 %, where the exact
// quantile is 3.84; closer for more).
func chi2Upper(df int, alpha float64) float64 {
	z := math.Sqrt2 * math.Erfinv(1-2*alpha)
	d := float64(df)
	c := 1 - 2/(9*d) + z*math.Sqrt(2/(9*d))
	return d * c * c * c
}

// AddResiduals adds the residuals r (no gaps) of a regression with params
// coefficients, a level among them: their lag-1 autocorrelation, with the
// bias of params estimated coefficients corrected as that of as many
// segment means.
func (a *Lag1) AddResiduals(r []float64, params int) {
	var num, den float64
	for i, x := range r {
		den += x * x
		if i > 0 {
			num += x * r[i-1]
		}
	}
	a.pool(num, den, len(r), params)
}
