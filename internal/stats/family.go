package stats

import (
	"math"
	"sort"
)

// Decision is a multiple-comparison correction's verdict on one p-value of a
// family (Holm, Bonferroni).
type Decision struct {
	// Adjusted is the adjusted p-value: rejected exactly when ≤ alpha.
	Adjusted float64
	// Rejected says the correction rejects the hypothesis at family-wise level
	// alpha.
	Rejected bool
	// Level is what the p-value is compared with: for Holm α/(K−r+1) for
	// the r-th smallest p-value, in the step-down order.
	Level float64
	// Tail is, for Holm, Level frozen at the first p-value not rejected
	// for every later one: an interval whose ends each have error at most Tail then
	// lies beyond "no change" exactly when the hypothesis is rejected (for
	// p-values from an exact test without ties).
	Tail float64
}

// Holm applies Holm's step-down correction at family-wise level alpha to
// the one-sided p-values p of one family (Holm 1979): it keeps the
// probability that any hypothesis of the family is rejected while all hold
// at ≤ alpha, whatever the dependence between them. Ties keep the order of
// p.
//
// A NaN p-value takes no part: it does not count in the family size K, is
// never rejected and gets NaN. A hypothesis that belongs to the family but
// was not tested (a series that did not qualify for a test) counts with
// p = 1: it enlarges K and is never rejected, as alpha < 1.
func Holm(p []float64, alpha float64) []Decision {
	out := make([]Decision, len(p))
	var idx []int
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = Decision{Adjusted: math.NaN(), Level: math.NaN(), Tail: math.NaN()}
			continue
		}
		idx = append(idx, i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	k := len(idx)
	running := 0.0
	stopped := false
	tail := 0.0
	for r, i := range idx {
		m := float64(k - r) // K − r + 1 with r counted from 1
		running = math.Max(running, math.Min(1, m*p[i]))
		level := alpha / m
		if !stopped {
			tail = level
			out[i].Rejected = p[i] <= level
			stopped = !out[i].Rejected
		}
		out[i].Adjusted, out[i].Level, out[i].Tail = running, level, tail
	}
	return out
}

// Bonferroni applies Bonferroni's correction with each p-value held to its
// own level, fixed in advance (alpha/m for a family of m): p is rejected
// when ≤ level, and its adjusted p-value is min(1, p·alpha/level), rejected
// exactly when ≤ alpha. Level and Tail are level. NaN takes no part, as in
// Holm.
func Bonferroni(p []float64, alpha, level float64) []Decision {
	out := make([]Decision, len(p))
	for i, v := range p {
		if math.IsNaN(v) {
			out[i] = Decision{Adjusted: math.NaN(), Level: math.NaN(), Tail: math.NaN()}
			continue
		}
		out[i] = Decision{Adjusted: math.Min(1, v*alpha/level), Rejected: v <= level, Level: level, Tail: level}
	}
	return out
}
