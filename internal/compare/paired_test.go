package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// driftSpec describes simulated interleaved A/B runs: pairs of runs of one
// sub-experiment with payloads, the candidate factor times slower, each
// run's latencies moved by the machine's drift (a ramp of drift per run
// over the series, common to every check) and by log-normal noise of
// standard deviation sd, shared by a run's checks for half its variance.
type driftSpec struct {
	pairs    int
	payloads int
	factor   float64
	drift    float64 // relative change per run, in run order
	sd       float64
	// ciOrder runs every reference run first, then every candidate run
	// (the order CI uses for a baseline and a candidate); otherwise each
	// pair's two runs are adjacent, in random order.
	ciOrder bool
}

// simulate returns the reference and candidate runs of s, named alike
// (p-01 …), with start times in run order.
func (s driftSpec) simulate(rng *rand.Rand) (refs, cands []*experiment.Experiment) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	mk := func(side string, i, slot int, factor float64) *experiment.Experiment {
		level := factor * math.Exp(s.drift*float64(slot)+s.sd/math.Sqrt2*rng.NormFloat64())
		var rows []result.SummaryRow
		for p := range s.payloads {
			base := 100 * math.Pow(1.3, float64(p)) * level * math.Exp(s.sd/math.Sqrt2*rng.NormFloat64())
			r := row(16<<p, base)
			r.Min, r.P99 = base*0.8, base*1.6
			rows = append(rows, r)
		}
		e := exp(fmt.Sprintf("%s/p-%02d", side, i+1), sub("sim", rows...))
		e.Name = fmt.Sprintf("p-%02d", i+1)
		e.Start = t0.Add(time.Duration(slot) * time.Minute)
		return e
	}
	for i := range s.pairs {
		rs, cs := 2*i, 2*i+1
		if s.ciOrder {
			rs, cs = i, s.pairs+i
		} else if rng.IntN(2) == 0 {
			rs, cs = cs, rs
		}
		refs = append(refs, mk("ref", i, rs, 1))
		cands = append(cands, mk("cand", i, cs, s.factor))
	}
	return refs, cands
}

// TestUnpairedFooledByCIOrder: baseline runs first, then candidate runs,
// on a machine drifting 1 % per run: the unpaired gate fails the unchanged
// system, and says that drift is not controlled, with the baseline's trend.
func TestUnpairedFooledByCIOrder(t *testing.T) {
	s := driftSpec{pairs: 10, payloads: 6, factor: 1, drift: 0.01, sd: 0.01, ciOrder: true}
	refs, cands := s.simulate(rand.New(rand.NewPCG(3, 4)))
	res, err := CompareRuns(refs, cands, Config{Threshold: 0.05, Pairing: PairNever})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Verdict()
	if v.Status != gate.Failed || v.Decision == nil {
		t.Fatalf("status %s, decision %+v: want the drift to fail the unchanged system", v.Status, v.Decision)
	}
	for _, want := range []string{"not controlled", "reference τ +", "by start time"} {
		if !strings.Contains(v.Decision.Drift, want) {
			t.Errorf("drift %q lacks %q", v.Decision.Drift, want)
		}
	}
}

// TestPairedUnmatched: --paired with runs that do not pair is an input
// error naming the experiments on one side only; without --paired such
// runs are compared unpaired.
func TestPairedUnmatched(t *testing.T) {
	refs, cands := driftSpec{pairs: 4, payloads: 2, factor: 1, sd: 0.01}.simulate(rand.New(rand.NewPCG(1, 1)))
	cands[3].Name = "p-05"
	_, err := CompareRuns(refs, cands, Config{Threshold: 0.1, Pairing: PairAlways})
	if err == nil || !strings.Contains(err.Error(), "only in the reference: p-04") || !strings.Contains(err.Error(), "only in the results: p-05") {
		t.Errorf("--paired with unmatched runs: %v", err)
	}
	res, err := CompareRuns(refs, cands, Config{Threshold: 0.1})
	if err != nil || res.Mode != gate.ModeStatistical {
		t.Fatalf("unmatched runs without --paired: %v; want them compared unpaired", err)
	}
	if res.Mode != gate.ModeStatistical {
		t.Errorf("unmatched runs without --paired: mode %q, want %q", res.Mode, gate.ModeStatistical)
	}
}

// TestPairedMissingSubExperiment: a sub-experiment of the reference that no
// candidate run holds is missing, as in the other modes; the paired family
// judges the rest.
func TestPairedMissingSubExperiment(t *testing.T) {
	// 6 checks at 1 % need 10 pairs for a decision (2⁻¹⁰ ≤ 1 %/6).
	refs, cands := driftSpec{pairs: 12, payloads: 2, factor: 1, sd: 0.005}.simulate(rand.New(rand.NewPCG(5, 5)))
	for _, r := range refs {
		extra := r.Summaries[0]
		extra.Type = "extra"
		r.Summaries = append(r.Summaries, extra)
	}
	for _, allow := range []bool{false, true} {
		res, err := CompareRuns(refs, cands, Config{Threshold: 0.1, AllowMissing: allow, Pairing: PairAlways})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict()
		want := gate.Failed
		if allow {
			want = gate.Passed
		}
		if res.Mode != gate.ModePaired || v.Status != want || v.Missing != 6 || v.Passed != 6 || v.Decision == nil || v.Decision.N != 12 {
			t.Errorf("allow missing %v: mode %q, status %s, %d missing, %d passed, decision %+v; want paired, %s, 6 missing, 6 passed, N 12",
				allow, res.Mode, v.Status, v.Missing, v.Passed, v.Decision, want)
		}
	}
}
