package dist

import (
	"errors"
	"math"
	"sort"
	"sync"

	moremath "github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat"

	"github.com/mqgate/mqgate/internal/stats"
)

// ExactLimit is the largest number of runs per side for which p-values and
// intervals come from the exact Mann–Whitney U distribution (25 when the
// values tie); beyond it they come from its normal approximation with tie
// and continuity correction.
const ExactLimit = 50

// exactTiesLimit: the exact distribution with ties is costlier.
const exactTiesLimit = 25

// Effect is the comparison of one metric's per-run values on two sides:
// a Hodges–Lehmann estimate of the ratio candidate/reference with a
// distribution-free interval, and a one-sided Mann–Whitney p-value for "the
// candidate is worse" (formats §8).
type Effect struct {
	// Estimate is the Hodges–Lehmann ratio candidate/reference: exp of the
	// median of all pairwise differences log(candidate) − log(reference).
	Estimate float64
	// Low and High bound the ratio; each lies beyond the true ratio with
	// probability at most Tail (so the interval covers it with probability
	// at least 1 − 2·Tail). ±Inf (0 or +Inf) when the runs are too few.
	Low, High float64
	// Tail is the one-sided error probability of each end of the interval.
	Tail float64
	// P is the one-sided Mann–Whitney p-value of the hypothesis that the
	// candidate is no worse than the reference, against "worse" (higher
	// latency, lower throughput).
	P float64
	// U is the Mann–Whitney statistic of the candidate: the number of
	// (candidate, reference) pairs in which the candidate is worse, ties
	// counting ½.
	U float64
	// Exact says P and the interval come from the exact U distribution.
	Exact bool
	// NReference and NCandidate are the runs per side.
	NReference, NCandidate int
	// Dispersion is the pooled robust run-to-run standard deviation of the
	// log values (1.4826·MAD per side, pooled): 0.1 means runs of one side
	// typically differ by about 10 %.
	Dispersion float64
}

// ErrNotPositive is returned for values ≤ 0 (or NaN), which have no ratio.
var ErrNotPositive = errors.New("values must be positive and finite to form a ratio")

// Compare computes the Effect of candidate against reference for a metric
// that is better lower (latency) or, higherIsBetter, higher (throughput),
// with interval ends at one-sided error tail (0 < tail < ½). Each side needs at least one value.
func Compare(reference, candidate []float64, higherIsBetter bool, tail float64) (Effect, error) {
	e := Effect{NReference: len(reference), NCandidate: len(candidate), Tail: tail}
	if len(reference) == 0 || len(candidate) == 0 {
		return e, errors.New("each side needs at least one run")
	}
	// Work on "badness": log values, negated for higher-is-better metrics,
	// so that a positive shift is always a regression.
	sign := 1.0
	if higherIsBetter {
		sign = -1
	}
	r, err := badness(reference, sign)
	if err != nil {
		return e, err
	}
	c, err := badness(candidate, sign)
	if err != nil {
		return e, err
	}
	d := pairwiseDifferences(r, c)
	shift := stats.MedianSorted(d)
	// The interval and the p-value are exact under the same conditions
	// (ExactLimit, exactTiesLimit with ties).
	k, exact := intervalRank(len(r), len(c), hasTies(r, c), tail)
	lo, hi := math.Inf(-1), math.Inf(1)
	if k >= 1 {
		lo, hi = d[k-1], d[len(d)-k]
	}
	e.P, e.U = uTestWorse(r, c)
	e.Exact = exact
	e.Dispersion = pooledDispersion(r, c)
	if sign > 0 {
		e.Estimate, e.Low, e.High = math.Exp(shift), math.Exp(lo), math.Exp(hi)
	} else {
		e.Estimate, e.Low, e.High = math.Exp(-shift), math.Exp(-hi), math.Exp(-lo)
	}
	return e, nil
}

func badness(x []float64, sign float64) ([]float64, error) {
	out := make([]float64, len(x))
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, ErrNotPositive
		}
		out[i] = sign * math.Log(v)
	}
	return out, nil
}

// pairwiseDifferences returns every c[j] − r[i], sorted.
func pairwiseDifferences(r, c []float64) []float64 {
	d := make([]float64, 0, len(r)*len(c))
	for _, cv := range c {
		for _, rv := range r {
			d = append(d, cv-rv)
		}
	}
	sort.Float64s(d)
	return d
}

func hasTies(r, c []float64) bool {
	all := append(append([]float64(nil), r...), c...)
	sort.Float64s(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			return true
		}
	}
	return false
}

// uTestWorse returns the one-sided Mann–Whitney p-value for "c is larger
// than r" and the candidate's U.
// go-moremath's test is exact up to ExactLimit runs (exactTiesLimit with
// ties, using the exact conditional distribution given the ties) and a
// normal approximation with tie and continuity correction beyond. Its
// LocationLess tail, P(U ≤ u), is exact also for the half-integer U of
// ties, so the test is run as "r is less than c".
func uTestWorse(r, c []float64) (p, u float64) {
	n1, n2 := len(r), len(c)
	res, err := moremath.MannWhitneyUTest(r, c, moremath.LocationLess)
	if err != nil {
		// Every value is equal: no evidence either way.
		return 1, float64(n1*n2) / 2
	}
	return res.P, float64(n1*n2) - res.U
}

// pooledDispersion is the pooled robust standard deviation of the two
// sides' log values: 1.4826·MAD of each side (its standard deviation when
// the MAD is 0, as with two runs that agree), pooled by degrees of freedom.
func pooledDispersion(r, c []float64) float64 {
	var ss, df float64
	for _, x := range [][]float64{r, c} {
		if len(x) < 2 {
			continue
		}
		s := stats.MADSpread(x)
		if s == 0 {
			s = stat.StdDev(x, nil)
		}
		ss += s * s * float64(len(x)-1)
		df += float64(len(x) - 1)
	}
	if df == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss / df)
}

// intervalRank returns k such that the k-th smallest and k-th largest of the
// n1·n2 pairwise differences bound the shift with at most tail probability
// beyond each end: the largest k with P(U ≤ k−1) ≤ tail under the null
// distribution of U (exact up to ExactLimit, else normal). k = 0 means the
// runs are too few for any finite bound. With ties the no-ties distribution
// is used, as is customary for this interval.
func intervalRank(n1, n2 int, ties bool, tail float64) (k int, exact bool) {
	if n1 <= ExactLimit && n2 <= ExactLimit {
		return exactRank(n1, n2, tail), !ties || n1 <= exactTiesLimit && n2 <= exactTiesLimit
	}
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2*(n1+n2+1)) / 12)
	z := NormalQuantile(tail)
	// P(U ≤ k−1) ≈ Φ((k−1+½−μ)/σ) ≤ tail.
	k = int(math.Floor(mu+z*sigma-0.5)) + 1
	return max(k, 0), false
}

type rankKey struct {
	n1, n2 int
	tail   float64
}

var rankCache sync.Map // rankKey → int

func exactRank(n1, n2 int, tail float64) int {
	key := rankKey{n1, n2, tail}
	if k, ok := rankCache.Load(key); ok {
		return k.(int)
	}
	d := moremath.UDist{N1: n1, N2: n2}
	// CDF is increasing in u; find the largest u = k−1 with CDF(u) ≤ tail.
	lo, hi := -1, n1*n2/2 // CDF(-1) = 0 ≤ tail; CDF(n1n2/2) ≥ ½ > tail
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		// The relative slack absorbs rounding: 1/C(6,3) may come out a
		// hair above 0.05.
		if d.CDF(float64(mid)) <= tail*(1+1e-9) {
			lo = mid
		} else {
			hi = mid
		}
	}
	k := lo + 1
	rankCache.Store(key, k)
	return k
}

// MinRuns returns the smallest number of runs per side with which the
// exact test can reach one-sided p ≤ tail at all: the n with
// 1/C(2n, n) ≤ tail.
func MinRuns(tail float64) int {
	for n := 1; n <= ExactLimit; n++ {
		if exactRank(n, n, tail) >= 1 {
			return n
		}
	}
	return ExactLimit
}
