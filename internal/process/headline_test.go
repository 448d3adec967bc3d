package process

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/browser"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
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

// TestPayloadRowsTable: per sub-experiment and payload the p50, p99 and max,
// scaled for reading, and the worst of each column at each payload marked.
func TestPayloadRowsTable(t *testing.T) {
	tab := PayloadRowsTable(headlineResults(3))
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
	one := PayloadRowsTable(headlineResults(1))
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
	flat := PayloadRowsTable([]Result{{Input: Input{Type: "a"}, Rows: []result.SummaryRow{{Bytes: 16}, {Bytes: 32}}}})
	for _, r := range flat.Rows {
		for _, c := range r {
			if c.Status != "" {
				t.Errorf("no spread, yet %q is marked", c.Text)
			}
		}
	}
}

// TestMatrixTable: a row per sub-experiment and a column per payload, each
// cell the p50 over the p99, the highest of each at each payload marked, and
// the caption naming the latency definition.
func TestMatrixTable(t *testing.T) {
	tab := MatrixTable(headlineResults(3), meta.LatencyRTT)
	if len(tab.Rows) != 3 || len(tab.Header) != 12 || !tab.RowHeaders {
		t.Fatalf("%d rows, header %q, row headers %v: want 3 rows, a column per payload (11) after the names", len(tab.Rows), tab.Header, tab.RowHeaders)
	}
	if tab.Header[1] != "16 B" || tab.Header[11] != "16384 B" {
		t.Errorf("header %q: want payloads ascending", tab.Header)
	}
	if !strings.Contains(tab.Caption, "the whole round trip") {
		t.Errorf("caption %q does not say the values are whole round trips", tab.Caption)
	}
	cell := func(c htmlreport.Cell) string { return c.Text + "|" + c.Status + " " + c.Sub + "|" + c.SubStatus }
	// Sub-experiment 1 at 64 B is the highest; at 16 B sub-experiment 2 is.
	if got, want := cell(tab.Rows[1][3]), "22.4 ms|inconclusive 56.6 ms|inconclusive"; got != want {
		t.Errorf("sub-experiment 1, 64 B: %s, want %s", got, want)
	}
	if got, want := cell(tab.Rows[2][1]), "12.0 µs|inconclusive 42.0 µs|inconclusive"; got != want {
		t.Errorf("sub-experiment 2, 16 B: %s, want %s", got, want)
	}
	if got, want := cell(tab.Rows[0][1]), "10.0 µs| 40.0 µs|"; got != want {
		t.Errorf("sub-experiment 0, 16 B: %s, want %s", got, want)
	}
	// A payload one sub-experiment lacks is a dash; without spread nothing
	// is marked.
	gap := MatrixTable([]Result{
		{Input: Input{Type: "a"}, Rows: []result.SummaryRow{{Bytes: 16}, {Bytes: 32}}},
		{Input: Input{Type: "b"}, Rows: []result.SummaryRow{{Bytes: 32}}},
	}, meta.LatencyHalfRTT)
	if got := gap.Rows[1][1].Text; got != "–" {
		t.Errorf("missing payload shown as %q", got)
	}
	for _, r := range gap.Rows {
		for _, c := range r {
			if c.Status != "" || c.SubStatus != "" {
				t.Errorf("no spread, yet %q is marked", c.Text)
			}
		}
	}
	if !strings.Contains(gap.Caption, "half the round trip") {
		t.Errorf("caption %q does not say the values are half round trips", gap.Caption)
	}
}

// syntheticFolder is a realistic experiment, the ten built-in
// sub-experiments of eleven payloads as the demo measures them, processed
// as process does for its page.
func syntheticFolder(t *testing.T) Folder {
	t.Helper()
	dir := t.TempDir()
	if err := synth.WriteExperiment(dir, synth.Spec{Samples: 300, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	inputs, _, err := ExperimentInputs(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	results, err := Summarise(context.Background(), inputs, Options{Figures: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 10 {
		t.Fatalf("%d sub-experiments, want 10", len(results))
	}
	return Folder{Results: results}
}

// firstScreenJS measures a process page as a reader sees it: where the
// headline and the latency matrix are, which headline tables scroll
// sideways without keeping their names in view, and, with every section open,
// every word of a table (caption, header or cell) that the layout broke
// across lines: a word is a run of characters without a space, its pieces
// a name's words between underscores, where the page lets it wrap.
const firstScreenJS = `
var h = document.getElementById("headline"), ws = h.querySelectorAll(".table-wrap"), over = [];
var m = h.querySelector("table");
if (m && m.caption.textContent.indexOf("Latency, ") !== 0) m = null;
// A table may scroll sideways if its names stay in view.
ws.forEach(function (w) {
	if (w.scrollWidth <= w.clientWidth) return;
	var r = w.getBoundingClientRect(), ths = w.querySelectorAll("table.row-headers tbody th"), gone = ths.length === 0;
	w.scrollLeft = w.scrollWidth;
	ths.forEach(function (th) { var b = th.getBoundingClientRect(); if (b.left < r.left - 1 || b.right > r.right + 1) gone = true; });
	w.scrollLeft = 0;
	if (gone) over.push(w.querySelector("caption").textContent + ": " + w.scrollWidth + " px in " + w.clientWidth + ", its names out of view when scrolled");
});
var out = {top: h.getBoundingClientRect().top, vh: innerHeight, vw: innerWidth, tables: ws.length,
	before: h.compareDocumentPosition(document.getElementById("contents")) === Node.DOCUMENT_POSITION_FOLLOWING,
	over: over, broken: [], words: 0};
if (m) {
	var w = m.closest(".table-wrap"), r = w.getBoundingClientRect();
	out.matrix = {top: r.top, bottom: r.bottom, left: r.left, right: r.right, rows: m.tBodies[0].rows.length,
		cols: m.tHead.rows[0].cells.length, scrolls: w.scrollWidth > w.clientWidth};
}
document.querySelectorAll("details").forEach(function (d) { d.open = true; });
document.querySelectorAll("caption, th, td").forEach(function (cell) {
	var walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), n;
	while ((n = walk.nextNode())) {
		var re = /\S+/g, k;
		while ((k = re.exec(n.data))) {
			var rg = document.createRange(), lines = {}, rs;
			rg.setStart(n, k.index);
			rg.setEnd(n, k.index + k[0].length);
			rs = rg.getClientRects();
			for (var i = 0; i < rs.length; i++) if (rs[i].width > 0) lines[Math.round(rs[i].bottom)] = true;
			out.words++;
			if (Object.keys(lines).length > 1 && out.broken.length < 10) out.broken.push(cell.tagName.toLowerCase() + " " + JSON.stringify(k[0]) + " of " + JSON.stringify(cell.textContent.slice(0, 60)));
		}
	}
});
return out;`

// TestHeadlineFirstInBrowser: the headline is the first thing under the
// title. At 1,280 × 900 the latency matrix of ten sub-experiments by eleven
// payloads is whole on the first screen, without scrolling either way; at
// 400 pixels a headline table (the matrix, one-way load, per-message) may
// scroll sideways if its names stay in view; at both widths no caption,
// header or cell breaks a word across lines. It
// saves screenshots of the synthetic experiment's page (see saveShot in
// internal/htmlreport: MQGATE_SCREENSHOTS).
func TestHeadlineFirstInBrowser(t *testing.T) {
	browser.Require(t)
	loads, err := readLoads(filepath.Join("testdata", "load"))
	if err == nil {
		err = drawEach(new(int), loads, loadPlots, (*Load).figures, "", "", true)
	}
	if err != nil {
		t.Fatal(err)
	}
	pms, err := readPerMessages(filepath.Join("testdata", "permessage"))
	if err == nil {
		err = drawEach(new(int), pms, perMessagePlots, (*PerMessage).figures, "", "", true)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    Folder
	}{
		{"synthetic", syntheticFolder(t)},
		{"latency", Folder{Results: headlineResults(10)}},
		{"load", Folder{Results: headlineResults(2), Loads: loads}},
		{"permessage", Folder{PerMessages: pms}},
	} {
		page, err := Page("", c.f)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.html")
		if err := htmlreport.WriteFile(path, page); err != nil {
			t.Fatal(err)
		}
		for _, s := range []struct{ w, h int }{{400, 844}, {1280, 900}} {
			out, err := browser.Eval(context.Background(), path, s.w, s.h, firstScreenJS)
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Top, VH, VW   float64
				Tables, Words int
				Before        bool
				Over, Broken  []string
				Matrix        *struct {
					Top, Bottom, Left, Right float64
					Rows, Cols               int
					Scrolls                  bool
				}
			}
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if m.VW != float64(s.w) {
				t.Fatalf("%s: measured at %g pixels wide, want %d", c.name, m.VW, s.w)
			}
			if !m.Before || m.Top >= m.VH/2 || m.Tables != len(page.Headline) {
				t.Errorf("%s, %d px: %d headline tables of %d at %.0f of %.0f, before the contents %v: want them first, high on the first screen",
					c.name, s.w, m.Tables, len(page.Headline), m.Top, m.VH, m.Before)
			}
			for _, o := range m.Over {
				t.Errorf("%s, %d px: clipped: %s", c.name, s.w, o)
			}
			if m.Words < 100 {
				t.Errorf("%s, %d px: %d words of tables measured, want every table's", c.name, s.w, m.Words)
			}
			for _, b := range m.Broken {
				t.Errorf("%s, %d px: a word broken across lines: %s", c.name, s.w, b)
			}
			if len(c.f.Results) == 0 {
				continue
			}
			x := m.Matrix
			if x == nil {
				t.Errorf("%s, %d px: no latency matrix in the headline", c.name, s.w)
				continue
			}
			t.Logf("%s, %d×%d: matrix of %d rows × %d columns at %.0f–%.0f × %.0f–%.0f, scrolls %v",
				c.name, s.w, s.h, x.Rows, x.Cols, x.Left, x.Right, x.Top, x.Bottom, x.Scrolls)
			if x.Rows != len(c.f.Results) || x.Cols != 12 {
				t.Errorf("%s: matrix of %d rows × %d columns, want a row per sub-experiment (%d) and a column per payload after the names (12)",
					c.name, x.Rows, x.Cols, len(c.f.Results))
			}
			if s.w == 1280 && (x.Scrolls || x.Bottom > m.VH || x.Right > m.VW) {
				t.Errorf("%s, %d×%d: matrix at %.0f–%.0f × %.0f–%.0f, scrolls %v: want it whole on the first screen",
					c.name, s.w, s.h, x.Left, x.Right, x.Top, x.Bottom, x.Scrolls)
			}
		}
		if c.name == "synthetic" {
			for _, s := range []struct{ w, h int }{{400, 900}, {1280, 900}} {
				png := filepath.Join(t.TempDir(), fmt.Sprintf("process-first-screen-%d.png", s.w))
				if d := os.Getenv("MQGATE_SCREENSHOTS"); d != "" {
					png = filepath.Join(d, filepath.Base(png))
				}
				if err := browser.Screenshot(context.Background(), path, png, s.w, s.h); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
