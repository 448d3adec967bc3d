package check

import (
	"fmt"
	"math"
	"sort"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// Tool is the name check verdicts carry.
const Tool = "check"

// referenceName is what a check's reference is, in messages and reports.
const referenceName = "requirement"

// Evaluate checks every summary against reqs and returns the unfinished
// verdict (call Finish after adding any warnings). Checks come grouped by
// sub-experiment: first those with a summary, in the order given, then the
// required sub-experiments without one, sorted. Within a sub-experiment they
// come check by check (every payload's Median, then 99%, then Max) with
// payloads ascending, as in the check report (formats §4).
//
// columns are the checked columns (nil: all), as in EvaluateRuns.
func Evaluate(reqs []requirements.Row, sums []experiment.Summary, columns ...gate.Metric) *gate.Verdict {
	byType := map[string]map[int]requirements.Row{}
	for _, r := range reqs {
		if byType[r.Type] == nil {
			byType[r.Type] = map[int]requirements.Row{}
		}
		byType[r.Type][r.Bytes] = r
	}
	v := &gate.Verdict{Tool: Tool, ReferenceName: referenceName}
	seen := map[string]bool{}
	for _, s := range sums {
		seen[s.Type] = true
		v.Add(evaluateSub(s.Type, byType[s.Type], s.Rows, true, columns)...)
	}
	var absent []string
	for typ := range byType {
		if !seen[typ] {
			absent = append(absent, typ)
		}
	}
	sort.Strings(absent)
	for _, typ := range absent {
		v.Add(evaluateSub(typ, byType[typ], nil, false, columns)...)
	}
	return v
}

func evaluateSub(typ string, reqs map[int]requirements.Row, rows []result.SummaryRow, hasSummary bool, columns []gate.Metric) []gate.Check {
	got := map[int]result.SummaryRow{}
	var payloads []int
	for _, r := range rows {
		if _, dup := got[r.Bytes]; !dup {
			payloads = append(payloads, r.Bytes)
		}
		got[r.Bytes] = r
	}
	for b := range reqs {
		if _, ok := got[b]; !ok {
			payloads = append(payloads, b)
		}
	}
	sort.Ints(payloads)
	var checks []gate.Check
	for _, m := range gate.RequirementMetrics {
		if !Checked(columns, m) {
			continue
		}
		for _, b := range payloads {
			req, hasReq := reqs[b]
			row, hasRow := got[b]
			switch {
			case hasReq && hasRow:
				want, _ := req.Get(m.Name)
				value, _ := row.Get(m.Name)
				checks = append(checks, gate.Evaluate(typ, b, m, referenceName, want, 0, value))
			case hasRow && reqs == nil:
				value, _ := row.Get(m.Name)
				checks = append(checks, gate.MissingCheck(typ, b, m, math.NaN(), value,
					fmt.Sprintf("%d B %s: the requirements have no sub-experiment %s", b, m.Name, typ)))
			case hasRow:
				value, _ := row.Get(m.Name)
				checks = append(checks, gate.MissingCheck(typ, b, m, math.NaN(), value,
					fmt.Sprintf("%d B %s: the requirements have no row for %s, %d bytes", b, m.Name, typ, b)))
			case hasSummary:
				want, _ := req.Get(m.Name)
				checks = append(checks, gate.MissingCheck(typ, b, m, want, math.NaN(),
					fmt.Sprintf("%d B %s: required, but the summary of %s has no %d-byte row", b, m.Name, typ, b)))
			default:
				want, _ := req.Get(m.Name)
				checks = append(checks, gate.MissingCheck(typ, b, m, want, math.NaN(),
					fmt.Sprintf("%d B %s: required, but the experiment has no summary for %s", b, m.Name, typ)))
			}
		}
	}
	return checks
}
