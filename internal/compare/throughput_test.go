package compare

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

// tputRuns writes n synthetic throughput runs under dir (see
// synth.WriteThroughputRuns) and loads them.
func tputRuns(t *testing.T, dir string, s synth.ThroughputSpec, first, n int) []*experiment.Experiment {
	t.Helper()
	dirs, err := synth.WriteThroughputRuns(dir, s, first, n)
	if err != nil {
		t.Fatal(err)
	}
	exps, err := experiment.LoadDirs(context.Background(), dirs)
	if err != nil {
		t.Fatal(err)
	}
	return exps
}

var twoLoads = []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 100}, {Mode: result.ModeRate, Offered: 5000}}

// TestThroughputSingleRun: one run per side, threshold 10 %: a drop beyond
// it fails, a rise of any size and a drop within it pass (higher is
// better, formats §7).
func TestThroughputSingleRun(t *testing.T) {
	root := t.TempDir()
	ref := tputRuns(t, filepath.Join(root, "ref"), synth.ThroughputSpec{Loads: twoLoads}, 1, 1)
	for _, tt := range []struct {
		factor float64
		want   gate.Status
	}{
		{0.8, gate.Failed}, {0.95, gate.Passed}, {1, gate.Passed}, {1.5, gate.Passed}, {0.899, gate.Failed},
	} {
		tgt := tputRuns(t, filepath.Join(root, "tgt"), synth.ThroughputSpec{Loads: twoLoads, Factor: tt.factor}, 1, 1)
		res, err := Compare(ref[0], tgt[0], Config{Threshold: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Throughputs) != 1 || len(res.Throughputs[0].Checks) != 4 {
			t.Fatalf("throughputs %+v", res.Throughputs)
		}
		for _, c := range res.Throughputs[0].Checks {
			if c.Status != tt.want || c.Metric.Better != result.HigherIsBetter || c.Metric.Unit != "msg/s" {
				t.Errorf("factor %g: %s %s (%s)", tt.factor, c.SubExperiment, c.Status, c.Message)
			}
			if !strings.Contains(c.Message, "higher is better") || !strings.Contains(c.Message, "Mb/s") {
				t.Errorf("message %q says neither direction nor Mb/s", c.Message)
			}
		}
		if got := res.Verdict().Status; got != tt.want {
			t.Errorf("factor %g: verdict %s, want %s", tt.factor, got, tt.want)
		}
	}
}

// TestThroughputStatistical: 10 runs per side with 3 % run-to-run noise
// (seeded): unchanged runs never fail, a 20 % drop fails, a 20 % rise
// passes; and the direction is the mirror of latency's: the gate judges a
// throughput divided by f exactly as a latency multiplied by f.
func TestThroughputStatistical(t *testing.T) {
	root := t.TempDir()
	spec := synth.ThroughputSpec{Loads: twoLoads, SD: 0.03, Seed: 7}
	ref := tputRuns(t, filepath.Join(root, "ref"), spec, 1, 10)
	for _, tt := range []struct {
		factor float64
		seed   uint64
		want   gate.Status
	}{
		{1, 8, gate.Passed}, {1, 9, gate.Passed}, {0.8, 8, gate.Failed}, {1.2, 8, gate.Passed},
	} {
		s := spec
		s.Factor, s.Seed = tt.factor, tt.seed
		tgt := tputRuns(t, filepath.Join(root, "tgt"), s, 11, 10)
		res, err := CompareRuns(ref, tgt, Config{Threshold: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Verdict()
		if v.Mode != gate.ModeStatistical || v.Status != tt.want {
			t.Errorf("factor %g seed %d: %s %s", tt.factor, tt.seed, v.Mode, v.Status)
			for _, c := range v.Checks {
				t.Log(c.SubExperiment, c.Status, c.Message)
			}
		}
	}

	// Mirror: values v, candidate v/f for throughput against v, v·f for
	// latency give the same p-value, estimate (inverted) and verdict.
	refV := []float64{100, 103, 98, 101, 99, 102, 97, 100.5}
	for _, f := range []float64{1, 1.05, 1.3} {
		var tc, lc []float64
		for i, v := range refV {
			x := v * (1 + 0.01*float64(i%3))
			tc, lc = append(tc, x/f), append(lc, x*f)
		}
		tput := gate.Judge([]gate.Series{{Payload: 16, Metric: result.MessageRate, Threshold: 0.1, Reference: refV, Candidate: tc}}, 0.01, "reference")[0]
		inv := make([]float64, len(refV))
		for i, v := range refV {
			inv[i] = 1 / v
		}
		var linv []float64
		for _, x := range tc {
			linv = append(linv, 1/x)
		}
		lat := gate.Judge([]gate.Series{{Payload: 16, Metric: result.Median, Threshold: 1/(1-0.1) - 1, Reference: inv, Candidate: linv}}, 0.01, "reference")[0]
		if tput.Status != lat.Status || tput.Stats.P != lat.Stats.P {
			t.Errorf("factor %g: throughput %s p %g, mirrored latency %s p %g", f, tput.Status, tput.Stats.P, lat.Status, lat.Stats.P)
		}
	}
}

// TestThroughputMismatch: rows that one side lacks (another offered rate,
// another payload) are an input error naming them, never compared; so is a
// throughput summary only the results have, or only some runs of a side.
func TestThroughputMismatch(t *testing.T) {
	root := t.TempDir()
	ref := tputRuns(t, filepath.Join(root, "ref"), synth.ThroughputSpec{Loads: twoLoads}, 1, 2)
	other := tputRuns(t, filepath.Join(root, "other"), synth.ThroughputSpec{Loads: []result.ThroughputRow{twoLoads[0], {Mode: result.ModeRate, Offered: 6000}}}, 1, 2)
	_, err := CompareRuns(ref, other, Config{Threshold: 0.1})
	for _, want := range []string{"the runs measured different payloads, modes or offered rates",
		"16 B rate 5000 msg/s, 1024 B rate 5000 msg/s only in the reference", "16 B rate 6000 msg/s, 1024 B rate 6000 msg/s only in"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	// A different F in window mode is the search's result: compared, and
	// each side's F reported.
	f := tputRuns(t, filepath.Join(root, "f"), synth.ThroughputSpec{Loads: []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 120}, twoLoads[1]}}, 1, 1)
	res, err := Compare(ref[0], f[0], Config{Threshold: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Throughputs[0].Checks[0]; !strings.Contains(c.Message, "best F 120 vs 100") {
		t.Errorf("message %q", c.Message)
	}
	onlyTarget := tputRuns(t, filepath.Join(root, "two"), synth.ThroughputSpec{Types: []string{"intraprocess_best_effort", "x"}, Loads: twoLoads}, 1, 1)
	if _, err := Compare(ref[0], onlyTarget[0], Config{Threshold: 0.1}); err == nil || !strings.Contains(err.Error(), `throughput of sub-experiment "x" has no reference`) {
		t.Errorf("throughput only in the results: %v", err)
	}
	if _, err := CompareRuns(append(ref[:1:1], onlyTarget[0]), ref, Config{Threshold: 0.1}); err == nil || !strings.Contains(err.Error(), `throughput of sub-experiment "x" (throughput_x.csv) is in 1 reference runs but missing from 1`) {
		t.Errorf("throughput in some runs: %v", err)
	}
	// Missing from the results: a missing check, failed unless allowed.
	latOnly := exp("lat", sub("a", row(16, 10)))
	res, err = Compare(onlyTarget[0], latOnly, Config{Threshold: 0.1})
	if err == nil {
		t.Fatal("latency-only results against latency-free reference compared")
	}
	_ = res
}

// TestInconclusiveSummaryThroughput: a throughput check not gateable with
// these runs was advised to "leave the column out with --columns", which
// refuses Messages/s (it takes latency columns); now the advice is more
// runs, and --columns is named for the latency columns alone.
func TestInconclusiveSummaryThroughput(t *testing.T) {
	check := func(metric result.Metric) gate.Check {
		return gate.Check{Metric: metric, Status: gate.Inconclusive, Stats: &gate.Stats{Gateable: false}}
	}
	for _, tt := range []struct {
		checks []gate.Check
		want   string
	}{
		{[]gate.Check{check(result.MessageRate)}, "(Messages/s: see each check: more runs per side)"},
		{[]gate.Check{check(result.Max)}, "(Max: see each check, or leave the column out with --columns)"},
		{[]gate.Check{check(result.MessageRate), check(result.Max)}, "(Messages/s, Max: see each check, or leave Max out with --columns)"},
	} {
		v := &gate.Verdict{Checks: tt.checks, Inconclusive: len(tt.checks)}
		if got := inconclusiveSummary(v); !strings.HasSuffix(got, tt.want) {
			t.Errorf("got %q, want it to end in %q", got, tt.want)
		}
	}
}
