package htmlreport

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/browser"
)

// Window sizes of the screenshots: a laptop and a phone.
var screens = []struct {
	name string
	w, h int
}{{"laptop", 1280, 2000}, {"phone", 390, 844}}

// saveShot copies a screenshot to the directory named by MQGATE_SCREENSHOTS,
// when set, so that a person can look at it.
func saveShot(t *testing.T, png string) {
	t.Helper()
	dir := os.Getenv("MQGATE_SCREENSHOTS")
	if dir == "" {
		return
	}
	b, err := os.ReadFile(png)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(png)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInBrowser loads a realistic page in headless Chromium, checks that the
// verdict, tables and plots are in the rendered DOM, and takes screenshots at
// laptop and phone sizes.
func TestInBrowser(t *testing.T) {
	browser.Require(t)
	p := realisticPage(t, 2000)
	dir := t.TempDir()
	page := filepath.Join(dir, "check.html")
	if err := WriteFile(page, p); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dom, err := browser.DumpDOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	var wantTables, wantPlots int
	var walk func([]Section)
	walk = func(ss []Section) {
		for _, s := range ss {
			wantTables += len(s.Tables)
			wantPlots += len(s.Plots)
			walk(s.Sections)
		}
	}
	walk(p.Sections)
	wantTables++ // the verdict's failures
	if got := strings.Count(dom, "<table"); got != wantTables {
		t.Errorf("DOM has %d tables, want %d", got, wantTables)
	}
	if got := len(regexp.MustCompile(`<svg[^>]*class="plot"`).FindAllString(dom, -1)); got != wantPlots {
		t.Errorf("DOM has %d plots, want %d", got, wantPlots)
	}
	verdict := strings.Index(dom, `id="verdict"`)
	toc := strings.Index(dom, `id="contents"`)
	if verdict < 0 || toc < 0 || verdict > toc {
		t.Errorf("verdict at %d, contents at %d: want the verdict first", verdict, toc)
	}
	if !strings.Contains(dom, `class="toc-tools"`) || strings.Contains(dom, `class="toc-tools" hidden`) {
		t.Errorf("the page's script did not run: the expand/collapse buttons are still hidden")
	}
	for _, s := range screens {
		png := filepath.Join(dir, "check-"+s.name+".png")
		if err := browser.Screenshot(ctx, page, png, s.w, s.h); err != nil {
			t.Fatal(err)
		}
		saveShot(t, png)
	}
	// A link to a payload opens its collapsed section, and only that one.
	dom, err = browser.DumpDOM(ctx, page+"#interprocess_reliable-8192")
	if err != nil {
		t.Fatal(err)
	}
	open := regexp.MustCompile(`<details id="([^"]+)" class="section depth-1[^"]*" open`).FindAllStringSubmatch(dom, -1)
	if len(open) != 1 || open[0][1] != "interprocess_reliable-8192" {
		t.Errorf("after following a link to interprocess_reliable-8192, open payload sections are %q; want only that one", open)
	}
}

// largePage is a process-sized page: 10 sub-experiments of 11 payloads, two
// histograms per payload.
func largePage(tb testing.TB) Page {
	hist := histPlot(tb, "histogram", 1, 10000)
	var secs []Section
	for i := range 10 {
		s := Section{Title: fmt.Sprintf("sub-experiment %d", i), Plots: []Plot{{Title: "line", SVG: hist}}}
		for j := range 11 {
			s.Sections = append(s.Sections, Section{Title: fmt.Sprintf("payload %d", 16<<j),
				Plots: []Plot{{Title: "histogram", SVG: hist}, {Title: "series", SVG: hist}}})
		}
		secs = append(secs, s)
	}
	return Page{Title: "large", Sections: secs}
}

// BenchmarkBrowserLoad measures how long Chromium takes to load and
// serialise a page with 230 plots, most of them in collapsed sections.
func BenchmarkBrowserLoad(b *testing.B) {
	browser.Require(b)
	page := filepath.Join(b.TempDir(), "large.html")
	if err := WriteFile(page, largePage(b)); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(page)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := browser.DumpDOM(context.Background(), page); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fi.Size())/1e6, "MB/page")
}

// measureJS measures a report page as a reader sees it: what the first
// screen shows, then, with every section open, the rendered size of the
// text of the plots: the font size times the scale of the SVG on screen,
// and, for text that is not turned, the height of its box.
const measureJS = `
var verdict = document.getElementById("verdict");
var toc = document.getElementById("contents");
var out = {
	vw: innerWidth, vh: innerHeight,
	verdictTop: verdict ? verdict.getBoundingClientRect().top : -1,
	sectionTop: document.querySelector("details.section.depth-0").getBoundingClientRect().top,
	tocOpen: toc.open,
	minPx: 1e9, maxPx: 0, minBox: 1e9, texts: 0, minText: ""
};
document.querySelectorAll("details").forEach(function (d) { d.open = true; });
document.querySelectorAll("svg.plot text").forEach(function (t) {
	if (!t.textContent.trim()) return;
	var r = t.getBoundingClientRect();
	if (r.width === 0 && r.height === 0) return;
	var m = t.getScreenCTM();
	var px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
	out.texts++;
	if (px < out.minPx) { out.minPx = px; out.minText = t.textContent; }
	out.maxPx = Math.max(out.maxPx, px);
	if (Math.abs(m.b) < 1e-9 && Math.abs(m.c) < 1e-9) out.minBox = Math.min(out.minBox, r.height);
});
return out;`

// pageMeasures are what measureJS returns.
type pageMeasures struct {
	VW, VH                 float64
	VerdictTop, SectionTop float64
	TOCOpen                bool
	MinPx, MaxPx, MinBox   float64
	Texts                  int
	MinText                string
}

// minTextPx is the smallest text size, in CSS pixels, that a plot may show.
const minTextPx = 11

// TestReadable loads a realistic check report, with the plots as the tools
// draw them, at a phone's and a laptop's width, and measures it: the text of
// every plot is at least minTextPx (11) CSS pixels, and not oversized on
// the laptop; on the phone the contents are collapsed and the verdict and
// the first section are on the first screen; on the laptop the contents are
// open. It saves screenshots (see saveShot).
func TestReadable(t *testing.T) {
	browser.Require(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "readable.html")
	if err := WriteFile(page, realisticPage(t, 2000)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, s := range []struct {
		name   string
		w, h   int
		phone  bool
		maxPx  float64
		shotsH int
	}{
		{"phone", 400, 844, true, 20, 844},
		{"laptop", 1280, 900, false, 20, 2000},
	} {
		out, err := browser.Eval(ctx, page, s.w, s.h, measureJS)
		if err != nil {
			t.Fatal(err)
		}
		var m pageMeasures
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		t.Logf("%s %dx%d: %d plot texts from %.1f to %.1f px (boxes ≥ %.1f px; smallest %q); verdict at %.0f, first section at %.0f; contents open %v",
			s.name, s.w, s.h, m.Texts, m.MinPx, m.MaxPx, m.MinBox, m.MinText, m.VerdictTop, m.SectionTop, m.TOCOpen)
		if m.VW != float64(s.w) {
			t.Fatalf("%s: measured at %g pixels wide, want %d", s.name, m.VW, s.w)
		}
		if m.Texts < 100 {
			t.Errorf("%s: %d plot texts measured, want every plot's", s.name, m.Texts)
		}
		if m.MinPx < minTextPx || m.MinBox < minTextPx {
			t.Errorf("%s: plot text %q is %.1f px (box %.1f px), want at least %d", s.name, m.MinText, m.MinPx, m.MinBox, minTextPx)
		}
		if m.MaxPx > s.maxPx {
			t.Errorf("%s: plot text up to %.1f px, want at most %g", s.name, m.MaxPx, s.maxPx)
		}
		if s.phone {
			if m.TOCOpen {
				t.Errorf("phone: the contents are open")
			}
			if m.VerdictTop < 0 || m.VerdictTop >= m.VH || m.SectionTop >= m.VH {
				t.Errorf("phone: verdict at %.0f, first section at %.0f: want both on the first screen (%.0f px)", m.VerdictTop, m.SectionTop, m.VH)
			}
		} else if !m.TOCOpen {
			t.Errorf("laptop: the contents are collapsed")
		}
		png := filepath.Join(dir, "readable-"+s.name+".png")
		if err := browser.Screenshot(ctx, page, png, s.w, s.shotsH); err != nil {
			t.Fatal(err)
		}
		saveShot(t, png)
	}
}
