package requirementsapp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
)

func runRequirements(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(context.Background(), requirementscmd.App(), append([]string{"requirements"}, args...), &stdout, &stderr)
	return code, strings.ReplaceAll(stdout.String(), dir, "$DIR"), strings.ReplaceAll(stderr.String(), dir, "$DIR")
}

// writeExperiments writes the library's testdata/observations.csv as experiment folders
// with one summary per sub-experiment, under a temporary root.
func writeExperiments(t *testing.T) string {
	t.Helper()
	return writePool(t, sampleObservations(t))
}

func TestCommand(t *testing.T) {
	root := writeExperiments(t)
	// A folder without summaries (e.g. shared plots) is skipped with a warning.
	if err := os.Mkdir(filepath.Join(root, "plots"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "req", "out.csv")
	code, stdout, stderr := runRequirements(t, root, "--experiments_results", root, "--output_file", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(libTestdata, "numpy_p99.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("requirements file differs from numpy's:\n%s\nwant\n%s", got, want)
	}
	stdout = strings.ReplaceAll(stdout, filepath.Dir(filepath.Dir(out)), "$OUT")
	golden(t, "command.stdout", []byte(stdout))
	golden(t, "command.stderr", []byte(stderr))
}

func TestCommandPercentile(t *testing.T) {
	root := writeExperiments(t)
	out := filepath.Join(t.TempDir(), "out.csv")
	code, _, stderr := runRequirements(t, root, "-e", root, "-o", out, "--percentile", "50")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile(filepath.Join(libTestdata, "numpy_p50.csv"))
	if !bytes.Equal(got, want) {
		t.Errorf("p50 requirements differ from numpy's:\n%s\nwant\n%s", got, want)
	}
	if stderr != "" {
		t.Errorf("7 experiments back the median: no warning expected, got %q", stderr)
	}
}

func TestCommandErrors(t *testing.T) {
	root := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := mk("empty")
	noExp := mk("noexp")
	mk("noexp", "plots")
	flat := mk("flat")
	if err := os.WriteFile(filepath.Join(flat, experiment.SummaryFileName("interprocess_reliable")), []byte(strings.Join(result.SummaryColumns, ",")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := mk("bad", "2024-01-01_00-00-00")
	if err := os.WriteFile(filepath.Join(bad, experiment.SummaryFileName("interprocess_reliable")),
		[]byte(strings.Join(result.SummaryColumns, ",")+"\n16,10,1.000,1.000,1.000,1.000,1.000,1.000,1.000,1.000,oops,1.000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := writeExperiments(t)
	out := filepath.Join(t.TempDir(), "out.csv")
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"missing directory", []string{"-e", filepath.Join(root, "nope")}, "requirements: $DIR/nope: no such directory (expected a directory holding one folder per experiment)\n"},
		{"empty directory", []string{"-e", empty}, "requirements: $DIR/empty: holds nothing: expected one folder per experiment, each holding measurements_<type>_summary.csv files\n"},
		{"no experiments", []string{"-e", noExp}, "requirements: $DIR/noexp: no experiment: no folder in it holds a summary (measurements_<type>_summary.csv); run process on the experiments first (no folder holds a throughput summary throughput_<type>.csv either)\n"},
		{"an experiment, not a root", []string{"-e", flat}, "requirements: $DIR/flat: holds summaries itself but no experiment folder: pass the directory that holds the experiment folders\n"},
		{"malformed summary", []string{"-e", filepath.Join(root, "bad")}, `$DIR/bad/2024-01-01_00-00-00/measurements_interprocess_reliable_summary.csv:2: column "99%"`},
		{"percentile 0", []string{"-e", good, "-o", out, "--percentile", "0"}, "requirements: --percentile 0: expected a number above 0 and at most 100, e.g. 99"},
		{"percentile over 100", []string{"-e", good, "-o", out, "--percentile", "101"}, "--percentile 101: expected a number above 0 and at most 100"},
		{"negative percentile", []string{"-e", good, "-o", out, "--percentile", "-5"}, "--percentile -5: expected a number above 0 and at most 100"},
		{"percentile not a number", []string{"-e", good, "-o", out, "--percentile", "high"}, `--percentile "high": expected a number`},
		{"no directory flag", []string{"-o", out}, `--experiments-results DIR (or --runs N --out DIR) is required`},
		{"runs without out", []string{"--runs", "3", "-o", out}, `--runs needs a number of runs ≥ 1 and --out DIR`},
		{"zero runs", []string{"--runs", "0", "--out", root, "-o", out}, `--runs 0 is out of range: expected 1 to 10000`},
		{"runs and a results directory", []string{"--runs", "2", "--out", root, "-e", good, "-o", out}, `exclude each other`},
		{"runs setting the name", []string{"--runs", "2", "--out", filepath.Join(root, "runs"), "-o", out, "--", "--name", "x"}, `run argument --name: requirements --runs sets the output itself`},
		{"stray argument", []string{"-e", good, "-o", out, "x"}, `requirements: unexpected argument "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runRequirements(t, root, tt.args...)
			if code != exit.Usage {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr\n%s\nlacks\n%s", stderr, tt.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written despite the error", out)
			}
		})
	}
}

// TestCommandStatistical: --method or --false-fail write statistical
// requirements that say their mode, and print how they were set.
func TestCommandStatistical(t *testing.T) {
	root := writeExperiments(t)
	out := filepath.Join(t.TempDir(), "stat.csv")
	code, stdout, stderr := runRequirements(t, root, "-e", root, "-o", out, "--method", "lognormal")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The same as TestStatisticalFileRoundTrip's scipy-checked derivation.
	want, err := os.ReadFile(filepath.Join(libTestdata, "statistical_lognormal.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("file:\n%s\nwant\n%s", got, want)
	}
	stdout = strings.ReplaceAll(stdout, filepath.Dir(out), "$OUT")
	golden(t, "statistical.stdout", []byte(stdout))
	golden(t, "statistical.stderr", []byte(stderr))

	code, stdout, _ = runRequirements(t, root, "-e", root, "-o", out, "--false-fail", "0.01")
	if code != 0 || !strings.Contains(stdout, "Mode: statistical, distribution-free (order statistics; runs assumed exchangeable).") ||
		!strings.Contains(stdout, "An unchanged system fails a whole check with chance ≤ 1%: Bonferroni over the 15 checks, 0.0667% each.") {
		t.Errorf("default mode: exit %d\n%s", code, stdout)
	}
}

func TestCommandModeErrors(t *testing.T) {
	root := writeExperiments(t)
	out := filepath.Join(t.TempDir(), "out.csv")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--percentile", "99", "--false-fail", "0.01"}, "--percentile (the Fast-RTPS mode) excludes --false-fail, --method and --normality-level"},
		{[]string{"--method", "order", "--percentile", "90"}, "--percentile (the Fast-RTPS mode) excludes"},
		{[]string{"--false-fail", "0"}, "--false-fail: 0 (0%) is out of range: expected a value above 0% and below 100%"},
		{[]string{"--false-fail", "1.5"}, "--false-fail: 1.5 read as a fraction is 150%: did you mean 1.5%?"},
		{[]string{"--method", "normal"}, `--method "normal": expected order or lognormal`},
		{[]string{"--normality-level", "1"}, "--normality-level: 1 read as a fraction is 100%: did you mean 1%?"},
	} {
		code, _, stderr := runRequirements(t, root, append([]string{"-e", root, "-o", out}, tt.args...)...)
		if code != exit.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tt.args, code, stderr, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written despite the error", tt.args, out)
		}
	}
}

// TestInterruptedSaysSo: requirements interrupted while reading the runs
// exits 130 saying "interrupted"; it printed Go's "context canceled".
func TestInterruptedSaysSo(t *testing.T) {
	root := writeExperiments(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(ctx, requirementscmd.App(), []string{"requirements", "-e", root, "-o", filepath.Join(t.TempDir(), "r.csv")}, &stdout, &stderr)
	if code != exit.Interrupted || stderr.String() != "requirements: interrupted\n" {
		t.Errorf("exit %d, want 130; stderr %q", code, stderr.String())
	}
}

// TestEmptyPathFlags: a file or folder flag given an empty value (an unset
// variable in a CI script) is refused naming it, before anything is read
// or written; --burst-output-file "" derived latency requirements instead
// of burst ones, --json "" and --regressed "" calibrated without them, all
// exiting 0.
func TestEmptyPathFlags(t *testing.T) {
	root := writeExperiments(t)
	pool := writePool(t, logNormalObservations(2, 16, 3, 0.05)) // calibrates
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", root, "--burst-output-file", ""}, "--burst-output-file is empty: expected a file (an unset variable?); leave the flag out when there is none"},
		{[]string{"-e", ""}, "--experiments-results is empty: expected a folder of experiments (an unset variable?)"},
		{[]string{"--runs", "2", "--out", ""}, "--out is empty: expected a results folder (an unset variable?)"},
		{[]string{"--calibrate", "-e", pool, "--splits", "5", "--plots-directory", "P", "--json", ""}, "--json is empty: expected a file"},
		{[]string{"--calibrate", "-e", pool, "--splits", "5", "--plots-directory", "P", "--regressed", ""}, "--regressed is empty: expected a folder of runs"},
		{[]string{"--calibrate", "-e", pool, "--splits", "5", "--plots-directory", ""}, "--plots-directory is empty: expected a folder (an unset variable?)"},
	} {
		dir := t.TempDir()
		args := tt.args
		if args[0] != "--calibrate" {
			args = append([]string{"-o", filepath.Join(dir, "r.csv")}, args...)
		}
		for i, a := range args {
			if a == "P" {
				args[i] = filepath.Join(dir, "plots")
			}
		}
		code, stdout, stderr := runRequirements(t, dir, args...)
		if code != exit.Usage || stdout != "" || !strings.HasPrefix(stderr, "requirements: "+tt.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: %d file(s) written in %s", tt.args, len(entries), dir)
		}
	}
}

// TestEmptyCalibrationLists: --factors "" and --margins "" (an unset
// variable) read as not given: the default factors, no margin table, exit
// 0; now exit 2 naming the flag, nothing written.
func TestEmptyCalibrationLists(t *testing.T) {
	pool := writePool(t, logNormalObservations(2, 16, 3, 0.05))
	for _, flag := range []string{"--factors", "--margins"} {
		dir := t.TempDir()
		code, stdout, stderr := runRequirements(t, dir, "--calibrate", "-e", pool, "--splits", "5", "--plots-directory", filepath.Join(dir, "plots"), flag, "")
		want := "requirements: " + flag + " is empty: expected a comma-separated list (an unset variable?); leave the flag out for its default\n"
		if code != exit.Usage || stdout != "" || stderr != want {
			t.Errorf("%s \"\": exit %d, stdout %q, stderr %q; want 2 and %q", flag, code, stdout, stderr, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s \"\": %d file(s) written in %s", flag, len(entries), dir)
		}
	}
}

// TestCopiedRunRefused: a run's folder copied into the pool (a CI
// artifact downloaded twice) is the same run (the same meta.json, start and
// host): it was counted twice, setting the limits from more runs than
// there were; now exit 2 naming both folders, nothing written. Imported
// folders of the same date and no host are different runs, and so are the
// two sides of an interleaved run ab (one start and host, two meta.json).
func TestCopiedRunRefused(t *testing.T) {
	root := writePool(t, logNormalObservations(2, 6, 2, 0.05))
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		m := fmt.Sprintf(`{"schema": 1, "start": "2026-11-20T09:00:0%d.5Z", "completed": true, "host": {"hostname": "ci-1"}}`, i)
		if i >= 4 {
			m = `{"schema": 1, "start": "2019-11-15T00:00:00Z", "completed": true}` // imported, same date
		}
		if err := os.WriteFile(filepath.Join(root, e.Name(), "meta.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The other side of an interleaved run ab: the same start and host,
	// another meta.json (what the side measured), another run.
	sibling := filepath.Join(root, entries[3].Name())
	b, err := os.ReadFile(filepath.Join(root, entries[0].Name(), "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	sib := strings.Replace(string(b), `"completed": true`, `"completed": true, "mode": "round-trip closed-loop, interleaved"`, 1)
	if err := os.WriteFile(filepath.Join(sibling, "meta.json"), []byte(sib), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if code, _, stderr := runRequirements(t, root, "-e", root, "-o", filepath.Join(out, "r.csv")); code != exit.OK {
		t.Fatalf("distinct runs: exit %d\n%s", code, stderr)
	}
	first := filepath.Join(root, entries[0].Name())
	copyTo := filepath.Join(root, entries[0].Name()+" (copy)")
	if err := os.CopyFS(copyTo, os.DirFS(first)); err != nil {
		t.Fatal(err)
	}
	out = t.TempDir()
	code, stdout, stderr := runRequirements(t, root, "-e", root, "-o", filepath.Join(out, "r.csv"))
	want := "requirements: $DIR/" + entries[0].Name() + " (copy): the same run as $DIR/" + entries[0].Name() + " (the same meta.json: start 2026-11-20T09:00:00.5Z, host ci-1 and all), a copy counted twice"
	if code != exit.Usage || stdout != "" || !strings.HasPrefix(stderr, want) {
		t.Errorf("copy: exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, want)
	}
	if files, _ := os.ReadDir(out); len(files) != 0 {
		t.Errorf("%d file(s) written", len(files))
	}
}

// TestCalibrateRemovesEarlierPlots: requirements --calibrate into a folder
// an earlier calibration left removes the earlier plots it does not draw
// again (the thresholds plot of a call given --margins, the other
// format); they stayed, shown beside this call's. Other files stay.
func TestCalibrateRemovesEarlierPlots(t *testing.T) {
	pool := writePool(t, logNormalObservations(2, 16, 3, 0.05))
	out := filepath.Join(t.TempDir(), "cal")
	if code, _, stderr := runRequirements(t, out, "--calibrate", "-e", pool, "--splits", "5", "--plots-directory", out, "--margins", "0,10%"); code != exit.OK {
		t.Fatalf("first: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runRequirements(t, out, "--calibrate", "-e", pool, "--splits", "5", "--plots-directory", out, "--format", "svg"); code != exit.OK {
		t.Fatalf("second: exit %d\n%s", code, stderr)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "calibration_check_outcomes.svg calibration_check_power.svg notes.txt"; strings.Join(names, " ") != want {
		t.Errorf("folder holds %q, want %q", names, want)
	}
}

// TestCalibrateInterleavedCandidates: --regressed the candidate sides of
// interleaved run ab runs whose reference sides are in the pool: each side
// shares its start and host with the other (one pinger measured both) and
// they are two runs; they were refused as "the same run (meta.json: same
// start and host)". A copy (the same meta.json) is still refused.
func TestCalibrateInterleavedCandidates(t *testing.T) {
	pool := writePool(t, logNormalObservations(2, 16, 2, 0.05))
	slow := logNormalObservations(9, 8, 2, 0.05)
	for i := range slow {
		slow[i].Median, slow[i].P99, slow[i].Max = 3*slow[i].Median, 3*slow[i].P99, 3*slow[i].Max
	}
	regressed := writePool(t, slow)
	side := func(dir string, i int, mode string) {
		m := fmt.Sprintf(`{"schema": 1, "start": "2026-11-20T09:00:%02d.5Z", "completed": true, "host": {"hostname": "ci-1"}, "mode": %q}`, i, mode)
		if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{pool, regressed} {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range entries {
			side(filepath.Join(root, e.Name()), i, "interleaved with the other side of "+filepath.Base(root))
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runRequirements(t, out, "--calibrate", "-e", pool, "--regressed", regressed, "--reference-runs", "10", "--candidate-runs", "6",
		"--splits", "10", "--plots-directory", out)
	if code != exit.OK || !strings.Contains(stdout, "real regression: 8 regressed runs") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	first, _ := os.ReadDir(pool)
	copied := filepath.Join(regressed, "copy")
	if err := os.CopyFS(copied, os.DirFS(filepath.Join(pool, first[0].Name()))); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runRequirements(t, out, "--calibrate", "-e", pool, "--regressed", regressed, "--plots-directory", out)
	if code != exit.Usage || !strings.Contains(stderr, "the same run (the same meta.json: start, host and all)") {
		t.Errorf("a copy of a pool run: exit %d, %s", code, stderr)
	}
}
