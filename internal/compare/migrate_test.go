package compare_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/synth"
)

// fastrtps holds Fast-RTPS's published v1.9.2 (interprocess only) and
// v1.9.3 (interprocess and intraprocess) summaries, folders without
// meta.json as imported from the Fast-RTPS scripts.
const fastrtps = "../../testdata/fastrtps-versions"

// TestMissingEitherWay: a sub-experiment on one side only is an error or a
// failure unless --allow-missing is given, in both directions. v1.9.3
// gained intraprocess_reliable: without --allow-missing the error names -s
// and --allow-missing as the ways forward; with it, the new sub-experiment
// is reported as new and not compared and the rest is gated. v1.9.2 as the
// results lost it: that still fails without --allow-missing.
func TestMissingEitherWay(t *testing.T) {
	v192, v193 := filepath.Join(fastrtps, "v1.9.2"), filepath.Join(fastrtps, "v1.9.3")
	cases := []struct {
		name      string
		ref, res  string
		args      []string
		code      int
		stdout    []string
		stderr    []string
		compared  []string // comparison CSVs written
		notExists []string
	}{
		{name: "new, not allowed", ref: v192, res: v193, code: exit.Usage,
			stderr:    []string{`sub-experiment "intraprocess_reliable" has no reference`, "-s/--subexperiments (both hold: interprocess_reliable)", "--allow-missing"},
			notExists: []string{"interprocess_reliable_comparison.csv"}},
		{name: "new, allowed", ref: v192, res: v193, args: []string{"--allow-missing"}, code: exit.OK,
			stdout:    []string{`sub-experiment "intraprocess_reliable" is new in the results and not compared`, "interprocess_reliable                    [PASSED]"},
			compared:  []string{"interprocess_reliable_comparison.csv"},
			notExists: []string{"intraprocess_reliable_comparison.csv"}},
		{name: "new, selected away", ref: v192, res: v193, args: []string{"-s", "interprocess_reliable"}, code: exit.OK,
			compared: []string{"interprocess_reliable_comparison.csv"}, notExists: []string{"intraprocess_reliable_comparison.csv"}},
		{name: "lost, not allowed", ref: v193, res: v192, code: exit.GateFailed,
			stdout: []string{"intraprocess_reliable"}, stderr: []string{"1 missing from the results (use --allow-missing"}},
		{name: "lost, allowed", ref: v193, res: v192, args: []string{"--allow-missing"}, code: exit.OK},
		{name: "lost, selected", ref: v193, res: v192, args: []string{"--subexperiments", "intraprocess_reliable"}, code: exit.GateFailed},
		{name: "unknown name", ref: v192, res: v193, args: []string{"-s", "interprocess_reliable,intraprocess"}, code: exit.Usage,
			stderr: []string{`unknown sub-experiment "intraprocess": the sub-experiments found are`, "the sub-experiments found are interprocess_reliable, intraprocess_reliable"}},
		{name: "empty name", ref: v192, res: v193, args: []string{"-s", "interprocess_reliable,"}, code: exit.Usage,
			stderr: []string{"--subexperiments"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			code, stdout, stderr := runCompare(t, dir, append([]string{"-R", c.ref, "-r", c.res, "-p", dir}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			for _, want := range c.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range c.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			for _, f := range c.compared {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("no %s: %v", f, err)
				}
			}
			for _, f := range c.notExists {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s written", f)
				}
			}
		})
	}
}

// TestAsksForRunsFirst: compare without flags names the runs it needs
// first, then the plots directory, in one line.
func TestAsksForRunsFirst(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "compare: --reference DIR, --results DIR and --plots-directory DIR are required (see 'compare --help')\n"},
		{[]string{"-p", "x"}, "compare: --reference DIR and --results DIR are required (see 'compare --help')\n"},
		{[]string{"-R", "a", "-r", "b"}, "compare: --plots-directory DIR is required (see 'compare --help')\n"},
		{[]string{"-R", "a", "-r", "b", "-p", ""}, "compare: --plots-directory is empty: expected a directory\n"},
	} {
		code, stdout, stderr := runCompare(t, t.TempDir(), c.args...)
		if code != exit.Usage || stdout != "" || stderr != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// TestEmptyFileFlags: a report or series flag given an empty value (an
// unset variable in a CI script: --junit "$REPORT") is refused naming the
// flag, before anything is written; it read as not given, so that the
// gate ran, wrote no report and exited by its verdict.
func TestEmptyFileFlags(t *testing.T) {
	for _, flag := range []string{"--junit", "--markdown", "--json", "--html", "--series"} {
		dir := t.TempDir()
		code, stdout, stderr := runCompare(t, dir, "-R", expDir("v192"), "-r", expDir("v192-rerun"), "-p", filepath.Join(dir, "plots"), flag, "")
		want := "compare: " + flag + " is empty: expected a file (an unset variable?); leave the flag out when there is none\n"
		if code != exit.Usage || stdout != "" || stderr != want {
			t.Errorf("%s \"\": exit %d, stdout %q, stderr %q; want 2 and %q", flag, code, stdout, stderr, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s \"\": %d file(s) written in %s", flag, len(entries), dir)
		}
	}
}

// TestEmptyCalibrationLists: --factors "" and --thresholds "" (an unset
// variable) read as not given: the default factors, no threshold table,
// exit 0; now exit 2 naming the flag, nothing written.
func TestEmptyCalibrationLists(t *testing.T) {
	root := t.TempDir()
	pool := filepath.Join(root, "pool")
	if _, err := synth.WriteThroughputRuns(pool, synth.ThroughputSpec{SD: 0.03, Seed: 3}, 1, 8); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--factors", "--thresholds"} {
		out := filepath.Join(t.TempDir(), "cal")
		code, stdout, stderr := runCompare(t, root, "--calibrate", "-r", pool, "-p", out, "--splits", "5", flag, "")
		want := "compare: " + flag + " is empty: expected a comma-separated list (an unset variable?); leave the flag out for its default\n"
		if code != exit.Usage || stdout != "" || stderr != want {
			t.Errorf("%s \"\": exit %d, stdout %q, stderr %q; want 2 and %q", flag, code, stdout, stderr, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s \"\": %s written", flag, out)
		}
	}
}

// TestCopiedRunRefused: a run's folder copied (a CI artifact downloaded
// twice, "run (copy)") is the same run: on both sides it was compared with
// itself, and twice on one side counted as two runs; now exit 2 naming
// both folders. Runs with the same start on different hosts, imported
// folders with a start but no host, and the two sides of an interleaved run
// ab (one start and host, two meta.json) are different runs.
func TestCopiedRunRefused(t *testing.T) {
	root := t.TempDir()
	write := func(name, start, host string) string {
		dir := filepath.Join(root, name)
		copyDir(t, expDir("v192"), dir)
		hostField := ""
		if host != "" {
			hostField = `, "host": {"hostname": "` + host + `"}`
		}
		m := `{"schema": 1, "experiment": "` + name + `", "start": "` + start + `", "completed": true` + hostField + `}`
		if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a := write("a", "2026-11-20T09:00:00.123456789Z", "ci-1")
	copied := filepath.Join(root, "a (copy)")
	copyDir(t, a, copied)
	other := write("other-host", "2026-11-20T09:00:00.123456789Z", "ci-2")
	imp1 := write("v1.9.1", "2019-11-15T00:00:00Z", "")
	imp2 := write("v1.9.2", "2019-11-15T00:00:00Z", "")
	// The other side of an interleaved run ab: one start and host, another
	// meta.json.
	side := write("side", "2026-11-20T09:00:00.123456789Z", "ci-1")
	m := `{"schema": 1, "experiment": "a", "start": "2026-11-20T09:00:00.123456789Z", "completed": true, "host": {"hostname": "ci-1"}, "mode": "interleaved"}`
	if err := os.WriteFile(filepath.Join(side, "meta.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCompare(t, root, "-R", a, "-r", copied, "-p", filepath.Join(root, "p1"))
	if code != exit.Usage || !strings.Contains(stderr, "is given on both sides (reference $OUT/a and results $OUT/a (copy), a copy of the same run (the same meta.json: start, host and all))") {
		t.Errorf("copy on both sides: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCompare(t, root, "-R", a, "-R", copied, "-r", other, "-r", imp1, "-p", filepath.Join(root, "p2"))
	if code != exit.Usage || !strings.Contains(stderr, "is given twice on the reference side") {
		t.Errorf("copy on one side: exit %d, stderr %q", code, stderr)
	}
	for _, pair := range [][2]string{{a, other}, {imp1, imp2}, {a, side}} {
		if code, stdout, stderr := runCompare(t, root, "-R", pair[0], "-r", pair[1], "-p", filepath.Join(root, "p3")); code != exit.OK {
			t.Errorf("%s against %s: exit %d\n%s%s", pair[1], pair[0], code, stdout, stderr)
		}
	}
}

// TestCalibrateRemovesEarlierPlots: a calibration into a folder that an
// earlier one left removes the earlier plots it does not draw again: the
// thresholds plot of a call given --thresholds, the plots of the other
// format; they stayed, shown beside this call's. Other files stay.
func TestCalibrateRemovesEarlierPlots(t *testing.T) {
	root := t.TempDir()
	pool := filepath.Join(root, "pool")
	if _, err := synth.WriteThroughputRuns(pool, synth.ThroughputSpec{SD: 0.03, Seed: 3}, 1, 8); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "cal")
	if code, _, stderr := runCompare(t, root, "--calibrate", "-r", pool, "-p", out, "--splits", "5", "--thresholds", "0,10%", "--format", "png"); code != exit.OK {
		t.Fatalf("first: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCompare(t, root, "--calibrate", "-r", pool, "-p", out, "--splits", "5"); code != exit.OK {
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
	if want := "calibration_outcomes.svg calibration_power.svg notes.txt"; strings.Join(names, " ") != want {
		t.Errorf("folder holds %q, want %q", names, want)
	}
}
