package compare_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/compare"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/goldenfile"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

// experiments is where the test experiments live: v192 is the reference
// (the Fast-RTPS v1.9.2 interprocess reliable summary plus a small
// intraprocess one); the others are targets.
const experiments = "testdata/experiments"

func expDir(name string) string { return filepath.Join(experiments, name) }

// runCompare runs the compare App in-process with args (without the program
// name), and returns the exit code and outputs with dir replaced by $OUT.
// Plots are SVG unless args say otherwise: PNG rasterisation is slow under
// the race detector, and TestPNGPlots covers it.
func runCompare(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"compare"}, args...)
	if !slices.Contains(args, "--format") {
		full = append([]string{"compare", "--format", "svg"}, args...)
	}
	code = cliapp.Run(context.Background(), comparecmd.App(), full, &out, &errb)
	clean := func(s string) string { return strings.ReplaceAll(s, dir, "$OUT") }
	return code, clean(out.String()), clean(errb.String())
}

// golden compares got with the golden file testdata/golden/<test name>/<name>,
// or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", filepath.FromSlash(t.Name()), name), got)
}

// transcript is the golden form of a run: exit code, stdout and stderr.
func transcript(code int, stdout, stderr string) []byte {
	return []byte("exit " + strconv.Itoa(code) + "\n-- stdout --\n" + stdout + "-- stderr --\n" + stderr)
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"identical", []string{"--results", expDir("v192-rerun")}, exit.OK},
		{"regressed", []string{"--results", expDir("v193-regressed")}, exit.GateFailed},
		{"regressed_threshold_0.2", []string{"--results", expDir("v193-regressed"), "--fail-threshold", "0.2", "--threshold", "Max=0.1"}, exit.GateFailed},
		{"regressed_loose", []string{"--results", expDir("v193-regressed"), "--fail_threshold", "0.25"}, exit.OK},
		{"regressed_loose_percent", []string{"--results", expDir("v193-regressed"), "--fail-threshold", "25%"}, exit.OK},
		{"regressed_threshold_percent", []string{"--results", expDir("v193-regressed"), "--fail-threshold", "20%", "--threshold", "Max=10%"}, exit.GateFailed},
		{"threshold_not_a_number", []string{"--results", expDir("v192-rerun"), "--fail-threshold", "fifty"}, exit.Usage},
		{"regressed_per_column", []string{"--results", expDir("v193-regressed"), "--threshold", "median=0.25", "--threshold", "Max=0.2"}, exit.OK},
		{"regressed_mean_gated", []string{"--results", expDir("v193-regressed"), "--fail-threshold", "0.3", "--columns", "Mean,Median"}, exit.OK},
		{"regressed_mean_gated_tight", []string{"--results", expDir("v193-regressed"), "--columns", "Mean"}, exit.GateFailed},
		{"missing_from_results", []string{"--results", expDir("v193-missing")}, exit.GateFailed},
		{"missing_allowed", []string{"--results", expDir("v193-missing"), "--allow-missing"}, exit.OK},
		{"no_reference", []string{"--results", expDir("v193-extra")}, exit.Usage},
		{"payloads_differ", []string{"--results", expDir("v193-payloads")}, exit.Usage},
		{"negative_threshold", []string{"--results", expDir("v192-rerun"), "--fail-threshold", "-0.1"}, exit.Usage},
		{"negative_column_threshold", []string{"--results", expDir("v192-rerun"), "--threshold", "99%=-0.2"}, exit.Usage},
		{"malformed_threshold", []string{"--results", expDir("v192-rerun"), "--threshold", "99%:0.2"}, exit.Usage},
		{"unknown_column", []string{"--results", expDir("v192-rerun"), "--columns", "Min,p99"}, exit.Usage},
		{"ungated_column_threshold", []string{"--results", expDir("v192-rerun"), "--threshold", "Mean=0.2"}, exit.Usage},
		{"malformed_summary", []string{"--results", expDir("bad-summary")}, exit.Usage},
		{"missing_results_dir", []string{"--results", expDir("no-such-experiment")}, exit.Usage},
		{"empty_results_dir", []string{"--results", "$EMPTY"}, exit.Usage},
		{"bad_format", []string{"--results", expDir("v192-rerun"), "--format", "gif"}, exit.Usage},
		{"stray_argument", []string{"--results", expDir("v192-rerun"), "extra"}, exit.Usage},
		{"missing_flag", []string{"--results", expDir("v192-rerun"), "--reference", ""}, exit.Usage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--reference", expDir("v192"), "--plots-directory", dir}, tt.args...)
			for i, a := range args {
				if a == "$EMPTY" {
					args[i] = filepath.Join(dir, "empty")
					if err := os.Mkdir(args[i], 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			code, stdout, stderr := runCompare(t, dir, args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			if code == exit.Usage && stderr == "" {
				t.Error("exit 2 without a message on stderr")
			}
			golden(t, "transcript.txt", transcript(code, stdout, stderr))
		})
	}
}

func TestRequiredFlags(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCompare(t, dir, "--reference", expDir("v192"), "--results", expDir("v192-rerun"))
	if code != exit.Usage || !strings.Contains(stderr, "plots-directory") {
		t.Errorf("without --plots-directory: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}

func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := cliapp.Run(ctx, comparecmd.App(), []string{"compare", "--reference", expDir("v192"), "--results", expDir("v192-rerun"),
		"--plots-directory", dir}, &out, &errb)
	if code != exit.Interrupted {
		t.Errorf("exit %d, want %d; stderr %q", code, exit.Interrupted, errb.String())
	}
}

func TestPrintSummaries(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCompare(t, dir, "--reference", expDir("v192"), "--results", expDir("v192-rerun"),
		"--plots-directory", dir, "--print_summaries")
	if code != exit.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, compare.CSVFileName("interprocess_reliable")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "interprocess_reliable_comparison.csv:\n"+string(b)) {
		t.Errorf("stdout does not show the comparison CSV:\n%s", stdout)
	}
}

func TestFastRTPSFlagNames(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCompare(t, dir, "--reference", expDir("v192"), "--results", expDir("v193-regressed"),
		"--plots_directory", dir, "--fail_threshold", "0.1")
	if code != exit.GateFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runCompare(t, dir, "-R", expDir("v192"), "-r", expDir("v192-rerun"), "-p", dir, "-t", "0.1")
	if code != exit.OK {
		t.Fatalf("one-letter flags: exit %d, want 0\n%s", code, stderr)
	}
}

// TestOutputs checks every file a failing comparison writes.
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCompare(t, dir,
		"--reference", expDir("v192"), "--results", expDir("v193-regressed"), "--plots-directory", dir,
		"--junit", filepath.Join(dir, "reports", "compare.xml"),
		"--markdown", filepath.Join(dir, "reports", "compare.md"),
		"--json", filepath.Join(dir, "reports", "compare.json"),
		"--html", filepath.Join(dir, "reports", "compare.html"),
		"--format", "svg")
	if code != exit.GateFailed {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{
		"interprocess_reliable_comparison.csv",
		"intraprocess_best_effort_comparison.csv",
		"reports/compare.xml",
		"reports/compare.md",
		"reports/compare.json",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Base(name), bytes.ReplaceAll(b, []byte(dir), []byte("$OUT")))
	}
	for _, typ := range []string{"interprocess_reliable", "intraprocess_best_effort"} {
		for _, fig := range []string{"_min_median.svg", "_max_99%.svg"} {
			b, err := os.ReadFile(filepath.Join(dir, typ+fig))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("Reference")) {
				t.Errorf("%s%s is not a comparison plot", typ, fig)
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "reports", "compare.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"interprocess_reliable", "intraprocess_best_effort", "<svg", "163.889", "8.983"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	// The JSON verdict says the same as the exit code.
	var v struct {
		FormatVersion int         `json:"format_version"`
		Status        gate.Status `json:"status"`
		Failed        int         `json:"failed"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "reports", "compare.json"))
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.Status != gate.Failed || v.Failed != 2 || v.FormatVersion == 0 {
		t.Errorf("JSON verdict %+v, want failed with 2 failed checks", v)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover temporary file %s", e.Name())
		}
	}
}

// TestPNGPlots checks the default plot format and the Fast-RTPS file names.
func TestPNGPlots(t *testing.T) {
	dir := t.TempDir()
	// No --format: PNG is the default.
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), comparecmd.App(), []string{"compare", "--reference", expDir("v192"), "--results", expDir("v192-rerun"),
		"--plots-directory", dir, "--columns", "Min,Median,99%,Max,Mean,90%,99.99%"}, &out, &errb)
	if code != exit.OK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	for _, name := range []string{
		"interprocess_reliable_min_median.png",
		"interprocess_reliable_max_99%.png",
		"interprocess_reliable_mean_90%.png",
		"interprocess_reliable_99.99%.png",
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", name)
		}
	}
}

func TestHostWarning(t *testing.T) {
	root := t.TempDir()
	host := meta.Host{OS: "linux", Arch: "amd64", Kernel: "6.1", CPUModel: "CPU A", LogicalCores: 8, GOMAXPROCS: 8, GoVersion: "go1.26"}
	setup := func(name string, h meta.Host) string {
		d := filepath.Join(root, name)
		copyDir(t, expDir("v192"), d)
		m := &meta.Meta{Schema: meta.SchemaVersion, Experiment: name, Host: h, Completed: true}
		m.Start = m.Start.AddDate(2026, 0, 0)
		m.End = m.Start
		if err := meta.Write(filepath.Join(d, meta.FileName), m); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ref := setup("ref", host)
	same := host
	same.Hostname = "another-runner" // hostnames do not matter
	sameDir := setup("same", same)
	other := host
	other.CPUModel = "CPU B"
	otherDir := setup("other", other)

	badDir := filepath.Join(root, "bad")
	copyDir(t, expDir("v192"), badDir)
	if err := os.WriteFile(filepath.Join(badDir, meta.FileName), []byte("{\"schema\": 1,"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		dir  string
		warn bool
	}{{sameDir, false}, {otherDir, true}, {expDir("v192-rerun"), false}} {
		plots := t.TempDir()
		code, stdout, stderr := runCompare(t, plots, "--reference", ref, "--results", tt.dir, "--plots-directory", plots)
		if code != exit.OK {
			t.Fatalf("%s: exit %d\n%s", tt.dir, code, stderr)
		}
		got := strings.Contains(stdout, "different hosts")
		if got != tt.warn {
			t.Errorf("%s: host warning %v, want %v:\n%s", tt.dir, got, tt.warn, stdout)
		}
		if tt.warn && (!strings.Contains(stdout, "CPU A") || !strings.Contains(stdout, "CPU B")) {
			t.Errorf("warning does not show both fingerprints:\n%s", stdout)
		}
	}
	// A malformed meta.json is an input error naming the file and line: it
	// says whether the run completed and how latency was measured.
	code, _, stderr := runCompare(t, root, "--reference", ref, "--results", badDir, "--plots-directory", t.TempDir())
	if code != exit.Usage || !strings.Contains(stderr, "$OUT/bad/meta.json:1:14: truncated JSON") {
		t.Errorf("malformed meta.json: exit %d\n%s", code, stderr)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEarlierComparisons: a comparison refused for bad input leaves the
// comparison CSVs of an earlier run as they were (nothing is lost, formats
// §1); one that completes replaces them and removes those it did not write
// again, so that none is taken for its own.
func TestEarlierComparisons(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, compare.CSVFileName("interprocess_reliable"))
	other := filepath.Join(dir, compare.CSVFileName("intraprocess_reliable_tcp"))
	for _, f := range []string{kept, other} {
		if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, _ := runCompare(t, dir, "--reference", expDir("v192"), "--results", filepath.Join(dir, "missing"),
		"--plots-directory", dir)
	if code != exit.Usage {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, f := range []string{kept, other} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "old" {
			t.Errorf("a refused comparison changed the earlier %s: %q, %v", filepath.Base(f), b, err)
		}
	}
	code, _, stderr := runCompare(t, dir, "--reference", expDir("v192"), "--results", expDir("v192-rerun"), "--plots-directory", dir)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) == "old" {
		t.Errorf("%s was not replaced: %q, %v", filepath.Base(kept), b, err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("the earlier %s, which this comparison did not write, is still there (%v)", filepath.Base(other), err)
	}
}

// TestEarlierPlots: the plots of an earlier comparison that this one does
// not draw again (a sub-experiment no longer compared, a load no longer
// measured, the other image format) are removed with its CSVs once this
// comparison is written; they stayed, shown beside this call's plots as if
// they were of it. A refused comparison keeps them; other files stay.
func TestEarlierPlots(t *testing.T) {
	dir := t.TempDir()
	stale := []string{"intraprocess_reliable_tcp_min_median.png", "intraprocess_reliable_tcp_max_99%.svg",
		"interprocess_reliable_min_median.png", "throughput_nats_reliable_window.svg", "throughput_nats_reliable_rate_5000_msgs.png"}
	for _, f := range append([]string{"notes.txt", "diagram.png"}, stale...) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, _ := runCompare(t, dir, "-R", expDir("v192"), "-r", filepath.Join(dir, "missing"), "-p", dir); code != exit.Usage {
		t.Fatalf("exit %d, want 2", code)
	}
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("a refused comparison removed %s: %v", f, err)
		}
	}
	if code, _, stderr := runCompare(t, dir, "-R", expDir("v192"), "-r", expDir("v192-rerun"), "-p", dir); code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("the earlier plot %s, which this comparison did not draw, is still there (%v)", f, err)
		}
	}
	for _, f := range []string{"notes.txt", "diagram.png", "interprocess_reliable_min_median.svg", "interprocess_reliable_max_99%.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestThroughputCommand: compare on throughput experiments writes the
// throughput comparison CSV and plots, reports in msg/s saying higher is
// better, and exits 1 on a drop, 0 on a rise; calibration pools the
// throughput rows and divides them.
func TestThroughputCommand(t *testing.T) {
	twoLoads := []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 100}, {Mode: result.ModeRate, Offered: 5000}}
	root := t.TempDir()
	refDirs, _ := synth.WriteThroughputRuns(filepath.Join(root, "ref"), synth.ThroughputSpec{Loads: twoLoads}, 1, 1)
	dropDirs, _ := synth.WriteThroughputRuns(filepath.Join(root, "drop"), synth.ThroughputSpec{Loads: twoLoads, Factor: 0.7}, 1, 1)
	out := filepath.Join(root, "plots")
	md := filepath.Join(root, "report.md")
	js := filepath.Join(root, "report.json")
	page := filepath.Join(root, "report.html")
	code, stdout, stderr := runCompare(t, root, "--reference", refDirs[0], "--results", dropDirs[0], "-p", out, "--markdown", md, "--json", js, "--html", page)
	if code != exit.GateFailed {
		t.Fatalf("drop: exit %d\n%s%s", code, stdout, stderr)
	}
	csv, err := os.ReadFile(filepath.Join(out, "throughput_intraprocess_best_effort_comparison.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(csv), result.ThroughputHeader+",Label\n16,window,100,100,100000.000,") || !strings.Contains(string(csv), ",Result: run-001\n") {
		t.Errorf("comparison CSV:\n%s", csv)
	}
	for _, f := range []string{"throughput_intraprocess_best_effort_window.svg", "throughput_intraprocess_best_effort_rate_5000_msgs.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	mdText, _ := os.ReadFile(md)
	jsText, _ := os.ReadFile(js)
	for _, want := range []string{"throughput_intraprocess_best_effort (window)", "70000.000 msg/s", "higher is better", "Mb/s"} {
		if !strings.Contains(string(mdText), want) {
			t.Errorf("markdown lacks %q:\n%s", want, mdText)
		}
	}
	// Below the limit is the failure: the margin column says so, positive.
	golden(t, "report.md", []byte(strings.ReplaceAll(string(mdText), root, "$DIR")))
	if !strings.Contains(string(mdText), "| Limit | Below limit | vs reference |") || strings.Contains(string(mdText), "Over limit") {
		t.Errorf("markdown margin column does not read as below the limit:\n%s", mdText)
	}
	html, _ := os.ReadFile(page)
	for _, want := range []string{"throughput_intraprocess_best_effort (higher is better)", "allowed below the reference: -10%", "rate 5000 msg/s", "<svg",
		"Messages/s (higher is better)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	if !strings.Contains(stdout, "throughput Median [msg/s] -10%") {
		t.Errorf("console does not state the throughput threshold:\n%s", stdout)
	}
	if !strings.Contains(string(jsText), `"better": "higher"`) {
		t.Errorf("json lacks the direction:\n%s", jsText)
	}
	if !strings.Contains(stdout+stderr, "falls below") {
		t.Errorf("console does not say the throughput fell:\n%s%s", stdout, stderr)
	}
	riseDirs, _ := synth.WriteThroughputRuns(filepath.Join(root, "rise"), synth.ThroughputSpec{Loads: twoLoads, Factor: 1.5}, 1, 1)
	if code, stdout, stderr := runCompare(t, root, "--reference", refDirs[0], "--results", riseDirs[0], "-p", out); code != exit.OK {
		t.Errorf("rise: exit %d\n%s%s", code, stdout, stderr)
	}

	// Calibration: 20 unchanged runs with 3 % noise; the power curve divides
	// throughput, so ×1.5 (a third less) is detected.
	cal, _ := synth.WriteThroughputRuns(filepath.Join(root, "cal"), synth.ThroughputSpec{Loads: twoLoads, SD: 0.03, Seed: 3}, 1, 20)
	_ = cal
	code, stdout, stderr = runCompare(t, root, "--calibrate", "--results", filepath.Join(root, "cal"), "-p", out, "--splits", "40", "--factors", "1.5")
	if code != exit.OK || !strings.Contains(stdout, "20 unchanged runs, 10 per side") || !strings.Contains(stdout, "4 checks") {
		t.Fatalf("calibrate: exit %d\n%s%s", code, stdout, stderr)
	}
	exps, _, _ := compare.LoadSide(context.Background(), []string{filepath.Join(root, "cal")})
	pool, err := compare.Pool(exps, compare.Config{Threshold: 0.1})
	if err != nil || len(pool.Keys) != 4 || pool.Keys[0].Metric.Better != result.HigherIsBetter {
		t.Fatalf("pool %+v, %v", pool.Keys, err)
	}
	t.Log(stdout)
}

// TestBurstOnlyNothingCompared: runs holding only burst summaries share no
// check: exit 2 saying so and where burst summaries are checked (it printed
// "compare PASSED (0/0)", exit 0; an experiment folder given itself was
// "holds summaries itself but no experiment folder").
func TestBurstOnlyNothingCompared(t *testing.T) {
	dir := t.TempDir()
	for _, side := range []string{"ref", "new"} {
		e := filepath.Join(dir, side, "e1")
		if err := os.MkdirAll(e, 0o755); err != nil {
			t.Fatal(err)
		}
		row := "\n16,100,0,100,1000.000,100000.000,12.800,100,0,1000.000,100000.000,12.800\n"
		if err := os.WriteFile(filepath.Join(e, "burst_tcp_summary.csv"), []byte(result.BurstHeader+row), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sides := range [][2]string{{"ref", "new"}, {"ref/e1", "new/e1"}} {
		code, _, stderr := runCompare(t, dir, "--reference", filepath.Join(dir, sides[0]), "--results", filepath.Join(dir, sides[1]),
			"--plots-directory", filepath.Join(dir, "plots"))
		if code != exit.Usage || !strings.Contains(stderr, "nothing to compare") || !strings.Contains(stderr, "burst summaries, which compare does not compare") {
			t.Errorf("%v: exit %d: %s", sides, code, stderr)
		}
	}
}
