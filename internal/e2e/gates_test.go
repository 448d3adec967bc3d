package e2e

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

const summaryName = "measurements_interprocess_reliable_summary.csv"

// gateRun runs a tool and returns its exit code and outputs.
func gateRun(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", filepath.Base(bin), err)
	}
	return code, out.String(), errb.String()
}

// workspace is a results layout every gate test starts from: base/ holds
// three processed experiments (run1..run3, meta.json half-rtt, complete),
// cand/ one more, and latency_requirements.csv is derived from base/.
type workspace struct {
	dir, base, cand, reqs string
	bins                  map[string]string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	dir := t.TempDir()
	w := &workspace{dir: dir, base: filepath.Join(dir, "base"), cand: filepath.Join(dir, "cand"),
		reqs: filepath.Join(dir, "latency_requirements.csv"), bins: buildTools(t, filepath.Join(dir, "bin"))}
	for i, f := range []float64{1, 0.98, 1.02} {
		w.experiment(t, filepath.Join(w.base, "run"+string(rune('1'+i))), f, nil)
	}
	w.experiment(t, w.cand, 1, nil)
	if code, _, stderr := gateRun(t, w.bins["requirements"], "-e", w.base, "-o", w.reqs); code != 0 {
		t.Fatalf("requirements: exit %d\n%s", code, stderr)
	}
	return w
}

// experiment writes a processed experiment at dir from the fixture scaled by
// factor, with a meta.json of a completed half-rtt run changed by mutate.
func (w *workspace) experiment(t *testing.T, dir string, factor float64, mutate func(*meta.Meta)) {
	t.Helper()
	scaledRaw(t, filepath.Join(dir, rawName), factor, 0)
	if code, _, stderr := gateRun(t, w.bins["process"], "--quiet", "--no-plots", dir); code != 0 {
		t.Fatalf("process %s: exit %d\n%s", dir, code, stderr)
	}
	writeMeta(t, dir, mutate)
}

func writeMeta(t *testing.T, dir string, mutate func(*meta.Meta)) {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &meta.Meta{Experiment: filepath.Base(dir), Start: start, End: start.Add(time.Minute),
		Completed: true, Latency: meta.LatencyHalfRTT, System: meta.System{Name: "mqgate-builtin"}}
	if mutate != nil {
		mutate(m)
	}
	if err := meta.Write(filepath.Join(dir, meta.FileName), m); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, filepath.Join(dir, "bin")) {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestOutputsNeverReplaceInputs: every tool refuses, with exit 2 and a
// message naming both flags, an output that is one of its inputs, lies in an
// input experiment as a file the pipeline owns, or is given twice; and
// nothing in the workspace changes.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	raw := filepath.Join(w.cand, rawName)
	sum := filepath.Join(w.cand, summaryName)
	refSum := filepath.Join(w.base, "run1", summaryName)
	cmp := filepath.Join(w.dir, "comparison")
	hist := filepath.Join(w.dir, "history")
	same := filepath.Join(w.dir, "report.out")
	fresh := filepath.Join(w.dir, "fresh")
	freshRaw := filepath.Join(fresh, "measurements_intraprocess_reliable.csv")
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(freshRaw, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checksInput := filepath.Join(w.cand, "checks_old.csv")
	if err := os.WriteFile(checksInput, []byte("Experiment type,Bytes,Median,99%,Max\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// run load's and run permessage's files are the pipeline's (formats §1).
	loadSum := filepath.Join(w.cand, "load_intraprocess_reliable_summary.json")
	perMsg := filepath.Join(w.cand, "permessage_intraprocess_reliable.csv")
	for _, f := range []string{loadSum, perMsg} {
		if err := os.WriteFile(f, []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		tool  string
		args  []string
		flags []string // named in the message
	}{
		{"check --markdown a load summary", "check", []string{"-r", w.reqs, "-e", w.cand, "--markdown", loadSum}, []string{"--markdown " + loadSum, "--experiment-directory " + w.cand, "a load file"}},
		{"compare --json a per-message file", "compare", []string{"--reference", filepath.Join(w.base, "run1"), "--results", w.cand, "-p", cmp, "--json", perMsg},
			[]string{"--json " + perMsg, "--results " + w.cand, "a per-message file"}},
		{"process --html the raw file", "process", []string{"--html", raw, w.cand}, []string{"--html " + raw, "EXPERIMENT_DIR " + w.cand}},
		{"process --html the raw file given", "process", []string{"--raw-csv", raw, "--html", raw}, []string{"--html " + raw, "--raw-csv file"}},
		{"process --output-csv the raw file", "process", []string{"--raw-csv", raw, "--output-csv", raw}, []string{"--output-csv " + raw}},
		{"check --json the requirements", "check", []string{"-r", w.reqs, "-e", w.cand, "--json", w.reqs}, []string{"--json " + w.reqs, "--requirements file"}},
		{"check --markdown a summary", "check", []string{"-r", w.reqs, "-e", w.cand, "--markdown", sum}, []string{"--markdown " + sum, "--experiment-directory " + w.cand, "a summary"}},
		{"check --html and --junit the same", "check", []string{"-r", w.reqs, "-e", w.cand, "--html", same, "--junit", same}, []string{"--junit " + same, "--html " + same, "same file"}},
		{"check requirements its reports replace", "check", []string{"-r", checksInput, "-e", w.cand}, []string{"--requirements " + checksInput, "--experiment-directory " + w.cand}},
		{"compare --json the reference summary", "compare", []string{"--reference", filepath.Join(w.base, "run1"), "--results", w.cand, "-p", cmp, "--json", refSum},
			[]string{"--json " + refSum, "--reference " + filepath.Join(w.base, "run1")}},
		{"compare --markdown a comparison CSV", "compare", []string{"--reference", filepath.Join(w.base, "run1"), "--results", w.cand, "-p", cmp, "--markdown", filepath.Join(cmp, "interprocess_reliable_comparison.csv")},
			[]string{"--markdown " + filepath.Join(cmp, "interprocess_reliable_comparison.csv"), "--plots-directory " + cmp}},
		{"requirements -o an input summary", "requirements", []string{"-e", w.base, "-o", refSum}, []string{"--output-file " + refSum, "--experiments-results " + w.base}},
		{"history --html the requirements", "history", []string{"-e", w.base, "-r", w.reqs, "-p", hist, "--html", w.reqs}, []string{"--html " + w.reqs, "--requirements file"}},
		{"history --html its CSV", "history", []string{"-e", w.base, "-r", w.reqs, "-p", hist, "--html", filepath.Join(hist, "history.csv")}, []string{"--html " + filepath.Join(hist, "history.csv"), "--plots-directory " + hist}},
		{"run --ca a file it writes", "run", []string{"--out", w.dir, "--name", "fresh", "-s", "intraprocess_reliable", "--samples", "10", "--warmup", "0",
			"--ca", freshRaw, "--cert", freshRaw, "--key", freshRaw}, []string{"--out/--name: " + fresh + " exists already"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, w.dir)
			code, stdout, stderr := gateRun(t, w.bins[tt.tool], tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, f := range tt.flags {
				if !strings.Contains(stderr, f) {
					t.Errorf("stderr does not name %q:\n%s", f, stderr)
				}
			}
			after := snapshot(t, w.dir)
			for path, content := range before {
				if got, ok := after[path]; !ok {
					t.Errorf("%s was removed", path)
				} else if got != content {
					t.Errorf("%s was changed", path)
				}
			}
			for path := range after {
				if _, ok := before[path]; !ok {
					t.Errorf("%s was written", path)
				}
			}
		})
	}
}

// TestIncompleteRuns: an interrupted run fails or errors in every tool
// unless --allow-incomplete, and then every report says so.
func TestIncompleteRuns(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	writeMeta(t, w.cand, func(m *meta.Meta) { m.Completed, m.Interrupted = false, true })
	cut := filepath.Join(w.base, "run3")
	writeMeta(t, cut, func(m *meta.Meta) { m.Completed, m.Interrupted = false, true })
	reports := filepath.Join(w.dir, "reports")
	r := func(name string) string { return filepath.Join(reports, name) }
	cmp := filepath.Join(w.dir, "comparison")
	commands := []struct {
		tool string
		args []string
	}{
		{"check", []string{"-r", w.reqs, "-e", w.cand, "--junit", r("check.xml"), "--markdown", r("check.md"), "--json", r("check.json"), "--html", r("check.html")}},
		{"compare", []string{"--reference", filepath.Join(w.base, "run1"), "--results", w.cand, "-p", cmp,
			"--junit", r("compare.xml"), "--markdown", r("compare.md"), "--json", r("compare.json"), "--html", r("compare.html")}},
		{"requirements", []string{"-e", w.base, "-o", r("reqs.csv")}},
		{"history", []string{"-e", w.base, "-r", w.reqs, "-p", filepath.Join(w.dir, "history"), "--format", "svg", "--html", r("history.html")}},
	}
	for _, c := range commands {
		t.Run(c.tool, func(t *testing.T) {
			code, _, stderr := gateRun(t, w.bins[c.tool], c.args...)
			if code != 2 || !strings.Contains(stderr, "is incomplete (meta.json says the run was interrupted)") || !strings.Contains(stderr, "--allow-incomplete") {
				t.Fatalf("without --allow-incomplete: exit %d, want 2 and a message naming the flag\n%s", code, stderr)
			}
			if _, err := os.Stat(reports); err == nil {
				t.Fatalf("reports written despite the error")
			}
			code, stdout, stderr := gateRun(t, w.bins[c.tool], append(c.args, "--allow-incomplete")...)
			if code != 0 {
				t.Fatalf("with --allow-incomplete: exit %d\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout+stderr, "incomplete") {
				t.Errorf("console output does not say the run is incomplete:\n%s%s", stdout, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(reports, c.tool+".*"))
			if c.tool == "compare" {
				files = append(files, filepath.Join(cmp, "interprocess_reliable_comparison.csv"))
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), "incomplete") {
					t.Errorf("%s does not say the run is incomplete", f)
				}
			}
			if err := os.RemoveAll(reports); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStaleSummary: a summary older than its raw file (raw rewritten after
// process) is refused by every tool, telling to run process again.
func TestStaleSummary(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	for _, dir := range []string{w.cand, filepath.Join(w.base, "run2")} {
		sum, err := os.Stat(filepath.Join(dir, summaryName))
		if err != nil {
			t.Fatal(err)
		}
		later := sum.ModTime().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(dir, rawName), later, later); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		tool string
		args []string
		dir  string
	}{
		{"check", []string{"-r", w.reqs, "-e", w.cand}, w.cand},
		{"compare", []string{"--reference", filepath.Join(w.base, "run1"), "--results", w.cand, "-p", filepath.Join(w.dir, "cmp")}, w.cand},
		{"requirements", []string{"-e", w.base, "-o", filepath.Join(w.dir, "r.csv")}, filepath.Join(w.base, "run2")},
		{"history", []string{"-e", w.base, "-r", w.reqs, "-p", filepath.Join(w.dir, "h")}, filepath.Join(w.base, "run2")},
	} {
		t.Run(c.tool, func(t *testing.T) {
			code, _, stderr := gateRun(t, w.bins[c.tool], c.args...)
			want := filepath.Join(c.dir, summaryName) + ": stale: " + rawName + " was modified 1h0m0s after this summary was written"
			if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "run process on "+c.dir+" again") {
				t.Errorf("exit %d, want 2 and\n%s\ngot\n%s", code, want, stderr)
			}
		})
	}
}

// TestLatencyDefinitions: no tool mixes latency definitions; experiments
// without meta.json (Fast-RTPS) count as half-rtt.
func TestLatencyDefinitions(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	rtt := filepath.Join(w.dir, "rtt")
	w.experiment(t, rtt, 2, func(m *meta.Meta) { m.Latency = meta.LatencyRTT })
	mixed := filepath.Join(w.dir, "mixed")
	if err := os.MkdirAll(mixed, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(w.base, "run1"), rtt} {
		if err := os.Symlink(d, filepath.Join(mixed, filepath.Base(d))); err != nil {
			t.Fatal(err)
		}
	}
	fastrtps := filepath.Join(w.dir, "fastrtps")
	w.experiment(t, fastrtps, 1, nil)
	if err := os.Remove(filepath.Join(fastrtps, meta.FileName)); err != nil {
		t.Fatal(err)
	}
	rttReqs := filepath.Join(w.dir, "rtt_requirements.csv")
	rttRoot := filepath.Join(w.dir, "rttroot")
	if err := os.MkdirAll(rttRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rtt, filepath.Join(rttRoot, "rtt")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := gateRun(t, w.bins["requirements"], "-e", rttRoot, "-o", rttReqs); code != 0 {
		t.Fatalf("requirements from an rtt experiment: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(rttReqs); !strings.HasPrefix(string(b), "Experiment type,Bytes,Median,99%,Max,Latency\n") || !strings.Contains(string(b), ",rtt\n") {
		t.Errorf("rtt requirements do not say so:\n%s", b)
	}
	cases := []struct {
		name string
		tool string
		args []string
		code int
		want string
	}{
		{"compare half-rtt with rtt", "compare", []string{"--reference", filepath.Join(w.base, "run1"), "--results", rtt, "-p", filepath.Join(w.dir, "c1")}, 2,
			"half-rtt (half the round trip): " + filepath.Join(w.base, "run1") + "; rtt (the whole round trip): " + rtt},
		{"compare Fast-RTPS with half-rtt", "compare", []string{"--reference", fastrtps, "--results", w.cand, "-p", filepath.Join(w.dir, "c2")}, 0, ""},
		{"compare Fast-RTPS with rtt", "compare", []string{"--reference", fastrtps, "--results", rtt, "-p", filepath.Join(w.dir, "c3")}, 2,
			fastrtps + " (no meta.json: half-rtt, as Fast-RTPS)"},
		{"check rtt against half-rtt requirements", "check", []string{"-r", w.reqs, "-e", rtt}, 2,
			"the requirements file " + w.reqs + " holds half-rtt latencies (half the round trip) but the experiments measure rtt"},
		{"check half-rtt against rtt requirements", "check", []string{"-r", rttReqs, "-e", w.cand}, 2,
			"the requirements file " + rttReqs + " holds rtt latencies"},
		{"check rtt against rtt requirements", "check", []string{"-r", rttReqs, "-e", rtt}, 0, ""},
		{"requirements from mixed experiments", "requirements", []string{"-e", mixed, "-o", filepath.Join(w.dir, "m.csv")}, 2, "measure latency differently"},
		{"history of mixed experiments", "history", []string{"-e", mixed, "-r", w.reqs, "-p", filepath.Join(w.dir, "h1")}, 2, "measure latency differently"},
		{"history against other requirements", "history", []string{"-e", w.base, "-r", rttReqs, "-p", filepath.Join(w.dir, "h2")}, 2, "holds rtt latencies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := gateRun(t, w.bins[c.tool], c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, c.code, c.want, stdout, stderr)
			}
		})
	}
}

// TestSameExperimentsEverywhere: requirements and history read the same
// experiments from the same root, following symbolic links to directories,
// and warn about every entry they skip.
func TestSameExperimentsEverywhere(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	root := filepath.Join(w.dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(w.base, "run1"), filepath.Join(root, "run1")); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"run2":     filepath.Join(w.base, "run2"),
		"dangling": filepath.Join(w.dir, "nowhere"),
		"loop":     filepath.Join(root, "loop"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	skipped := []string{
		filepath.Join(root, "dangling") + ": a symbolic link to nothing (dangling)",
		filepath.Join(root, "loop") + ": a symbolic link that cannot be followed",
		filepath.Join(root, "notes.txt") + ": not a directory",
	}
	_, out, stderr := gateRun(t, w.bins["requirements"], "-e", root, "-o", filepath.Join(w.dir, "r.csv"))
	if !strings.Contains(out, "from 2 experiment(s)") {
		t.Errorf("requirements did not read 2 experiments:\n%s%s", out, stderr)
	}
	for _, s := range skipped {
		if !strings.Contains(stderr, "requirements: warning: skipped "+s) {
			t.Errorf("requirements does not warn %q:\n%s", s, stderr)
		}
	}
	_, out, stderr = gateRun(t, w.bins["history"], "-e", root, "-r", w.reqs, "-p", filepath.Join(w.dir, "h"))
	if !strings.Contains(out, "2 experiment(s)") {
		t.Errorf("history did not read 2 experiments:\n%s%s", out, stderr)
	}
	for _, s := range skipped {
		if !strings.Contains(stderr, "history: warning: skipped "+s) {
			t.Errorf("history does not warn %q:\n%s", s, stderr)
		}
	}
}

// TestPairedTooFewPairs: a paired gate of 3 pairs, fewer than an exact
// sign test needs to decide, is inconclusive (exit 3): neither FAIL nor
// PASS, saying how many pairs would decide; not an input error.
func TestPairedTooFewPairs(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	again := filepath.Join(w.dir, "again")
	copyTree(t, w.base, again)
	code, stdout, stderr := gateRun(t, w.bins["compare"], "--reference", w.base, "--results", again, "--paired", "-p", filepath.Join(w.dir, "cmp"))
	want := regexp.MustCompile(`inconclusive: 3 pairs: no FAIL and no PASS below \d+`)
	if code != 3 || !want.MatchString(stderr) {
		t.Errorf("exit %d, want 3 and /%s/\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
	}
}
