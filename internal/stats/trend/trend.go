package trend

import (
	"errors"
	"math"
	"slices"

	"github.com/mqgate/mqgate/internal/stats"
)

// MannKendall is the Mann–Kendall test of a series.
type MannKendall struct {
	N int
	// S is the number of later-higher pairs of runs less the number of
	// later-lower ones: positive for an upward trend.
	S int
	// Tau is Kendall's tau-b between the run index and the values.
	Tau float64
	// P is the two-sided p-value of "no trend": exact (the distribution of
	// S over all orders of the runs) for at most 33 runs without ties, or
	// when at most one pair is out of order; otherwise from the normal
	// approximation with the variance corrected for ties. It equals
	// scipy.stats.kendalltau(range(n), x).pvalue.
	P     float64
	Exact bool
	// Slope is Sen's slope, the median of (x_j − x_i)/(j − i) over the
	// pairs of runs: the change per run (of the log values, a relative
	// change per run).
	Slope float64
}

// exactLimit is the longest series without ties whose p-value is exact.
const exactLimit = 33

// Test computes the Mann–Kendall test of x, in run order. A series whose
// values are all equal has no trend: P is 1, Tau and Slope 0.
func Test(x []float64) (MannKendall, error) {
	n := len(x)
	if n < 2 {
		return MannKendall{}, errors.New("a trend needs at least 2 runs")
	}
	if slices.ContainsFunc(x, math.IsNaN) {
		return MannKendall{}, errors.New("a run's value is NaN")
	}
	r := MannKendall{N: n, P: 1}
	var con, dis int
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := range x {
		for j := i + 1; j < n; j++ {
			switch {
			case x[j] > x[i]:
				con++
			case x[j] < x[i]:
				dis++
			}
			slopes = append(slopes, (x[j]-x[i])/float64(j-i))
		}
	}
	r.S = con - dis
	r.Slope = stats.Median(slopes)
	tot := n * (n - 1) / 2
	tiePairs, v := ties(x)
	if tiePairs == tot {
		return r, nil
	}
	r.Tau = float64(r.S) / math.Sqrt(float64(tot-tiePairs)) / math.Sqrt(float64(tot))
	if tiePairs == 0 && (n <= exactLimit || min(dis, con) <= 1) {
		r.Exact = true
		r.P = exactP(n, min(con, dis))
		return r, nil
	}
	z := math.Abs(float64(r.S)) / math.Sqrt(v)
	r.P = math.Erfc(z / math.Sqrt2)
	return r, nil
}

// exactP is the two-sided p-value of c discordant pairs (c at most half of
// them) among n runs without ties: twice the share of the n! orders with
// at most c inversions (Kendall 1970), capped at 1. The counts of orders by
// inversions are built one run at a time, divided by j at step j so that
// they stay probabilities.
func exactP(n, c int) float64 {
	if 4*c == n*(n-1) {
		return 1
	}
	p := make([]float64, c+1) // P(inversions = i) for the runs so far
	p[0] = 1
	for j := 2; j <= n; j++ {
		// Adding the j-th run adds 0 … j−1 inversions, equally likely:
		// a moving sum of width j.
		next := make([]float64, c+1)
		var window float64
		for i := 0; i <= c; i++ {
			window += p[i]
			if i >= j {
				window -= p[i-j]
			}
			next[i] = window / float64(j)
		}
		p = next
	}
	var cdf float64
	for _, v := range p {
		cdf += v
	}
	return math.Min(1, 2*cdf)
}
