package paired

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// referenceCase is one case of testdata/paired_reference.json, computed by
// testdata/paired_reference.py with numpy and scipy (the t statistic, and
// the signed-rank test by scipy.stats.wilcoxon; its sign-flip and max-T
// fields belong to an earlier method and are not compared).
type referenceCase struct {
	Name     string  `json:"name"`
	ABBA     bool    `json:"abba"`
	Tail     float64 `json:"tail"`
	Critical float64 `json:"critical"`
	Checks   []struct {
		Name   string    `json:"name"`
		A      []float64 `json:"A"`
		B      []float64 `json:"B"`
		Higher bool      `json:"higher"`
		Ratio  float64   `json:"ratio"`
		Low    float64   `json:"low"`
		High   float64   `json:"high"`
		T      float64   `json:"t"`
		P      float64   `json:"p"`
		PAdj   float64   `json:"padj"`
		W      float64   `json:"w"`
		WP     float64   `json:"wp"`
		WExact bool      `json:"wexact"`
	} `json:"checks"`
}

func close(a, b, tol float64) bool {
	return a == b || math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-300)
}

func TestAnalyzeMatchesReference(t *testing.T) {
	b, err := os.ReadFile("testdata/paired_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 5 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	for _, rc := range cases {
		t.Run(rc.Name, func(t *testing.T) {
			var checks []Check
			for _, c := range rc.Checks {
				checks = append(checks, Check{Name: c.Name, A: c.A, B: c.B, HigherIsBetter: c.Higher})
			}
			design := Pairs
			if rc.ABBA {
				design = ABBA
			}
			a, err := Analyze(checks, design, Config{Tail: rc.Tail})
			if err != nil {
				t.Fatal(err)
			}
			if !a.Exact {
				t.Errorf("not exact with %d units", a.Units)
			}
			for k, want := range rc.Checks {
				got := a.Checks[k]
				for _, f := range []struct {
					name      string
					got, want float64
				}{{"t", got.T, want.T}, {"signed-rank W", got.Wilcoxon.W, want.W}, {"signed-rank p", got.Wilcoxon.P, want.WP}} {
					if !close(f.got, f.want, 1e-9) {
						t.Errorf("%s: %s = %.17g, reference %.17g", want.Name, f.name, f.got, f.want)
					}
				}
				if got.Wilcoxon.Exact != want.WExact {
					t.Errorf("%s: signed-rank exact %v, reference %v", want.Name, got.Wilcoxon.Exact, want.WExact)
				}
			}
		})
	}
}
