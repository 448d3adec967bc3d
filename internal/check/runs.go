package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// bonferroni is the family step of a check against statistical
// requirements: each check at the level its requirements file fixed,
// FalseFail/m for its m checks, on which its limit was set; the adjusted
// p-value reported is the one decided on, min(1, m·p).
func bonferroni(checks []gate.Check, st *requirements.Model) []gate.Check {
	return gate.Family{Correction: gate.Bonferroni, Alpha: st.FalseFail, Level: st.CheckLevel}.Judge(gate.JudgedAll(checks))
}

// plainRule reports whether runs runs are checked against reqs by the
// plain rule of formats §4: one run against percentile requirements, no
// margin.
func plainRule(reqs []requirements.KeyedRow, runs int, margin float64) bool {
	return runs == 1 && !requirements.Statistical(reqs) && margin == 0
}

// judgedCheck judges the values of the runs against requirement limit l
// (requirements.Judge) and makes the check, whose message starts with
// what; a higher-is-better metric's requirement is a lower limit, which
// margin lowers.
func judgedCheck(sub string, payload int, what string, l requirements.Limit, values []float64, margin float64) gate.Check {
	j, m := requirements.Judge(l, values, margin), l.Metric
	c := gate.Evaluate(sub, payload, m, referenceName, j.Requirement, margin, j.Value)
	c.Status = j.Status
	limit, sign, better := "requirement", 1.0, ""
	if m.Better == result.HigherIsBetter {
		limit, sign, better = "requirement ≥", -1, ", higher is better"
	}
	u := result.UnitText(m.Unit)
	limit = fmt.Sprintf("%s %.3f %s", limit, j.Requirement, u)
	if margin != 0 {
		limit = fmt.Sprintf("requirement %.3f %s %+g%% = %.3f %s", j.Requirement, u, sign*margin*100, j.Limit, u)
	}
	c.Message = fmt.Sprintf("%s: %s %.3f %s vs %s (%s%s): %s",
		what, j.Statistic, j.Value, u, limit, c.PercentText(referenceName), better, evidence(j, u))
	c.Stats = statsOf(j, l, len(values))
	return c
}

// evidence is what a judgement rests on, in words: why, the p-value and
// interval when there are, and what more runs would do when inconclusive.
func evidence(j requirements.Judgement, unit string) string {
	e := j.Why
	if !math.IsNaN(j.P) {
		e += fmt.Sprintf("; p %.3g", j.P)
	}
	if !math.IsNaN(j.Low) {
		e += fmt.Sprintf("; interval %.3f to %.3f %s", j.Low, j.High, unit)
	}
	if j.Status == gate.Inconclusive {
		switch {
		case j.MoreRuns > 0:
			e += fmt.Sprintf("; about %d more run(s) would decide", j.MoreRuns)
		case j.MoreRuns < 0:
			e += "; more runs are unlikely to decide"
		}
	}
	return e
}

// statsOf is a statistical check's figures for every report, or nil for a
// requirement of percentile mode; n is the number of runs judged against
// limit l (a higher-is-better one is a lower limit). Ratios are to the
// requirement for these runs, as every report shows a statistical check's
// estimate and interval.
func statsOf(j requirements.Judgement, l requirements.Limit, n int) *gate.Stats {
	st := l.Stat
	if st == nil {
		return nil
	}
	fit := st.Fits[l.Fit]
	return &gate.Stats{
		NReference: st.Runs, NCandidate: n,
		Estimate: j.Value / j.Requirement, Low: j.Low / j.Requirement, High: j.High / j.Requirement,
		Tail: st.CheckLevel, PassTail: st.CheckLevel, Confidence: 1 - 2*st.CheckLevel,
		P: j.P, PAdjusted: j.P, Exact: fit.Method == gate.MethodOrder,
		Dispersion: fit.LogSD,
		NeedRuns:   j.NeedRuns, Gateable: n >= j.NeedRuns, MoreRuns: j.MoreRuns,
		Method: fit.Method, Over: j.Over, Floor: l.Metric.Better == result.HigherIsBetter,
	}
}

// modeText states how a check judged, for every report (the verdict's
// Mode): the requirements' mode, the runs and the margin.
func modeText(reqs []requirements.KeyedRow, runs int, margin float64) string {
	var b strings.Builder
	if requirements.Statistical(reqs) {
		st := reqs[0].Stat
		method := "distribution-free limits"
		if st.Method == gate.MethodLogNormal {
			method = "log-normal limits (distribution-free where the assumption was rejected)"
		}
		fmt.Fprintf(&b, "statistical requirements (%s from %d reference runs; Bonferroni, %.3g%% per check): an unchanged system fails this check with chance ≤ %.3g%%",
			method, st.Runs, 100*st.CheckLevel, 100*st.FalseFail)
	} else {
		b.WriteString("percentile requirements (Fast-RTPS mode): no statement on the chance that an unchanged system fails")
	}
	fmt.Fprintf(&b, "; %d candidate run(s)", runs)
	if margin != 0 {
		fmt.Fprintf(&b, "; margin %+g%% on every requirement", margin*100)
	}
	return b.String()
}

// names names runs for a message.
func names(runs []*experiment.Experiment) string {
	xs := make([]string, len(runs))
	for i, e := range runs {
		xs[i] = e.Name
	}
	if len(xs) <= 3 {
		return "run " + strings.Join(xs, ", ")
	}
	return "runs " + experiment.JoinNames(xs, 2)
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// checked reports whether m is among columns (nil: every column).
func checked(columns []result.Metric, m result.Metric) bool {
	return columns == nil || slices.Contains(columns, m)
}
