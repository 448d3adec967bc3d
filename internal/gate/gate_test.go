package gate

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/result"
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name                     string
		m                        result.Metric
		ref, threshold, value    float64
		status                   Status
		limit, diff, pct, margin float64
	}{
		{"latency below requirement", result.P99, 100, 0, 90, Passed, 100, 10, -10, -10},
		{"latency equal to requirement passes", result.Max, 100, 0, 100, Passed, 100, 0, 0, 0},
		{"latency over requirement", result.Median, 100, 0, 125, Failed, 100, 25, 25, 25},
		{"latency within threshold", result.P99, 100, 0.1, 109, Passed, 110, 9, 9, -1},
		{"latency beyond threshold", result.P99, 100, 0.1, 111, Failed, 110, 11, 11, 1},
		{"any increase fails at threshold 0", result.Min, 10, 0, 10.001, Failed, 10, 0.001, 0.01, 0.001},
		{"throughput above reference", result.MessageRate, 1000, 0.1, 1200, Passed, 900, 200, 20, -300},
		{"throughput within threshold", result.MessageRate, 1000, 0.1, 950, Passed, 900, 50, -5, -50},
		{"throughput beyond threshold", result.Bandwidth, 1000, 0.1, 850, Failed, 900, 150, -15, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Evaluate("s", 16, tt.m, "requirement", tt.ref, tt.threshold, tt.value)
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
			if c.Status != tt.status || !near(c.Limit, tt.limit) || !near(c.Difference, tt.diff) || !near(c.Percent, tt.pct) || !near(c.Margin, tt.margin) {
				t.Errorf("got status %s limit %v diff %v pct %v margin %v; want %s %v %v %v %v",
					c.Status, c.Limit, c.Difference, c.Percent, c.Margin, tt.status, tt.limit, tt.diff, tt.pct, tt.margin)
			}
			if !strings.HasPrefix(c.Message, "16 B "+tt.m.Name+" ") {
				t.Errorf("message %q does not start with payload and metric", c.Message)
			}
		})
	}
}

func TestEvaluateMissing(t *testing.T) {
	c := Evaluate("s", 64, result.Median, "requirement", math.NaN(), 0, 5)
	if c.Status != Missing || c.Message != "64 B Median: no requirement" {
		t.Errorf("got %s %q", c.Status, c.Message)
	}
	c = Evaluate("s", 64, result.Median, "requirement", 5, 0, math.NaN())
	if c.Status != Missing || c.Message != "64 B Median: no value" {
		t.Errorf("got %s %q", c.Status, c.Message)
	}
}

// TestZeroReference: against a reference of 0 the percentage is what IEEE
// division gives (as numpy gives the Fast-RTPS script), and the message says
// n/a instead of printing it.
func TestZeroReference(t *testing.T) {
	c := Evaluate("s", 1, result.Max, "requirement", 0, 0, 1)
	if !math.IsInf(c.Percent, 1) || c.Status != Failed {
		t.Errorf("got percent %v status %s", c.Percent, c.Status)
	}
	if want := "1 B Max 1.000 µs exceeds requirement 0.000 µs by 1.000 µs (no percentage: requirement is 0)"; c.Message != want {
		t.Errorf("message %q, want %q", c.Message, want)
	}
	c = Evaluate("s", 1, result.Max, "reference", 0, 0.1, 0)
	if !math.IsNaN(c.Percent) || c.Status != Passed || strings.Contains(c.Message, "NaN") || c.PercentText("reference") != "n/a (reference is 0)" {
		t.Errorf("got percent %v status %s message %q", c.Percent, c.Status, c.Message)
	}
	if got := Evaluate("s", 1, result.Max, "requirement", 10, 0, 12).PercentText("requirement"); got != "+20.000%" {
		t.Errorf("PercentText = %q", got)
	}
	if got := MissingCheck("s", 1, result.Max, math.NaN(), 3, "x").PercentText("requirement"); got != "n/a" {
		t.Errorf("PercentText of a missing check = %q", got)
	}
}

func TestVerdict(t *testing.T) {
	pass := Evaluate("a", 1, result.Median, "requirement", 10, 0, 5)
	fail := Evaluate("a", 1, result.Max, "requirement", 10, 0, 15)
	miss := MissingCheck("b", 2, result.Max, math.NaN(), 3, "no requirement")
	inc := Check{SubExperiment: "c", Status: Inconclusive}
	tests := []struct {
		name         string
		allowMissing bool
		checks       []Check
		status       Status
		exit         int
	}{
		{"all passed", false, []Check{pass, pass}, Passed, 0},
		{"one failed", false, []Check{pass, fail}, Failed, 1},
		{"missing fails", false, []Check{pass, miss}, Failed, 1},
		{"missing allowed", true, []Check{pass, miss}, Passed, 0},
		{"inconclusive", false, []Check{pass, inc}, Inconclusive, 3},
		{"failure beats inconclusive", false, []Check{inc, fail}, Failed, 1},
		{"missing allowed but failure", true, []Check{miss, fail}, Failed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Verdict{Tool: "check", AllowMissing: tt.allowMissing}
			v.Add(tt.checks...)
			v.Finish()
			if v.Status != tt.status || v.ExitCode() != tt.exit {
				t.Errorf("status %s exit %d, want %s %d", v.Status, v.ExitCode(), tt.status, tt.exit)
			}
			if v.Passed+v.Failed+v.Missing+v.Inconclusive != len(tt.checks) {
				t.Errorf("counts %d+%d+%d+%d do not add up to %d", v.Passed, v.Failed, v.Missing, v.Inconclusive, len(tt.checks))
			}
		})
	}
}

func TestSubStatus(t *testing.T) {
	v := Verdict{}
	v.Add(Evaluate("a", 1, result.Median, "r", 10, 0, 5), Evaluate("b", 1, result.Median, "r", 10, 0, 50), Evaluate("a", 2, result.Median, "r", 10, 0, 5))
	v.Finish()
	if got := v.SubExperiments(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("SubExperiments = %v", got)
	}
	if v.SubStatus("a") != Passed || v.SubStatus("b") != Failed {
		t.Errorf("SubStatus a=%s b=%s", v.SubStatus("a"), v.SubStatus("b"))
	}
}

func TestCheckJSONRoundTrip(t *testing.T) {
	for _, c := range []Check{
		Evaluate("a", 16, result.MessageRate, "reference", 10, 0.2, 7),
		MissingCheck("a", 16, result.P99, math.NaN(), 3, "no requirement"),
	} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var got Check
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		same := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
		if got.Metric != c.Metric || got.Status != c.Status || got.Message != c.Message || !same(got.Reference, c.Reference) ||
			!same(got.Value, c.Value) || !same(got.Limit, c.Limit) || !same(got.Percent, c.Percent) || !same(got.Margin, c.Margin) {
			t.Errorf("round trip of %+v gave %+v (%s)", c, got, b)
		}
	}
}

func TestAllMissingAllowedFails(t *testing.T) {
	v := &Verdict{AllowMissing: true}
	v.Add(MissingCheck("x", 16, result.Median, 1, math.NaN(), "no value"))
	v.Finish()
	if v.Status != Failed || len(v.Warnings) == 0 {
		t.Fatalf("status %s, warnings %v: a gate with nothing evaluated passed", v.Status, v.Warnings)
	}
}

func TestNoInterval(t *testing.T) {
	nan := math.NaN()
	for _, tt := range []struct {
		s    Stats
		want string
	}{
		{Stats{Method: MethodOrder, Over: 2, NCandidate: 5, Low: nan, High: nan}, "none (order method): 2 of 5 run(s) above the limit"},
		{Stats{Method: MethodOrder, Over: 1, NCandidate: 3, Low: nan, High: nan, Floor: true}, "none (order method): 1 of 3 run(s) below the limit"},
		{Stats{Method: MethodLogNormal, NCandidate: 1, Low: nan, High: nan}, "none (one run)"},
		{Stats{Method: MethodLogNormal, NCandidate: 4, Low: 0.9, High: 1.1}, ""},
		{Stats{Low: nan, High: math.Inf(1)}, "none"},
		{Stats{Low: 0.95, High: math.Inf(1)}, ""},
	} {
		if got := tt.s.NoInterval(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
