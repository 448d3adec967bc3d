package trend

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/mqgate/mqgate/internal/stats/dist"
)

// Hinge is the test of a rise that begins at a known run of a series whose
// earlier runs hold its level (TestHinge).
type Hinge struct {
	// N is the number of runs; Start the first run of the rise.
	N, Start int
	// Log: the test ran on the logarithms of the values (all positive),
	// so that Slope is a relative change per run.
	Log bool
	// Phi is the AR(1) correlation the runs were whitened with.
	Phi float64
	// Slope is the generalised least-squares change per run from Start
	// on, of the values or (Log) of their logarithms; SE its standard
	// error.
	Slope, SE float64
	// T is Slope/SE, with N − 2 degrees of freedom.
	T float64
	// PUp and PDown are the one-sided p-values of "no rise" and "no fall"
	// from Student's t: exact when the runs are normal (Log: log-normal)
	// and AR(1) with correlation Phi.
	PUp, PDown float64
}

// TestHinge tests the runs x, in order, for a change per run that begins
// at run start (the level before it is flat): a linear regression of x on
// a constant and the hinge max(0, i − start + 1), by generalised least
// squares for AR(1) runs of correlation phi (the Prais–Winsten transform:
// the first run scaled by √(1 − φ²), every later one less φ times the one
// before, the regressors alike), whose t statistic then has Student's t
// distribution with n − 2 degrees of freedom when the runs are normal.
//
// When the runs before start fix the level a creep rises from, this is
// far more powerful than Mann–Kendall over the same runs, which looks for
// a line through all of them: over 30 flat runs and 10 that rise half a
// standard deviation per run, the hinge's t is about 8.8 with φ = 0. The
// runs are tested as logarithms when they are all positive (latencies,
// rates: log-normal noise). An outlier at the newest runs moves the slope
// more than Mann–Kendall's ranks would: callers judge the size of a rise
// by a robust slope (Sen's) of their own.
//
// start must leave at least 2 runs before it and 1 from it on; phi must be
// in [0, 1).
func TestHinge(x []float64, start int, phi float64) (Hinge, error) {
	n := len(x)
	if !(phi >= 0 && phi < 1) {
		return Hinge{}, fmt.Errorf("autocorrelation %v: expected a number from 0 to below 1", phi)
	}
	y, log, err := hingeRuns(x, start)
	if err != nil {
		return Hinge{}, err
	}
	h := Hinge{N: n, Start: start, Log: log, Phi: phi}
	// All values equal: no rise and no fall, which rounding would otherwise
	// turn into a t of either sign.
	if !slices.ContainsFunc(y, func(v float64) bool { return v != y[0] }) {
		h.PUp, h.PDown = 1, 1
		return h, nil
	}
	// The Prais–Winsten transform of y and of the regressors 1 and hinge.
	z, a, b := make([]float64, n), make([]float64, n), make([]float64, n)
	hinge := func(i int) float64 { return float64(max(0, i-start+1)) }
	r := math.Sqrt(1 - phi*phi)
	z[0], a[0], b[0] = r*y[0], r, r*hinge(0)
	for i := 1; i < n; i++ {
		z[i] = y[i] - phi*y[i-1]
		a[i] = 1 - phi
		b[i] = hinge(i) - phi*hinge(i-1)
	}
	// Least squares of z on a and b.
	var saa, sab, sbb, saz, sbz float64
	for i := range z {
		saa += a[i] * a[i]
		sab += a[i] * b[i]
		sbb += b[i] * b[i]
		saz += a[i] * z[i]
		sbz += b[i] * z[i]
	}
	det := saa*sbb - sab*sab
	if !(det > 0) {
		return Hinge{}, errors.New("the hinge cannot be told from the level")
	}
	c0 := (sbb*saz - sab*sbz) / det
	h.Slope = (saa*sbz - sab*saz) / det
	var rss float64
	for i := range z {
		e := z[i] - c0*a[i] - h.Slope*b[i]
		rss += e * e
	}
	df := n - 2
	h.SE = math.Sqrt(rss / float64(df) * saa / det)
	switch {
	case h.SE > 0:
		h.T = h.Slope / h.SE
		h.PUp, h.PDown = dist.TSurvival(df, h.T), dist.TSurvival(df, -h.T)
	case h.Slope > 0:
		h.T, h.PUp, h.PDown = math.Inf(1), 0, 1
	case h.Slope < 0:
		h.T, h.PUp, h.PDown = math.Inf(-1), 1, 0
	default:
		h.PUp, h.PDown = 1, 1
	}
	return h, nil
}

// hingeRuns checks the runs x and the rise's first run start of TestHinge
// and returns the values tested: the logarithms of x when all are positive
// (log), else x.
func hingeRuns(x []float64, start int) (y []float64, log bool, err error) {
	if start < 2 || start >= len(x) {
		return nil, false, fmt.Errorf("rise from run %d of %d: expected at least 2 runs before it and 1 from it on", start, len(x))
	}
	log = true
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false, fmt.Errorf("run %d: value %v: expected a finite number", i, v)
		}
		log = log && v > 0
	}
	y = slices.Clone(x)
	if log {
		for i, v := range y {
			y[i] = math.Log(v)
		}
	}
	return y, log, nil
}

// SegmentedHingeResiduals returns the residuals of the ordinary
// least-squares fit of TestHinge's model (a level, then a change per run
// from run start on) to the runs x, of their logarithms when all are
// positive, with a level of its own for each segment of x that the runs
// cuts (ascending, each in (0, len(x))) begin: the noise around steps as
// well as a rise, from which its AR(1) correlation can be estimated without
// taking the rise for correlation, since steps left in the residuals of a
// hinge look like autocorrelation. x and start are TestHinge's.
func SegmentedHingeResiduals(x []float64, start int, cuts []int) ([]float64, error) {
	y, _, err := hingeRuns(x, start)
	if err != nil {
		return nil, err
	}
	n := len(x)
	// Frisch–Waugh: the values and the hinge, each less its segment's
	// mean, then the slope of the one on the other.
	b := make([]float64, n)
	for i := range b {
		b[i] = float64(max(0, i-start+1))
	}
	lo := 0
	for k := 0; k <= len(cuts); k++ {
		hi := n
		if k < len(cuts) {
			hi = cuts[k]
		}
		if hi <= lo || hi > n {
			return nil, fmt.Errorf("segment from run %d to %d of %d: expected cuts ascending within the runs", lo, hi, n)
		}
		demean(y[lo:hi])
		demean(b[lo:hi])
		lo = hi
	}
	var sbb, sby float64
	for i := range y {
		sbb += b[i] * b[i]
		sby += b[i] * y[i]
	}
	if !(sbb > 1e-12) {
		return nil, errors.New("the hinge cannot be told from the levels")
	}
	slope := sby / sbb
	for i := range y {
		y[i] -= slope * b[i]
	}
	return y, nil
}

// demean subtracts from v its mean.
func demean(v []float64) {
	m := mean(v)
	for i := range v {
		v[i] -= m
	}
}

// mean is the mean of v, summed in order.
func mean(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	return m / float64(len(v))
}
