package history

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/synth"
)

// simHistory builds in memory a history of n experiments of one
// sub-experiment and the given payloads, with Median values only (the other
// magnitudes are gaps): log-normal noise of sd sigma, AR(1) with lag-1
// autocorrelation phi across experiments, times step from experiment stepAt
// on (step 1: none).
func simHistory(seed uint64, n int, payloads []int, sigma, phi, step float64, stepAt int) *History {
	exps := make([]*experiment.Experiment, n)
	for e := range exps {
		exps[e] = &experiment.Experiment{Name: fmt.Sprintf("e%03d", e)}
	}
	h := &History{Experiments: exps}
	rng := newRand(seed)
	s := &SubExperiment{Type: "interprocess_reliable", Payloads: payloads}
	s.Requirements = make([][]float64, len(Checks))
	for c := range s.Requirements {
		s.Requirements[c] = nanSlice(len(payloads))
	}
	s.Values = make([][][]float64, len(Magnitudes))
	med := slices.Index(Magnitudes, "Median")
	for m := range Magnitudes {
		s.Values[m] = make([][]float64, len(payloads))
		for p, b := range payloads {
			v := nanSlice(n)
			if m == med {
				e := rng.NormFloat64() / math.Sqrt(1-phi*phi)
				for i := range v {
					if i > 0 {
						e = phi*e + rng.NormFloat64()
					}
					v[i] = synth.BaseLatency(s.Type, b) * math.Exp(sigma*e*math.Sqrt(1-phi*phi))
					if i >= stepAt {
						v[i] *= step
					}
				}
			}
			s.Values[m][p] = v
		}
	}
	h.SubExperiments = []*SubExperiment{s}
	return h
}

var twoPayloads = []int{16, 1024}

// gateSim detects the change points of simHistory(seed, …) and gates its
// Medians with opt.
func gateSim(t *testing.T, h *History, seed uint64, opts ...GateOptions) []*GateResult {
	t.Helper()
	if err := h.DetectChanges(context.Background(), ChangeOptions{Options: changepoint.Options{Seed: seed}}); err != nil {
		t.Fatal(err)
	}
	var out []*GateResult
	for _, o := range opts {
		o.Metrics = []string{"Median"}
		g, err := h.Gate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// TestGateStaleRegression: a 20 % step at experiment 10 of 40, never
// acknowledged, is 30 experiments old: with --gate-window 10 the gate
// passes and warns that the slowdown was never acknowledged and is the
// baseline now; judging every age (--gate-window 0) it fails; acknowledged,
// it passes without that warning.
func TestGateStaleRegression(t *testing.T) {
	ack := Ack{SubExperiment: "interprocess_reliable", Metric: "Median", Payload: -1, Experiment: "e010", Note: "accepted", File: "acks.csv", Line: 2}
	for seed := uint64(0); seed < 10; seed++ {
		g := gateSim(t, simHistory(seed, 40, twoPayloads, 0.02, 0, 1.2, 10), seed,
			GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange},
			GateOptions{Window: 0, MinChange: DefaultMinChange},
			GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange, Acks: []Ack{ack}, AcksFile: "acks.csv"})
		warned := func(r *GateResult) bool {
			for _, w := range r.Verdict.Warnings {
				if strings.Contains(w, "never acknowledged") && strings.Contains(w, "interprocess_reliable 16 B Median +") &&
					strings.Contains(w, "the baseline now") {
					return true
				}
			}
			return false
		}
		if g[0].Failed() || !warned(g[0]) {
			t.Errorf("seed %d, window 10: failed %v, warnings %q", seed, g[0].Failed(), g[0].Verdict.Warnings)
		}
		if !g[1].Failed() {
			t.Errorf("seed %d, every age: passed: %s", seed, g[1].Summary())
		}
		if g[2].Failed() || warned(g[2]) {
			t.Errorf("seed %d, acknowledged: failed %v, warnings %q", seed, g[2].Failed(), g[2].Verdict.Warnings)
		}
	}
}
