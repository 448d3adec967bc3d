package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/goldenfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// tinySVG is a small gonum SVG: a square plot with one line.
func tinySVG(tb testing.TB, title string) []byte {
	tb.Helper()
	p := plot.New()
	p.Title.Text = title
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 3}, {X: 2, Y: 2}})
	if err != nil {
		tb.Fatal(err)
	}
	p.Add(l)
	c := vgsvg.New(2*vg.Inch, 2*vg.Inch)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// goldenPage exercises every part of the model once.
func goldenPage(tb testing.TB) Page {
	return Page{
		Title:    "Check report: 2025-01-15_10-30-00",
		Subtitle: "against latency_requirements.csv",
		Meta:     []KV{{"Experiment", "2025-01-15_10-30-00"}, {"Commit", "3f9c2a1"}},
		Verdict: &Verdict{Status: StatusFailed, Summary: "1 of 2 checks failed", Failures: Table{
			Header: []string{"Sub-experiment", "Check", "Bytes", "Requirement", "Experiment"},
			Rows:   [][]Cell{{Text("interprocess_reliable"), Text("99%"), Num("64"), Num("50.000"), {Text: "54.938", Numeric: true, Status: StatusFailed}}},
		}},
		Notes: []string{"One note."},
		Sections: []Section{{
			ID: "interprocess_reliable", Title: "interprocess_reliable", Status: StatusFailed,
			Tables: []Table{{Caption: "Checks", Header: []string{"Check", "Bytes", "Status"},
				Rows: [][]Cell{{Text("Median"), Num("64"), statusCell(StatusPassed)}, {Text("99%"), Num("64"), statusCell(StatusFailed)}}}},
			Plots: []Plot{{Title: "Latency by payload", SVG: tinySVG(tb, "interprocess_reliable")}},
			Sections: []Section{
				{ID: "64", Title: "64 bytes", Status: StatusFailed, Notes: []string{"Payload note."}},
				{ID: "128", Title: "128 bytes", Open: true},
			},
		}},
	}
}

func TestRenderGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, goldenPage(t)); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", t.Name()+".html")
	if goldenfile.Update() {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := b.Bytes(); !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("output differs from %s at line %d:\n got: %s\nwant: %s\n(run go test -update if the change is intended)", golden, i+1, g, w)
			}
		}
	}
}

func TestRenderDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := Render(&a, goldenPage(t)); err != nil {
		t.Fatal(err)
	}
	if err := Render(&b, goldenPage(t)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of the same page differ")
	}
}

func TestEscaping(t *testing.T) {
	const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>"'&`
	cell := Cell{Text: evil, Status: StatusFailed}
	tbl := Table{Caption: evil, Header: []string{evil}, Rows: [][]Cell{{cell}}}
	rows := Table{Caption: evil, Header: []string{evil, evil}, RowHeaders: true, Rows: [][]Cell{{cell, {Text: evil, Sub: evil}}}}
	p := Page{
		Title: evil, Subtitle: evil, Meta: []KV{{evil, evil}}, Notes: []string{evil},
		Verdict: &Verdict{Status: StatusFailed, Summary: evil, Failures: tbl},
		Sections: []Section{{ID: evil, Title: evil, Notes: []string{evil}, Tables: []Table{tbl, rows},
			Plots:    []Plot{{Title: evil, SVG: tinySVG(t, "plot")}},
			Sections: []Section{{ID: evil, Title: evil}}}},
	}
	var b bytes.Buffer
	if err := Render(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "<script"); n != 1 {
		t.Errorf("page has %d <script> elements, want only its own", n)
	}
	if strings.Contains(out, "<img") {
		t.Error("page contains an unescaped <img>")
	}
	if !strings.Contains(out, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("escaped title not found")
	}
	for _, m := range regexp.MustCompile(`\sid="([^"]*)"`).FindAllStringSubmatch(out, -1) {
		if !regexp.MustCompile(`^[a-z0-9_.-]+$`).MatchString(m[1]) {
			t.Errorf("id %q is not sanitised", m[1])
		}
	}
}

// TestRowHeaders: a table with row headers has its first cells as row
// headers that may wrap only after an underscore, and a cell with a second
// value marks each value on its own.
func TestRowHeaders(t *testing.T) {
	tbl := Table{Header: []string{"Sub-experiment", "16 B"}, RowHeaders: true, Rows: [][]Cell{
		{Text("interprocess_best_effort"), {Text: "14.4 µs", Status: StatusInconclusive, Sub: "27.2 µs", Numeric: true}},
		{Text("a_b"), {Text: "1 µs", Sub: "2 µs", SubStatus: StatusFailed, Numeric: true}},
	}}
	var b bytes.Buffer
	if err := Render(&b, Page{Title: "t", Headline: []Table{tbl}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`<table class="row-headers">`,
		`<th scope="row">interprocess_<wbr>best_<wbr>effort</th><td class="num"><span class="val st-inconclusive">14.4 µs</span><span class="sub">27.2 µs</span></td>`,
		`<th scope="row">a_<wbr>b</th><td class="num"><span class="val">1 µs</span><span class="sub st-failed">2 µs</span></td>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	bad := tbl
	bad.Rows = [][]Cell{{Text("x"), {Text: "1", Sub: "2", SubStatus: "worst"}}}
	if err := Render(&b, Page{Title: "t", Headline: []Table{bad}}); err == nil || !strings.Contains(err.Error(), `status "worst"`) {
		t.Errorf("a sub-value status \"worst\": error %v", err)
	}
}

func TestIDs(t *testing.T) {
	p := Page{Sections: []Section{
		{ID: "a", Title: "A", Sections: []Section{{ID: "64", Title: "64 bytes"}, {ID: "64", Title: "64 bytes again"}}},
		{ID: "a", Title: "A again", Sections: []Section{{ID: "64", Title: "64 bytes"}}},
		{ID: "A", Title: "upper case"},
		{Title: "From The Title!"},
		{Title: "???"},
		{ID: "verdict", Title: "clashes with the verdict"},
		{ID: "a-64", Title: "clashes with a nested anchor"},
		{ID: "Überweisung & Co", Title: "non-ASCII"},
	}}
	var b bytes.Buffer
	if err := Render(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var ids []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\sid="([^"]*)"`).FindAllStringSubmatch(out, -1) {
		if seen[m[1]] {
			t.Errorf("id %q is used twice", m[1])
		}
		seen[m[1]] = true
		ids = append(ids, m[1])
	}
	want := []string{"top", "contents", "a", "a-64", "a-64-2", "a-2", "a-2-64", "a-3", "from-the-title", "section-5", "verdict-2", "a-64-3", "berweisung-co"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("ids:\n got %q\nwant %q", ids, want)
	}
	for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(out, -1) {
		if !seen[m[1]] {
			t.Errorf("link to #%s has no target", m[1])
		}
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"interprocess_reliable", "interprocess_reliable"},
		{"16384 bytes", "16384-bytes"},
		{"  --Hello,  World--  ", "hello-world"},
		{"v1.9.2", "v1.9.2"},
		{"...", ""},
		{"日本", ""},
	} {
		if got := slug(tc.in); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestInlineSVG(t *testing.T) {
	const body = `<svg width="10pt" height="5pt" viewBox="0 0 10 5" xmlns="http://www.w3.org/2000/svg"><rect width="1" height="2"/><use href="#a"/><text>on=x a &lt; b</text></svg>`
	const want = `<svg viewBox="0 0 10 5" xmlns="http://www.w3.org/2000/svg" class="plot" role="img" aria-label="L&lt;1&gt;"><rect width="1" height="2"/><use href="#a"/><text>on=x a &lt; b</text></svg>`
	for _, tc := range []struct {
		name, in, err string
	}{
		{"bare", body, ""},
		{"prolog", "<?xml version=\"1.0\"?>\n<!-- Generated by SVGo -->\n" + body + "\n", ""},
		{"doctype", "\ufeff"[:0] + "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n" + body, ""},
		{"empty", "", "not SVG"},
		{"png", "\x89PNG\r\n\x1a\n", "not SVG"},
		{"html", "<html><svg viewBox=\"0 0 1 1\"></svg></html>", "not SVG"},
		{"svgfoo", "<svgfoo viewBox=\"0 0 1 1\"></svgfoo>", "not SVG"},
		{"unclosed", "<svg viewBox=\"0 0 1 1\"", "not closed"},
		{"no viewBox", `<svg width="10" height="10"></svg>`, "viewBox"},
		{"script", `<svg viewBox="0 0 1 1"><script>alert(1)</script></svg>`, "not allowed"},
		{"handler", `<svg viewBox="0 0 1 1" onload="alert(1)"></svg>`, "not allowed"},
		{"foreignObject", `<svg viewBox="0 0 1 1"><foreignObject></foreignObject></svg>`, "not allowed"},
		{"external image", `<svg viewBox="0 0 1 1"><image href="https://example.com/x.png"/></svg>`, "not allowed"},
		{"external xlink", `<svg viewBox="0 0 1 1"><use xlink:href='/x.svg#a'/></svg>`, "not allowed"},
		{"javascript link", `<svg viewBox="0 0 1 1"><a href=javascript:alert(1)>x</a></svg>`, "not allowed"},
		{"upper-case script", `<svg viewBox="0 0 1 1"><SCRIPT>alert(1)</SCRIPT></svg>`, "not allowed"},
		{"handler after newline", "<svg viewBox=\"0 0 1 1\">\n<rect\nonclick='x'/></svg>", "not allowed"},
		{"unterminated value", `<svg viewBox="0 0 1 1"><rect fill="red></rect></svg>`, "unterminated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := inlineSVG([]byte(tc.in), "L<1>")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestInlineGonumSVG(t *testing.T) {
	got, err := inlineSVG(tinySVG(t, "t"), "t")
	if err != nil {
		t.Fatal(err)
	}
	start := string(got)[:strings.IndexByte(string(got), '>')]
	if strings.Contains(start, "width=") || !strings.Contains(start, `viewBox="0 0 144 144"`) {
		t.Errorf("root element %s: want a viewBox and no fixed size", start)
	}
}

func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Page
		err  string
	}{
		{"verdict status", Page{Verdict: &Verdict{Status: "ok"}}, `verdict: status "ok"`},
		{"section status", Page{Sections: []Section{{Title: "s", Status: "fail"}}}, `section "s": status "fail"`},
		{"cell status", Page{Sections: []Section{{Title: "s", Sections: []Section{{Title: "n", Tables: []Table{{Caption: "c", Rows: [][]Cell{{Text("a"), {Status: "bad"}}}}}}}}}},
			`section "n": table "c": row 1, cell 2: status "bad"`},
		{"failures status", Page{Verdict: &Verdict{Status: StatusFailed, Failures: Table{Rows: [][]Cell{{{Status: "x"}}}}}}, `verdict: table`},
		{"plot", Page{Sections: []Section{{Title: "s", Plots: []Plot{{Title: "p", SVG: []byte("PNG")}}}}}, `section "s": plot "p": plot is not SVG`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Render(&bytes.Buffer{}, tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "report.html")
	if err := WriteFile(path, goldenPage(t)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, goldenPage(t)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("file differs from Render's output (err %v)", err)
	}
	// An invalid page leaves the previous file as it was, and no temporary file.
	bad := goldenPage(t)
	bad.Sections[0].Plots[0].SVG = []byte("not a plot")
	if err := WriteFile(path, bad); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("WriteFile of an invalid page: err = %v, want one naming %s", err, path)
	}
	if got2, _ := os.ReadFile(path); !bytes.Equal(got2, got) {
		t.Error("an invalid page changed the existing file")
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("directory holds %d files, want only the report", len(ents))
	}
}

// TestSelfContained checks that the page refers to nothing outside itself.
func TestSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, realisticPage(t, 500)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, re := range []string{`(?i)\ssrc\s*=`, `(?i)<link\b`, `(?i)@import`, `(?i)url\(\s*['"]?(https?:|//)`, `(?i)href="(?:https?:|//)`} {
		if m := regexp.MustCompile(re).FindString(out); m != "" {
			t.Errorf("page refers to something outside itself: %q", m)
		}
	}
	if !strings.Contains(out, `<meta name="viewport"`) {
		t.Error("page has no viewport meta element: phones would render it at desktop width")
	}
}

func FuzzInlineSVG(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><svg width="1" height="1" viewBox="0 0 1 1"></svg>`), "label")
	f.Add([]byte(`<!-- c --><!DOCTYPE svg><svg viewBox="0 0 1 1"><g/></svg>`), "")
	f.Add([]byte(`<svg viewBox="0 0 1 1" onload="x"></svg>`), `"><script>`)
	f.Fuzz(func(t *testing.T, doc []byte, label string) {
		out, err := inlineSVG(doc, label)
		if err != nil {
			return
		}
		s := string(out)
		if !strings.HasPrefix(s, "<svg") {
			t.Fatalf("output does not start with <svg: %q", s)
		}
		if strings.Contains(strings.ToLower(s), "<script") {
			t.Fatalf("output holds a script: %q", s)
		}
		start := s[:strings.IndexByte(s, '>')]
		if !strings.Contains(start, `aria-label="`) || strings.Count(start, `aria-label="`) < 1 {
			t.Fatalf("output has no label: %q", start)
		}
	})
}

// BenchmarkRender renders a process-sized page: 10 sub-experiments of 11
// payloads, a plot per sub-experiment and two per payload.
func BenchmarkRender(b *testing.B) {
	p := largePage(b)
	var buf bytes.Buffer
	if err := Render(&buf, p); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Render(&buf, p); err != nil {
			b.Fatal(err)
		}
	}
}

// statusCell returns a cell that shows a status and is coloured by it.
func statusCell(status string) Cell { return Cell{Text: status, Status: status} }

// TestVerdictNumbersKeepTheirUnits: the verdict table's text wraps, but a
// numeric cell's value never parts from its unit (it broke between
// "1.210" and "µs"); an interval, and a text cell, still wrap at their
// spaces.
func TestVerdictNumbersKeepTheirUnits(t *testing.T) {
	var b bytes.Buffer
	err := Render(&b, Page{Title: "t", Verdict: &Verdict{Status: StatusFailed, Summary: "s", Failures: Table{
		Header: []string{"Metric", "Value", "Interval", "Runs"},
		Rows:   [][]Cell{{Text("a median"), Num("1.210 µs"), Num("[1.02, 1.31] (95%)"), Num("2 runs")}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`>a median</td>`, ">1.210\u00a0µs</td>", ">[1.02, 1.31] (95%)</td>", ">2\u00a0runs</td>"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
