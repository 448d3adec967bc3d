package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
)

// HTMLVerdict returns the verdict banner of an HTML report: the status, one
// sentence of counts, and the checks that fail the gate.
func HTMLVerdict(v *gate.Verdict) *htmlreport.Verdict {
	failures := slices.DeleteFunc(ordered(v), func(c gate.Check) bool { return rank(v, c) == 3 })
	summary := fmt.Sprintf("%s %s: %d of %d checks passed, %d failed, %d missing, %d inconclusive",
		v.Tool, statusWord(v.Status), v.Passed, len(v.Checks), v.Failed, v.Missing, v.Inconclusive)
	for _, l := range BannerBasis(v) {
		summary += "; " + l
	}
	return &htmlreport.Verdict{
		Status:   HTMLStatus(v.Status),
		Summary:  summary,
		Failures: HTMLTable(v, failures, true),
		Notes:    Notes(failures),
	}
}

// HTMLTable returns checks as a table, one row per check; withSub adds a
// sub-experiment column. Messages are shown for the checks that did not pass
// (a passed check's message only repeats its numbers). The reference is
// named as the verdict names it ("Requirement"), and shown once when no
// threshold makes the limit differ from it.
func HTMLTable(v *gate.Verdict, checks []gate.Check, withSub bool) htmlreport.Table {
	name := v.RefName()
	limit, over := limitNames(v, checks)
	t := htmlreport.Table{Header: []string{"Status", "Bytes", "Metric", "Value", strings.ToUpper(name[:1]) + name[1:]}}
	if v.Thresholded() {
		t.Header = append(t.Header, limit)
	}
	t.Header = append(t.Header, over)
	stat := statistical(v)
	if stat {
		// One estimate, the ratio the rule read; notes under the table
		// carry what the messages add.
		t.Header = append(t.Header, "Ratio", "Interval", "p", "Runs")
	} else {
		t.Header = append(t.Header, "vs "+name)
	}
	withMsg := !stat && slices.ContainsFunc(checks, func(c gate.Check) bool { return c.Status != gate.Passed })
	if withMsg {
		t.Header = append(t.Header, "Message")
	}
	if withSub {
		t.Header = append([]string{"Sub-experiment"}, t.Header...)
	}
	for _, c := range checks {
		var row []htmlreport.Cell
		if withSub {
			row = append(row, htmlreport.Text(c.SubExperiment))
		}
		row = append(row, htmlreport.Cell{Text: checkStatus(v, c), Status: HTMLStatus(outcome(v, c))},
			htmlreport.Num(payloadText(c.Payload)),
			htmlreport.Text(metricText(c.Metric)),
			htmlreport.Num(valueText(c, c.Value)),
			htmlreport.Num(valueText(c, c.Reference)),
		)
		if v.Thresholded() {
			row = append(row, htmlreport.Num(valueText(c, c.Limit)))
		}
		row = append(row, htmlreport.Num(withUnit(signed3(c.Margin), c.Metric.Unit)))
		if stat {
			ratio, interval, p, runs := Evidence(c)
			row = append(row, htmlreport.Num(ratio), htmlreport.Num(interval), htmlreport.Num(p), htmlreport.Num(runs))
		} else {
			row = append(row, htmlreport.Num(c.PercentText(name)))
		}
		if withMsg {
			msg := c.Message
			if c.Status == gate.Passed {
				msg = ""
			}
			row = append(row, htmlreport.Text(msg))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// HTMLStatus maps a gate status to an htmlreport status.
func HTMLStatus(s gate.Status) string {
	switch s {
	case gate.Passed:
		return htmlreport.StatusPassed
	case gate.Inconclusive:
		return htmlreport.StatusInconclusive
	}
	return htmlreport.StatusFailed
}
