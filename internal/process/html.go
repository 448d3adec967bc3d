package process

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
// (latency, one-way load, per-message, throughput), then the comparison
// plots, the throughput, load and per-message sections, and per
// sub-experiment its summary table and, per payload, its histogram and
// series. expDir is "" in single-file mode. Everything must have been
// produced with its figures as SVG (Options.Figures).
func Page(expDir string, f Folder) (htmlreport.Page, error) {
	results, tputs := f.Results, f.Throughputs
	page := htmlreport.Page{Title: "Latency summary", Subtitle: "mqgate process"}
	if expDir != "" {
		page.Title = "Latency summary: " + filepath.Base(filepath.Clean(expDir))
		page.Meta = append(page.Meta, htmlreport.KV{Key: "Experiment", Value: expDir})
		m, err := meta.ReadFile(filepath.Join(expDir, "meta.json"))
		switch {
		case err == nil:
			page.Meta = append(page.Meta, metaKVs(m)...)
		case !errors.Is(err, os.ErrNotExist):
			page.Notes = append(page.Notes, "meta.json could not be read: "+err.Error())
		}
	}
	var samples int
	for _, r := range results {
		samples += r.Samples
	}
	// A sub-experiment of run load or run permessage has a throughput file
	// too: it is counted once, and its rates are shown in its own table,
	// beside what they need to be read (delivery, the overall rate).
	owned := map[string]bool{}
	subs := map[string]bool{}
	for _, l := range f.Loads {
		owned[l.Type], subs[l.Type] = true, true
	}
	for _, pm := range f.PerMessages {
		owned[pm.Type], subs[pm.Type] = true, true
	}
	var plain []Throughput
	for _, t := range tputs {
		subs[t.Type] = true
		if !owned[t.Type] {
			plain = append(plain, t)
		}
	}
	for _, r := range results {
		subs[r.Type] = true
	}
	page.Meta = append(page.Meta, htmlreport.KV{Key: "Sub-experiments", Value: strconv.Itoa(len(subs))})
	if len(results) > 0 {
		page.Meta = append(page.Meta, htmlreport.KV{Key: "Samples", Value: strconv.Itoa(samples)})
	}
	page.Meta = append(page.Meta, htmlreport.KV{Key: "Generated", Value: time.Now().UTC().Format(time.RFC3339)})

	if len(results) > 0 {
		page.Headline = []htmlreport.Table{HeadlineTable(results)}
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
		sec := htmlreport.Section{ID: "comparison", Title: "Sub-experiment comparison"}
		for _, c := range Comparisons {
			svg, err := plots.SVG(ComparisonPlot(results, c))
			if err != nil {
				return page, err
			}
			sec.Plots = append(sec.Plots, htmlreport.Plot{Title: c.Title, SVG: svg})
		}
		page.Sections = append(page.Sections, sec)
	}
	for _, r := range results {
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
		page.Sections = append(page.Sections, sec)
	}
	return page, nil
}

// headlineColumns are the summary columns of the headline table.
var headlineColumns = []string{"Median", "99%", "Max"}

// HeadlineTable is what a reader wants first: per sub-experiment and
// payload the median, 99th percentile and maximum, scaled for reading; the
// worst value of each column at each payload (across sub-experiments, or
// across payloads when there is one sub-experiment) is marked.
func HeadlineTable(results []Result) htmlreport.Table {
	t := htmlreport.Table{Caption: "Latency per sub-experiment and payload (marked: the worst at each payload)",
		Header: []string{"Sub-experiment", "Payload", "p50", "p99", "Max"}}
	if len(results) == 1 {
		t.Caption = "Latency per payload (marked: the worst of each column)"
	}
	// worst[group][col] and best[group][col] are the highest and lowest
	// values of col in the group: a payload, or everything for one
	// sub-experiment. A column without spread has no worst.
	worst, best := map[int][]float64{}, map[int][]float64{}
	group := func(bytes int) int {
		if len(results) == 1 {
			return 0
		}
		return bytes
	}
	for _, r := range results {
		for _, row := range r.Rows {
			g := group(row.Bytes)
			if worst[g] == nil {
				worst[g] = make([]float64, len(headlineColumns))
				best[g] = make([]float64, len(headlineColumns))
				for i := range best[g] {
					best[g][i] = math.Inf(1)
				}
			}
			for i, col := range headlineColumns {
				v, _ := row.Get(col)
				worst[g][i], best[g][i] = max(worst[g][i], v), min(best[g][i], v)
			}
		}
	}
	for _, r := range results {
		for _, row := range r.Rows {
			cells := []htmlreport.Cell{{Text: r.Type}, htmlreport.Num(strconv.Itoa(row.Bytes) + " B")}
			for i, col := range headlineColumns {
				v, _ := row.Get(col)
				c := htmlreport.Num(result.Micros(v))
				if g := group(row.Bytes); v == worst[g][i] && v > best[g][i] {
					c.Status = htmlreport.StatusInconclusive
				}
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
		cells := []htmlreport.Cell{htmlreport.Num(strconv.Itoa(row.Bytes)), htmlreport.Num(strconv.Itoa(row.Samples))}
		for _, col := range result.SummaryColumns[2:] {
			v, _ := row.Get(col)
			cells = append(cells, htmlreport.Num(result.Format3(v)))
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
