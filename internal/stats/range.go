package stats

import (
	"fmt"
	"math"
	"slices"

	"github.com/mqgate/mqgate/internal/result"
)

// RangeError reports a summary that is not finite: a latency that is not,
// or a statistic that overflowed float64 although every latency is finite
// (latencies of 1e308 µs have a sum, hence a Mean, of +Inf). formats §3
// summaries hold finite numbers only, so such input cannot be summarised.
type RangeError struct {
	// Stat is the statistic that is not finite, named as the summary
	// column ("Mean", "Stdev", "Median", "Mean jitter", ...), or "" when
	// the latency itself is not finite.
	Stat string
	// Index is the sample, 0-based in the order given, to blame: where a
	// running sum first overflows, or the first of the largest latencies.
	Index int
	// Value is that sample.
	Value float64
	// Where says in which computation the statistic overflowed.
	Where string
}

func (e *RangeError) Error() string {
	if e.Stat == "" {
		return fmt.Sprintf("latency %v is not a finite number", e.Value)
	}
	return fmt.Sprintf("the %s is not a finite number: latencies this large (%.6g µs here) overflow a float64 "+
		"%s; a summary needs every statistic finite (formats §3)", e.Stat, e.Value, e.Where)
}

// CheckRange returns a *RangeError when s, the summary of x, has a statistic
// that is not finite, NaN jitters of a single sample excepted (numpy writes
// them so), and nil otherwise. It is cheap when s is finite.
func CheckRange(s result.Summary, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &RangeError{Index: i, Value: v}
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	at := func(stat, where string, i int) error {
		return &RangeError{Stat: stat, Index: i, Value: x[i], Where: where}
	}
	jitter := func(i int) float64 { return math.Abs(x[i+1] - x[i]) }
	switch {
	case len(x) == 0:
		return nil
	case !finite(s.Mean):
		return at("Mean", "in their sum", firstInfiniteSum(len(x), func(i int) float64 { return x[i] }, argmaxAbs(x)))
	case !finite(s.Median):
		// The mean of the two middle values: blame the larger one.
		return at("Median", "in the sum of the two middle values", max(slices.Index(x, upperMiddle(x)), 0))
	case !finite(s.Stdev):
		// Blame the largest latency: every distance from a mean it drags up
		// is large, the small latencies' too.
		return at("Stdev", "in the squared distances from the mean", argmaxAbs(x))
	case len(x) > 1 && !finite(s.MeanJitter):
		return at("Mean jitter", "in the sum of the differences", 1+firstInfiniteSum(len(x)-1, jitter, argmaxAbs(x)-1))
	case len(x) > 1 && !finite(s.MaxJitter):
		return at("Max jitter", "in a difference", 1+firstInfiniteSum(len(x)-1, jitter, argmaxAbs(x)-1))
	case !finite(s.P90):
		return at("90%", "between neighbouring values", argmaxAbs(x))
	case !finite(s.P99):
		return at("99%", "between neighbouring values", argmaxAbs(x))
	case !finite(s.P9999):
		return at("99.99%", "between neighbouring values", argmaxAbs(x))
	}
	return nil
}

// upperMiddle returns the upper of the middle values of x.
func upperMiddle(x []float64) float64 {
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

// firstInfiniteSum returns the first i at which term(0)+…+term(i), summed
// in order, is not finite (or its absolute value is), else fallback: the
// pairwise sum can overflow where the running sum just does not.
func firstInfiniteSum(n int, term func(int) float64, fallback int) int {
	sum := 0.0
	for i := 0; i < n; i++ {
		t := term(i)
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return i
		}
		sum += math.Abs(t)
		if math.IsInf(sum, 0) {
			return i
		}
	}
	return max(fallback, 0)
}

func argmaxAbs(x []float64) int {
	best := 0
	for i, v := range x {
		if math.Abs(v) > math.Abs(x[best]) {
			best = i
		}
	}
	return best
}
