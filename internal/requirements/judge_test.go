package requirements

import (
	"math"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

func logNormalRow(limit1, sd float64, n int, level float64) KeyedRow {
	f := Fit{Method: gate.MethodLogNormal, LogSD: sd, NormalityP: 0.5}
	r := LatencyRow("a_b", 16, limit1, limit1, limit1)
	r.Stat = &Model{Method: gate.MethodLogNormal, Runs: n, FalseFail: 0.01, CheckLevel: level, Fits: [3]Fit{f, f, f}}
	return r
}

func orderRow(limit float64, n int, level float64) KeyedRow {
	f := Fit{Method: gate.MethodOrder, LogSD: 0.2, NormalityP: math.NaN()}
	r := LatencyRow("a_b", 16, limit, limit, limit)
	r.Stat = &Model{Method: gate.MethodOrder, Runs: n, FalseFail: 0.01, CheckLevel: level, Fits: [3]Fit{f, f, f}}
	return r
}

// TestJudgeLogNormalMatchesScipy: the k-run requirement, the candidate's
// geometric mean, p and interval, and the three verdicts.
func TestJudgeLogNormalMatchesScipy(t *testing.T) {
	v := loadScipy(t)
	wantStatus := []gate.Status{"passed", "failed", "inconclusive", "passed"}
	for i, c := range v.JudgeLogNormal.Cases {
		j := Judge(logNormalRow(c.Limit1, c.SD, c.N, v.JudgeLogNormal.Level).Limit(result.RequirementMetrics[1]), c.Values, c.Margin)
		if !near(j.Requirement, c.Requirement, 1e-8) || !near(j.Value, c.GMean, 1e-12) || !near(j.P, c.P, 1e-6) ||
			!near(j.Low, c.Low, 1e-8) || !near(j.High, c.High, 1e-8) || !near(j.Limit, c.Requirement*(1+c.Margin), 1e-8) {
			t.Errorf("case %d: requirement %v value %v p %v interval %v–%v; scipy %v %v %v %v–%v",
				i, j.Requirement, j.Value, j.P, j.Low, j.High, c.Requirement, c.GMean, c.P, c.Low, c.High)
		}
		if j.Status != wantStatus[i] {
			t.Errorf("case %d: %s (%s), want %s", i, j.Status, j.Why, wantStatus[i])
		}
	}
	inc := Judge(logNormalRow(v.JudgeLogNormal.Cases[2].Limit1, 0.1, 10, v.JudgeLogNormal.Level).Limit(result.RequirementMetrics[0]), v.JudgeLogNormal.Cases[2].Values, 0.05)
	if inc.MoreRuns < 1 || !strings.Contains(inc.Why, "upper end") {
		t.Errorf("inconclusive: more runs %d, why %q", inc.MoreRuns, inc.Why)
	}
}

func TestJudgeOrder(t *testing.T) {
	level := 0.01 / 66
	for _, tc := range []struct {
		name   string
		values []float64
		margin float64
		status gate.Status
		why    string
	}{
		{"one run within: no evidence", []float64{9}, 0, "inconclusive", "no evidence of regression, not a pass: the run is within the limit, too few to fail, but 1 run(s) cannot show the median run within the limit at 99% confidence (sign test: needs ≥ 7 runs all within it)"},
		{"seven within", []float64{9, 8, 9, 7, 9, 8, 9}, 0, "passed", "0 of 7 runs exceed the limit: the median run is within it at 99% confidence (sign test: at most 0 of 7 above has chance 0.781% for a median at the limit)"},
		{"one of ten above", []float64{11, 8, 9, 7, 9, 8, 9, 9, 8, 9}, 0, "inconclusive", "no evidence of regression"},
		{"one run above: not gateable", []float64{11}, 0, "inconclusive", "not gateable with 1 run(s), the distribution-free limit of 12 reference runs needs ≥ 6 candidate runs"},
		{"all six above", []float64{11, 12, 13, 11, 14, 12}, 0, "failed", "6 of 6 runs exceed the limit: an unchanged system does that with chance 0.00539% ≤ the check level 0.0152%"},
		{"all six above, within the margin", []float64{11, 12, 13, 11, 14, 12}, 0.5, "inconclusive", "no evidence of regression, not a pass: 0 of 6 runs exceed the limit"},
		{"half above", []float64{11, 12, 13, 9, 8, 9}, 0, "inconclusive", "no evidence of regression, not a pass: 3 of 6 runs exceed the limit"},
		{"one of twelve above", []float64{11, 8, 9, 7, 9, 8, 9, 9, 8, 9, 9, 9}, 0, "passed", "1 of 12 runs exceed the limit: the median run is within it"},
		{"five of six above", []float64{11, 12, 13, 11, 14, 9}, 0, "inconclusive", "5 of 6 runs exceed the limit: more than half, but an unchanged system does that with chance 0.07% > the check level"},
	} {
		j := Judge(orderRow(10, 12, level).Limit(result.RequirementMetrics[2]), tc.values, tc.margin)
		if j.Status != tc.status || !strings.Contains(j.Why, tc.why) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, j.Status, j.Why, tc.status, tc.why)
		}
		if j.Requirement != 10 || j.Limit != 10*(1+tc.margin) {
			t.Errorf("%s: requirement %v limit %v", tc.name, j.Requirement, j.Limit)
		}
	}
	if j := Judge(orderRow(10, 12, level).Limit(result.RequirementMetrics[0]), []float64{11, 12, 13, 11, 14, 9}, 0); j.MoreRuns < 1 {
		t.Errorf("five of six above: more runs %d", j.MoreRuns)
	}
}

// TestJudgePercentile: a percentile (Fast-RTPS) requirement has no model:
// one run passes or fails on its value, several by agreement.
func TestJudgePercentile(t *testing.T) {
	row := LatencyRow("a_b", 16, 10, 20, 30)
	for _, tc := range []struct {
		values []float64
		margin float64
		status gate.Status
	}{
		{[]float64{10}, 0, "passed"}, {[]float64{10.001}, 0, "failed"}, {[]float64{10.5}, 0.1, "passed"},
		{[]float64{11, 12, 13}, 0, "failed"}, {[]float64{11, 12, 9}, 0, "inconclusive"}, {[]float64{11, 9, 9}, 0, "passed"},
	} {
		j := Judge(row.Limit(result.RequirementMetrics[0]), tc.values, tc.margin)
		if j.Status != tc.status || !math.IsNaN(j.P) {
			t.Errorf("%v margin %v: %s p %v (%s), want %s", tc.values, tc.margin, j.Status, j.P, j.Why, tc.status)
		}
	}
}
