package trend

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestMatchesScipy compares with testdata/trend_reference.json: scipy
// 1.10's kendalltau(range(n), x) and theilslopes(x).slope, computed by
// testdata/trend_reference.py.
func TestMatchesScipy(t *testing.T) {
	b, err := os.ReadFile("testdata/trend_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name  string    `json:"name"`
		X     []float64 `json:"x"`
		Tau   float64   `json:"tau"`
		P     float64   `json:"p"`
		S     int       `json:"s"`
		Slope float64   `json:"slope"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 8 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		r, err := Test(c.X)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if r.S != c.S || !near(r.Tau, c.Tau, 1e-12) || !near(r.P, c.P, 1e-9) || !near(r.Slope, c.Slope, 1e-12) {
			t.Errorf("%s: S %d τ %.17g p %.17g slope %.17g; scipy S %d τ %.17g p %.17g slope %.17g",
				c.Name, r.S, r.Tau, r.P, r.Slope, c.S, c.Tau, c.P, c.Slope)
		}
	}
}

func near(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-300)
}

func TestFlatAndShort(t *testing.T) {
	r, err := Test([]float64{3, 3, 3, 3})
	if err != nil || r.P != 1 || r.Tau != 0 || r.Slope != 0 {
		t.Errorf("flat series: %+v, %v", r, err)
	}
	if _, err := Test([]float64{1}); err == nil {
		t.Error("one run accepted")
	}
	if _, err := Test([]float64{1, math.NaN(), 2}); err == nil {
		t.Error("NaN accepted")
	}
}

// TestRates: on 4,000 series of 20 independent runs the test rejects "no
// trend" at 5 % at most about 5 % of the time, and it finds a drift of 0.1
// standard deviations per run most of the time.
func TestRates(t *testing.T) {
	const series, n = 4000, 20
	rng := rand.New(rand.NewPCG(8, 9))
	x := make([]float64, n)
	for _, tt := range []struct {
		drift  float64
		lo, hi float64 // the share rejected must lie within
	}{{0, 0, 0.06}, {0.1, 0.6, 1}} {
		hits := 0
		for range series {
			for i := range x {
				x[i] = tt.drift*float64(i) + rng.NormFloat64()
			}
			if r, _ := Test(x); r.P <= 0.05 {
				hits++
			}
		}
		share := float64(hits) / series
		t.Logf("drift %.1f σ per run over %d runs: rejected at 5 %% in %.2f %%", tt.drift, n, 100*share)
		if share < tt.lo || share > tt.hi {
			t.Errorf("drift %v: rejected %v, want within [%v, %v]", tt.drift, share, tt.lo, tt.hi)
		}
	}
}
