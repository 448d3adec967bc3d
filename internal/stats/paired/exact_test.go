package paired

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checksOf builds checks with A = 100 and B = 100·e^x for each row of x.
func checksOf(x [][]float64) []Check {
	out := make([]Check, len(x))
	for c, d := range x {
		out[c] = Check{Name: string(rune('a' + c)), A: make([]float64, len(d)), B: make([]float64, len(d))}
		for i, v := range d {
			out[c].A[i], out[c].B[i] = 100, 100*math.Exp(v)
		}
	}
	return out
}

// TestNoDecisionBelowMinPairs: with fewer units than an exact test needs
// to reach the level, pairs all 30 % worse (or all 30 % better) neither
// fail nor pass, and the reason names the number needed; at MinPairs the
// same pairs decide. With 3 pairs all 5 % worse up to rounding (the
// margin itself), nothing fails either.
func TestNoDecisionBelowMinPairs(t *testing.T) {
	if got := MinPairs(0.01); got != 7 {
		t.Errorf("MinPairs(0.01) = %d, want 7 (2⁻⁷ = 0.0078)", got)
	}
	for _, k := range []int{1, 22} {
		need := MinPairs(0.01 / float64(k))
		for _, tt := range []struct {
			shift float64
			want  Zone
		}{{math.Log(1.3), Fail}, {-math.Log(1.3), Pass}} {
			for n := 2; n <= need; n++ {
				rng := rand.New(rand.NewPCG(uint64(n), 1))
				x := make([][]float64, k)
				for c := range x {
					x[c] = make([]float64, n)
					for i := range x[c] {
						x[c][i] = tt.shift + 0.01*rng.NormFloat64()
					}
				}
				a, err := Analyze(checksOf(x), Pairs, Config{})
				if err != nil {
					t.Fatal(err)
				}
				want := Inconclusive
				if n == need {
					want = tt.want
				}
				if a.Verdict.Zone != want || a.MinPairs != need {
					t.Errorf("%d checks, %d pairs shifted %+.2f: %s (min %d), want %s (min %d): %s", k, n, tt.shift, a.Verdict.Zone, a.MinPairs,
						want, need, a.Verdict.Reason)
				}
				if n < need && !strings.Contains(a.Verdict.Reason, "below "+itoa(need)) {
					t.Errorf("%d pairs: reason %q does not name the %d needed", n, a.Verdict.Reason, need)
				}
			}
		}
	}
	// 105/100 against a 5 % margin: a tie, which decides nothing.
	c := Check{Name: "x", A: []float64{100, 100, 100, 100, 100, 100, 100, 100}, B: []float64{105, 105, 105, 105, 105, 105, 105, 105}}
	a, err := Analyze([]Check{c}, Pairs, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict.Zone != Inconclusive {
		t.Errorf("every pair exactly at the margin: %s (%s)", a.Verdict.Zone, a.Verdict.Reason)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSignCriticalExact: the critical counts and p-values agree with the
// binomial tail summed directly, and the bounds invert the tests: a bound
// beyond θ exactly when the count beyond θ reaches the critical count.
func TestSignCriticalExact(t *testing.T) {
	for n := 1; n <= 60; n++ {
		for _, alpha := range []float64{0.01, 0.05, 0.01 / 22} {
			c := signCritical(n, alpha)
			tail := func(c int) float64 {
				var s float64
				for j := c; j <= n; j++ {
					s += math.Exp(lchoose(n, j) - float64(n)*math.Ln2)
				}
				return s
			}
			if c <= n && tail(c) > alpha*(1+1e-12) || c > 0 && c-1 <= n && tail(c-1) <= alpha*(1-1e-12) {
				t.Errorf("n %d α %g: critical %d, tails %g and %g", n, alpha, c, tail(c), tail(c-1))
			}
			if c <= n && math.Abs(signP(n, c)-tail(c)) > 1e-12 {
				t.Errorf("n %d: signP(%d) = %g, tail %g", n, c, signP(n, c), tail(c))
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 7 + rng.IntN(40)
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.05 * rng.NormFloat64()
		}
		cf, cp := signCritical(n, 0.01/5), signCritical(n, 0.01)
		_, lo, hi := signBounds(x, cf, cp)
		for _, theta := range x {
			for _, th := range []float64{theta - 1e-9, theta + 1e-9} {
				above, below := 0, 0
				for _, v := range x {
					if v > th {
						above++
					}
					if v < th {
						below++
					}
				}
				if (above >= cf) != (lo > th) || (below >= cp) != (hi < th) {
					t.Fatalf("n %d θ %g: %d above (critical %d) but low %g; %d below (critical %d) but high %g", n, th, above, cf, lo, below, cp, hi)
				}
			}
		}
	}
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// TestPassIsIntersectionUnion: PASS tests each check at the full level and
// FAIL at level/K: 22 checks of 40 units have the critical counts of a
// sign test at 1 % and at 1 %/22.
func TestPassIsIntersectionUnion(t *testing.T) {
	x := make([][]float64, 22)
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range x {
		x[c] = make([]float64, 40)
		for i := range x[c] {
			x[c][i] = 0.02 * rng.NormFloat64()
		}
	}
	// The dependence test is set never to reject (its smallest p-value
	// is 1/1000): the critical counts asked about are those of 40 units,
	// not of blocks.
	a, err := Analyze(checksOf(x), Pairs, Config{DependenceLevel: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if a.CriticalPass != 28 || a.CriticalFail != 31 {
		t.Errorf("critical counts pass %v fail %v, want 28 (P(Bin(40,½) ≥ 28) = 0.0083) and 31 (P ≥ 31 = 3.4e-4 ≤ 0.01/22 < P ≥ 30 = 1.1e-3)", a.CriticalPass, a.CriticalFail)
	}
	if a.Verdict.Zone != Pass {
		t.Errorf("22 checks varying by 2 %%: %s (%s)", a.Verdict.Zone, a.Verdict.Reason)
	}
}
