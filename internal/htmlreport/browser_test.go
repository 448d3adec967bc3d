package htmlreport

import (
	"context"
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
