package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/browser"
	"github.com/mqgate/mqgate/internal/exit"
)

// TestHTMLInBrowser writes the history report of the Fast-RTPS experiment
// and five generated ones, loads it in headless Chromium, checks that its
// tables and plots are in the rendered DOM, and takes screenshots at laptop
// and phone sizes (copied to $MQGATE_SCREENSHOTS when set).
func TestHTMLInBrowser(t *testing.T) {
	browser.Require(t)
	exps, reqs := fixture(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "history.html")
	code, _, errOut := run(t, "-e", exps, "-r", reqs, "-p", filepath.Join(dir, "plots"), "--format", "svg", "--html", page)
	if code != exit.OK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	ctx := context.Background()
	dom, err := browser.DumpDOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	// The change points, one table per sub-experiment (newest against
	// requirements) and one per payload; every plot.
	if got, want := strings.Count(dom, "<table"), 1+10+10*11; got != want {
		t.Errorf("DOM has %d tables, want %d", got, want)
	}
	if got, want := len(regexp.MustCompile(`<svg[^>]*class="plot"`).FindAllString(dom, -1)), 370; got != want {
		t.Errorf("DOM has %d plots, want %d", got, want)
	}
	for _, want := range []string{`id="interprocess_reliable"`, `id="interprocess_reliable-16384"`, "2019-11-05_10-00-00"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %s", want)
		}
	}
	for _, s := range []struct {
		name string
		w, h int
	}{{"laptop", 1280, 2000}, {"phone", 390, 844}} {
		png := filepath.Join(dir, "history-"+s.name+".png")
		if err := browser.Screenshot(ctx, page, png, s.w, s.h); err != nil {
			t.Fatal(err)
		}
		if out := os.Getenv("MQGATE_SCREENSHOTS"); out != "" {
			b, err := os.ReadFile(png)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, filepath.Base(png)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
