package paired

import (
	"cmp"
	"math"
	"slices"
)

// SignedRank is a one-sided Wilcoxon signed-rank test of "the values tend
// to be positive" (B worse, on log ratios).
type SignedRank struct {
	// W is the sum of the ranks of |d| over the positive values (midranks
	// for ties), zeros dropped.
	W float64
	// N is the number of non-zero values ranked.
	N int
	// P is the one-sided p-value, P(W ≥ observed) when nothing changed.
	P float64
	// Exact says P is from the exact null distribution; otherwise from its
	// normal approximation with tie correction, without continuity
	// correction.
	Exact bool
}

// exactSignedRankLimit: up to this many values without zeros or ties, the
// p-value is exact (scipy.stats.wilcoxon's choice).
const exactSignedRankLimit = 50

// SignedRankTest computes the Wilcoxon signed-rank test of d, dropping
// zeros (Wilcoxon's treatment). It agrees with scipy.stats.wilcoxon(d,
// alternative="greater") when d has no zeros or ties, and with its
// method="approx" otherwise. With no non-zero value P is 1.
func SignedRankTest(d []float64) SignedRank {
	var nz []float64
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	r := SignedRank{N: n, P: 1}
	if n == 0 {
		return r
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(nz[a]), math.Abs(nz[b])) })
	var tieTerm float64 // Σ t(t²−1) over groups of tied |d|
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		rank := float64(i+j)/2 + 1
		for m := i; m <= j; m++ {
			if nz[idx[m]] > 0 {
				r.W += rank
			}
		}
		t := float64(j - i + 1)
		tieTerm += t * (t*t - 1)
		i = j + 1
	}
	nf := float64(n)
	if n <= exactSignedRankLimit && tieTerm == 0 && n == len(d) {
		r.Exact = true
		r.P = signedRankUpper(n, int(r.W))
		return r
	}
	mean := nf * (nf + 1) / 4
	v := (nf*(nf+1)*(2*nf+1) - tieTerm/2) / 24
	if v <= 0 {
		return r
	}
	r.P = 0.5 * math.Erfc((r.W-mean)/math.Sqrt(v)/math.Sqrt2)
	return r
}

// signedRankUpper is P(W ≥ w) for the signed-rank statistic of n values
// without ties: the share of the 2^n sign patterns whose positive ranks sum
// to at least w (counts by dynamic programming over the ranks; exact in
// float64 for n ≤ 50).
func signedRankUpper(n, w int) float64 {
	top := n * (n + 1) / 2
	count := make([]float64, top+1)
	count[0] = 1
	for rank := 1; rank <= n; rank++ {
		for s := top; s >= rank; s-- {
			count[s] += count[s-rank]
		}
	}
	var hit float64
	for s := max(w, 0); s <= top; s++ {
		hit += count[s]
	}
	return math.Min(1, hit/math.Exp2(float64(n)))
}
