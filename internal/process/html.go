package process

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Folder is what process read and drew in one experiment, for its page.
type Folder struct {
	Results     []Result // latency raw files
	Throughputs []Throughput
	Loads       []Load
	PerMessages []PerMessage
}

// Page builds the HTML report of processed results: headline tables first
// (the latency matrix, one-way load, per-message, throughput), then the
// throughput, load and per-message sections, the comparison heat maps
// (with, collapsed, the latency of every sub-experiment and payload as one
// long table), and per sub-experiment its summary table and, per payload,
// its histogram and series. expDir is "" in single-file mode. Everything must have been
// produced with its figures as SVG (Options.Figures).
func Page(expDir string, f Folder) (htmlreport.Page, error) {
	results, tputs := f.Results, f.Throughputs
	page, latency := pageOf(expDir)
	var samples int
	for _, r := range results {
		samples += r.Samples
	}
	subs, plain := f.subExperiments()
	page.Meta = append(page.Meta, htmlreport.KV{Key: "Sub-experiments", Value: strconv.Itoa(subs)})
	if len(results) > 0 {
		page.Meta = append(page.Meta, htmlreport.KV{Key: "Samples", Value: result.Count(samples)})
	}
	page.Meta = append(page.Meta, htmlreport.KV{Key: "Generated", Value: time.Now().UTC().Format(time.RFC3339)})

	if len(results) > 0 {
		page.Headline = []htmlreport.Table{MatrixTable(results, latency)}
	}
	if len(f.Loads) > 0 {
		page.Headline = append(page.Headline, LoadTable(f.Loads))
	}
	if len(f.PerMessages) > 0 {
		page.Headline = append(page.Headline, PerMessageTable(f.PerMessages))
	}
	if len(plain) > 0 {
		page.Headline = append(page.Headline, ThroughputTable(plain))
	}
	if len(results) == 0 && len(tputs) > 0 {
		page.Title = strings.Replace(page.Title, "Latency summary", "Throughput summary", 1)
	}
	for _, t := range tputs {
		page.Sections = append(page.Sections, htmlreport.Section{ID: "throughput-" + t.Type, Title: t.Type + " (throughput)", Plots: t.Figures})
	}
	for _, l := range f.Loads {
		page.Sections = append(page.Sections, LoadSection(l))
	}
	for _, pm := range f.PerMessages {
		page.Sections = append(page.Sections, PerMessageSection(pm))
	}
	if len(results) > 1 {
		sec, err := comparisonSection(results)
		if err != nil {
			return page, err
		}
		page.Sections = append(page.Sections, sec)
	}
	for _, r := range results {
		page.Sections = append(page.Sections, resultSection(r))
	}
	return page, nil
}

// pageOf starts the page of experiment expDir ("" in single-file mode):
// its title and what its meta.json says, and the latency its raw files
// hold.
func pageOf(expDir string) (page htmlreport.Page, latency string) {
	page = htmlreport.Page{Title: "Latency summary", Subtitle: "mqgate process"}
	// Without meta.json, or a latency in it, raw files hold half round
	// trips (formats §2).
	latency = meta.LatencyHalfRTT
	if expDir == "" {
		return page, latency
	}
	page.Title = "Latency summary: " + filepath.Base(filepath.Clean(expDir))
	page.Meta = append(page.Meta, htmlreport.KV{Key: "Experiment", Value: expDir})
	m, err := meta.ReadFile(filepath.Join(expDir, "meta.json"))
	switch {
	case err == nil:
		page.Meta = append(page.Meta, metaKVs(m)...)
		latency = cmp.Or(m.Latency, latency)
	case !errors.Is(err, os.ErrNotExist):
		page.Notes = append(page.Notes, "meta.json could not be read: "+err.Error())
	}
	return page, latency
}

// subExperiments counts the sub-experiments of f, and returns its plain
// throughput summaries: those of no run load or run permessage. A
// sub-experiment of run load or run permessage has a throughput file too:
// it is counted once, and its rates are shown in its own table, beside
// what they need to be read (delivery, the overall rate).
func (f Folder) subExperiments() (n int, plain []Throughput) {
	owned := map[string]bool{}
	subs := map[string]bool{}
	for _, l := range f.Loads {
		owned[l.Type], subs[l.Type] = true, true
	}
	for _, pm := range f.PerMessages {
		owned[pm.Type], subs[pm.Type] = true, true
	}
	for _, t := range f.Throughputs {
		subs[t.Type] = true
		if !owned[t.Type] {
			plain = append(plain, t)
		}
	}
	for _, r := range f.Results {
		subs[r.Type] = true
	}
	return len(subs), plain
}

// comparisonSection holds the comparison heat maps of results and,
// collapsed, the same figures as one table.
func comparisonSection(results []Result) (htmlreport.Section, error) {
	sec := htmlreport.Section{ID: "comparison", Title: "Sub-experiment comparison"}
	for _, c := range Comparisons {
		svg, err := plots.SVG(ComparisonPlot(results, c))
		if err != nil {
			return sec, err
		}
		sec.Plots = append(sec.Plots, htmlreport.Plot{Title: c.Title, SVG: svg})
	}
	// The same figures as a list, for reading values off and copying
	// them, collapsed: at ten sub-experiments it is 110 rows long.
	sec.Sections = []htmlreport.Section{{ID: "table", Title: "Every sub-experiment and payload as a table",
		Tables: []htmlreport.Table{PayloadRowsTable(results)}}}
	return sec, nil
}

// resultSection is the section of one raw file: its summary table and,
// per payload, its histogram and series.
func resultSection(r Result) htmlreport.Section {
	sec := htmlreport.Section{ID: r.Type, Title: r.Type, Tables: []htmlreport.Table{SummaryTable(r)}}
	for i, row := range r.Rows {
		p := strconv.Itoa(row.Bytes)
		sub := htmlreport.Section{ID: p, Title: p + " Bytes"}
		if i < len(r.Figures) && r.Figures[i].Histogram != nil {
			sub.Plots = []htmlreport.Plot{
				{Title: "Latency histogram - " + p + " Bytes", SVG: r.Figures[i].Histogram},
				{Title: "Latency series - " + p + " Bytes", SVG: r.Figures[i].Series},
			}
		}
		sec.Sections = append(sec.Sections, sub)
	}
	return sec
}

// MatrixTable is what a reader wants first, the whole answer on one
// screen: a row per sub-experiment, a column per payload, each cell the
// median and, under it, the 99th percentile, scaled for reading; the
// highest of each at each payload (across sub-experiments, or across
// payloads when there is one sub-experiment) is marked. latency is the
// meta.json definition of the values, which the caption names.
func MatrixTable(results []Result, latency string) htmlreport.Table {
	payloads := payloadsOf(results)
	t := htmlreport.Table{RowHeaders: true, Header: []string{"Sub-experiment"},
		Caption: "Latency, " + experiment.LatencyMeaning(latency) + ": p50 over p99, by sub-experiment and payload (marked: the highest at each payload)"}
	if len(results) == 1 {
		t.Caption = "Latency, " + experiment.LatencyMeaning(latency) + ": p50 over p99, by payload (marked: the highest of each)"
	}
	for _, p := range payloads {
		t.Header = append(t.Header, strconv.Itoa(p)+" B")
	}
	cols := []string{"Median", "99%"}
	marked := marker(results, cols)
	for _, r := range results {
		cells := append([]htmlreport.Cell{htmlreport.Text(r.Type)}, slices.Repeat([]htmlreport.Cell{htmlreport.Num("–")}, len(payloads))...)
		for _, row := range r.Rows {
			p50, _ := row.Get(cols[0])
			p99, _ := row.Get(cols[1])
			cells[1+slices.Index(payloads, row.Bytes)] = htmlreport.Cell{Numeric: true,
				Text: result.Micros(p50), Status: marked(row.Bytes, 0, p50),
				Sub: result.Micros(p99), SubStatus: marked(row.Bytes, 1, p99)}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// marker returns the status of value v of column cols[i] at payload bytes:
// marked when it is the highest of its group (a payload, or, when there is
// one sub-experiment, all of them) and the group's values differ (a column
// without spread has no worst).
func marker(results []Result, cols []string) func(bytes, i int, v float64) string {
	group := func(bytes int) int {
		if len(results) == 1 {
			return 0
		}
		return bytes
	}
	worst, best := map[int][]float64{}, map[int][]float64{}
	for _, r := range results {
		for _, row := range r.Rows {
			g := group(row.Bytes)
			if worst[g] == nil {
				worst[g], best[g] = make([]float64, len(cols)), slices.Repeat([]float64{math.Inf(1)}, len(cols))
			}
			for i, col := range cols {
				v, _ := row.Get(col)
				worst[g][i], best[g][i] = max(worst[g][i], v), min(best[g][i], v)
			}
		}
	}
	return func(bytes, i int, v float64) string {
		if g := group(bytes); v == worst[g][i] && v > best[g][i] {
			return htmlreport.StatusInconclusive
		}
		return ""
	}
}

// PayloadRowsTable is the matrix's figures and the maximum as a list: per
// sub-experiment and payload the median, 99th percentile and maximum,
// scaled for reading; the worst value of each column at each payload
// (across sub-experiments, or across payloads when there is one
// sub-experiment) is marked.
func PayloadRowsTable(results []Result) htmlreport.Table {
	t := htmlreport.Table{Caption: "Latency per sub-experiment and payload (marked: the worst at each payload)",
		Header: []string{"Sub-experiment", "Payload", "p50", "p99", "Max"}}
	if len(results) == 1 {
		t.Caption = "Latency per payload (marked: the worst of each column)"
	}
	cols := []string{"Median", "99%", "Max"}
	marked := marker(results, cols)
	for _, r := range results {
		for _, row := range r.Rows {
			cells := []htmlreport.Cell{{Text: r.Type}, htmlreport.Num(strconv.Itoa(row.Bytes) + " B")}
			for i, col := range cols {
				v, _ := row.Get(col)
				c := htmlreport.Num(result.Micros(v))
				c.Status = marked(row.Bytes, i, v)
				cells = append(cells, c)
			}
			t.Rows = append(t.Rows, cells)
		}
	}
	return t
}

// SummaryTable is a result's summary as an HTML table, values as in the file.
func SummaryTable(r Result) htmlreport.Table {
	t := htmlreport.Table{Caption: filepath.Base(r.Summary) + " (latency in µs)", Header: result.SummaryColumns}
	for _, row := range r.Rows {
		var cells []htmlreport.Cell
		for _, v := range row.Record() {
			cells = append(cells, htmlreport.Num(v))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

func metaKVs(m *meta.Meta) []htmlreport.KV {
	kvs := []htmlreport.KV{{Key: "Start", Value: m.Start.UTC().Format(time.RFC3339)}}
	if sut := m.System.Name; sut != "" {
		if m.System.Version != "" {
			sut += " " + m.System.Version
		}
		if m.System.Commit != "" {
			sut += " (" + m.System.Commit + ")"
		}
		kvs = append(kvs, htmlreport.KV{Key: "System", Value: sut})
	}
	if m.Latency != "" {
		kvs = append(kvs, htmlreport.KV{Key: "Latency", Value: m.Latency})
	}
	if h := m.Host.Hostname; h != "" {
		kvs = append(kvs, htmlreport.KV{Key: "Host", Value: fmt.Sprintf("%s, %s", h, m.Host.CPUModel)})
	}
	if !m.Completed {
		kvs = append(kvs, htmlreport.KV{Key: "Run", Value: "incomplete"})
	}
	return kvs
}
