package requirements

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
)

// driftInput is n experiments of one sub-experiment and payload, started a
// minute apart but named in reverse order, whose Max grows by drift per
// run (relative) while Median and 99% do not.
func driftInput(rng *rand.Rand, n int, drift float64) *Input {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := &Input{}
	for i := range n {
		noise := func() float64 { return math.Exp(0.05 * rng.NormFloat64()) }
		row := result.SummaryRow{Bytes: 16}
		row.Median, row.P99, row.Max = 10*noise(), 30*noise(), 100*math.Pow(1+drift, float64(i))*noise()
		in.Experiments = append(in.Experiments, &experiment.Experiment{
			Name: fmt.Sprintf("run-%02d", n-i), Start: start.Add(time.Duration(i) * time.Minute), StartFrom: "meta.json",
			Summaries: []experiment.Summary{{Type: "a_b", Rows: []result.SummaryRow{row}}},
		})
	}
	return in
}

// TestDriftOf: a drift of 2 % per run over 20 runs is found in the Max
// column, in start-time order (the names run the other way), with Sen's
// slope near 2 %; the steady columns are not flagged; the report says so
// and the CSV holds every check.
func TestDriftOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := driftOf(driftInput(rng, 20, 0.02))
	if len(d.Checks) != 3 || d.Order != "meta.json start times" {
		t.Fatalf("%+v", d)
	}
	for _, c := range d.Checks {
		if c.Drifting != (c.Metric == "Max") {
			t.Errorf("%s: drifting %v (p %v, Holm %v)", c.label(), c.Drifting, c.Test.P, c.PAdjusted)
		}
		if c.Metric == "Max" && (c.Test.Tau < 0.5 || math.Abs(c.Slope-0.02) > 0.01) {
			t.Errorf("Max: tau %v slope %v, want upward, about 2 %% per run", c.Test.Tau, c.Slope)
		}
	}
	var b bytes.Buffer
	if err := PrintDrift(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "1 of 3 checks DRIFT") || !strings.Contains(b.String(), "a_b 16 B Max: 20 runs, tau +") {
		t.Errorf("text:\n%s", b.String())
	}
	var csvOut bytes.Buffer
	if err := WriteDrift(&csvOut, d); err != nil {
		t.Fatal(err)
	}
	got := csvOut.String()
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 4 || lines[0] != strings.Join(DriftColumns, ",") || strings.Split(lines[3], ",")[9] != "yes" || !strings.HasPrefix(lines[3], "a_b,16,Max,20,meta.json start times,") ||
		len(strings.Split(lines[3], ",")) != len(DriftColumns) {
		t.Errorf("CSV:\n%s", got)
	}
	if DriftFileFor("/x/requirements.csv") != "/x/requirements_drift.csv" {
		t.Errorf("drift file of /x/requirements.csv: %s", DriftFileFor("/x/requirements.csv"))
	}
}

// TestPrintDriftEqualRuns: five runs of equal values leave the serial
// correlation untested; the report said "every check has fewer than 4
// runs" of five, and now says why (requirements on identical runs).
func TestPrintDriftEqualRuns(t *testing.T) {
	for _, tc := range []struct {
		runs int
		want string
	}{{5, "runs of equal values, nothing to correlate"}, {3, "every check has fewer than 4 runs"}} {
		in := &Input{}
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range tc.runs {
			row := result.SummaryRow{Bytes: 16}
			row.Median, row.P99, row.Max = 10, 15, 30
			in.Experiments = append(in.Experiments, &experiment.Experiment{
				Name: fmt.Sprintf("run-%02d", i), Start: start.Add(time.Duration(i) * time.Minute), StartFrom: "meta.json",
				Summaries: []experiment.Summary{{Type: "a_b", Rows: []result.SummaryRow{row}}},
			})
		}
		var b bytes.Buffer
		if err := PrintDrift(&b, driftOf(in)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "Serial correlation") || !strings.Contains(b.String(), tc.want) {
			t.Errorf("%d equal runs: want %q in:\n%s", tc.runs, tc.want, b.String())
		}
	}
}
