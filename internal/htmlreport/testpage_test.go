package htmlreport

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/plots"

	"gonum.org/v1/plot"
)

// pageSVG renders p for a page, as the tools do.
func pageSVG(tb testing.TB, p *plot.Plot) []byte {
	tb.Helper()
	b, err := plots.SVG(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// linePlot is a line chart with one line per series over the payloads xs.
func linePlot(tb testing.TB, title, xLabel, yLabel string, xs []float64, series map[string][]float64) []byte {
	tb.Helper()
	names := make([]string, 0, len(series))
	for name := range series {
		names = append(names, name)
	}
	sort.Strings(names)
	cats := make([]string, len(xs))
	for i, x := range xs {
		cats[i] = fmt.Sprint(x)
	}
	var lines []plots.Line
	for _, name := range names {
		lines = append(lines, plots.Line{Name: name, Y: series[name]})
	}
	return pageSVG(tb, plots.CategoryLines(title, xLabel, yLabel, cats, lines))
}

// histPlot is a latency histogram of n samples of a seeded distribution
// with one far outlier.
func histPlot(tb testing.TB, title string, seed uint64, n int) []byte {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = 7 + r.ExpFloat64()*2 + math.Abs(r.NormFloat64())
	}
	vs[n/2] = 1640
	return pageSVG(tb, plots.Histogram(vs, 100, title))
}

// comparisonPlot compares ten sub-experiments from 1 µs to 22 ms, as
// process draws them: a log axis, ten series.
func comparisonPlot(tb testing.TB) []byte {
	tb.Helper()
	subs := []string{
		"intraprocess_best_effort", "intraprocess_reliable", "interprocess_best_effort",
		"interprocess_best_effort_security", "interprocess_best_effort_tcp",
		"interprocess_best_effort_tcp_security", "interprocess_reliable",
		"interprocess_reliable_security", "interprocess_reliable_tcp", "interprocess_reliable_tcp_security",
	}
	var cats []string
	for p := 16; p <= 16384; p *= 2 {
		cats = append(cats, fmt.Sprint(p))
	}
	var lines []plots.Line
	for i, s := range subs {
		y := make([]float64, len(cats))
		for j := range y {
			y[j] = math.Pow(1.9, float64(i)) + float64(j)
		}
		lines = append(lines, plots.Line{Name: s, Y: y})
	}
	lines[9].Y[8] = 22031
	return pageSVG(tb, plots.CategoryLines("Maximum latency by payload", "Payload [Bytes]", "Latency [us]", cats, lines))
}

// fixtureSummary reads the Fast-RTPS summary in testdata: header and rows.
func fixtureSummary(tb testing.TB) ([]string, [][]string) {
	tb.Helper()
	b, err := os.ReadFile("testdata/measurements_interprocess_reliable_summary.csv")
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var rows [][]string
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return strings.Split(lines[0], ","), rows
}

func col(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	panic("no column " + name)
}

// realisticPage is a check report over the Fast-RTPS fixture and a second,
// generated sub-experiment: a failed verdict, summary and check tables, plots
// per sub-experiment and per payload.
func realisticPage(tb testing.TB, histSamples int) Page {
	tb.Helper()
	header, rows := fixtureSummary(tb)
	var xs []float64
	mags := map[string][]float64{}
	for _, r := range rows {
		var x float64
		fmt.Sscan(r[0], &x)
		xs = append(xs, x)
		for _, m := range []string{"Median", "99%", "Max"} {
			var v float64
			fmt.Sscan(r[col(header, m)], &v)
			mags[m] = append(mags[m], v)
		}
	}
	summary := Table{Caption: "Summary (µs)", Header: header}
	for _, r := range rows {
		cells := make([]Cell, len(r))
		for i, v := range r {
			cells[i] = Num(v)
		}
		summary.Rows = append(summary.Rows, cells)
	}
	// Requirements a little above the measurement, except where they were
	// set too tight, so that a few checks fail.
	checks := Table{Caption: "Checks", Header: []string{"Check", "Bytes", "Requirement", "Experiment", "Difference", "Percentage over requirement", "Status"}}
	failures := Table{Header: []string{"Sub-experiment", "Check", "Bytes", "Requirement", "Experiment", "Percentage over requirement"}}
	var nChecks, nFailed int
	for _, m := range []string{"Median", "99%", "Max"} {
		for i, x := range xs {
			meas := mags[m][i]
			req := meas * 1.05
			if x >= 8192 && m != "Max" {
				req = meas * 0.9
			}
			st := StatusPassed
			if meas > req {
				st = StatusFailed
				nFailed++
				failures.Rows = append(failures.Rows, []Cell{Text("interprocess_reliable"), Text(m), Num(fmt.Sprint(x)),
					Num(fmt.Sprintf("%.3f", req)), {Text: fmt.Sprintf("%.3f", meas), Numeric: true, Status: StatusFailed},
					Num(fmt.Sprintf("%.3f", (meas-req)*100/req))})
			}
			nChecks++
			checks.Rows = append(checks.Rows, []Cell{Text(m), Num(fmt.Sprint(x)), Num(fmt.Sprintf("%.3f", req)),
				Num(fmt.Sprintf("%.3f", meas)), Num(fmt.Sprintf("%.3f", math.Abs(req-meas))),
				Num(fmt.Sprintf("%.3f", (meas-req)*100/req)), statusCell(st)})
		}
	}
	var payloads []Section
	for i, r := range rows {
		st := StatusPassed
		for _, row := range checks.Rows {
			if row[1].Text == r[0] && row[6].Status == StatusFailed {
				st = StatusFailed
			}
		}
		payloads = append(payloads, Section{
			ID: r[0], Title: r[0] + " bytes", Status: st,
			Plots: []Plot{{Title: "Latency histogram, " + r[0] + " bytes", SVG: histPlot(tb, "interprocess_reliable, "+r[0]+" bytes", uint64(i), histSamples)}},
		})
	}
	second := Section{ID: "intraprocess_best_effort", Title: "intraprocess_best_effort", Status: StatusPassed,
		Notes:  []string{"No requirement for payload 16384: its checks were skipped (--allow-missing)."},
		Tables: []Table{{Caption: "Summary (µs)", Header: header, Rows: summary.Rows[:3]}},
		Plots: []Plot{{Title: "Latency by payload", SVG: linePlot(tb, "intraprocess_best_effort", "Payload [bytes]", "Latency [us]",
			xs[:3], map[string][]float64{"Median": mags["Median"][:3], "99%": mags["99%"][:3]})}},
	}
	return Page{
		Title:    "Check report: 2025-01-15_10-30-00",
		Subtitle: "Requirements latency_requirements.csv, every check of every payload",
		Meta: []KV{{"Experiment", "2025-01-15_10-30-00"}, {"System", "Fast-RTPS v1.9.2"}, {"Host", "bench-01 (Intel Xeon E5-2630 v4, 40 cores)"},
			{"Commit", "3f9c2a1d8e"}, {"Generated", "2025-01-15T11:02:13Z"}},
		Verdict: &Verdict{Status: StatusFailed, Summary: fmt.Sprintf("%d of %d checks failed", nFailed, nChecks), Failures: failures},
		Notes:   []string{"Host fingerprint differs from the requirements' source experiments."},
		Sections: []Section{
			{ID: "comparison", Title: "Sub-experiment comparison",
				Plots: []Plot{{Title: "Maximum latency by payload", SVG: comparisonPlot(tb)}}},
			{ID: "interprocess_reliable", Title: "interprocess_reliable", Status: StatusFailed,
				Tables: []Table{summary, checks},
				Plots: []Plot{
					{Title: "Latency by payload", SVG: linePlot(tb, "interprocess_reliable", "Payload [bytes]", "Latency [us]", xs, mags)},
					{Title: "Median against requirement", SVG: linePlot(tb, "interprocess_reliable: Median", "Payload [bytes]", "Latency [us]", xs,
						map[string][]float64{"Median": mags["Median"]})},
				},
				Sections: payloads},
			second,
		},
	}
}

// Render writes p as one self-contained HTML page to w. It fails on a plot
// that is not SVG and on an unknown status, naming the section.
func Render(w io.Writer, p Page) error {
	v, err := buildView(p)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, v)
}
