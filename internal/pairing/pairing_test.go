package pairing

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
)

// run returns an experiment named name whose latency sub-experiment "lat"
// has rows of payloads 16 and 1024 with Median v and v·10, and whose
// throughput sub-experiment "tp" has one window row of rate r.
func run(dir, name string, v, r float64) *experiment.Experiment {
	row := func(bytes int, x float64) result.SummaryRow {
		var s result.SummaryRow
		s.Bytes = bytes
		for _, col := range result.SummaryColumns {
			s.Set(col, x)
		}
		return s
	}
	return &experiment.Experiment{Name: name, Dir: dir + "/" + name,
		Summaries: []experiment.Summary{{Type: "lat", Path: dir + "/" + name + "/lat.csv", Rows: []result.SummaryRow{row(16, v), row(1024, 10*v)}}},
		Throughputs: []experiment.Throughput{{Type: "tp", Path: dir + "/" + name + "/tp.csv",
			Rows: []result.ThroughputRow{{Payload: 16, Mode: result.ModeWindow, Median: r}}}}}
}

func TestMatchNamesUnmatched(t *testing.T) {
	refs := []*experiment.Experiment{run("a", "x-01", 1, 1), run("a", "x-02", 1, 1), run("a", "x-03", 1, 1)}
	cands := []*experiment.Experiment{run("b", "x-02", 1, 1), run("b", "x-01", 1, 1), run("b", "x-04", 1, 1)}
	_, err := Match(refs, cands)
	var u *Unmatched
	if !errors.As(err, &u) || !slices.Equal(u.ReferenceOnly, []string{"x-03"}) || !slices.Equal(u.CandidateOnly, []string{"x-04"}) {
		t.Fatalf("Match = %v, want x-03 and x-04 unmatched", err)
	}
	if !strings.Contains(err.Error(), "only in the reference: x-03") || !strings.Contains(err.Error(), "only in the results: x-04") {
		t.Errorf("message %q does not name both", err)
	}
	_, err = Match(refs[:2], append(cands[:2:2], run("c", "x-01", 1, 1)))
	if !errors.As(err, &u) || !slices.Equal(u.Duplicates, []string{"results: x-01"}) {
		t.Errorf("Match with a name twice = %v", err)
	}
	if _, err := Match(refs[:1], cands[1:2]); err == nil {
		t.Error("one pair accepted")
	}
	pairs, err := Match(refs[:2], cands[:2])
	if err != nil || len(pairs) != 2 || pairs[0].Name != "x-01" || pairs[0].Candidate != cands[1] {
		t.Fatalf("Match = %+v, %v: want x-01 with its candidate first", pairs, err)
	}
}

func TestChecksFamily(t *testing.T) {
	pairs := []Pair{
		{"x-01", run("a", "x-01", 1, 100), run("b", "x-01", 2, 90)},
		{"x-02", run("a", "x-02", 3, 110), run("b", "x-02", 4, 80)},
	}
	checks, origins, err := Checks(pairs, []result.Metric{result.Median, result.P99})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
	}
	want := []string{"lat 16 B Median", "lat 1024 B Median", "lat 16 B 99%", "lat 1024 B 99%", "throughput_tp (window) 16 B Messages/s"}
	if !slices.Equal(names, want) || len(origins) != len(checks) {
		t.Fatalf("checks %q (%d origins), want %q", names, len(origins), want)
	}
	if c := checks[1]; !slices.Equal(c.A, []float64{10, 30}) || !slices.Equal(c.B, []float64{20, 40}) || c.HigherIsBetter {
		t.Errorf("lat 1024 B Median = %+v", c)
	}
	if c := checks[4]; !slices.Equal(c.A, []float64{100, 110}) || !slices.Equal(c.B, []float64{90, 80}) || !c.HigherIsBetter {
		t.Errorf("throughput check = %+v", c)
	}
	if o := origins[2]; o.SubExperiment != "lat" || o.Key.Payload != 16 || o.Metric != result.P99 || o.Throughput {
		t.Errorf("origin of lat 16 B 99%% = %+v", o)
	}
}

func TestChecksRefuseDifferentRuns(t *testing.T) {
	odd := run("b", "x-02", 4, 80)
	odd.Summaries[0].Rows = odd.Summaries[0].Rows[:1]
	pairs := []Pair{{"x-01", run("a", "x-01", 1, 100), run("b", "x-01", 2, 90)}, {"x-02", run("a", "x-02", 3, 110), odd}}
	_, _, err := Checks(pairs, []result.Metric{result.Median})
	if err == nil || !strings.Contains(err.Error(), "b/x-02/lat.csv") || !strings.Contains(err.Error(), "lat 1024 B Median") {
		t.Errorf("a run without a row: %v", err)
	}
	bare := run("b", "x-02", 4, 80)
	bare.Throughputs = nil
	pairs[1].Candidate = bare
	_, _, err = Checks(pairs, []result.Metric{result.Median})
	if err == nil || !strings.Contains(err.Error(), `"tp" is missing from 1 of the 4 paired runs (b/x-02)`) {
		t.Errorf("a run without a sub-experiment: %v", err)
	}
	pairs[0].Candidate.Throughputs = nil
	checks, _, err := Checks(pairs, []result.Metric{result.Median})
	if err != nil || len(checks) != 2 {
		t.Errorf("a sub-experiment no candidate has: %d checks, %v; want it left out", len(checks), err)
	}
}

// TestMissing: the checks of a sub-experiment no candidate run holds,
// which Checks leaves out, are Missing's, with the reference runs' values.
func TestMissing(t *testing.T) {
	pairs := []Pair{{"x-01", run("a", "x-01", 1, 100), run("b", "x-01", 2, 90)}, {"x-02", run("a", "x-02", 3, 110), run("b", "x-02", 4, 80)}}
	if checks, origins := Missing(pairs, []result.Metric{result.Median}); len(checks)+len(origins) != 0 {
		t.Errorf("both sides measured everything, yet missing: %+v", origins)
	}
	for _, p := range pairs {
		p.Candidate.Summaries = nil
	}
	checks, origins := Missing(pairs, []result.Metric{result.Median, result.P99})
	var names []string
	for _, c := range checks {
		names = append(names, c.Name)
	}
	want := []string{"lat 16 B Median", "lat 1024 B Median", "lat 16 B 99%", "lat 1024 B 99%"}
	if !slices.Equal(names, want) || len(origins) != 4 || origins[3].Metric != result.P99 || origins[3].Key.Payload != 1024 {
		t.Fatalf("missing %q, origins %+v; want %q", names, origins, want)
	}
	if c := checks[1]; !slices.Equal(c.A, []float64{10, 30}) || c.B != nil {
		t.Errorf("lat 1024 B Median = %+v", c)
	}
	present, _, err := Checks(pairs, []result.Metric{result.Median, result.P99})
	if err != nil || len(present) != 1 || present[0].Name != "throughput_tp (window) 16 B Messages/s" {
		t.Errorf("Checks beside Missing: %d, %v", len(present), err)
	}
}
