package seq

import (
	"math"
	"sync"
)

// maxSpendingPairs bounds the budget for which the gate computes
// group-sequential boundaries (the computation grows with its square);
// a larger budget, or none, uses the mixture of sign bets.
const maxSpendingPairs = 5000

// spend is the O'Brien–Fleming-type α-spending function of Lan and DeMets
// (1983, "Discrete sequential boundaries for clinical trials", Biometrika
// 70: 659–663), α(t) = 2 − 2Φ(z_{1−α/2}/√t): the share of the level a
// boundary may have used by the fraction t of the budget. It spends little
// early and nearly all of α by the end, so that a gate that runs its whole
// budget loses little against the fixed design of that many pairs.
func spend(alpha, t float64) float64 {
	if t >= 1 {
		return alpha
	}
	z := math.Sqrt2 * math.Erfinv(1-alpha) // z_{1−α/2}
	return math.Erfc(z / math.Sqrt(t) / math.Sqrt2)
}

// boundaries returns, for n = 0 … budget pairs, the count c[n] of pairs
// beyond the margin at which a one-sided sign test crosses at look n: the
// smallest count whose probability, with the probability of having
// crossed at an earlier look, stays within spend(alpha, n/budget) when
// each pair lies beyond the margin with probability ½ independently (and
// less when less). Looks are every pair from first on; c[n] = n+1 where no
// count may cross. The null distribution of the count among the paths not
// yet crossed is carried exactly from look to look (Armitage, McPherson
// and Rowe 1969), so that the chance of ever crossing is at most alpha
// however early the gate stops.
func boundaries(budget, first int, alpha float64) []int {
	key := boundaryKey{budget, first, alpha}
	if c, ok := boundaryCache.Load(key); ok {
		return c.([]int)
	}
	c := make([]int, budget+1)
	c[0] = 1
	prob := []float64{1} // P(count = s, not crossed) after n pairs
	spent := 0.0
	for n := 1; n <= budget; n++ {
		next := make([]float64, n+1)
		for s, q := range prob {
			next[s] += q / 2
			next[s+1] += q / 2
		}
		prob = next
		c[n] = n + 1
		if n < first {
			continue
		}
		allowed := spend(alpha, float64(n)/float64(budget))
		tail := 0.0
		for s := n; s >= 0 && spent+tail+prob[s] <= allowed; s-- {
			tail += prob[s]
			c[n] = s
		}
		spent += tail
		for s := c[n]; s <= n; s++ {
			prob[s] = 0
		}
	}
	boundaryCache.Store(key, c)
	return c
}

// boundaryCache keeps the boundaries computed, which depend on the budget,
// the first look and the level only: gates of one configuration share them
// (read only).
var boundaryCache sync.Map

type boundaryKey struct {
	budget, first int
	alpha         float64
}
