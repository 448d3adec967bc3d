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

// TestGateStaleLeavesTheWindowsChange: the stale warning says what lasts
// of each old slowdown, not the window's own slowdown, which the gate
// fails. An old +10 % undone 10 experiments later is not warned of (it
// was warned of as +27 % since e010, and its undoing as a slowdown of
// +16 % since e020, both the window's +25 % at e034); an old +20 % that
// lasts is warned of at about +20 %, not +50 %.
func TestGateStaleLeavesTheWindowsChange(t *testing.T) {
	med := slices.Index(Magnitudes, "Median")
	for seed := uint64(0); seed < 10; seed++ {
		for _, c := range []struct {
			old      float64 // from experiment 10
			undoneAt int     // the old step ends here
			warn     bool
		}{{1.1, 20, false}, {1.2, 40, true}} {
			h := simHistory(seed, 40, twoPayloads, 0.02, 0, 1.25, 34)
			for _, v := range h.SubExperiments[0].Values[med] {
				for i := 10; i < c.undoneAt; i++ {
					v[i] *= c.old
				}
			}
			g := gateSim(t, h, seed, GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange})[0]
			if !g.Failed() {
				t.Errorf("seed %d, old %v: the window's +25 %% passed: %s", seed, c.old, g.Summary())
			}
			var stale []changepoint.ChangePoint
			for _, s := range g.Series {
				stale = append(stale, s.Stale...)
			}
			if !c.warn && len(stale) > 0 {
				t.Errorf("seed %d: an old slowdown undone before the window warned of: %+v", seed, stale)
			}
			for _, s := range stale {
				if s.Ratio > 1.3 || s.Ratio < 1.1 {
					t.Errorf("seed %d, old %v: a stale slowdown of %.3f", seed, c.old, s.Ratio)
				}
			}
			if c.warn && len(stale) == 0 {
				t.Errorf("seed %d: the lasting old +20 %% not warned of", seed)
			}
		}
	}
}
