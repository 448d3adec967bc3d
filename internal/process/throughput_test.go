package process_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThroughputFolder: process on a run throughput folder (no raw latency
// files) draws the rate by payload and each payload's search, and its HTML
// report starts with the throughput table, instead of refusing the folder.
func TestThroughputFolder(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"throughput_intraprocess_reliable.csv", "throughput_intraprocess_reliable_search.csv", "meta.json"} {
		copyFile(t, filepath.Join("testdata", "throughput", f), filepath.Join(dir, f))
	}
	html := filepath.Join(dir, "report.html")
	code, stdout, stderr := runProcess(t, "--html", html, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"throughput_intraprocess_reliable.csv: 2 rows (47 search steps) -> plots", "3 plots in " + filepath.Join(dir, "plots")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"throughput_intraprocess_reliable.png", "throughput_intraprocess_reliable_search_16.png", "throughput_intraprocess_reliable_search_1024.png"} {
		if _, err := os.Stat(filepath.Join(dir, "plots", f)); err != nil {
			t.Error(err)
		}
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<title>Throughput summary: ", "Throughput per sub-experiment and payload", "<td>F = 2651</td>", ">428872<", "reported F = 124"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Index(page, `id="headline"`) > strings.Index(page, `id="contents"`) {
		t.Error("the throughput table is not first")
	}
}
