package process_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/process"
	"github.com/mqgate/mqgate/internal/result"
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

// processPage runs process --html on dir and returns the report.
func processPage(t *testing.T, dir string) string {
	t.Helper()
	html := filepath.Join(dir, "report.html")
	if code, _, stderr := runProcess(t, "--html", html, dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkPage fails t for each of want the page lacks and each of absent it
// shows.
func checkPage(t *testing.T, page string, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	for _, a := range absent {
		if strings.Contains(page, a) {
			t.Errorf("report shows %q", a)
		}
	}
}

// TestThroughputLabels: run throughput's throughput_<type>.csv holds, in
// its Median column, the rate delivered over the confirmation periods
// (formats §9), not the median of the windows: the table's caption and the
// rate figure say so. Its search file holds each step's windows' median,
// while the search ranked the Fs by the delivered rate, which that file
// does not hold: the search figure says which it shows.
func TestThroughputLabels(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"throughput_intraprocess_reliable.csv", "throughput_intraprocess_reliable_search.csv", "meta.json"} {
		copyFile(t, filepath.Join("testdata", "throughput", f), filepath.Join(dir, f))
	}
	checkPage(t, processPage(t, dir), []string{
		"Throughput per sub-experiment and payload (at F in flight, the rate delivered over the confirmation periods: " +
			"their messages over their measured time, not the median of the windows; Samples: the periods)<",
		">intraprocess_reliable: rate delivered over the confirmation periods, by payload<", ">at the reported F<",
		">intraprocess_reliable 1024 B: the search for the in-flight window, ranked by delivered rate (reported F = 124)<",
		">Median of the step&#39;s windows [msg/s]", ">median of the step&#39;s windows, not its delivered rate<",
	}, []string{
		"(median of the windows)", "median throughput by payload", ">Median throughput [msg/s]", ">in-flight window F (searched)<",
	})

	// A table of rate rows alone (a load's or per-message file without its
	// summary) holds the median of their samples.
	rows := []result.ThroughputRow{{Payload: 16, Mode: result.ModeRate, Offered: 2000, Samples: 3, Median: 1635.627}}
	caption := process.ThroughputTable([]process.Throughput{{Type: "nats_best_effort", Rows: rows}}).Caption
	if want := "Throughput per sub-experiment and payload (at a rate, the median of the samples)"; caption != want {
		t.Errorf("caption of rate rows %q, want %q", caption, want)
	}
}

// TestLoadThroughputLabels: run load's throughput file holds, per payload,
// the median of the intervals' receive rates of every publisher together,
// its Offered the rate of one publisher: the figure gives the total
// offered rate (per publisher × the load summary's publishers), not the
// per-publisher rate as if it were the total; without the load summary
// (no publisher count) it says the rate is per publisher.
func TestLoadThroughputLabels(t *testing.T) {
	t.Run("with the load summary", func(t *testing.T) {
		checkPage(t, processPage(t, copyDir(t, "load")), []string{
			">nats_best_effort: median receive rate of the 1 s intervals, by payload<",
			">offered 4000 msg/s in total (2000 per publisher × 2)<",
		}, []string{">offered 2000 msg/s<", "median throughput by payload"})
	})
	t.Run("without", func(t *testing.T) {
		dir := t.TempDir()
		copyFile(t, filepath.Join("testdata", "load", "throughput_nats_best_effort.csv"), filepath.Join(dir, "throughput_nats_best_effort.csv"))
		checkPage(t, processPage(t, dir), []string{
			">nats_best_effort: median of the samples, by payload<", ">offered 2000 msg/s per publisher<",
			"Throughput per sub-experiment and payload (at a rate, the median of the samples)<",
		}, []string{">offered 2000 msg/s<"})
	})
	t.Run("per-message", func(t *testing.T) {
		checkPage(t, processPage(t, copyDir(t, "permessage")), []string{
			">nats_best_effort: median RT_n (or, where it disagrees, the overall receive rate), by payload<",
		}, []string{"median throughput by payload", ">unpaced<"})
	})
}
