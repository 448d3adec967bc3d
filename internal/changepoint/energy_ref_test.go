package changepoint

import (
	"fmt"
	"math"
)

// Energy returns the statistic Q of splitting x into x[:tau] and x[tau:]
// (see the package documentation), computed directly from every pair in
// O(n²): the reference the fast scan is tested against. Both sides need at
// least two values.
func Energy(x []float64, tau int) (float64, error) {
	n, m := tau, len(x)-tau
	if n < 2 || m < 2 {
		return math.NaN(), fmt.Errorf("split %d of %d values: each side needs at least 2", tau, len(x))
	}
	var cross, wx, wy float64
	for i := 0; i < tau; i++ {
		for j := tau; j < len(x); j++ {
			cross += math.Abs(x[i] - x[j])
		}
		for k := i + 1; k < tau; k++ {
			wx += math.Abs(x[i] - x[k])
		}
	}
	for j := tau; j < len(x); j++ {
		for k := j + 1; k < len(x); k++ {
			wy += math.Abs(x[j] - x[k])
		}
	}
	fn, fm := float64(n), float64(m)
	e := 2*cross/(fn*fm) - wx/(fn*(fn-1)/2) - wy/(fm*(fm-1)/2)
	return fn * fm / (fn + fm) * e, nil
}

// Scan returns Q(x[:tau], x[tau:kappa]) for every admissible split of x
// (both parts at least minSegment values, kappa ≤ len(x)) as q[kappa][tau],
// NaN elsewhere: the O(n²) computation Detect uses.
func Scan(x []float64, minSegment int) [][]float64 {
	q := make([][]float64, len(x)+1)
	for k := range q {
		q[k] = make([]float64, len(x)+1)
		for t := range q[k] {
			q[k][t] = math.NaN()
		}
	}
	if minSegment < 2 {
		return q
	}
	newScanner(len(x)).scan(x, minSegment, func(tau, kappa int, v float64) { q[kappa][tau] = v })
	return q
}

// scan calls f(tau, kappa, Q(v[:tau], v[tau:kappa])) for every admissible
// split, kappa ascending, then tau ascending. Adding v[κ] to every suffix
// v[t:κ] adds Σ_{t≤i<κ}|v_κ − v_i|, a running sum from i = κ−1 down, so
// all within-sums cost O(L²) together; the cross sum of v[:τ] and v[τ:κ] is
// the within-sum of v[:κ] less those of both parts.
func (s *scanner) scan(v []float64, m int, f func(tau, kappa int, q float64)) {
	L := len(v)
	w, pre := s.within[:L+1], s.prefix[:L+1]
	clear(w)
	pre[0] = 0
	for k := 0; k < L; k++ {
		x := v[k]
		acc := 0.0
		for i := k - 1; i >= 0; i-- {
			acc += math.Abs(x - v[i])
			w[i] += acc
		}
		pre[k+1] = w[0]
		kappa := k + 1
		if kappa < 2*m {
			continue
		}
		total := pre[kappa]
		fk := float64(kappa)
		for tau := m; tau <= kappa-m; tau++ {
			wx, wy := pre[tau], w[tau]
			n, mm := float64(tau), float64(kappa-tau)
			cross := total - wx - wy
			f(tau, kappa, (2*cross-2*mm*wx/(n-1)-2*n*wy/(mm-1))/fk)
		}
	}
}
