package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReportPathsAndFileTypes: every tool refuses (exit 2, naming the flag
// and the file) a report over a file the pipeline owns in any experiment
// folder, read by the call or not; requirements an output inside an
// experiment it reads; compare and history a plots directory that is an
// experiment or the results root they read. A named pipe or a directory
// where a file is expected is refused naming it, without blocking. Nothing
// in the workspace changes.
func TestReportPathsAndFileTypes(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds and runs every tool; skipped with -short")
	}
	w := newWorkspace(t)
	run1, run2, run3 := filepath.Join(w.base, "run1"), filepath.Join(w.base, "run2"), filepath.Join(w.base, "run3")
	raw := filepath.Join(w.cand, rawName)
	fifoDir := filepath.Join(w.dir, "fifo")
	writeMeta(t, fifoDir, nil)
	scaledRaw(t, filepath.Join(fifoDir, rawName), 1, 0)
	fifo := filepath.Join(fifoDir, "measurements_intraprocess_reliable.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	dirRaw := filepath.Join(w.dir, "dirraw")
	scaledRaw(t, filepath.Join(dirRaw, rawName), 1, 0)
	if err := os.MkdirAll(filepath.Join(dirRaw, "measurements_intraprocess_reliable.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifoReqs := filepath.Join(w.dir, "fifo_requirements.csv")
	if err := syscall.Mkfifo(fifoReqs, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tool string
		args []string
		want []string
	}{
		{"process --output-csv the meta.json beside the raw file", "process", []string{"--raw-csv", raw, "--output-csv", filepath.Join(w.cand, "meta.json")},
			[]string{"--output-csv " + filepath.Join(w.cand, "meta.json") + " lies in the experiment", "the run's meta.json (a file the pipeline owns)"}},
		{"process --html another experiment's meta.json", "process", []string{"--no-plots", "--html", filepath.Join(run1, "meta.json"), w.cand},
			[]string{"--html " + filepath.Join(run1, "meta.json") + " lies in the experiment", "the run's meta.json"}},
		{"check --json another experiment's summary", "check", []string{"-r", w.reqs, "-e", w.cand, "--json", filepath.Join(run2, summaryName)},
			[]string{"--json " + filepath.Join(run2, summaryName) + " lies in the experiment", "a summary"}},
		{"compare --html a plot of an experiment not compared", "compare", []string{"--reference", run1, "--results", w.cand, "-p", filepath.Join(w.dir, "cmp"), "--html", filepath.Join(run3, "plots", "x.html")},
			[]string{"--html " + filepath.Join(run3, "plots", "x.html") + " lies in the experiment", "a plot"}},
		{"history --json the candidate's meta.json", "history", []string{"-e", w.base, "-r", w.reqs, "-p", filepath.Join(w.dir, "hist"), "--json", filepath.Join(w.cand, "meta.json")},
			[]string{"--json " + filepath.Join(w.cand, "meta.json") + " lies in the experiment"}},
		{"requirements -o inside an experiment it reads", "requirements", []string{"-e", w.base, "-o", filepath.Join(run3, "latency_requirements.csv")},
			[]string{"--output-file " + filepath.Join(run3, "latency_requirements.csv") + " lies in the experiment " + run3 + " of --experiments-results " + w.base}},
		{"compare -p the results experiment", "compare", []string{"--reference", run1, "--results", w.cand, "-p", w.cand},
			[]string{"--plots-directory " + w.cand + " is the experiment --results " + w.cand, "reports go in a directory of their own"}},
		{"compare -p an experiment not compared", "compare", []string{"--reference", run1, "--results", w.cand, "-p", run2},
			[]string{"--plots-directory " + run2 + " is an experiment folder"}},
		{"history -p the root it reads", "history", []string{"-e", w.base, "-r", w.reqs, "-p", w.base},
			[]string{"--plots-directory " + w.base + " is the results root --experiments-results " + w.base}},
		{"history -p an experiment of the root", "history", []string{"-e", w.base, "-r", w.reqs, "-p", run1},
			[]string{"--plots-directory " + run1 + " is an experiment folder"}},
		{"process a named pipe named as a raw file", "process", []string{"--no-plots", fifoDir},
			[]string{fifo + ": is a named pipe (FIFO), not a regular file: expected a raw measurements file"}},
		{"process a directory named as a raw file", "process", []string{"--no-plots", dirRaw},
			[]string{filepath.Join(dirRaw, "measurements_intraprocess_reliable.csv") + ": is a directory, not a regular file"}},
		{"check requirements that are a named pipe", "check", []string{"-r", fifoReqs, "-e", w.cand},
			[]string{fifoReqs + ": is a named pipe (FIFO), not a regular file: expected a requirements CSV"}},
		{"history requirements that are a named pipe", "history", []string{"-e", w.base, "-r", fifoReqs, "-p", filepath.Join(w.dir, "hist")},
			[]string{fifoReqs + ": is a named pipe (FIFO), not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshotFiles(t, w.dir)
			done := make(chan struct{})
			var code int
			var stdout, stderr string
			go func() { code, stdout, stderr = gateRun(t, w.bins[tt.tool], tt.args...); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("%s blocked", tt.tool)
			}
			if code != 2 {
				t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, f := range tt.want {
				if !strings.Contains(stderr, f) {
					t.Errorf("stderr lacks %q:\n%s", f, stderr)
				}
			}
			after := snapshotFiles(t, w.dir)
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

// snapshotFiles maps every regular file under dir, but the tools, to its
// content (snapshot would block on the named pipes).
func snapshotFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || strings.HasPrefix(path, filepath.Join(dir, "bin")) {
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
