package dist

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// referenceCase is one case of testdata/mannwhitney_reference.json, computed
// by testdata/mannwhitney_reference.py with scipy 1.10 (exact and asymptotic
// Mann–Whitney p-values), a brute-force permutation p-value for samples with
// ties, and interval ranks from the Gaussian-binomial null distribution of U.
type referenceCase struct {
	Name      string    `json:"name"`
	Reference []float64 `json:"reference"`
	Candidate []float64 `json:"candidate"`
	Method    string    `json:"method"`
	P         float64   `json:"p"`
	U         float64   `json:"u"`
	Estimate  float64   `json:"estimate"`
	Intervals []struct {
		Tail float64  `json:"tail"`
		K    int      `json:"k"`
		Low  float64  `json:"low"`
		High *float64 `json:"high"`
	} `json:"intervals"`
}

func loadReference(t *testing.T) []referenceCase {
	t.Helper()
	b, err := os.ReadFile("testdata/mannwhitney_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	return cases
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-300)
}

// TestCompareMatchesScipy checks p-values, U, the Hodges–Lehmann estimate and
// the interval ends against the independently computed reference values.
func TestCompareMatchesScipy(t *testing.T) {
	for _, rc := range loadReference(t) {
		t.Run(rc.Name, func(t *testing.T) {
			e, err := Compare(rc.Reference, rc.Candidate, false, 0.025)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-12
			if rc.Method == "asymptotic" {
				tol = 1e-9
			}
			if !relClose(e.P, rc.P, tol) {
				t.Errorf("p = %.17g, reference (%s) %.17g", e.P, rc.Method, rc.P)
			}
			if e.Exact != (rc.Method != "asymptotic") {
				t.Errorf("Exact = %v for a %s case", e.Exact, rc.Method)
			}
			if e.U != rc.U {
				t.Errorf("U = %v, reference %v", e.U, rc.U)
			}
			if !relClose(e.Estimate, rc.Estimate, 1e-12) {
				t.Errorf("estimate = %.17g, reference %.17g", e.Estimate, rc.Estimate)
			}
			for _, iv := range rc.Intervals {
				e, _ := Compare(rc.Reference, rc.Candidate, false, iv.Tail)
				if k, _ := intervalRank(len(rc.Reference), len(rc.Candidate), false, iv.Tail); k != iv.K {
					t.Errorf("tail %g: rank %d, reference %d", iv.Tail, k, iv.K)
				}
				wantHigh := math.Inf(1)
				if iv.High != nil {
					wantHigh = *iv.High
				}
				if !(e.Low == iv.Low || relClose(e.Low, iv.Low, 1e-12)) || !(e.High == wantHigh || relClose(e.High, wantHigh, 1e-12)) {
					t.Errorf("tail %g: interval [%v, %v], reference [%v, %v]", iv.Tail, e.Low, e.High, iv.Low, wantHigh)
				}
			}
		})
	}
}

// TestCompareHigherIsBetter: for throughput the effect is the same ratio,
// but "worse" is lower, so p is the mirror test.
func TestCompareHigherIsBetter(t *testing.T) {
	ref := []float64{1000, 1010, 990, 1005, 995}
	cand := []float64{800, 810, 790, 805, 795}
	e, err := Compare(ref, cand, true, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(e.Estimate, 0.8, 0.01) || e.Low > e.Estimate || e.High < e.Estimate || e.High >= 1 {
		t.Errorf("estimate %v interval [%v, %v]", e.Estimate, e.Low, e.High)
	}
	// All 25 pairs worse: the smallest possible p, 1/C(10,5).
	if !relClose(e.P, 1.0/252, 1e-12) || e.U != 25 {
		t.Errorf("p = %v U = %v, want 1/252 and 25", e.P, e.U)
	}
	lower, _ := Compare(ref, cand, false, 0.025)
	if lower.P != 1 || lower.Estimate != e.Estimate {
		t.Errorf("lower-is-better p %v estimate %v", lower.P, lower.Estimate)
	}
}

func TestCompareRejectsNonPositive(t *testing.T) {
	for _, bad := range [][]float64{{1, 0}, {1, -2}, {math.NaN(), 1}, {math.Inf(1), 1}} {
		if _, err := Compare([]float64{1, 2}, bad, false, 0.025); err != ErrNotPositive {
			t.Errorf("%v: err %v", bad, err)
		}
	}
	if _, err := Compare(nil, []float64{1}, false, 0.025); err == nil {
		t.Error("no reference runs accepted")
	}
}

// TestIntervalMatchesTest: without ties, the interval's lower end lies above
// "no change" exactly when the exact one-sided p-value is ≤ the tail, so the
// verdict's interval and its test never disagree.
func TestIntervalMatchesTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		n1, n2 := 2+rng.IntN(12), 2+rng.IntN(12)
		shift := rng.NormFloat64() * 0.2
		ref, cand := make([]float64, n1), make([]float64, n2)
		for j := range ref {
			ref[j] = math.Exp(rng.NormFloat64() * 0.1)
		}
		for j := range cand {
			cand[j] = math.Exp(shift + rng.NormFloat64()*0.1)
		}
		tail := []float64{0.05, 0.01, 0.001, 1e-4}[rng.IntN(4)]
		e, err := Compare(ref, cand, false, tail)
		if err != nil {
			t.Fatal(err)
		}
		if (e.Low > 1) != (e.P <= tail) {
			t.Fatalf("n %d/%d tail %g: low %v but p %v", n1, n2, tail, e.Low, e.P)
		}
	}
}

func TestMinRuns(t *testing.T) {
	// 1/C(2n, n): n=3 → 0.05, n=4 → 0.0143, n=5 → 0.00397, n=8 → 7.8e-5.
	for _, tt := range []struct {
		tail float64
		n    int
	}{{0.05, 3}, {0.01, 5}, {0.004, 5}, {0.001, 7}, {1e-4, 8}} {
		if got := MinRuns(tt.tail); got != tt.n {
			t.Errorf("MinRuns(%g) = %d, want %d", tt.tail, got, tt.n)
		}
	}
}
