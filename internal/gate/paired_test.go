package gate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/seq"
)

// TestSequentialDecision: a sequential gate's decision becomes the
// verdict's Decision in one call, with its rule, N, estimand, minimum
// pairs and dependence diagnostic.
func TestSequentialDecision(t *testing.T) {
	g, err := seq.New([]seq.Spec{{Name: "tcp 16 B p50"}}, seq.Config{MaxPairs: 40})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var d seq.Decision
	for d.Status == seq.Continue {
		if d, err = g.Add([]float64{100}, []float64{130 * math.Exp(0.01*rng.NormFloat64())}); err != nil {
			t.Fatal(err)
		}
	}
	dec := SequentialDecision(d, 0.01, "pairs")
	if d.Status != seq.Fail || !strings.HasPrefix(dec.Rule, "fail") || dec.N != d.Pairs || dec.MinPairs != 20 ||
		!strings.Contains(dec.Estimand, "median") || !strings.Contains(dec.Dependence, "autocorrelation") || !math.IsNaN(dec.Low) {
		t.Errorf("status %s, decision %+v", d.Status, dec)
	}
}

// TestSequentialRuleNamesTheMethod: the rule of a sequential verdict names
// the construction that computed it: group-sequential O'Brien–Fleming
// boundaries under a budget, the mixture of sign bets (e-process) without
// one; never an e-process the gate did not use.
func TestSequentialRuleNamesTheMethod(t *testing.T) {
	for _, c := range []struct {
		budget      int
		want, never string
	}{{40, "O'Brien–Fleming", "e-process"}, {0, "e-process", "O'Brien–Fleming"}} {
		g, err := seq.New([]seq.Spec{{Name: "tcp 16 B p50"}}, seq.Config{MaxPairs: c.budget})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		var d seq.Decision
		for d.Status == seq.Continue {
			if d, err = g.Add([]float64{100}, []float64{130 * math.Exp(0.01*rng.NormFloat64())}); err != nil {
				t.Fatal(err)
			}
		}
		dec := SequentialDecision(d, 0.01, "pairs")
		if d.Status != seq.Fail || !strings.Contains(dec.Rule, c.want) || strings.Contains(dec.Rule, c.never) {
			t.Errorf("budget %d: status %s, rule %q: want %q, never %q", c.budget, d.Status, dec.Rule, c.want, c.never)
		}
	}
}
