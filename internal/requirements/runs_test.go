package requirements

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

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
	reqFile := filepath.Join(t.TempDir(), DefaultFileName)
	code, stdout, stderr := runRequirements(t, out, "--runs", "2", "--out", out, "--output-file", reqFile, "--percentile", "100",
		"--", "--subexperiments", "intraprocess_reliable", "--payloads", "16,64", "--samples", "50", "--warmup", "5", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	wantInEvery(t, out, 2, "measurements_intraprocess_reliable_summary.csv")
	rows, err := ReadFile(reqFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Bytes != 16 || rows[1].Bytes != 64 {
		t.Errorf("requirements %+v, want intraprocess_reliable 16 and 64 B", rows)
	}
	if !strings.Contains(stdout, "run 1/2: $DIR/") || !strings.Contains(stdout, "2 requirement(s) from 2 experiment(s)") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestRunsModeRunFails(t *testing.T) {
	buildTools(t)
	out := filepath.Join(t.TempDir(), "runs")
	reqFile := filepath.Join(t.TempDir(), DefaultFileName)
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
	reqFile := filepath.Join(reqDir, DefaultFileName)
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

func TestRunsArgs(t *testing.T) {
	r := Runs{Out: "o", RunArgs: []string{"throughput", "-s", "x"}}
	if got := strings.Join(r.runArgs("n"), " "); got != "throughput --out o --name n -s x" {
		t.Errorf("subcommand: %q", got)
	}
	r.RunArgs = []string{"-s", "x"}
	if got := strings.Join(r.runArgs("n"), " "); got != "--out o --name n -s x" {
		t.Errorf("round trips: %q", got)
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
