package history

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/result"
)

// TableRows is the most experiments listed in a payload's table of the HTML
// page, newest last; history.csv holds them all.
const TableRows = 50

// Page returns the HTML report of h: one section per sub-experiment with the
// newest experiment against the requirements and the magnitude history plots,
// and one nested section per payload with its recent values and payload
// history plots. jobs and svgs are the plots, as from Jobs and RenderPlots
// (svgs[i] is jobs[i] as SVG); a plot whose SVG is nil is left out.
func (h *History) Page(jobs []Job, svgs [][]byte, meta []htmlreport.KV) htmlreport.Page {
	return h.PageWithGate(jobs, svgs, meta, nil)
}

// PageWithGate is Page with the change points listed in their own section
// (when DetectChanges ran) and, when g is not nil, the gate's verdict.
func (h *History) PageWithGate(jobs []Job, svgs [][]byte, meta []htmlreport.KV, g *GateResult) htmlreport.Page {
	n := len(h.Experiments)
	page := htmlreport.Page{
		Title: "Latency history",
		Meta:  meta,
		Notes: append([]string{
			"Badges and coloured cells compare the newest experiment with the requirements; " +
				"plots mark with a red cross every experiment over its requirement.",
		}, h.Warnings...),
	}
	if n > 0 {
		page.Subtitle = fmt.Sprintf("%d experiment(s), %s to %s", n, h.Experiments[0].Label(), h.Experiments[n-1].Label())
	}

	// Plots by sub-experiment and, for payload plots, payload.
	type key struct {
		typ     string
		payload int
	}
	plotsOf := map[key][]htmlreport.Plot{}
	for i, j := range jobs {
		if i >= len(svgs) || svgs[i] == nil {
			continue
		}
		k := key{j.Type, j.Payload}
		title := j.Magnitude + " history"
		if j.Kind == KindPayload {
			title = fmt.Sprintf("%s, %d bytes", j.Magnitude, j.Payload)
			if j.Over > 0 {
				title += fmt.Sprintf(": %d experiment(s) %s requirement", j.Over, worseWord(j.Magnitude))
			}
		}
		plotsOf[k] = append(plotsOf[k], htmlreport.Plot{Title: title, SVG: svgs[i]})
	}

	if h.changesDetected {
		page.Sections = append(page.Sections, h.changeSection(g))
	}
	if g != nil {
		page.Verdict = gateVerdict(h, g)
	}
	for _, s := range h.SubExperiments {
		sec := htmlreport.Section{ID: s.Type, Title: s.Type, Plots: plotsOf[key{s.Type, 0}]}
		if n > 0 {
			t, status := latestTable(h, s)
			sec.Tables = append(sec.Tables, t)
			sec.Status = status
		}
		for p, b := range s.Payloads {
			t, status := payloadTable(h, s, p)
			sec.Sections = append(sec.Sections, htmlreport.Section{
				ID:     strconv.Itoa(b),
				Title:  fmt.Sprintf("%d bytes", b),
				Status: status,
				Tables: []htmlreport.Table{t},
				Plots:  plotsOf[key{s.Type, b}],
			})
		}
		page.Sections = append(page.Sections, sec)
	}
	return page
}

// latestTable compares the newest experiment with the requirements. Its
// status is failed when a value exceeds its requirement, passed when every
// value with a requirement is within it, and neutral otherwise.
func latestTable(h *History, s *SubExperiment) (htmlreport.Table, string) {
	e := len(h.Experiments) - 1
	t := htmlreport.Table{
		Caption: "Newest experiment, " + h.Experiments[e].Label() + ", against the requirements",
		Header:  []string{"Bytes"},
	}
	for _, c := range s.ChecksOf() {
		t.Header = append(t.Header, c, c+" requirement")
	}
	status := ""
	for p, b := range s.Payloads {
		row := []htmlreport.Cell{htmlreport.Num(strconv.Itoa(b))}
		for _, c := range s.ChecksOf() {
			v, r := s.Series(c, p)[e], s.Requirement(c, p)
			cell := valueCell(c, v, r)
			status = worse(status, cell.Status)
			row = append(row, cell, htmlreport.Num(format(r)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, status
}

// payloadTable lists a payload's values over the last TableRows experiments.
// Its status is that of the newest experiment against the requirements.
func payloadTable(h *History, s *SubExperiment, p int) (htmlreport.Table, string) {
	n := len(h.Experiments)
	first := max(0, n-TableRows)
	t := htmlreport.Table{
		Caption: fmt.Sprintf("%d bytes, all %d experiments (oldest first)", s.Payloads[p], n),
		Header:  []string{"Experiment"},
	}
	if first > 0 {
		t.Caption = fmt.Sprintf("%d bytes, newest %d of %d experiments (oldest first; all in %s)", s.Payloads[p], n-first, n, CSVFileName)
	}
	for _, c := range s.ChecksOf() {
		r := s.Requirement(c, p)
		if math.IsNaN(r) {
			t.Header = append(t.Header, c)
		} else {
			bound := "≤"
			if metricOf(c).Better == result.HigherIsBetter {
				bound = "≥"
			}
			t.Header = append(t.Header, fmt.Sprintf("%s (%s %s)", c, bound, result.Format3(r)))
		}
	}
	for e := first; e < n; e++ {
		row := []htmlreport.Cell{htmlreport.Text(h.Experiments[e].Label())}
		for _, c := range s.ChecksOf() {
			row = append(row, valueCell(c, s.Series(c, p)[e], s.Requirement(c, p)))
		}
		t.Rows = append(t.Rows, row)
	}
	status := ""
	if n > 0 {
		for _, c := range t.Rows[len(t.Rows)-1][1:] {
			status = worse(status, c.Status)
		}
	}
	return t, status
}

// worse returns the worse of two statuses: failed, then passed, then none.
func worse(a, b string) string {
	for _, s := range []string{htmlreport.StatusFailed, htmlreport.StatusPassed} {
		if a == s || b == s {
			return s
		}
	}
	return ""
}

// valueCell shows v of magnitude mag, failed when worse than the requirement
// r, passed when within.
func valueCell(mag string, v, r float64) htmlreport.Cell {
	c := htmlreport.Num(format(v))
	switch {
	case math.IsNaN(v) || math.IsNaN(r):
	case worseThan(mag, v, r):
		c.Status = htmlreport.StatusFailed
	default:
		c.Status = htmlreport.StatusPassed
	}
	return c
}

// format prints v with 3 decimals, or "–" for a gap.
func format(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return result.Format3(v)
}

// ChangeRows is the most change points listed in the HTML page, newest
// first; history.csv and the JSON report hold them all.
const ChangeRows = 200

// changeSection lists the change points, newest first.
func (h *History) changeSection(g *GateResult) htmlreport.Section {
	o := h.ChangeOptions
	series, short := h.ChangeSummary()
	sec := htmlreport.Section{ID: "change-points", Title: "Change points", Open: true}
	sec.Notes = append(sec.Notes, fmt.Sprintf("E-divisive means over every series (sub-experiment, payload, magnitude), "+
		"permutation test at significance %g with %d permutations (seed %d), segments of at least %d experiments. "+
		"A change point is the first experiment of a new segment; the shift is the new segment's median over the previous one's.",
		o.Alpha, o.Permutations, o.Seed, o.MinSegment))
	if h.ChangeFrom > 0 {
		sec.Notes = append(sec.Notes, fmt.Sprintf("Only the newest %d experiments were analysed (from %s); change the window with --change-window.",
			len(h.Experiments)-h.ChangeFrom, h.Experiments[h.ChangeFrom].Label()))
	}
	if short > 0 {
		sec.Notes = append(sec.Notes, fmt.Sprintf("%d of %d series have fewer than %d values and were not tested.", short, series, 2*o.MinSegment))
	}
	cs := h.Changes()
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Index > cs[j].Index })
	t := htmlreport.Table{
		Caption: fmt.Sprintf("%d change point(s) in %d series, newest first", len(cs), series),
		Header:  []string{"Experiment", "Commit", "Sub-experiment", "Bytes", "Metric", "Shift", "Median before", "Median after", "p"},
	}
	if len(cs) > ChangeRows {
		t.Caption = fmt.Sprintf("newest %d of %d change point(s) in %d series (all in %s)", ChangeRows, len(cs), series, CSVFileName)
		cs = cs[:ChangeRows]
	}
	for _, c := range cs {
		e := h.Experiments[c.Index]
		shift := htmlreport.Num(shiftText(c.Ratio) + " " + c.Direction())
		shift.Status = htmlreport.StatusPassed
		if c.Slower() {
			shift.Status = htmlreport.StatusFailed
		}
		t.Rows = append(t.Rows, []htmlreport.Cell{
			htmlreport.Text(e.Label()), htmlreport.Text(e.Commit), htmlreport.Text(c.Type),
			htmlreport.Num(strconv.Itoa(c.Payload)), htmlreport.Text(c.Magnitude), shift,
			htmlreport.Num(result.Format3(c.Before)), htmlreport.Num(result.Format3(c.After)), htmlreport.Num(formatP(c.P)),
		})
	}
	sec.Tables = append(sec.Tables, t)
	if g != nil {
		sec.Status = string(g.Verdict.Status)
		sec.Notes = append(sec.Notes, "Gate: "+g.Rules()+".")
		sec.Tables = append(sec.Tables, gateTable(h, g))
	}
	return sec
}

// gateTable lists, for every judged series with one, the change point (or
// the window's trend) that decided it and the rule (acknowledged ones with
// their note).
func gateTable(h *History, g *GateResult) htmlreport.Table {
	t := htmlreport.Table{
		Caption: "The change point (or trend) that decided each judged series, and the gate's rule",
		Header:  []string{"Sub-experiment", "Bytes", "Metric", "Shift starts at", "Commit", "Shift", "Rule"},
	}
	for _, s := range g.Series {
		if s.Change == nil {
			continue
		}
		rule := htmlreport.Text(s.Rule)
		switch {
		case s.Failed:
			rule.Status = htmlreport.StatusFailed
		case s.Ack != nil:
			rule = htmlreport.Text(fmt.Sprintf("%s in %s: %s", s.Rule, s.Ack.Where(), s.Ack.Note))
		}
		t.Rows = append(t.Rows, shiftCells(h, s, rule))
	}
	return t
}

// shiftCells are the cells naming judged series s and the shift that
// decided it (its change point's experiment, commit and shift), then more.
func shiftCells(h *History, s GateSeries, more ...htmlreport.Cell) []htmlreport.Cell {
	e := h.Experiments[s.Change.Index]
	return append([]htmlreport.Cell{htmlreport.Text(s.Type), htmlreport.Num(strconv.Itoa(s.Payload)), htmlreport.Text(s.Magnitude),
		htmlreport.Text(e.Label()), htmlreport.Text(e.Commit), htmlreport.Num(shiftText(s.Change.Ratio))}, more...)
}

// gateVerdict is the page's verdict of history --gate.
func gateVerdict(h *History, g *GateResult) *htmlreport.Verdict {
	v := &htmlreport.Verdict{Status: string(g.Verdict.Status), Summary: g.Summary()}
	v.Failures = htmlreport.Table{
		Caption: "Series significantly slower than before a change point in the window, or trending slower",
		Header:  []string{"Sub-experiment", "Bytes", "Metric", "Shift starts at", "Commit", "Shift", "p", "Holm level"},
	}
	for _, s := range g.Failures() {
		v.Failures.Rows = append(v.Failures.Rows, shiftCells(h, s, htmlreport.Num(formatP(s.P)), htmlreport.Num(formatP(s.Level))))
	}
	return v
}
