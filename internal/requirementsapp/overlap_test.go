package requirementsapp_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/requirementsapp"
	"github.com/mqgate/mqgate/internal/synth"
)

// writeMetas gives every experiment folder under root the meta.json of a
// completed half-rtt run listing its sub-experiments and payloads, started
// a minute apart in name order from start.
func writeMetas(t *testing.T, root string, start time.Time) {
	t.Helper()
	exps, _, err := experiment.LoadRoot(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range exps {
		m := &meta.Meta{Schema: meta.SchemaVersion, Experiment: e.Name, Completed: true, Latency: meta.LatencyHalfRTT,
			Host: meta.Host{Hostname: "runner"}}
		m.Start = start.Add(time.Duration(i) * time.Minute)
		m.End = m.Start.Add(30 * time.Second)
		for _, s := range e.Summaries {
			m.Config.SubExperiments = append(m.Config.SubExperiments, s.Type)
			for _, r := range s.Rows {
				if !slices.Contains(m.Config.Payloads, r.Bytes) {
					m.Config.Payloads = append(m.Config.Payloads, r.Bytes)
				}
			}
		}
		if err := meta.Write(filepath.Join(e.Dir, meta.FileName), m); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot returns every file under dir with its content, to tell that a
// refused call changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			files[path] = "dir"
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			files[path] = "link to " + target
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

// unchanged reports the first difference between two snapshots.
func unchanged(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s is gone", p)
		} else if a != b {
			t.Errorf("%s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was written", p)
		}
	}
}

// calibrationPools writes a pool of unchanged runs and a folder of
// regressed runs, each run with meta.json, in one temporary directory.
func calibrationPools(t *testing.T) (base, pool, regressed string) {
	t.Helper()
	base = t.TempDir()
	pool, regressed = filepath.Join(base, "pool"), filepath.Join(base, "regressed")
	if err := os.Rename(writePool(t, logNormalObservations(2, 12, 1, 0.05)), pool); err != nil {
		t.Fatal(err)
	}
	slow := logNormalObservations(9, 6, 1, 0.05)
	for i := range slow {
		slow[i].Median, slow[i].P99, slow[i].Max = 3*slow[i].Median, 3*slow[i].P99, 3*slow[i].Max
		slow[i].Experiment = "slow-" + slow[i].Experiment
	}
	if err := os.Rename(writePool(t, slow), regressed); err != nil {
		t.Fatal(err)
	}
	writeMetas(t, pool, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	writeMetas(t, regressed, time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	return base, pool, regressed
}

// firstRuns returns the paths of the first n experiment folders in root.
func firstRuns(t *testing.T, root string, n int) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) < n {
		t.Fatalf("%s: %d entries, %v", root, len(entries), err)
	}
	var dirs []string
	for _, e := range entries[:n] {
		dirs = append(dirs, filepath.Join(root, e.Name()))
	}
	return dirs
}

// TestCalibrateOutputsOverInputs: every output of --calibrate (--json, the
// plots of --plots-directory) is refused over its inputs (the pool and the
// regressed runs) and over each other, before anything is read or written.
func TestCalibrateOutputsOverInputs(t *testing.T) {
	base, pool, regressed := calibrationPools(t)
	runs, regRuns := firstRuns(t, pool, 3), firstRuns(t, regressed, 1)
	plotsDir := filepath.Join(base, "plots")
	tests := []struct {
		name         string
		json, plots  string
		stderr       string
		withRegresed bool
	}{
		{"json over a run's meta.json", filepath.Join(runs[1], meta.FileName), plotsDir, "--json " + filepath.Join(runs[1], meta.FileName), false},
		{"json over a summary", filepath.Join(runs[1], experiment.SummaryFileName("type_a")), plotsDir, "a summary", false},
		{"json inside a run", filepath.Join(runs[1], "calibration.json"), plotsDir, "would pass for a file of that experiment", false},
		{"json over a regressed run's meta.json", filepath.Join(regRuns[0], meta.FileName), plotsDir, "--json " + filepath.Join(regRuns[0], meta.FileName), true},
		{"plots into a run", "", runs[2], "--plots-directory " + runs[2] + " is an experiment folder", false},
		{"plots into the pool", "", pool, "--plots-directory " + pool + " is the results root --experiments-results", false},
		{"plots into a folder of the pool", "", filepath.Join(pool, "plots"), "is a folder in the results root --experiments-results", false},
		{"plots into the regressed runs", "", regressed, "--plots-directory " + regressed + " is the results root --regressed", true},
		{"plots into a regressed run", "", regRuns[0], "is an experiment folder", true},
		{"json over a plot", filepath.Join(plotsDir, requirementsapp.CalibrationPlotStem+"_power.png"), plotsDir, "is one of the files written into --plots-directory", false},
		{"plot over a directory", "", filepath.Join(base, "blocked"), "--plots-directory: cannot write " + filepath.Join(base, "blocked", requirementsapp.CalibrationPlotStem+"_power.png") + ": it is a directory", false},
		{"json over a directory", filepath.Join(base, "dir.json"), plotsDir, "--json: cannot write " + filepath.Join(base, "dir.json") + ": it is a directory", false},
		{"plots directory a file", "", filepath.Join(base, "file"), "--plots-directory: cannot create the directory", false},
	}
	if err := os.MkdirAll(filepath.Join(base, "blocked", requirementsapp.CalibrationPlotStem+"_power.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(base, "dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "file"), []byte("a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, base)
			args := []string{"--calibrate", "-e", pool, "--false-fail", "0.05", "--splits", "5", "--plots-directory", tt.plots}
			if tt.json != "" {
				args = append(args, "--json", tt.json)
			}
			if tt.withRegresed {
				args = append(args, "--regressed", regressed)
			}
			code, stdout, stderr := runRequirements(t, "\x00", args...)
			if code != exit.Usage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want 2 with %q\nstderr: %s", code, tt.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout of a refused call:\n%s", stdout)
			}
			unchanged(t, before, snapshot(t, base))
		})
	}
}

// TestCalibrateRegressedOverlapsPool: --regressed naming the pool, however
// spelled, one of its runs, or runs of it (linked or copied) is refused:
// the same runs would be judged as unchanged and as regressed.
func TestCalibrateRegressedOverlapsPool(t *testing.T) {
	base, pool, regressed := calibrationPools(t)
	runs := firstRuns(t, pool, 2)
	link := filepath.Join(base, "pool-link")
	if err := os.Symlink(pool, link); err != nil {
		t.Fatal(err)
	}
	// Regressed runs beside links to two of the pool's runs.
	linked := filepath.Join(base, "linked")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range firstRuns(t, regressed, 6) {
		if err := os.Symlink(r, filepath.Join(linked, filepath.Base(r))); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range runs {
		if err := os.Symlink(r, filepath.Join(linked, "z-"+filepath.Base(r))); err != nil {
			t.Fatal(err)
		}
	}
	// Regressed runs beside a copy of one of the pool's runs.
	copied := filepath.Join(base, "copied")
	for _, r := range append(firstRuns(t, regressed, 6), runs[1]) {
		dst := filepath.Join(copied, "c-"+filepath.Base(r))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(r)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(r, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	plotsDir := filepath.Join(base, "plots")
	tests := []struct{ name, regressed, stderr string }{
		{"the pool", pool, "--regressed " + pool + " is the folder of --experiments-results " + pool},
		{"the pool with a trailing slash", pool + "/", "is the folder of --experiments-results"},
		{"the pool spelled through its parent", filepath.Join(pool, "..", "pool") + "/.", "is the folder of --experiments-results"},
		{"a symbolic link to the pool", link, "--regressed " + link + " is the folder of --experiments-results"},
		{"one of the pool's runs", runs[0], "--regressed " + runs[0] + " is the run " + runs[0] + " of --experiments-results"},
		{"one of the pool's runs through a link", filepath.Join(link, filepath.Base(runs[1])), "is the run " + runs[1] + " of --experiments-results"},
		{"links to runs of the pool", linked, "holds " + filepath.Join(linked, "z-"+filepath.Base(runs[0])) + ", and --experiments-results " + pool + " holds " + runs[0] + ", the same folder"},
		{"a copy of a run of the pool", copied, ", the same run (the same meta.json: start, host and all)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, base)
			code, stdout, stderr := runRequirements(t, "\x00", "--calibrate", "-e", pool, "--regressed", tt.regressed, "--false-fail", "0.05", "--splits", "5",
				"--plots-directory", plotsDir)
			if code != exit.Usage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want 2 with %q\nstderr: %s", code, tt.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout of a refused call:\n%s", stdout)
			}
			unchanged(t, before, snapshot(t, base))
		})
	}
	// The regressed runs on their own are taken.
	code, stdout, stderr := runRequirements(t, "\x00", "--calibrate", "-e", pool, "--regressed", regressed, "--false-fail", "0.05", "--splits", "5",
		"--candidate-runs", "4", "--plots-directory", plotsDir)
	if code != 0 || !strings.Contains(stdout, "6 regressed runs") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestOutputsLandTogether: the requirements CSVs and the drift report of one
// call land together or not at all: an output that cannot be written
// leaves the others as they were, and the call exits 2 naming it.
func TestOutputsLandTogether(t *testing.T) {
	root := writeExperiments(t)
	dir := t.TempDir()
	req := filepath.Join(dir, "req.csv")
	old := "Experiment type,Bytes,Median,99%,Max\nintraprocess_best_effort,16,1.000,2.000,3.000\n"
	if err := os.WriteFile(req, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := func(t *testing.T, stderr string, args ...string) {
		t.Helper()
		before := snapshot(t, dir)
		code, stdout, gotErr := runRequirements(t, dir, args...)
		if code != exit.Usage || !strings.Contains(gotErr, stderr) {
			t.Errorf("exit %d, want 2 with %q\nstderr: %s", code, stderr, gotErr)
		}
		if strings.Contains(stdout, "written to") {
			t.Errorf("stdout claims a file written:\n%s", stdout)
		}
		unchanged(t, before, snapshot(t, dir))
		if b, _ := os.ReadFile(req); string(b) != old {
			t.Errorf("%s changed:\n%s", req, b)
		}
	}
	// The drift report cannot be written: a directory has its name.
	drift := filepath.Join(dir, "req_drift.csv")
	if err := os.Mkdir(drift, 0o755); err != nil {
		t.Fatal(err)
	}
	refused(t, "requirements: the drift report beside --output-file: cannot write $DIR/req_drift.csv: it is a directory; expected a file name",
		"-e", root, "-o", req)
	// Also with --runs, before any run.
	runsOut := filepath.Join(t.TempDir(), "runs")
	refused(t, "the drift report beside --output-file: cannot write $DIR/req_drift.csv: it is a directory", "--runs", "2", "--out", runsOut, "-o", req)
	if _, err := os.Stat(runsOut); err == nil {
		t.Errorf("%s made by a refused call", runsOut)
	}
	if err := os.Remove(drift); err != nil {
		t.Fatal(err)
	}

	// The throughput requirements cannot be written where they go by
	// default: known only once the experiments show throughput summaries.
	entries, _ := os.ReadDir(root)
	for i, e := range entries {
		dirs, err := synth.WriteThroughputRuns(t.TempDir(), synth.ThroughputSpec{SD: 0.03, Seed: uint64(i)}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		name := experiment.ThroughputFileName("intraprocess_best_effort")
		data, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, e.Name(), name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tdir := filepath.Join(dir, requirements.DefaultThroughputFileName)
	if err := os.Mkdir(tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	refused(t, "--throughput-output-file: cannot write $DIR/"+requirements.DefaultThroughputFileName+": it is a directory", "-e", root, "-o", req)
	if err := os.Remove(tdir); err != nil {
		t.Fatal(err)
	}

	// Nothing in the way: all three land.
	code, stdout, stderr := runRequirements(t, dir, "-e", root, "-o", req)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{req, drift, filepath.Join(dir, requirements.DefaultThroughputFileName)} {
		if !strings.Contains(stdout, "written to "+strings.ReplaceAll(p, dir, "$DIR")) {
			t.Errorf("stdout does not name %s:\n%s", p, stdout)
		}
	}
	if b, _ := os.ReadFile(req); string(b) == old {
		t.Errorf("%s not replaced", req)
	}
}
