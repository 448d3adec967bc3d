package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
)

// Page returns the HTML report of r: the verdict with its failures, then one
// section per sub-experiment with its checks and its comparison plots
// (inline SVG).
func (r *Result) Page(v *gate.Verdict) (htmlreport.Page, error) {
	p := htmlreport.Page{
		Title:    "Comparison " + r.Target.Name + " against " + r.Reference.Name,
		Subtitle: "mqgate compare",
		Meta: []htmlreport.KV{
			{Key: "Reference", Value: dirs(r.References)},
			{Key: "Results", Value: dirs(r.Targets)},
			{Key: "Mode", Value: r.Mode},
			{Key: "Gated columns", Value: r.thresholdText()},
		},
		Notes: v.Warnings,
	}
	if r.Mode == gate.ModePaired {
		p.Title = fmt.Sprintf("Paired comparison of %d interleaved pairs of runs", len(r.Pairs))
		p.Meta = append(p.Meta, htmlreport.KV{Key: "Family-wise error", Value: fmt.Sprintf("%g%% per side (exact sign tests of the median pair ratio: FAIL Bonferroni over the checks, PASS intersection–union)", 100*r.Config.FalseFail)},
			htmlreport.KV{Key: "Shown", Value: "per payload the median over the runs of each side; judged on each pair's ratio"})
	}
	if r.Mode == gate.ModeStatistical {
		p.Title = fmt.Sprintf("Comparison of %d runs against %d reference runs", len(r.Targets), len(r.References))
		p.Meta = append(p.Meta, htmlreport.KV{Key: "False-fail level", Value: fmt.Sprintf("%g%% family-wise (Holm)", 100*r.Config.FalseFail)},
			htmlreport.KV{Key: "Shown", Value: "per payload the median over the runs of each side"})
	}
	if h := r.Reference.Host(); h != nil {
		p.Meta = append(p.Meta, htmlreport.KV{Key: "Reference host", Value: h.Fingerprint()})
	}
	if h := r.Target.Host(); h != nil {
		p.Meta = append(p.Meta, htmlreport.KV{Key: "Results host", Value: h.Fingerprint()})
	}

	failures := htmlreport.Table{
		Header: []string{"Sub-experiment", "Bytes", "Column", "Reference", "Result", "Limit", "Change", "Status"},
	}
	if r.Mode == gate.ModeStatistical || r.Mode == gate.ModePaired {
		// One estimate: the ratio the rule read replaces the change of
		// the medians.
		failures.Header = append(failures.Header[:6], "Status", "Ratio", "Interval", "p", "Runs")
	}
	var counted []gate.Check
	for _, c := range v.Checks {
		if v.Counts(c) {
			failures.Rows = append(failures.Rows, failureRow(v, c))
			counted = append(counted, c)
		}
	}
	p.Verdict = &htmlreport.Verdict{
		Status:   htmlStatus(v.Status),
		Summary:  verdictSummary(v),
		Failures: failures,
		Notes:    report.Notes(counted),
	}

	for _, s := range r.sections() {
		sec := s.htmlSection(r, v)
		if s.Missing() {
			sec.Notes = append(sec.Notes, "Missing from the results: only the reference is shown.")
		}
		for _, f := range s.figures(r) {
			svg, err := plots.SVG(f.Plot)
			if err != nil {
				return htmlreport.Page{}, fmt.Errorf("plot %s: %w", f.Name, err)
			}
			sec.Plots = append(sec.Plots, htmlreport.Plot{Title: f.Name, SVG: svg})
		}
		p.Sections = append(p.Sections, sec)
	}
	return p, nil
}

// htmlSection is the HTML section of s, its status and table.
func (s *SubResult) htmlSection(r *Result, v *gate.Verdict) htmlreport.Section {
	return htmlreport.Section{ID: s.Type, Title: s.Type, Status: htmlStatus(v.SubStatus(s.Type)), Tables: []htmlreport.Table{r.subTable(v, s)}}
}

// htmlSection is the HTML section of t: failed when a check counts against
// the verdict, else inconclusive when one is, with its table.
func (t *ThroughputResult) htmlSection(r *Result, v *gate.Verdict) htmlreport.Section {
	name := "throughput_" + t.Type
	return htmlreport.Section{ID: name, Title: name + " (higher is better)", Status: htmlStatus(v.StatusOf(t.Checks)), Tables: []htmlreport.Table{r.throughputTable(t)}}
}

// throughputTable shows a throughput summary's checks one row a payload
// and load: reference and result Median [msg/s] (with Mb/s), the change and
// the check's status and message.
func (r *Result) throughputTable(t *ThroughputResult) htmlreport.Table {
	tb := htmlreport.Table{
		Caption: "Median throughput [msg/s] by payload and offered load, higher is better (allowed below the reference: " +
			signedPercent(result.MessageRate, r.Config.ThresholdOf(result.MessageRate)) + ")",
		Header: []string{"Bytes", "Load", "Reference", "Result", "Change", "Status", "Message"},
	}
	for j, k := range t.Keys {
		c := t.Checks[j]
		tb.Rows = append(tb.Rows, []htmlreport.Cell{
			htmlreport.Num(strconv.Itoa(k.Payload)), htmlreport.Text(k.Load()),
			htmlreport.Num(num3(c.Reference)), htmlreport.Num(num3(c.Value)), htmlreport.Num(c.PercentText(referenceName)),
			{Text: string(c.Status), Status: htmlStatus(c.Status)}, htmlreport.Text(c.Message),
		})
	}
	return tb
}

// thresholdText lists the gated columns with their thresholds, e.g.
// "Min +10%, Median +10%, 99% +20%, Max +10%".
func (r *Result) thresholdText() string {
	if r.Mode == gate.ModePaired {
		mg := r.Config.margins()
		return fmt.Sprintf("paired, pass margin %g%%, fail margin %g%%", 100*mg.Pass, 100*mg.Fail)
	}
	var parts []string
	if len(r.Subs) > 0 || len(r.Throughputs) == 0 {
		for _, m := range r.Config.metrics() {
			parts = append(parts, m.Name+" "+signedPercent(m, r.Config.ThresholdOf(m)))
		}
	}
	if len(r.Throughputs) > 0 {
		parts = append(parts, "throughput Median [msg/s] "+signedPercent(result.MessageRate, r.Config.ThresholdOf(result.MessageRate)))
	}
	return strings.Join(parts, ", ")
}

// subTable shows a sub-experiment's checks one payload a row: per gated
// column the reference, the result and the change, coloured by the check.
func (r *Result) subTable(v *gate.Verdict, s *SubResult) htmlreport.Table {
	ms := r.Config.metrics()
	t := htmlreport.Table{
		Caption: "Latency [µs] by payload; change relative to the reference (allowed: " + r.thresholdText() + ")",
		Header:  []string{"Bytes"},
	}
	for _, m := range ms {
		t.Header = append(t.Header,
			m.Name+" reference", m.Name+" result", m.Name+" change")
	}
	for _, row := range s.Reference.Rows {
		cells := []htmlreport.Cell{htmlreport.Num(strconv.Itoa(row.Bytes))}
		for _, m := range ms {
			for _, c := range s.Checks {
				if c.Payload != row.Bytes || c.Metric.Name != m.Name {
					continue
				}
				change := htmlreport.Num(c.PercentText(referenceName))
				if c.Stats != nil {
					// The ratio and its interval say more than the
					// change of the medians.
					ratio, interval, _, _ := report.Evidence(c)
					change.Text = ratio + " " + interval
				}
				change.Status = htmlStatus(c.Status)
				if v.Counts(c) {
					change.Status = htmlreport.StatusFailed
				}
				if c.Status == gate.Missing {
					change.Text = "missing"
				}
				cells = append(cells, htmlreport.Num(num3(c.Reference)), htmlreport.Num(num3(c.Value)), change)
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// signedPercent is a threshold as a signed percentage in m's bad direction.
func signedPercent(m result.Metric, t float64) string {
	if m.Better == result.HigherIsBetter {
		t = -t
	}
	return fmt.Sprintf("%+g%%", t*100)
}

// failureRow is one row of the verdict's table of failures.
func failureRow(v *gate.Verdict, c gate.Check) []htmlreport.Cell {
	status := htmlreport.Cell{Text: string(c.Status), Status: htmlreport.StatusFailed}
	row := []htmlreport.Cell{
		htmlreport.Text(c.SubExperiment),
		htmlreport.Num(strconv.Itoa(c.Payload)),
		htmlreport.Text(columnText(c.Metric)),
		htmlreport.Num(num3(c.Reference)),
		htmlreport.Num(num3(c.Value)),
		htmlreport.Num(num3(c.Limit)),
	}
	if v.Mode != gate.ModeStatistical && v.Mode != gate.ModePaired {
		return append(row, htmlreport.Num(c.PercentText(referenceName)), status)
	}
	ratio, interval, p, runs := report.Evidence(c)
	return append(row, status, htmlreport.Num(ratio), htmlreport.Num(interval), htmlreport.Num(p), htmlreport.Num(runs))
}

// columnText names a failure's column with its direction when higher is
// better (throughput), so that a negative change reads as the drop it is.
func columnText(m result.Metric) string {
	if m.Better == result.HigherIsBetter {
		return m.Name + " (" + m.Better.String() + ")"
	}
	return m.Name
}

// htmlStatus maps a gate status to the page's; missing is neutral here and
// made failed by the caller when it counts.
func htmlStatus(s gate.Status) string {
	if s == gate.Missing {
		return ""
	}
	return report.HTMLStatus(s)
}

func verdictSummary(v *gate.Verdict) string {
	s := fmt.Sprintf("%d of %d checks passed", v.Passed, len(v.Checks))
	if v.Failed > 0 {
		s += fmt.Sprintf(", %d regressed", v.Failed)
	}
	if v.Missing > 0 {
		s += fmt.Sprintf(", %d missing from the results", v.Missing)
		if v.AllowMissing {
			s += " (allowed)"
		}
	}
	for _, l := range report.BannerBasis(v) {
		s += "; " + l
	}
	return s
}

func num3(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}
