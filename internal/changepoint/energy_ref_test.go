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
