package process_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mqgate/mqgate/internal/goldenfile"

	"github.com/mqgate/mqgate/internal/browser"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/process"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

const fixtureDir = "../../testdata/fastrtps-v192"

func runProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cliapp.Run(context.Background(), processcmd.App(), append([]string{"process"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFastRTPSFixture reproduces the summary the Fast-RTPS scripts published
// for a real Fast-RTPS v1.9.2 run, byte for byte, with default options:
// LatencyTest numbers its samples across payloads (10001 is the first
// sample of payload 32), one of formats §2's two numberings. The file is
// processed the same in a directory, with the Fast-RTPS script's flag names
// and with --lenient-samples.
func TestFastRTPSFixture(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(fixtureDir, "measurements_interprocess_reliable_summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--raw_csv"}, {"--lenient-samples"}} {
		t.Run(strings.Join(append([]string{"default"}, args...), " "), func(t *testing.T) {
			dir := t.TempDir()
			raw := filepath.Join(dir, "measurements_interprocess_reliable.csv")
			out := filepath.Join(dir, "measurements_interprocess_reliable_summary.csv")
			copyFile(t, filepath.Join(fixtureDir, "measurements_interprocess_reliable.csv"), raw)
			argv := []string{"--no-plots", dir}
			if len(args) > 0 && args[0] == "--raw_csv" {
				out = filepath.Join(dir, "summary.csv")
				argv = []string{"--no-plots", "--raw_csv", raw, "--output_csv", out}
			} else {
				argv = append(args, argv...)
			}
			if code, _, stderr := runProcess(t, argv...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, want) {
				t.Fatalf("summary differs from the published one:\n%s\nwant\n%s", got, want)
			}
		})
	}
	// A row lost from it is refused, naming the row and what was expected.
	dir := t.TempDir()
	raw := filepath.Join(dir, "measurements_interprocess_reliable.csv")
	copyFile(t, filepath.Join(fixtureDir, "measurements_interprocess_reliable.csv"), raw)
	data, _ := os.ReadFile(raw)
	i := bytes.Index(data, []byte("\n15000,32,")) + 1
	data = append(data[:i], data[i+bytes.IndexByte(data[i:], '\n')+1:]...)
	if err := os.WriteFile(raw, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runProcess(t, "--no-plots", dir)
	wantErr := raw + `:15001: column "Sample": 15001 follows 14999: sample 15000 is missing in payload 32, expected 15000: `
	if code != 2 || !strings.Contains(stderr, wantErr) || !strings.Contains(stderr, process.LenientHint) {
		t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, wantErr)
	}
}

// TestGolden checks process against summaries computed by numpy and pandas
// (testdata/golden.py) for edge cases: one and two samples, even and odd
// counts, ties, long decimals, one and eleven payloads, interleaved payloads.
func TestGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			src := filepath.Join("testdata/golden", c.Name())
			dir := t.TempDir()
			typ := strings.ReplaceAll(c.Name(), "_", "") + "_reliable"
			copyFile(t, filepath.Join(src, "measurements_"+c.Name()+".csv"), filepath.Join(dir, "measurements_"+typ+".csv"))
			args := []string{"--no-plots"}
			if c.Name() == "interleaved" {
				// Payloads whose rows reappear are refused unless
				// --lenient-samples, which summarises each payload's rows
				// together, as pandas' groupby does.
				if code, _, stderr := runProcess(t, append(args, dir)...); code != 2 || !strings.Contains(stderr, "payload 16 appears again") {
					t.Fatalf("without --lenient-samples: exit %d: %s", code, stderr)
				}
				args = append(args, "--lenient-samples")
			}
			if code, _, stderr := runProcess(t, append(args, dir)...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "measurements_"+typ+"_summary.csv"))
			wantPath := filepath.Join(src, "want_summary.csv")
			if goldenfile.Update() {
				os.WriteFile(wantPath, got, 0o644)
			}
			want, _ := os.ReadFile(wantPath)
			if !bytes.Equal(got, want) {
				t.Fatalf("summary:\n%s\nwant (numpy):\n%s", got, want)
			}
		})
	}
}

// TestPlotsAndComparisons runs a two-file experiment with plots and checks
// that every plot of the Fast-RTPS job layout is there.
func TestPlotsAndComparisons(t *testing.T) {
	for _, format := range []string{"png", "svg"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_a_reliable.csv"))
			copyFile(t, "testdata/golden/eleven_payloads/measurements_eleven_payloads.csv",
				filepath.Join(dir, "measurements_b_best_effort.csv"))
			code, stdout, stderr := runProcess(t, "--format", format, dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "28 plots in "+filepath.Join(dir, "plots")) {
				t.Errorf("stdout %q does not say where the 28 plots are", stdout)
			}
			want := []string{"plots/measurements_a_reliable/histogram_16", "plots/measurements_a_reliable/series_16"}
			for i := 0; i < 11; i++ {
				p := itoa(16 << i)
				want = append(want, "plots/measurements_b_best_effort/histogram_"+p, "plots/measurements_b_best_effort/series_"+p)
			}
			for _, c := range process.Comparisons {
				want = append(want, "plots/"+c.Name)
			}
			for _, w := range want {
				fi, err := os.Stat(filepath.Join(dir, w+"."+format))
				if err != nil || fi.Size() < 1000 {
					t.Errorf("plot %s.%s missing or tiny: %v", w, format, err)
				}
			}
		})
	}
}

func itoa(n int) string {
	var b []byte
	return string(appendInt(b, n))
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

// TestRawCSVMode runs the Fast-RTPS single-file invocation with its flag names.
func TestRawCSVMode(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "in.csv")
	copyFile(t, "testdata/golden/odd/measurements_odd.csv", raw)
	out := filepath.Join(dir, "out", "summary.csv")
	plotsDir := filepath.Join(dir, "p")
	code, _, stderr := runProcess(t, "--raw_csv", raw, "--output_csv", out, "--plots_directory", plotsDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile("testdata/golden/odd/want_summary.csv")
	if !bytes.Equal(got, want) {
		t.Fatalf("summary %s", got)
	}
	for _, f := range []string{"histogram_64.png", "series_64.png"} {
		if _, err := os.Stat(filepath.Join(plotsDir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestBadInput: every bad input exits 2 with a message naming the file and
// line, and leaves no summary behind — not even for a good file beside it.
func TestBadInput(t *testing.T) {
	h := measurements.Header + "\n"
	cases := []struct {
		name, content, want string
	}{
		{"wrong header", "Sample,Payload,Latency\n1,16,2\n", `measurements_bad_reliable.csv:1: header is "Sample,Payload,Latency", which process does not read: it reads raw latency files, header "Sample,Payload [Bytes],Latency [us]"`},
		{"missing header", "1,16,2.5\n", `measurements_bad_reliable.csv:1: header is "1,16,2.5"`},
		{"not a number", h + "1,16,2.5\n2,16,12.5x\n", `measurements_bad_reliable.csv:3: column "Latency [us]": "12.5x" is not a number`},
		{"nan", h + "1,16,nan\n", `measurements_bad_reliable.csv:2: column "Latency [us]": "nan" is not a finite latency`},
		{"negative", h + "1,16,-3\n", `measurements_bad_reliable.csv:2: column "Latency [us]": "-3" is negative`},
		{"payload", h + "1,16.5,3\n", `measurements_bad_reliable.csv:2: column "Payload [Bytes]": "16.5" is not a positive integer`},
		{"empty file", "", "measurements_bad_reliable.csv: empty file"},
		{"cut off", h + "1,16,2.5\n2,16,2.", `measurements_bad_reliable.csv:3: the last row "2,16,2." is not terminated by a newline`},
		{"600 nines", h + "1,16,2.5\n2,16,0." + strings.Repeat("9", 600) + "\n",
			`measurements_bad_reliable.csv:3: column "Latency [us]": "0.9999999999999999999999…99999999" (602 characters) has 600 significant digits`},
		{"400 zeros e-600", h + "1,16,1" + strings.Repeat("0", 400) + "e-600\n",
			`measurements_bad_reliable.csv:2: column "Latency [us]": "100000000000000000000000…000e-600" (406 characters) has 401 significant digits`},
		{"1000 digits", h + "1,16," + strings.Repeat("1", 1000) + "\n",
			`measurements_bad_reliable.csv:2: column "Latency [us]": "111111111111111111111111…11111111" (1000 characters) has 1000 significant digits`},
		// Finite latencies whose Mean or Stdev overflows: the row where the
		// sum first overflows.
		{"mean overflows", h + "1,16,1\n2,16,1e308\n3,16,1e308\n4,16,5\n",
			`measurements_bad_reliable.csv:4: column "Latency [us]": payload 16: the Mean is not a finite number: latencies this large (1e+308 µs here) overflow a float64 in their sum`},
		{"stdev overflows", h + "1,16,1\n2,16,1e200\n",
			`measurements_bad_reliable.csv:3: column "Latency [us]": payload 16: the Stdev is not a finite number: latencies this large (1e+200 µs here) overflow a float64 in the squared distances from the mean`},
		{"second payload overflows", h + "1,16,1\n2,16,2\n1,32,1\n2,32,1e300\n",
			`measurements_bad_reliable.csv:5: column "Latency [us]": payload 32: the Stdev is not a finite number`},
		{"starts at 0", h + "0,16,1\n", `measurements_bad_reliable.csv:2: column "Sample": "0" is not a positive integer`},
		{"starts at 2", h + "2,16,1\n", `measurements_bad_reliable.csv:2: column "Sample": 2 is the first sample of payload 16, expected 1`},
		{"decreasing", h + "1,16,1\n2,16,1\n1,16,1\n", `measurements_bad_reliable.csv:4: column "Sample": 1 goes back from 2 in payload 16, expected 3`},
		{"duplicated", h + "1,16,1\n1,16,1\n", `measurements_bad_reliable.csv:3: column "Sample": 1 repeats the sample before in payload 16, expected 2`},
		{"gap", h + "1,16,1\n2,16,1\n5,16,1\n", `measurements_bad_reliable.csv:4: column "Sample": 5 follows 2: samples 3 and 4 are missing in payload 16, expected 3`},
		{"long gap", h + "1,16,1\n2,16,1\n9,16,1\n", `measurements_bad_reliable.csv:4: column "Sample": 9 follows 2: samples 3 to 8 are missing in payload 16, expected 3`},
		{"payload reappears", h + "1,16,1\n1,32,1\n2,16,1\n", `measurements_bad_reliable.csv:4: column "Payload [Bytes]": payload 16 appears again: its rows began on line 2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_good_reliable.csv"))
			os.WriteFile(filepath.Join(dir, "measurements_bad_reliable.csv"), []byte(c.content), 0o644)
			code, _, stderr := runProcess(t, dir)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
			for _, n := range []string{"measurements_good_reliable_summary.csv", "measurements_bad_reliable_summary.csv"} {
				if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
					t.Errorf("%s left behind", n)
				}
			}
		})
	}
}

func TestUsageAndDirectoryErrors(t *testing.T) {
	empty := t.TempDir()
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, []byte("x"), 0o644)
	good := t.TempDir()
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(good, "measurements_n_reliable.csv"))
	loop := filepath.Join(t.TempDir(), "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	badName := t.TempDir()
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(badName, "measurements_Bad Name.csv"))
	// A burst file so named is told its own pattern (it was told
	// measurements_<type>.csv).
	badBurst := filepath.Join(t.TempDir(), "badburst")
	if err := os.MkdirAll(badBurst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(badBurst, "burst_x.csv"), []byte(result.BurstHeader+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A results root (run --out DIR): say so, and how to process its experiments.
	root := t.TempDir()
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(root, "x1", "measurements_n_reliable.csv"))
	plotsDir := filepath.Join(t.TempDir(), "plots")
	// A run throughput folder whose summary is gone (its search file
	// left): the error named raw and burst files only.
	searchOnly := t.TempDir()
	if err := os.WriteFile(filepath.Join(searchOnly, "throughput_nats_reliable_search.csv"), []byte(result.ThroughputHeader+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{nil, "process: EXPERIMENT_DIR (or --raw-csv FILE) is required (see 'process --help')"},
		{[]string{empty}, "no measurements_<type>.csv files"},
		{[]string{searchOnly}, "no measurements_<type>.csv files: expected raw files as written by run or Fast-RTPS LatencyTest --export_raw_data " +
			"(or burst_<type>.csv, written by run burst, or throughput_<type>.csv, written by run throughput)"},
		{[]string{root}, root + ": it is a results root holding 1 experiment (x1), not an experiment: process takes one experiment (process " + filepath.Join(root, "x1") + "); process each: for d in " + root + `/*/; do process "$d"; done`},
		{[]string{filepath.Join(empty, "nope")}, "no such directory"},
		{[]string{"--format", "gif", good}, `unknown plot format "gif"`},
		{[]string{"--raw_csv", "x.csv", good}, "not both"},
		{[]string{"--output-csv", "x.csv", good}, "--output-csv x.csv is for --raw-csv FILE: with EXPERIMENT_DIR each summary is written beside its raw file"},
		{[]string{"-o", "x.csv", good}, "--output-csv x.csv is for --raw-csv FILE"},
		{[]string{"--bogus", good}, "unknown flag --bogus (see 'process --help')"},
		{[]string{"--raw_csv", filepath.Join(empty, "nope.csv")}, "nope.csv: cannot read raw measurements"},
		{[]string{"--plots-directory", filepath.Join(notDir, "plots"), good}, "process: --plots-directory: cannot create the directory " + filepath.Join(notDir, "plots") + "/measurements_n_reliable: " + notDir + " is a file, not a directory"},
		{[]string{"--raw_csv", filepath.Join(good, "measurements_n_reliable.csv"), "--output_csv", filepath.Join(notDir, "s.csv"), "--no-plots"}, "process: --output-csv: cannot create the directory for " + filepath.Join(notDir, "s.csv") + ": " + notDir + " is a file, not a directory"},
		{[]string{"--raw_csv", filepath.Join(good, "measurements_n_reliable.csv"), "--output_csv", empty, "--no-plots"}, "process: --output-csv: cannot write " + empty + ": it is a directory; expected a file name"},
		{[]string{"--no-plots", "--html", empty, good}, "process: --html: cannot write " + empty + ": it is a directory; expected a file name"},
		{[]string{"--no-plots", "--html", filepath.Join(loop, "r.html"), good}, "process: --html: cannot create the directory for " + filepath.Join(loop, "r.html") + ": " + loop + " is a symbolic link that loops"},
		{[]string{"--plots-directory", loop, good}, "process: --plots-directory: cannot create the directory " + loop + "/measurements_n_reliable: " + loop + " is a symbolic link that loops (it leads back to itself); expected a directory"},
		{[]string{badName}, badName + `/measurements_Bad Name.csv: "Bad Name" is not a sub-experiment name: expected measurements_<type>.csv with <type> <scope>_<reliability>[_<transport>][_security], lower case, reliability best_effort, reliable or exactly_once (formats §1), e.g. measurements_interprocess_reliable.csv; rename the file`},
		{[]string{badBurst}, badBurst + `/burst_x.csv: "x" is not a sub-experiment name: expected burst_<type>.csv with <type>`},
		// An empty path (an unset variable in a script) read as no flag:
		// no report, the plots in the default folder, the folder
		// processed in place of --raw-csv, and exit 0.
		{[]string{"--html", "", good}, "process: --html is empty (an unset variable?): give a value"},
		{[]string{"--plots_directory", "", good}, "process: --plots-directory is empty (an unset variable?)"},
		{[]string{"--raw-csv", "", good}, "process: --raw-csv is empty (an unset variable?)"},
		{[]string{"--sut-name", "x", "--sut-version", "", "--start", "2019-11-05", good}, "process: --sut-version is empty (an unset variable?)"},
		// A report or summary where a plot goes: the one written last
		// replaced the other, and process exited 0.
		{[]string{"--plots-directory", plotsDir, "--html", filepath.Join(plotsDir, "comparison_max.png"), good},
			"process: --html " + filepath.Join(plotsDir, "comparison_max.png") + " is one of the files written into --plots-directory " + plotsDir},
		{[]string{"--raw_csv", filepath.Join(good, "measurements_n_reliable.csv"), "--output_csv", filepath.Join(plotsDir, "histogram_16.png"), "--plots-directory", plotsDir},
			"process: --output-csv " + filepath.Join(plotsDir, "histogram_16.png") + " is one of the files written into --plots-directory " + plotsDir},
	}
	for _, c := range cases {
		code, _, stderr := runProcess(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("process %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if fi, err := os.Stat(empty); err != nil || !fi.IsDir() {
		t.Errorf("the directory given as --output-csv became %v, %v", fi, err)
	}
	// An output that cannot be written is found before anything is: no
	// summary was written for good by any of the failures above.
	if _, err := os.Stat(filepath.Join(good, "measurements_n_reliable_summary.csv")); err == nil {
		t.Error("a failed process left a summary")
	}
}

// TestSummaryMode: summaries get their mode from the umask, and one
// written again keeps the mode of the one it replaces.
func TestSummaryMode(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_n_reliable.csv"))
	sum := filepath.Join(dir, "measurements_n_reliable_summary.csv")
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	if code, _, stderr := runProcess(t, dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for path, want := range map[string]os.FileMode{
		sum: 0o640, filepath.Join(dir, "plots"): 0o750,
		filepath.Join(dir, "plots", "comparison_min.png"):                       0o640,
		filepath.Join(dir, "plots", "measurements_n_reliable", "series_16.png"): 0o640,
	} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	if err := os.Chmod(sum, 0o600); err != nil {
		t.Fatal(err)
	}
	syscall.Umask(0o022)
	if code, _, stderr := runProcess(t, "--no-plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(sum); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("summary written again: mode %v, %v; want 0600 kept", fi.Mode().Perm(), err)
	}
}

func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_n_reliable.csv"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := cliapp.Run(ctx, processcmd.App(), []string{"process", dir}, &out, &errb)
	if code != 130 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "measurements_n_reliable_summary.csv")); err == nil {
		t.Fatal("summary written after interruption")
	}
}

// TestHTMLReport writes the HTML report of a two-file experiment, checks its
// content and, when Chromium is there (always under CI=true), that it
// renders with its tables and plots.
func TestHTMLReport(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/golden/ties/measurements_ties.csv", filepath.Join(dir, "measurements_a_reliable.csv"))
	copyFile(t, "testdata/golden/eleven_payloads/measurements_eleven_payloads.csv", filepath.Join(dir, "measurements_b_best_effort.csv"))
	page := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runProcess(t, "--no-plots", "--html", page, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "HTML report: "+page) {
		t.Errorf("stdout %q does not name the report", stdout)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	// 4 comparison plots + 2 per payload (1 + 11 payloads).
	if n := strings.Count(html, "<svg"); n != 4+2*12 {
		t.Errorf("%d inline SVG plots, want 28", n)
	}
	for _, want := range []string{"a_reliable", "b_best_effort", "16384 Bytes", "Mean jitter", "99.99%"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Self-contained: no address but the SVG namespace names.
	local := strings.NewReplacer("http://www.w3.org/2000/svg", "", "http://www.w3.org/1999/xlink", "").Replace(html)
	if strings.Contains(local, "http://") || strings.Contains(local, "https://") {
		t.Error("report refers to the network")
	}
	if _, err := os.Stat(filepath.Join(dir, "plots")); err == nil {
		t.Error("--no-plots wrote plot files")
	}
	browser.Require(t)
	dom, err := browser.DumpDOM(context.Background(), page)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(dom, "<table") < 2 || strings.Count(dom, "<svg") != 28 {
		t.Fatalf("rendered page has %d tables and %d plots", strings.Count(dom, "<table"), strings.Count(dom, "<svg"))
	}
	shot := filepath.Join(t.TempDir(), "process.png")
	if d := os.Getenv("MQGATE_SCREENSHOTS"); d != "" {
		shot = filepath.Join(d, "process.png")
	}
	if err := browser.Screenshot(context.Background(), page, shot, 1280, 2000); err != nil {
		t.Fatal(err)
	}
}

// TestStaleSummaryRemoved: when a raw file has become unreadable, its
// summary from an earlier run does not survive a failed process.
func TestStaleSummaryRemoved(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "measurements_x_reliable.csv")
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", raw)
	if code, _, stderr := runProcess(t, "--no-plots", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	os.WriteFile(raw, []byte(measurements.Header+"\n1,16,x\n"), 0o644)
	if code, _, _ := runProcess(t, "--no-plots", dir); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "measurements_x_reliable_summary.csv")); err == nil {
		t.Fatal("the earlier summary survived")
	}
}

func TestOutputIsNotTheRawFile(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "measurements_x_reliable.csv")
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", raw)
	code, _, stderr := runProcess(t, "--no-plots", "--raw_csv", raw, "--output_csv", filepath.Join(dir, ".", "measurements_x_reliable.csv"))
	if code != 2 || !strings.Contains(stderr, "is the raw file itself") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if data, _ := os.ReadFile(raw); !strings.HasPrefix(string(data), measurements.Header) {
		t.Fatal("the raw file was overwritten")
	}
}

// TestConsoleThousands: process writes counts as run does, with a comma
// between groups of three digits (55,000 samples).
func TestConsoleThousands(t *testing.T) {
	dir := t.TempDir()
	if err := synth.WriteExperiment(dir, synth.Spec{Types: []string{"intraprocess_reliable"}, Samples: 5000, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runProcess(t, "--no-plots", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "measurements_intraprocess_reliable.csv: 11 payloads, 55,000 samples -> "; !strings.Contains(stdout, want) {
		t.Errorf("stdout %q lacks %q", stdout, want)
	}
}

// TestNoPlotsWithPlotsDirectory: --no-plots with --plots-directory (-p)
// contradict each other, and -p was ignored in silence; both are refused
// with exit code 2 saying so, in a folder and with --raw-csv, before
// anything is written.
func TestNoPlotsWithPlotsDirectory(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "measurements_n_reliable.csv")
	copyFile(t, "testdata/golden/n2/measurements_n2.csv", raw)
	plotsDir := filepath.Join(t.TempDir(), "plots")
	for _, args := range [][]string{
		{"--no-plots", "-p", plotsDir, dir},
		{"--plots-directory", plotsDir, "--no-plots", dir},
		{"--no-plots", "--plots_directory", plotsDir, "--raw_csv", raw},
	} {
		code, _, stderr := runProcess(t, args...)
		want := "process: --no-plots and --plots-directory " + plotsDir + " contradict each other: --no-plots writes no plots, " +
			"so --plots-directory has nothing to hold; drop one of the two"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("process %v: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
	}
	code, _, stderr := runProcess(t, "--no-plots", "--format", "svg", dir)
	if want := "process: --no-plots and --format svg contradict each other"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("process --no-plots --format svg: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	for _, p := range []string{filepath.Join(dir, "measurements_n_reliable_summary.csv"), plotsDir} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written though the flags were refused", p)
		}
	}
}
