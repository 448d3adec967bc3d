package unpaired

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// BrunnerMunzel is the Brunner–Munzel test of samples x (reference) and y
// (candidate).
type BrunnerMunzel struct {
	// Effect is P(X < Y) + ½P(X = Y): ½ when neither side tends higher,
	// 1 when every y exceeds every x.
	Effect float64
	// W is the studentised statistic, positive when y tends higher.
	W float64
	// DF is the Satterthwaite degrees of freedom of W's t distribution.
	DF float64
	// P is the one-sided p-value of "y does not tend higher" (for a
	// latency, "the candidate is no slower"); P2 the two-sided one. They
	// equal scipy.stats.brunnermunzel(x, y, alternative="less") and its
	// two-sided p-value.
	P, P2 float64
	// Separated says the samples do not overlap (or overlap only in ties
	// that leave no variation of the placements): the variance estimate is
	// 0, W is ±Inf and P is the limit, 0 or 1. With few runs the exact
	// Mann–Whitney p-value says what such a separation is worth.
	Separated bool
}

// Test computes the Brunner–Munzel test with midranks for ties. Each
// sample needs at least two values.
func Test(x, y []float64) (BrunnerMunzel, error) {
	nx, ny := len(x), len(y)
	if nx < 2 || ny < 2 {
		return BrunnerMunzel{}, errors.New("the Brunner–Munzel test needs at least 2 values per sample")
	}
	all := append(append([]float64(nil), x...), y...)
	for _, v := range all {
		if math.IsNaN(v) {
			return BrunnerMunzel{}, errors.New("a value is NaN")
		}
	}
	rc := midranks(all)
	rx, ry := midranks(x), midranks(y)
	mean := func(v []float64) float64 {
		var s float64
		for _, e := range v {
			s += e
		}
		return s / float64(len(v))
	}
	mcx, mcy := mean(rc[:nx]), mean(rc[nx:])
	// The placements' variances: combined rank less own rank, centred.
	variance := func(combined, own []float64, mc, mo float64) float64 {
		var s float64
		for i := range combined {
			d := combined[i] - own[i] - mc + mo
			s += d * d
		}
		return s / float64(len(combined)-1)
	}
	sx, sy := variance(rc[:nx], rx, mcx, mean(rx)), variance(rc[nx:], ry, mcy, mean(ry))
	fx, fy := float64(nx), float64(ny)
	r := BrunnerMunzel{Effect: (mcy - (fy+1)/2) / fx}
	pooled := fx*sx + fy*sy
	if pooled == 0 {
		r.Separated = true
		r.W, r.DF = math.Copysign(math.Inf(1), mcy-mcx), math.NaN()
		switch {
		case mcy > mcx:
			r.P, r.P2 = 0, 0
		case mcy < mcx:
			r.P, r.P2 = 1, 0
		default:
			r.W, r.P, r.P2 = 0, 0.5, 1
		}
		return r, nil
	}
	r.W = fx * fy * (mcy - mcx) / ((fx + fy) * math.Sqrt(pooled))
	r.DF = pooled * pooled / ((fx*sx)*(fx*sx)/(fx-1) + (fy*sy)*(fy*sy)/(fy-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	r.P = t.Survival(r.W)
	r.P2 = 2 * math.Min(r.P, t.CDF(r.W))
	return r, nil
}

// midranks returns the ranks of x, 1-based, ties sharing their mean rank.
func midranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}
