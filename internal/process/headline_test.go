package process

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/browser"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/result"
)

// headlineResults are n sub-experiments of the ten built-in names' length,
// 11 payloads each; sub-experiment 1 is the slowest at 64 B in every column.
func headlineResults(n int) []Result {
	var out []Result
	for i := range n {
		r := Result{Input: Input{Type: fmt.Sprintf("interprocess_best_effort_tcp_security_%d", i)}}
		for j := range 11 {
			bytes := 16 << j
			s := result.Summary{Samples: 5000, Median: 10 + float64(i+j), P99: 40 + float64(i+j), Max: 900 + float64(i+j)}
			if bytes == 64 && i == 1 {
				s.Median, s.P99, s.Max = 22396.49, 56_600, 1_148_000
			}
			r.Rows = append(r.Rows, result.SummaryRow{Bytes: bytes, Summary: s})
		}
		out = append(out, r)
	}
	return out
}

// TestHeadlineTable: per sub-experiment and payload the p50, p99 and max,
// scaled for reading, and the worst of each column at each payload marked.
func TestHeadlineTable(t *testing.T) {
	tab := HeadlineTable(headlineResults(3))
	if got := strings.Join(tab.Header, ","); got != "Sub-experiment,Payload,p50,p99,Max" {
		t.Errorf("header %s", got)
	}
	if len(tab.Rows) != 33 {
		t.Fatalf("%d rows, want 33", len(tab.Rows))
	}
	row := func(r []htmlreport.Cell) string {
		var b []string
		for _, c := range r {
			b = append(b, c.Text+"|"+c.Status)
		}
		return strings.Join(b, " ")
	}
	// Row 13 is sub-experiment 1 at 64 B: every value worst, and scaled.
	if got, want := row(tab.Rows[13]), "interprocess_best_effort_tcp_security_1| 64 B| 22.4 ms|inconclusive 56.6 ms|inconclusive 1.15 s|inconclusive"; got != want {
		t.Errorf("row 13:\n got %s\nwant %s", got, want)
	}
	// At 16 B sub-experiment 2 is the worst; 0 and 1 are not marked.
	if got, want := row(tab.Rows[22]), "interprocess_best_effort_tcp_security_2| 16 B| 12.0 µs|inconclusive 42.0 µs|inconclusive 902 µs|inconclusive"; got != want {
		t.Errorf("row 22:\n got %s\nwant %s", got, want)
	}
	for i, want := range []string{"", "", "inconclusive"} {
		if got := tab.Rows[11*i][2].Status; got != want {
			t.Errorf("16 B, sub-experiment %d: p50 status %q, want %q", i, got, want)
		}
	}
	// One sub-experiment: the worst of each column over its payloads.
	one := HeadlineTable(headlineResults(1))
	var marked int
	for _, r := range one.Rows {
		for _, c := range r {
			if c.Status != "" {
				marked++
			}
		}
	}
	if marked != 3 {
		t.Errorf("one sub-experiment: %d cells marked, want one per column (3)", marked)
	}
	// Equal values have no worst.
	flat := HeadlineTable([]Result{{Input: Input{Type: "a"}, Rows: []result.SummaryRow{{Bytes: 16}, {Bytes: 32}}}})
	for _, r := range flat.Rows {
		for _, c := range r {
			if c.Status != "" {
				t.Errorf("no spread, yet %q is marked", c.Text)
			}
		}
	}
}

// TestHeadlineFirstInBrowser: the headline is the first thing under the
// title, on the first screen, and each of its tables fits a phone's width
// without a scrollbar: the latency table, and those of one-way load and
// per-message runs.
func TestHeadlineFirstInBrowser(t *testing.T) {
	browser.Require(t)
	loads, _, err := Loads(filepath.Join("testdata", "load"), "", "", true)
	if err != nil {
		t.Fatal(err)
	}
	pms, _, err := PerMessages(filepath.Join("testdata", "permessage"), "", "", true)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]Folder{
		"latency":    {Results: headlineResults(10)},
		"load":       {Results: headlineResults(2), Loads: loads},
		"permessage": {PerMessages: pms},
	} {
		page, err := Page("", f)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.html")
		if err := htmlreport.WriteFile(path, page); err != nil {
			t.Fatal(err)
		}
		const js = `
var h = document.getElementById("headline"), ws = h.querySelectorAll(".table-wrap"), over = [];
ws.forEach(function (w) { if (w.scrollWidth > w.clientWidth) over.push(w.querySelector("caption").textContent + ": " + w.scrollWidth + " px in " + w.clientWidth); });
return {top: h.getBoundingClientRect().top, vh: innerHeight, tables: ws.length,
	before: h.compareDocumentPosition(document.getElementById("contents")) === Node.DOCUMENT_POSITION_FOLLOWING,
	over: over};`
		for _, s := range []struct{ w, h int }{{400, 844}, {1280, 900}} {
			out, err := browser.Eval(context.Background(), path, s.w, s.h, js)
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Top, VH float64
				Tables  int
				Before  bool
				Over    []string
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if !m.Before || m.Top >= m.VH/2 || m.Tables != len(page.Headline) {
				t.Errorf("%s, %d px: %d headline tables of %d at %.0f of %.0f, before the contents %v: want them first, high on the first screen",
					name, s.w, m.Tables, len(page.Headline), m.Top, m.VH, m.Before)
			}
			for _, o := range m.Over {
				t.Errorf("%s, %d px: clipped: %s", name, s.w, o)
			}
		}
	}
}
