package process_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/measurements"
)

// processedDir returns an experiment directory with one raw file, processed
// once, and its summary's content.
func processedDir(t *testing.T) (dir, sum string, content []byte) {
	t.Helper()
	dir = t.TempDir()
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_n_reliable.csv"))
	if code, _, stderr := runProcess(t, "--no-plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sum = filepath.Join(dir, "measurements_n_reliable_summary.csv")
	content, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	return dir, sum, content
}

func sameContent(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (the earlier file was removed)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s changed", path)
	}
}

// TestInterruptedKeepsSummaries: an interrupted process leaves the earlier
// summaries as they were (it used to remove them before reading anything).
func TestInterruptedKeepsSummaries(t *testing.T) {
	dir, sum, before := processedDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	if code := cliapp.Run(ctx, processcmd.App(), []string{"process", "--no-plots", dir}, &out, &errb); code != 130 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), "the earlier ones are as they were") {
		t.Errorf("stderr %q does not say the earlier summaries are kept", errb.String())
	}
	sameContent(t, sum, before)
}

// TestBadInputKeepsOtherSummaries: a raw file that cannot be read loses its
// earlier summary, which no longer describes it, once the failure is known;
// the summary of a good file beside it is left as it was.
func TestBadInputKeepsOtherSummaries(t *testing.T) {
	dir, goodSum, before := processedDir(t)
	bad := filepath.Join(dir, "measurements_x_reliable.csv")
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", bad)
	if code, _, stderr := runProcess(t, "--no-plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	badSum := filepath.Join(dir, "measurements_x_reliable_summary.csv")
	if err := os.WriteFile(bad, []byte(measurements.Header+"\n1,16,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runProcess(t, "--no-plots", dir)
	if code != 2 || !strings.Contains(stderr, bad+":2:") {
		t.Fatalf("exit %d, stderr %q; want 2 naming %s:2", code, stderr, bad)
	}
	if _, err := os.Stat(badSum); err == nil {
		t.Error("the summary of the raw file that could not be read survived")
	}
	sameContent(t, goodSum, before)
}

// TestJobsRange: --jobs outside 1 to MaxJobs is refused before anything
// starts, naming the flag and the range, and --help states it. --jobs
// 1000000000 started a billion goroutines (it hung, and lost the summaries
// when killed).
func TestJobsRange(t *testing.T) {
	dir, sum, before := processedDir(t)
	for _, v := range []string{"0", "-1", "257", "1000000000"} {
		start := time.Now()
		code, _, stderr := runProcess(t, "--no-plots", "--jobs", v, dir)
		want := "process: --jobs " + v + ": expected 1 to 256 payloads processed at once"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--jobs %s: exit %d, stderr %q; want 2 and %q", v, code, stderr, want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("--jobs %s took %v to be refused", v, d)
		}
		sameContent(t, sum, before)
	}
	for _, v := range []string{"1", "256"} {
		if code, _, stderr := runProcess(t, "--no-plots", "-j", v, dir); code != 0 {
			t.Errorf("--jobs %s: exit %d: %s", v, code, stderr)
		}
	}
	_, stdout, _ := runProcess(t, "--help")
	if !strings.Contains(stdout, "payloads processed at once, 1 to 256 (default: number of CPUs, at most 256)") {
		t.Errorf("--help does not state the range of --jobs:\n%s", stdout)
	}
}

// TestNotARegularFile: a named pipe or a directory named as a raw file is
// refused naming it; the pipe, which has no writer, does not block process.
func TestNotARegularFile(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(path string) error
		what string
	}{
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a named pipe (FIFO)"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, sum, before := processedDir(t)
			p := filepath.Join(dir, "measurements_y_reliable.csv")
			if err := c.make(p); err != nil {
				t.Skip(err)
			}
			want := p + ": is " + c.what + ", not a regular file: expected a raw measurements file (measurements_y_reliable.csv); remove or rename it"
			for _, args := range [][]string{{"--no-plots", dir}, {"--no-plots", "--raw-csv", p, "--output-csv", filepath.Join(t.TempDir(), "s.csv")}} {
				done := make(chan struct{})
				var code int
				var stderr string
				go func() { code, _, stderr = runProcess(t, args...); close(done) }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("process %v blocked", args)
				}
				if args[1] == "--raw-csv" {
					want = p + ": is " + c.what + ", not a regular file: expected a raw measurements file"
				}
				if code != 2 || !strings.Contains(stderr, want) {
					t.Errorf("process %v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
				}
			}
			sameContent(t, sum, before)
		})
	}
}

// TestReportsOverPipelineFiles: an --output-csv or --html that would be a
// file the pipeline owns in an experiment folder is refused, read or not
// (process --raw-csv X/measurements_T.csv --output-csv X/meta.json replaced
// meta.json with a CSV; --html OTHER/meta.json turned another experiment's
// meta.json into an HTML page); the summary beside the raw file is not.
func TestReportsOverPipelineFiles(t *testing.T) {
	dir, sum, _ := processedDir(t)
	other, _, _ := processedDir(t)
	raw := filepath.Join(dir, "measurements_n_reliable.csv")
	for _, d := range []string{dir, other} {
		if err := os.WriteFile(filepath.Join(d, "meta.json"), []byte(`{"keep": true}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-plots", "--raw-csv", raw, "--output-csv", filepath.Join(dir, "meta.json")},
			"--output-csv " + filepath.Join(dir, "meta.json") + " lies in the experiment "},
		{[]string{"--no-plots", "--raw-csv", raw, "--output-csv", filepath.Join(other, "measurements_n_reliable_summary.csv")},
			"where it is a summary (a file the pipeline owns)"},
		{[]string{"--no-plots", "--html", filepath.Join(other, "meta.json"), dir},
			"--html " + filepath.Join(other, "meta.json") + " lies in the experiment "},
		{[]string{"--no-plots", "--html", filepath.Join(other, "plots", "report.html"), dir},
			"where it is a plot"},
	} {
		code, _, stderr := runProcess(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "choose another path") {
			t.Errorf("process %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	for _, d := range []string{dir, other} {
		sameContent(t, filepath.Join(d, "meta.json"), []byte(`{"keep": true}`))
	}
	// The summary beside the raw file, named or by default, is process's own.
	for _, args := range [][]string{{"--no-plots", "--raw-csv", raw}, {"--no-plots", "--raw-csv", raw, "--output-csv", sum}} {
		if code, _, stderr := runProcess(t, args...); code != 0 {
			t.Errorf("process %v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestBadLaterPayloadDrawsNothing: a raw file whose second payload holds a
// bad row is refused with nothing drawn; the plots of its first payload,
// read and summarised before the bad row came, were saved (a plot of a run
// process refused, beside the earlier plots of the folder), and an earlier
// plot of that payload was replaced by it.
func TestBadLaterPayloadDrawsNothing(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(measurements.Header + "\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "%d,16,%d.5\n", i+1, 10+i%7)
	}
	good := b.String()
	raw := filepath.Join(dir, "measurements_x_reliable.csv")
	if err := os.WriteFile(raw, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	plotsDir := filepath.Join(t.TempDir(), "plots")
	if code, _, stderr := runProcess(t, "-p", plotsDir, "-j", "1", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	hist := filepath.Join(plotsDir, "measurements_x_reliable", "histogram_16.png")
	before, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	// Other latencies at 16 B (another plot), then a payload whose bad row
	// comes after 16 B's plots were drawn.
	b.Reset()
	b.WriteString(strings.ReplaceAll(good, ".5\n", ".25\n"))
	for i := range 400_000 {
		fmt.Fprintf(&b, "%d,64,%d.5\n", 2001+i, 10+i%7)
	}
	b.WriteString("402001,64,x\n")
	bad := b.String()
	if err := os.WriteFile(raw, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runProcess(t, "-p", plotsDir, "-j", "1", dir)
	if code != 2 || !strings.Contains(stderr, raw+":402002:") {
		t.Fatalf("exit %d, stderr %q; want 2 naming %s:402002", code, stderr, raw)
	}
	sameContent(t, hist, before)
	entries, _ := os.ReadDir(filepath.Dir(hist))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"histogram_16.png", "series_16.png"}; !slices.Equal(names, want) {
		t.Errorf("plots after the refused run: %v, want the earlier run's %v", names, want)
	}
}
