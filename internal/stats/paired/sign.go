package paired

import (
	"math"
	"math/big"
	"slices"

	"github.com/mqgate/mqgate/internal/stats"
)

// TieSlack is how far beyond a margin a log ratio must lie to count as
// beyond it: a ratio at the margin up to rounding (105/100 against a 5 %
// margin) counts on the side that decides nothing.
const TieSlack = 1e-12

// signCritical returns the smallest count c with P(Bin(n, ½) ≥ c) ≤ alpha,
// in exact integer arithmetic (the binomial coefficients summed as big
// integers against alpha·2ⁿ); n+1 when no count reaches alpha, as with
// fewer than MinPairs(alpha) units.
func signCritical(n int, alpha float64) int {
	limit := new(big.Float).SetMantExp(big.NewFloat(alpha), n) // alpha·2ⁿ, exact
	sum, coef := new(big.Int), big.NewInt(1)                   // coef = C(n, j)
	for j := n; j >= 0; j-- {
		sum.Add(sum, coef)
		if new(big.Float).SetInt(sum).Cmp(limit) > 0 {
			return j + 1
		}
		coef.Mul(coef, big.NewInt(int64(j)))
		coef.Quo(coef, big.NewInt(int64(n-j+1)))
	}
	return 0
}

// signP returns P(Bin(n, ½) ≥ c), the one-sided sign-test p-value of c
// units beyond the margin out of n.
func signP(n, c int) float64 {
	if c <= 0 {
		return 1
	}
	sum, coef := new(big.Int), big.NewInt(1)
	for j := n; j >= c; j-- {
		sum.Add(sum, coef)
		coef.Mul(coef, big.NewInt(int64(j)))
		coef.Quo(coef, big.NewInt(int64(n-j+1)))
	}
	p, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(sum), -n).Float64()
	return p
}

// MinPairs is the fewest units with which a one-sided sign test (or any
// sign-flip test) can reject at level alpha: the smallest n with
// 2⁻ⁿ ≤ alpha, as its smallest p-value is 2⁻ⁿ (¼ with 2 pairs). 7 at 1 %.
func MinPairs(alpha float64) int {
	n := 1
	for math.Ldexp(1, -n) > alpha {
		n++
	}
	return n
}

// MinUnits is the fewest units with which Analyze can decide a family of
// k checks at tail: a FAIL is tested at tail/k per check (Bonferroni), a
// PASS at tail (intersection–union).
func MinUnits(tail float64, k int) int {
	return max(MinPairs(tail/float64(k)), MinPairs(tail))
}

// signBounds returns the sign test's bounds on the median of x: low, the
// cFail-th largest value (−Inf when cFail > len(x)), below which every
// median is rejected by the fail-side test; high, the cPass-th smallest
// (+Inf likewise), above which every median is rejected by the pass-side
// test. "#{x > θ} ≥ c" is exactly "the c-th largest > θ", so a bound
// beyond a margin is the test's rejection at that margin.
func signBounds(x []float64, cFail, cPass int) (median, low, high float64) {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	median = stats.MedianSorted(s)
	low, high = math.Inf(-1), math.Inf(1)
	if cFail >= 1 && cFail <= n {
		low = s[n-cFail]
	}
	if cPass >= 1 && cPass <= n {
		high = s[cPass-1]
	}
	return median, low, high
}

// beyondFail and withinPass read a check's sign tests from its bounds,
// ties at the margin to the side that decides nothing.
func beyondFail(low, failAt float64) bool  { return low > failAt+TieSlack }
func withinPass(high, passAt float64) bool { return high < passAt-TieSlack }

// countAbove returns #{x > theta}, ties to the side of no.
func countAbove(x []float64, theta float64) int {
	n := 0
	for _, v := range x {
		if v > theta+TieSlack {
			n++
		}
	}
	return n
}
