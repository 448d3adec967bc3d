package check

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// EvaluateRuns checks several candidate runs of one system (or one run
// against statistical requirements) with requirements.Judge: per
// sub-experiment, payload and column, the runs' values are judged together
// against the requirement raised by margin, giving passed, failed or
// inconclusive (formats §11). Checks come in the order of Evaluate. A check
// whose requirement is absent, or that one of the runs did not measure, is
// Missing.
//
// columns are the checked columns, a subset of result.RequirementMetrics;
// all of them when nil.
func EvaluateRuns(reqs []requirements.KeyedRow, runs []*experiment.Experiment, margin float64, columns []result.Metric) *gate.Verdict {
	v := evaluate(reqs, runs, columns, margin, false,
		func(typ string, b int, lacking []string) string {
			return fmt.Sprintf("required, but %s %s no %d-byte row of %s", names(lacking), hasHave(len(lacking)), b, typ)
		})
	v.Mode = ModeText(reqs, len(runs), margin)
	if requirements.Statistical(reqs) {
		v.FalseFail = reqs[0].Stat.FalseFail
		v.Checks = bonferroni(v.Checks, reqs[0].Stat)
	}
	return v
}

// evaluate makes the checks of Evaluate and EvaluateRuns, in their order:
// the values of every run are judged against a requirement (judgeLimit); a
// check whose requirement is absent is Missing, and so is one that some
// runs (lacking) did not measure, as lackingText says.
func evaluate(reqs []requirements.KeyedRow, runs []*experiment.Experiment, columns []result.Metric, margin float64, plain bool,
	lackingText func(typ string, b int, lacking []string) string) *gate.Verdict {
	byType := map[string]map[int]requirements.KeyedRow{}
	for _, r := range reqs {
		if byType[r.Type] == nil {
			byType[r.Type] = map[int]requirements.KeyedRow{}
		}
		byType[r.Type][r.Key.Payload] = r
	}
	v := &gate.Verdict{Tool: Tool, ReferenceName: referenceName}
	// Sub-experiments in the order the first run holds them, then those
	// only later runs hold, then the required ones no run holds, sorted.
	var types []string
	seen := map[string]bool{}
	for _, e := range runs {
		for _, s := range e.Summaries {
			if !seen[s.Type] {
				seen[s.Type] = true
				types = append(types, s.Type)
			}
		}
	}
	var absent []string
	for typ := range byType {
		if !seen[typ] {
			absent = append(absent, typ)
		}
	}
	sort.Strings(absent)
	for _, typ := range append(types, absent...) {
		v.Add(evaluateSub(typ, byType[typ], runs, columns, margin, plain, lackingText)...)
	}
	return v
}

// bonferroni is the family step of a check against statistical
// requirements: each check at the level its requirements file fixed,
// FalseFail/m for its m checks, on which its limit was set; the adjusted
// p-value reported is the one decided on, min(1, m·p).
func bonferroni(checks []gate.Check, st *requirements.Model) []gate.Check {
	return gate.Family{Correction: gate.Bonferroni, Alpha: st.FalseFail, Level: st.CheckLevel}.Judge(gate.JudgedAll(checks))
}

func evaluateSub(typ string, reqs map[int]requirements.KeyedRow, runs []*experiment.Experiment, columns []result.Metric, margin float64, plain bool,
	lackingText func(typ string, b int, lacking []string) string) []gate.Check {
	summary := func(e *experiment.Experiment) *experiment.Summary { return e.Summary(typ) }
	payloadSet := map[int]bool{}
	for _, e := range runs {
		if s := summary(e); s != nil {
			for _, r := range s.Rows {
				payloadSet[r.Bytes] = true
			}
		}
	}
	for b := range reqs {
		payloadSet[b] = true
	}
	payloads := make([]int, 0, len(payloadSet))
	for b := range payloadSet {
		payloads = append(payloads, b)
	}
	sort.Ints(payloads)
	var checks []gate.Check
	for _, m := range result.RequirementMetrics {
		if !Checked(columns, m) {
			continue
		}
		for _, b := range payloads {
			req, hasReq := reqs[b]
			values, lacking := runValues(runs, summary, result.Key{Payload: b}, m, func(e *experiment.Experiment) string { return e.Name })
			switch {
			case !hasReq && reqs == nil:
				checks = append(checks, gate.MissingCheck(typ, b, m, math.NaN(), stats.Median(values),
					fmt.Sprintf("%d B %s: the requirements have no sub-experiment %s", b, m.Name, typ)))
			case !hasReq:
				checks = append(checks, gate.MissingCheck(typ, b, m, math.NaN(), stats.Median(values),
					fmt.Sprintf("%d B %s: the requirements have no row for %s, %d bytes", b, m.Name, typ, b)))
			case len(lacking) > 0:
				checks = append(checks, gate.MissingCheck(typ, b, m, req.Limits[m.Name], stats.Median(values),
					fmt.Sprintf("%d B %s: %s", b, m.Name, lackingText(typ, b, lacking))))
			default:
				checks = append(checks, judgeLimit(typ, b, fmt.Sprintf("%d B %s", b, m.Name), req.Limit(m), values, margin, plain))
			}
		}
	}
	return checks
}

// runValues returns metric m of the row with key k of every run's table,
// and the names of the runs that lack the row.
func runValues[R result.Row](runs []*experiment.Experiment, table func(*experiment.Experiment) *experiment.Table[R], k result.Key,
	m result.Metric, name func(*experiment.Experiment) string) (values []float64, lacking []string) {
	for _, e := range runs {
		var row *R
		if t := table(e); t != nil {
			row = t.At(k)
		}
		if row == nil {
			lacking = append(lacking, name(e))
			continue
		}
		v, _ := (*row).Value(m)
		values = append(values, v)
	}
	return values, lacking
}

// plainRule reports whether runs runs are checked against reqs by the
// plain rule of formats §4: one run against percentile requirements, no
// margin.
func plainRule(reqs []requirements.KeyedRow, runs int, margin float64) bool {
	return runs == 1 && !requirements.Statistical(reqs) && margin == 0
}

// judgeLimit judges the values of the runs against limit l: by the plain
// rule (gate.Evaluate) when plain, else with requirements.Judge
// (judgedCheck).
func judgeLimit(sub string, payload int, what string, l requirements.Limit, values []float64, margin float64, plain bool) gate.Check {
	if !plain {
		return judgedCheck(sub, payload, what, l, values, margin)
	}
	c := gate.Evaluate(sub, payload, l.Metric, referenceName, l.Value, 0, values[0])
	if l.Metric.Better == result.HigherIsBetter {
		c.Message += " [higher is better]"
	}
	return c
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

// ModeText states how a check judged, for every report (the verdict's
// Mode): the requirements' mode, the runs and the margin.
func ModeText(reqs []requirements.KeyedRow, runs int, margin float64) string {
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

func names(xs []string) string {
	if len(xs) <= 3 {
		return "run " + strings.Join(xs, ", ")
	}
	return fmt.Sprintf("runs %s and %d more", strings.Join(xs[:2], ", "), len(xs)-2)
}

func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// Checked reports whether m is among columns (nil: every column).
func Checked(columns []result.Metric, m result.Metric) bool {
	if columns == nil {
		return true
	}
	for _, c := range columns {
		if c == m {
			return true
		}
	}
	return false
}
