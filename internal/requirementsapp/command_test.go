package requirementsapp_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

// writePool writes observations as experiment folders under a temporary
// root.
func writePool(t *testing.T, obs []requirements.Observation) string {
	t.Helper()
	root := t.TempDir()
	files := map[string][]result.SummaryRow{}
	var order []string
	for _, o := range obs {
		path := filepath.Join(root, o.Experiment, experiment.SummaryFileName(o.Type))
		if _, ok := files[path]; !ok {
			order = append(order, path)
		}
		files[path] = append(files[path], result.SummaryRow{
			Bytes: o.Bytes,
			Summary: result.Summary{
				Samples: 1000,
				Median:  o.Median,
				P99:     o.P99,
				Max:     o.Max,
				Min:     o.Median / 2,
				Mean:    o.Median,
				P90:     o.P99 * 0.9,
				P9999:   o.Max,
			},
		})
	}
	for _, path := range order {
		if err := result.WriteSummaryFile(path, files[path]); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCalibrateCommand(t *testing.T) {
	root := writePool(t, logNormalObservations(2, 16, 3, 0.05))
	out := t.TempDir()
	js := filepath.Join(out, "cal.json")
	code, stdout, stderr := runRequirements(t, out, "--calibrate", "-e", root, "--method", "lognormal", "--candidate-runs", "6", "--splits", "30",
		"--columns", "median,99%", "--plots-directory", filepath.Join(out, "plots"), "--json", js, "--format", "svg", "--margins", "0,10%,0.5")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"calibration of check: 16 unchanged runs, 10 reference and 6 candidate runs, 30 random splits (seed 1), 6 checks, family-wise false-fail level 1.0%",
		"--method lognormal", "--columns Median,99%", "×1.25 ", "passed", "inconclusive",
		"plots: $DIR/plots/calibration_check_power.svg, $DIR/plots/calibration_check_outcomes.svg, $DIR/plots/calibration_check_thresholds.svg",
		"unchanged system by --margin:", "  10.0%  "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var doc map[string]any
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc["gate"] != "check" || doc["reference_runs"] != 10.0 || doc["candidate_runs"] != 6.0 {
		t.Errorf("JSON %v: %s", err, b)
	}
	for _, f := range []string{"calibration_check_power.svg", "calibration_check_outcomes.svg", "calibration_check_thresholds.svg"} {
		if st, err := os.Stat(filepath.Join(out, "plots", f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--calibrate", "-e", root}, "--plots-directory"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--percentile", "90"}, "excludes"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "-o", "x.csv"}, "--output-file does not go with --calibrate"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--split", "ordered", "--seed", "9"}, "--seed applies to random splits: --split ordered"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--candidate-runs", "10", "--reference-runs", "10"}, "need at least 20 unchanged runs; the pool has 16"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--columns", "Min"}, `unknown column "Min"`},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--factors", "1.1,x"}, `"x" is not a number`},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--factors", "0.9"}, "above 1"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--margin", "-1"}, "--margin"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--margins", "0.1,-5%"}, "--margins: -5% is out of range"},
		{[]string{"--calibrate", "-e", root, "--plots-directory", out, "--margins", "0.1,x"}, `--margins: "x" is not a number`},
		{[]string{"-e", root, "--false-fail", "0.01", "--candidate-runs", "3"}, "--candidate-runs is a --calibrate flag"},
	} {
		code, _, stderr := runRequirements(t, out, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %s", tt.args, code, stderr)
		}
	}
}

// TestCalibrateCommandRegressed: --regressed runs (here 3 times slower,
// named as the unchanged runs are, as run ab names them) are detected.
func TestCalibrateCommandRegressed(t *testing.T) {
	root := writePool(t, logNormalObservations(2, 16, 2, 0.05))
	slow := logNormalObservations(9, 8, 2, 0.05)
	for i := range slow {
		slow[i].Median, slow[i].P99, slow[i].Max = 3*slow[i].Median, 3*slow[i].P99, 3*slow[i].Max
	}
	regressed := writePool(t, slow)
	out := t.TempDir()
	code, stdout, stderr := runRequirements(t, out, "--calibrate", "-e", root, "--regressed", regressed, "--reference-runs", "10", "--candidate-runs", "6",
		"--splits", "30", "--plots-directory", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "calibration of check: 16 unchanged runs") ||
		!strings.Contains(stdout, "real regression: 8 regressed runs as candidates against unchanged reference runs, 30 splits: detected (gate fails) 30 of 30") {
		t.Errorf("stdout:\n%s", stdout)
	}
	code, _, stderr = runRequirements(t, out, "--calibrate", "-e", root, "--regressed", filepath.Join(out, "none"), "--plots-directory", out)
	if code != 2 || !strings.Contains(stderr, "none") {
		t.Errorf("missing --regressed folder: exit %d, %s", code, stderr)
	}
}

func TestOrderRankCommand(t *testing.T) {
	root := writePool(t, logNormalObservations(2, 6, 2, 0.05))
	out := filepath.Join(t.TempDir(), "req.csv")
	code, _, stderr := runRequirements(t, root, "-e", root, "-o", out, "--order-rank", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), ",order:2,") {
		t.Errorf("file:\n%s", b)
	}
	for _, args := range [][]string{{"--order-rank", "0"}, {"--order-rank", "2", "--percentile", "90"}, {"--order-rank", "7"}} {
		code, _, stderr := runRequirements(t, root, append([]string{"-e", root, "-o", out}, args...)...)
		if code != 2 || !strings.Contains(stderr, "rank") && !strings.Contains(stderr, "excludes") && !strings.Contains(stderr, "at least 7 runs") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestThroughputCommand: requirements on experiments holding latency and
// throughput summaries writes both files; the latency file is byte for byte
// the one written without throughput in percentile mode; the statistical
// level is split over both files' checks.
func TestThroughputCommand(t *testing.T) {
	root := writeExperiments(t)
	outDir := t.TempDir()
	latOnly := filepath.Join(outDir, "lat-only.csv")
	if code, _, stderr := runRequirements(t, root, "-e", root, "-o", latOnly); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(filepath.Join(outDir, requirements.DefaultThroughputFileName)); err == nil {
		t.Error("throughput requirements written without throughput summaries")
	}
	// Add throughput summaries to every experiment.
	entries, _ := os.ReadDir(root)
	for i, e := range entries {
		dirs, err := synth.WriteThroughputRuns(t.TempDir(), synth.ThroughputSpec{SD: 0.03, Seed: uint64(i)}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dirs[0], experiment.ThroughputFileName("intraprocess_best_effort")))
		os.WriteFile(filepath.Join(root, e.Name(), experiment.ThroughputFileName("intraprocess_best_effort")), data, 0o644)
	}
	both := filepath.Join(outDir, "both.csv")
	code, stdout, stderr := runRequirements(t, root, "-e", root, "-o", both)
	if code != 0 {
		t.Fatal(stderr)
	}
	a, _ := os.ReadFile(latOnly)
	b, _ := os.ReadFile(both)
	if !bytes.Equal(a, b) {
		t.Errorf("latency requirements changed by throughput summaries:\n%s\n%s", a, b)
	}
	tp, err := requirements.ReadThroughputFile(filepath.Join(outDir, requirements.DefaultThroughputFileName))
	if err != nil || len(tp) != 2 || requirements.Statistical(tp) {
		t.Fatalf("throughput requirements %+v, %v", tp, err)
	}
	if !strings.Contains(stdout, "2 throughput requirement(s) (lower limits, higher is better)") || !strings.Contains(stdout, "1st percentile") {
		t.Errorf("stdout:\n%s", stdout)
	}
	tout := filepath.Join(outDir, "tp-stat.csv")
	code, stdout, stderr = runRequirements(t, root, "-e", root, "-o", filepath.Join(outDir, "stat.csv"), "--throughput-output-file", tout, "--false-fail", "0.01")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lat, err := requirements.ReadFile(filepath.Join(outDir, "stat.csv"))
	if err != nil {
		t.Fatal(err)
	}
	tp, err = requirements.ReadThroughputFile(tout)
	if err != nil {
		t.Fatal(err)
	}
	want := requirements.CheckLevelFor(0.01, len(lat), len(tp))
	if math.Abs(lat[0].Stat.CheckLevel-want) > want*1e-5 || math.Abs(tp[0].Stat.CheckLevel-want) > want*1e-5 {
		t.Errorf("check levels %g and %g, want %g (Bonferroni over %d latency rows ×3 and %d throughput rows)", lat[0].Stat.CheckLevel, tp[0].Stat.CheckLevel, want, len(lat), len(tp))
	}
	// An output over a throughput summary is refused before anything is written.
	victim := filepath.Join(root, entries[0].Name(), experiment.ThroughputFileName("intraprocess_best_effort"))
	code, _, stderr = runRequirements(t, root, "-e", root, "-o", filepath.Join(outDir, "x.csv"), "--throughput-output-file", victim)
	if code != exit.Usage || !strings.Contains(stderr, "--throughput-output-file") {
		t.Errorf("output over a throughput summary: exit %d %s", code, stderr)
	}
}

// buildTools builds the run and process commands into a temporary directory
// and puts it first on PATH, where Tool finds them.
func buildTools(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds run and process")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	bin := t.TempDir()
	cmd := exec.Command(goTool, "build", "-o", bin+string(filepath.Separator), "../../cmd/run", "../../cmd/process")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestRunsMode(t *testing.T) {
	buildTools(t)
	out := filepath.Join(t.TempDir(), "runs")
	reqFile := filepath.Join(t.TempDir(), requirements.DefaultFileName)
	code, stdout, stderr := runRequirements(t, out, "--runs", "2", "--out", out, "--output-file", reqFile, "--percentile", "100",
		"--", "--subexperiments", "intraprocess_reliable", "--payloads", "16,64", "--samples", "50", "--warmup", "5", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantInEvery(t, out, 2, "measurements_intraprocess_reliable_summary.csv")
	rows, err := requirements.ReadFile(reqFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Key.Payload != 16 || rows[1].Key.Payload != 64 {
		t.Errorf("requirements %+v, want intraprocess_reliable 16 and 64 B", rows)
	}
	if !strings.Contains(stdout, "run 1/2: $DIR/") || !strings.Contains(stdout, "2 requirement(s) from 2 experiment(s)") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestRunsModeRunFails(t *testing.T) {
	buildTools(t)
	out := filepath.Join(t.TempDir(), "runs")
	reqFile := filepath.Join(t.TempDir(), requirements.DefaultFileName)
	code, _, stderr := runRequirements(t, out, "--runs", "2", "--out", out, "--output-file", reqFile,
		"--", "--subexperiments", "no_such_thing")
	if code != exit.Usage {
		t.Errorf("exit %d, want 2\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "requirements: run --out $DIR --name ") || !strings.Contains(stderr, "exited 2") {
		t.Errorf("stderr does not say which run failed:\n%s", stderr)
	}
	if _, err := os.Stat(reqFile); err == nil {
		t.Error("requirements written after a failed run")
	}
}

// TestRunsModeThroughput drives run throughput: the output flags go after
// the subcommand's name (before it, run refuses them), and the experiments,
// with throughput summaries and no raw latency files, are not processed.
func TestRunsModeThroughput(t *testing.T) {
	buildTools(t)
	out := filepath.Join(t.TempDir(), "runs")
	reqDir := t.TempDir()
	reqFile := filepath.Join(reqDir, requirements.DefaultFileName)
	code, stdout, stderr := runRequirements(t, out, "--runs", "2", "--out", out, "--output-file", reqFile, "--percentile", "100",
		"--", "throughput", "-s", "intraprocess_best_effort", "--payloads", "16", "--windows", "5", "--max-in-flight", "10", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantInEvery(t, out, 2, "throughput_intraprocess_best_effort.csv")
	if !strings.Contains(stdout, "no raw latency files to process") || !strings.Contains(stdout, "each limit is the 0th percentile") {
		t.Errorf("stdout does not say why process was skipped:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(reqDir, "min_throughput_requirements.csv"))
	if err != nil {
		t.Fatalf("no throughput requirements: %v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(string(b), "intraprocess_best_effort,16,") {
		t.Errorf("throughput requirements:\n%s", b)
	}
}

// wantInEvery checks that out holds n experiments, each with file.
func wantInEvery(t *testing.T, out string, n int, file string) {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Fatalf("%d experiments in %s, want %d", len(entries), out, n)
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(out, e.Name(), file)); err != nil {
			t.Errorf("experiment %s: %v", e.Name(), err)
		}
	}
}
