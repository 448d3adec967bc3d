package gate

import (
	"math"
	"sort"
)

// Holm applies Holm's step-down correction at family-wise level alpha to
// the one-sided p-values p of one gate run's checks. For each check it
// returns its adjusted p-value (rejected exactly when ≤ alpha), whether it
// is rejected, and its tail: the per-check level at which its p-value was
// compared, α/(K−r+1) for the r-th smallest p-value, frozen at the first
// p-value not rejected for every later one. An interval whose ends each have
// error at most tail then lies above "no change" exactly when the check is
// rejected (for p-values from the exact test without ties).
//
// Holm controls the probability that any check of the family is rejected
// while none has regressed at ≤ alpha, whatever the dependence between the
// checks (Holm 1979); NaN p-values take no part and get NaN.
func Holm(p []float64, alpha float64) (adjusted []float64, rejected []bool, tail []float64) {
	adjusted = make([]float64, len(p))
	rejected = make([]bool, len(p))
	tail = make([]float64, len(p))
	var idx []int
	for i, v := range p {
		if math.IsNaN(v) {
			adjusted[i], tail[i] = math.NaN(), math.NaN()
			continue
		}
		idx = append(idx, i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	k := len(idx)
	running := 0.0
	stopped := false
	level := 0.0
	for r, i := range idx {
		m := float64(k - r) // K − r + 1 with r counted from 1
		running = math.Max(running, math.Min(1, m*p[i]))
		adjusted[i] = running
		if !stopped {
			level = alpha / m
			if p[i] <= level {
				rejected[i] = true
			} else {
				stopped = true
			}
		}
		tail[i] = level
	}
	return adjusted, rejected, tail
}
