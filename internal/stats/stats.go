package stats

import (
	"math"
	"slices"

	"github.com/mqgate/mqgate/internal/result"
)

// pairwiseBlock is numpy's PW_BLOCKSIZE: below it a block is summed with
// eight interleaved accumulators.
const pairwiseBlock = 128

// bufferSize is numpy's default ufunc buffer size: add.reduce hands the
// inner loop at most this many elements at a time, so the pairwise sums are
// per chunk and the chunk sums are added in order.
const bufferSize = 8192

// Sum returns the sum of x as numpy's add.reduce computes it: starting from
// 0, add the pairwise sum of each consecutive chunk of 8192 elements.
func Sum(x []float64) float64 {
	res := 0.0
	for len(x) > bufferSize {
		res += pairwise(x[:bufferSize])
		x = x[bufferSize:]
	}
	return res + pairwise(x)
}

func pairwise(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := math.Copysign(0, -1) // numpy starts at -0.0 to keep -0.0 sums
		for _, v := range a {
			res += v
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			// Unrolled, so that the eight sums stay in registers.
			r[0] += a[i]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwise(a[:n2]) + pairwise(a[n2:])
	}
}

// Mean returns numpy's mean of x: the pairwise sum divided by n. It is NaN
// for an empty slice.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return Sum(x) / float64(len(x))
}

// Std returns numpy's population standard deviation (ddof = 0) of x. It is
// NaN for an empty slice.
func Std(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return stdScratch(x, make([]float64, len(x)))
}

func stdScratch(x, scratch []float64) float64 {
	m := Mean(x)
	d := scratch[:len(x)]
	for i, v := range x {
		dv := v - m
		d[i] = dv * dv
	}
	return math.Sqrt(Sum(d) / float64(len(x)))
}

// MADSpread returns 1.4826 times the median absolute deviation of x from
// its median: the standard deviation for normal values, robust to a few
// far ones. x is not modified. NaN when empty.
func MADSpread(x []float64) float64 {
	m := Median(x)
	dev := make([]float64, len(x))
	for i, v := range x {
		dev[i] = math.Abs(v - m)
	}
	return 1.4826 * Median(dev)
}

// Median returns numpy's median of x: the middle value, or the mean of the
// two middle values when n is even. x is not modified. NaN when empty.
func Median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return MedianSorted(s)
}

// MedianSorted is Median of s, which must be in ascending order (NaNs
// first, as slices.Sort and sort.Float64s leave them).
func MedianSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted, which must
// be in ascending order, with numpy's default linear method. NaN when empty.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * (p / 100)
	if h >= float64(n-1) {
		return sorted[n-1]
	}
	if h < 0 {
		return sorted[0]
	}
	lo := math.Floor(h)
	return lerp(sorted[int(lo)], sorted[int(lo)+1], h-lo)
}

// lerp is numpy's _lerp: a + (b−a)·t, computed from b when t ≥ 0.5 so that
// the result is exact at both ends.
func lerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// PercentileOf returns the p-th percentile of x (any order) with numpy's
// default linear method. x is not modified.
func PercentileOf(x []float64, p float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return Percentile(s, p)
}

// Scratch is reusable working memory for Summarize, so that
// processing many payloads allocates once per worker.
type Scratch struct {
	floats []float64
	keys   []uint64
}

// Summarize computes every summary statistic of x, given in file order,
// using (and growing) scratch, which may be nil. x is not modified. The
// summary of an empty slice has Samples = 0 and NaNs.
func Summarize(x []float64, sc *Scratch) result.Summary {
	n := len(x)
	s := result.Summary{Samples: n}
	nan := math.NaN()
	if n == 0 {
		return result.Summary{Max: nan, Min: nan, Mean: nan, Median: nan, Stdev: nan,
			MeanJitter: nan, MaxJitter: nan, P90: nan, P99: nan, P9999: nan}
	}
	if sc == nil {
		sc = &Scratch{}
	}
	if cap(sc.floats) < 2*n {
		sc.floats = make([]float64, 2*n)
		sc.keys = make([]uint64, 2*n)
	}
	work := sc.floats[:n]
	sorted := sc.floats[n : 2*n]

	s.Mean = Mean(x)
	s.Stdev = stdScratch(x, work)

	s.MeanJitter, s.MaxJitter = nan, nan
	if n > 1 {
		j := work[:n-1]
		maxJ := math.Inf(-1)
		for i := 1; i < n; i++ {
			d := math.Abs(x[i] - x[i-1])
			j[i-1] = d
			if d > maxJ {
				maxJ = d
			}
		}
		s.MeanJitter = Mean(j)
		s.MaxJitter = maxJ
	}

	copy(sorted, x)
	sortFloats(sorted, sc.keys)
	s.Min = sorted[0]
	s.Max = sorted[n-1]
	s.Median = MedianSorted(sorted)
	s.P90 = Percentile(sorted, 90)
	s.P99 = Percentile(sorted, 99)
	s.P9999 = Percentile(sorted, 99.99)
	return s
}
