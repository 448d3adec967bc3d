package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

// scaledThroughput copies the experiment src to dst with every throughput
// value multiplied by factor (the Mb/s columns follow). A later start (and
// end) in its meta.json makes it another run, as compare reads runs; given
// 0, it is a copy of the same run.
func scaledThroughput(t *testing.T, src, dst string, factor float64, later time.Duration) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := experiment.TypeOfThroughput(e.Name()); ok {
			rows, err := result.ReadThroughput(strings.NewReader(string(data)), e.Name())
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				rows[i].Median *= factor
				rows[i].Mean *= factor
				rows[i].Stdev *= factor
			}
			var b strings.Builder
			if err := result.WriteThroughput(&b, rows); err != nil {
				t.Fatal(err)
			}
			data = []byte(b.String())
		}
		if e.Name() == "meta.json" && later != 0 {
			m, err := meta.Decode(bytes.NewReader(data), e.Name())
			if err != nil {
				t.Fatal(err)
			}
			m.Start, m.End = m.Start.Add(later), m.End.Add(later)
			var b bytes.Buffer
			if err := meta.Encode(&b, m); err != nil {
				t.Fatal(err)
			}
			data = b.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func oneOf(t *testing.T, what string, code int, want ...int) {
	t.Helper()
	if !slices.Contains(want, code) {
		t.Errorf("%s: exit %d, want one of %v", what, code, want)
	}
}

// TestThroughputChain runs the real chain on throughput data: run
// throughput (in-process and TCP, small windows) four times, then
// requirements, check, compare and history on what it wrote. Real runs on a
// loaded machine vary too much for exact verdicts, so the chain is asserted
// to work (every tool reads what the one before wrote, exit codes are
// verdicts, never input errors) and, on the real data, that a copy of a run
// with its throughput divided by 20 fails every gate while an exact copy
// passes compare.
func TestThroughputChain(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	dir := t.TempDir()
	bins := buildTools(t, filepath.Join(dir, "bin"))
	root := filepath.Join(dir, "results")
	for i := 1; i <= 4; i++ {
		runTool(t, 0, bins["run"], "throughput", "-s", "intraprocess_best_effort,interprocess_best_effort_tcp", "--payloads", "16,1024",
			"--windows", "10", "--window", "2ms", "--max-in-flight", "10", "--timeout", "5s", "-o", root, "--name", fmt.Sprintf("run-%d", i), "-q")
	}
	for _, typ := range []string{"intraprocess_best_effort", "interprocess_best_effort_tcp"} {
		if _, err := os.Stat(filepath.Join(root, "run-1", experiment.ThroughputFileName(typ))); err != nil {
			t.Fatal(err)
		}
	}
	reqDir := filepath.Join(dir, "req")
	out := runTool(t, 0, bins["requirements"], "-e", root, "-o", filepath.Join(reqDir, "latency_requirements.csv"))
	if !strings.Contains(out, "4 throughput requirement(s) (lower limits, higher is better) from 4 experiment(s)") {
		t.Errorf("requirements:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(reqDir, "latency_requirements.csv")); err == nil {
		t.Error("latency requirements written from throughput-only experiments")
	}
	treq := filepath.Join(reqDir, "min_throughput_requirements.csv")
	runTool(t, 0, bins["requirements"], "-e", root, "-o", filepath.Join(reqDir, "stat.csv"), "--throughput-output-file", filepath.Join(reqDir, "stat_tput.csv"), "--false-fail", "0.01")

	// The chain on real runs: verdicts, never input errors.
	code, stdout, stderr := gateRun(t, bins["check"], "--throughput-requirements", treq, "-e", filepath.Join(root, "run-4"))
	oneOf(t, "check one run\n"+stdout+stderr, code, 0, 1)
	code, stdout, stderr = gateRun(t, bins["check"], "--throughput-requirements", filepath.Join(reqDir, "stat_tput.csv"),
		"-e", filepath.Join(root, "run-3"), "-e", filepath.Join(root, "run-4"), "--output-directory", filepath.Join(dir, "checks"))
	oneOf(t, "check two runs, statistical\n"+stdout+stderr, code, 0, 1, 3)
	code, stdout, stderr = gateRun(t, bins["compare"], "--reference", filepath.Join(root, "run-1"), "--results", filepath.Join(root, "run-2"), "-p", filepath.Join(dir, "cmp1"))
	oneOf(t, "compare one run per side\n"+stdout+stderr, code, 0, 1)
	code, stdout, stderr = gateRun(t, bins["compare"], "--reference", filepath.Join(root, "run-1"), "--reference", filepath.Join(root, "run-2"),
		"--results", filepath.Join(root, "run-3"), "--results", filepath.Join(root, "run-4"), "-p", filepath.Join(dir, "cmp2"))
	oneOf(t, "compare two runs per side\n"+stdout+stderr, code, 0, 1, 3)
	code, stdout, stderr = gateRun(t, bins["history"], "-e", root, "-p", filepath.Join(dir, "hist"), "--format", "svg", "--gate")
	oneOf(t, "history --gate on 4 experiments\n"+stdout+stderr, code, 3)

	// Real data made 20 times slower fails, and the same data as another
	// run passes; a copy of the run itself is refused (compare would
	// judge a run against itself).
	slow, same, copied := filepath.Join(dir, "slow"), filepath.Join(dir, "same"), filepath.Join(dir, "copied")
	scaledThroughput(t, filepath.Join(root, "run-4"), slow, 0.05, time.Hour)
	scaledThroughput(t, filepath.Join(root, "run-4"), same, 1, time.Hour)
	scaledThroughput(t, filepath.Join(root, "run-4"), copied, 1, 0)
	code, stdout, stderr = gateRun(t, bins["compare"], "--reference", filepath.Join(root, "run-4"), "--results", slow, "-p", filepath.Join(dir, "cmp-slow"))
	oneOf(t, "compare a run 20× slower\n"+stdout+stderr, code, 1)
	code, stdout, stderr = gateRun(t, bins["compare"], "--reference", filepath.Join(root, "run-4"), "--results", same, "-p", filepath.Join(dir, "cmp-same"))
	oneOf(t, "compare the same values\n"+stdout+stderr, code, 0)
	code, stdout, stderr = gateRun(t, bins["compare"], "--reference", filepath.Join(root, "run-4"), "--results", copied, "-p", filepath.Join(dir, "cmp-copied"))
	oneOf(t, "compare a copy of the run\n"+stdout+stderr, code, 2)
	if !strings.Contains(stderr, "a copy of the same run") {
		t.Errorf("compare of a copy does not say so:\n%s", stderr)
	}
	code, stdout, stderr = gateRun(t, bins["check"], "--throughput-requirements", treq, "-e", slow)
	oneOf(t, "check a run 20× slower\n"+stdout+stderr, code, 1)
	if !strings.Contains(stdout, "falls below requirement") {
		t.Errorf("check does not say the throughput fell below:\n%s", stdout)
	}

	// Bad input: a clear error naming file and line, exit 2.
	bad := filepath.Join(dir, "bad")
	scaledThroughput(t, filepath.Join(root, "run-4"), bad, 1, time.Hour)
	path := filepath.Join(bad, experiment.ThroughputFileName("intraprocess_best_effort"))
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[2] = strings.Replace(lines[2], ",window,", ",burst,", 1)
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	code, _, stderr = gateRun(t, bins["compare"], "--reference", filepath.Join(root, "run-4"), "--results", bad, "-p", filepath.Join(dir, "cmp-bad"))
	if code != 2 || !strings.Contains(stderr, path+":3: column \"Mode\": \"burst\": expected window or rate") {
		t.Errorf("bad throughput file: exit %d\n%s", code, stderr)
	}
}

// TestThroughputGatesVerdicts: exact verdicts of every gate on seeded
// synthetic throughput runs (3 % run-to-run noise): a 20 % drop fails
// requirements+check, compare and history --gate; unchanged runs pass or
// are inconclusive, never fail.
func TestThroughputGatesVerdicts(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	dir := t.TempDir()
	bins := buildTools(t, filepath.Join(dir, "bin"))
	loads := []result.ThroughputRow{{Mode: result.ModeWindow, Offered: 100}, {Mode: result.ModeRate, Offered: 5000}}
	spec := func(seed uint64, factor float64) synth.ThroughputSpec {
		return synth.ThroughputSpec{Types: []string{"intraprocess_best_effort", "interprocess_best_effort_tcp"}, Loads: loads, SD: 0.03, Seed: seed, Factor: factor}
	}
	ref, unchanged, dropped := filepath.Join(dir, "ref"), filepath.Join(dir, "unchanged"), filepath.Join(dir, "dropped")
	for _, w := range []struct {
		dir   string
		spec  synth.ThroughputSpec
		first int
	}{{ref, spec(1, 1), 1}, {unchanged, spec(2, 1), 13}, {dropped, spec(3, 0.8), 13}} {
		n := 12
		if w.dir != ref {
			n = 10
		}
		if _, err := synth.WriteThroughputRuns(w.dir, w.spec, w.first, n); err != nil {
			t.Fatal(err)
		}
	}
	treq := filepath.Join(dir, "req", "tput.csv")
	runTool(t, 0, bins["requirements"], "-e", ref, "-o", filepath.Join(dir, "req", "lat.csv"), "--throughput-output-file", treq, "--false-fail", "0.01", "--method", "lognormal")

	check := func(root string) int {
		code, stdout, stderr := gateRun(t, bins["check"], "--throughput-requirements", treq, "--experiments-results", root, "--output-directory", filepath.Join(dir, "chk-"+filepath.Base(root)))
		t.Logf("check %s: exit %d\n%s%s", filepath.Base(root), code, stdout, stderr)
		return code
	}
	oneOf(t, "check unchanged", check(unchanged), 0, 3)
	oneOf(t, "check dropped", check(dropped), 1)
	compare := func(root string) int {
		code, stdout, stderr := gateRun(t, bins["compare"], "--reference", ref, "--results", root, "-p", filepath.Join(dir, "cmp-"+filepath.Base(root)))
		t.Logf("compare %s: exit %d\n%s%s", filepath.Base(root), code, stdout, stderr)
		return code
	}
	oneOf(t, "compare unchanged", compare(unchanged), 0, 3)
	oneOf(t, "compare dropped", compare(dropped), 1)
	history := func(cand string) int {
		root := filepath.Join(dir, "hist-"+filepath.Base(cand))
		os.MkdirAll(root, 0o755)
		for _, d := range []string{ref, cand} {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				os.Symlink(filepath.Join(d, e.Name()), filepath.Join(root, e.Name()))
			}
		}
		code, stdout, stderr := gateRun(t, bins["history"], "-e", root, "-p", filepath.Join(dir, "plots-"+filepath.Base(cand)), "--format", "svg", "--gate")
		t.Logf("history %s: exit %d\n%s%s", filepath.Base(cand), code, stdout, stderr)
		return code
	}
	oneOf(t, "history unchanged", history(unchanged), 0)
	oneOf(t, "history dropped", history(dropped), 1)
}
