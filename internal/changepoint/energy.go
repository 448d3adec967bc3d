package changepoint

import (
	"math"
)

// scanner holds the scratch space of a scan.
type scanner struct {
	// within[t] is the within-sum Σ_{t≤i<j<κ}|v_i − v_j| of v[t:κ] for the
	// current κ; prefix[k] that of v[0:k].
	within []float64
	prefix []float64
	// inv[k] is 2/(k−1), the weight of a side of k values.
	inv []float64
}

func newScanner(n int) *scanner {
	s := &scanner{within: make([]float64, n+1), prefix: make([]float64, n+1), inv: make([]float64, n+1)}
	for k := 2; k <= n; k++ {
		s.inv[k] = 2 / float64(k-1)
	}
	return s
}

// best returns the admissible split of v with the largest Q (the first of
// equal ones, by kappa then tau) as tau, kappa and Q; tau is -1 when v is
// too short. It is scan (energy_ref_test.go) with the arithmetic inlined: it runs once per
// interval and permutation.
func (s *scanner) best(v []float64, m int) (tau, kappa int, q float64) {
	tau, kappa, q = -1, -1, math.Inf(-1)
	L := len(v)
	w, pre := s.within[:L+1], s.prefix[:L+1]
	clear(w)
	pre[0] = 0
	for k := 0; k < L; k++ {
		x := v[k]
		acc := 0.0
		for i := k - 1; i >= 0; i-- {
			acc += math.Abs(x - v[i])
			w[i] += acc
		}
		pre[k+1] = w[0]
		kp := k + 1
		if kp < 2*m {
			continue
		}
		total := pre[kp]
		inv := 1 / float64(kp)
		iw := s.inv
		for t := m; t <= kp-m; t++ {
			wx, wy := pre[t], w[t]
			c := (2*(total-wx-wy) - float64(kp-t)*wx*iw[t] - float64(t)*wy*iw[kp-t]) * inv
			if c > q {
				tau, kappa, q = t, kp, c
			}
		}
	}
	return tau, kappa, q
}
