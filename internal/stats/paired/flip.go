package paired

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// flipSums holds, for half of a set of sign flips ε of the units (the other
// half is −ε, whose sums are the negatives), Σ ε_i·d_ki for every check k
// and Σ ε_i. The studentised statistic of any flip follows from them and
// the fixed Σ d_ki², as flipping signs does not change squares, so a flip
// costs one sum per check.
type flipSums struct {
	units int
	exact bool        // every one of the 2^units flips is present
	sd    [][]float64 // [flip][check] Σ ε_i d_ki
	se    []float64   // [flip] Σ ε_i
}

// total is the number of flips, both halves.
func (f *flipSums) total() int { return 2 * len(f.se) }

// sumFlips enumerates all 2^n flips of the n units when that is at most
// limit (by a Gray code over the first n−1 signs, the last held +1), else
// draws limit/2 at random from seed. d is [check][unit].
func sumFlips(d [][]float64, limit int, seed uint64) flipSums {
	k := len(d)
	n := len(d[0])
	f := flipSums{units: n}
	if n < 63 && 1<<n <= limit {
		f.exact = true
		half := 1 << (n - 1)
		f.sd = make([][]float64, half)
		f.se = make([]float64, half)
		flat := make([]float64, half*k)
		s := make([]float64, k)
		for c := range d {
			for _, v := range d[c] {
				s[c] += v
			}
		}
		e := float64(n)
		var mask uint64
		for g := 0; g < half; g++ {
			if g > 0 {
				i := bits.TrailingZeros(uint(g))
				mask ^= 1 << i
				sign := 2.0 // the sign of unit i went from + to −
				if mask&(1<<i) == 0 {
					sign = -2
				}
				for c := range d {
					s[c] -= sign * d[c][i]
				}
				e -= sign
			}
			f.sd[g] = flat[g*k : (g+1)*k]
			copy(f.sd[g], s)
			f.se[g] = e
		}
		return f
	}
	half := limit / 2
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	f.sd = make([][]float64, half)
	f.se = make([]float64, half)
	flat := make([]float64, half*k)
	eps := make([]float64, n)
	for g := 0; g < half; g++ {
		var word uint64
		e := 0.0
		for i := range eps {
			if i%64 == 0 {
				word = rng.Uint64()
			}
			eps[i] = 1
			if word&1 == 1 {
				eps[i] = -1
			}
			word >>= 1
			e += eps[i]
		}
		row := flat[g*k : (g+1)*k]
		for c := range d {
			var s float64
			for i, v := range d[c] {
				s += eps[i] * v
			}
			row[c] = s
		}
		f.sd[g], f.se[g] = row, e
	}
	return f
}

// tstat is the one-sample t statistic of n values with sum s and sum of
// squares ss: mean / (sd/√n). Values all equal and non-zero give ±Inf,
// values all zero give 0.
func tstat(s, ss float64, n int) float64 {
	nf := float64(n)
	v := ss - s*s/nf
	if v <= 1e-12*ss || n < 2 {
		switch {
		case s > 0:
			return math.Inf(1)
		case s < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return s / math.Sqrt(nf*v/(nf-1))
}

// atLeast reports whether a resampled statistic reaches an observed one,
// with a relative slack for the rounding of sums taken in another order.
func atLeast(resampled, observed float64) bool {
	return resampled >= observed-1e-9*math.Max(1, math.Abs(observed))
}
