package compare_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/pairing"
)

// TestPairedOnlyWhenInterleaved: runs of the same names taken by two
// separate loops (no series file) are compared unpaired, the report saying
// that drift is not controlled, and an explicit --fail-threshold decides:
// 50 % passes a candidate 30 % slower. They were paired by name and gated
// on the 5 % margins, ignoring the threshold. A series file beside the two
// sides, or --paired, pairs them.
func TestPairedOnlyWhenInterleaved(t *testing.T) {
	// 22 pairs: 14 checks at 1 % need 11 for a FAIL, and pairs found
	// serially dependent are judged in blocks of 2.
	const pairs = 22
	root := t.TempDir()
	refs := writeRuns(t, filepath.Join(root, "loops", ref), "v192", pairs, 1, 0.01, 1)
	cands := writeRuns(t, filepath.Join(root, "loops", cand), "v192", pairs, 1.3, 0.01, 2)
	args := func(plots string, extra ...string) []string {
		return append([]string{"--reference", refs, "--results", cands, "--columns", "Median", "--plots-directory", filepath.Join(root, plots)}, extra...)
	}
	code, stdout, stderr := runCompare(t, root, args("p1", "--fail-threshold", "50%")...)
	if code != exit.OK {
		t.Errorf("--fail-threshold 50%% on a 30%% slower candidate: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"mode: statistical", "drift: not controlled: no series file of run ab (nor --paired) says the runs were interleaved"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("unpaired report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "drift: controlled") {
		t.Errorf("runs of two loops reported as drift-controlled:\n%s", stdout)
	}
	if code, stdout, stderr = runCompare(t, root, args("p2")...); code != exit.GateFailed || !strings.Contains(stdout, "mode: statistical") {
		t.Errorf("default threshold: exit %d, want 1 in statistical mode\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runCompare(t, root, args("p3", "--paired")...); code != exit.GateFailed || !strings.Contains(stdout, "mode: paired") ||
		!strings.Contains(stdout, "drift: controlled") {
		t.Errorf("--paired: exit %d, want 1 in paired mode\n%s%s", code, stdout, stderr)
	}
	writeSeries(t, filepath.Join(root, "loops"), "ab", pairing.DesignRandom, pairRows(pairs))
	if code, stdout, stderr = runCompare(t, root, args("p4")...); code != exit.GateFailed || !strings.Contains(stdout, "mode: paired") ||
		!strings.Contains(stdout, "ab-series.csv") {
		t.Errorf("with the series file: exit %d, want 1 in paired mode naming the file\n%s%s", code, stdout, stderr)
	}
}

// TestFlagsOutOfMode: a flag given explicitly that the comparison's mode
// does not use is refused (exit 2, naming it and why) before anything is
// written, rather than ignored; so are margins that contradict each other.
func TestFlagsOutOfMode(t *testing.T) {
	root := t.TempDir()
	loops := filepath.Join(root, "loops")
	refs := writeRuns(t, filepath.Join(loops, ref), "v192", 4, 1, 0.01, 1)
	cands := writeRuns(t, filepath.Join(loops, cand), "v192", 4, 1.3, 0.01, 2)
	ab := filepath.Join(root, "ab")
	abRefs := writeRuns(t, filepath.Join(ab, ref), "v192", 4, 1, 0.01, 3)
	abCands := writeRuns(t, filepath.Join(ab, cand), "v192", 4, 1.3, 0.01, 4)
	writeSeries(t, ab, "ab", pairing.DesignRandom, pairRows(4))
	several := []string{"--reference", refs, "--results", cands}
	series := []string{"--reference", abRefs, "--results", abCands}
	one := []string{"--reference", expDir("v192"), "--results", expDir("v193-regressed")}
	with := func(base []string, extra ...string) []string { return append(append([]string(nil), base...), extra...) }
	for _, tt := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"fail threshold paired", with(several, "--paired", "--fail-threshold", "50%"), "--fail-threshold does not apply to the paired gate (the runs are paired by --paired)"},
		{"threshold paired by series", with(series, "--threshold", "Median=50%"), "--threshold does not apply to the paired gate (the runs are paired by the series file"},
		{"fail threshold plan", with(series, "--plan", "--fail-threshold", "20%"), "--fail-threshold does not go with --plan"},
		{"plan not interleaved", with(several, "--plan"), "--plan needs A/A pairs known to be interleaved"},
		{"regression without plan", with(series, "--regression", "20%"), "--regression applies to --plan only"},
		{"splits without calibrate", with(several, "--splits", "100"), "--splits applies to --calibrate only"},
		{"seed without calibrate", with(several, "--seed", "7"), "--seed applies to --calibrate and --plan only"},
		{"margin unpaired", with(series, "--unpaired", "--pass-margin", "3%"), "--pass-margin does not go with --unpaired"},
		{"margin not interleaved", with(several, "--fail-margin", "10%"), "--fail-margin applies to the paired gate only, and these runs are compared unpaired"},
		{"margin one run", with(one, "--fail-margin", "10%"), "--fail-margin does not apply with one run per side"},
		{"false fail one run", with(one, "--false-fail", "5%"), "--false-fail does not apply with one run per side"},
		{"pass above fail", with(several, "--paired", "--pass-margin", "20%", "--fail-margin", "10%"), "--pass-margin 20% above --fail-margin 10%: a change between them would both pass and fail"},
		{"calibrate paired", with(several, "--calibrate", "--paired"), "--paired does not go with --calibrate"},
		// Ordered and blocked splits are the runs' own: --splits 50 judged
		// one split and --seed 9 was written as seed 0, without a word.
		{"splits with ordered splits", with(several, "--calibrate", "--split", "ordered", "--splits", "50"), "--splits applies to random splits: --split ordered judges the consecutive splits the runs make"},
		{"seed with blocked splits", with(several, "--calibrate", "--split", "blocked", "--seed", "9"), "--seed applies to random splits: --split blocked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			plots, report := filepath.Join(dir, "plots"), filepath.Join(dir, "report.json")
			args := with(tt.args, "--plots-directory", plots)
			if !strings.Contains(tt.name, "plan") {
				args = append(args, "--json", report)
			}
			code, stdout, stderr := runCompare(t, dir, args...)
			if code != exit.Usage || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want 2 with %q\n%s%s", code, tt.stderr, stdout, stderr)
			}
			for _, p := range []string{plots, report} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}

// TestSameRunsBothSides: the same experiment or folder on both sides
// (spelled differently, or through a symbolic link), or a run given twice,
// is refused (exit 2) before anything is written: it passed, comparing a
// run with itself.
func TestSameRunsBothSides(t *testing.T) {
	root := t.TempDir()
	runs := writeRuns(t, filepath.Join(root, "runs"), "v192", 3, 1, 0.01, 1)
	exp := filepath.Join(root, "exp")
	copyDir(t, expDir("v192"), exp)
	if err := os.Symlink(runs, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	respelled := filepath.Join(root, "runs", "..", "runs") + string(filepath.Separator)
	for _, tt := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"one experiment", []string{"-R", exp, "-r", exp}, "--results $OUT/exp is --reference $OUT/exp again"},
		{"one root", []string{"-R", runs, "-r", runs}, "is --reference $OUT/runs again"},
		{"respelled", []string{"-R", runs, "-r", respelled}, "is --reference $OUT/runs again"},
		{"symbolic link", []string{"-R", runs, "-r", filepath.Join(root, "link")}, "--results $OUT/link is --reference $OUT/runs again"},
		{"run in the root", []string{"-R", runs, "-r", filepath.Join(runs, "run-01"), "-r", filepath.Join(runs, "run-02"), "-r", filepath.Join(runs, "run-03")},
			"experiment $OUT/runs/run-01 is given on both sides"},
		{"twice on one side", []string{"-R", filepath.Join(runs, "run-01"), "-R", filepath.Join(root, "link", "run-01"), "-r", exp, "-r", exp + "/."},
			"again"},
		{"plan", []string{"--plan", "--paired", "-R", runs, "-r", runs}, "again"},
		{"calibrate", []string{"--calibrate", "-r", runs, "-r", filepath.Join(root, "link")}, "again"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plots := filepath.Join(root, "plots-"+strings.ReplaceAll(tt.name, " ", "-"))
			code, stdout, stderr := runCompare(t, root, append(tt.args, "-p", plots)...)
			if code != exit.Usage || !strings.Contains(stderr, tt.stderr) || !strings.Contains(stderr, "different runs on the two sides") {
				t.Errorf("exit %d, want 2 with %q\n%s%s", code, tt.stderr, stdout, stderr)
			}
			if _, err := os.Stat(plots); err == nil {
				t.Errorf("%s written", plots)
			}
		})
	}
}
