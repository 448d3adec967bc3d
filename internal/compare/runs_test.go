package compare_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/compare"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// writeRuns writes n experiment folders run-01 … run-n under root, each a
// copy of the test experiment base with every latency multiplied by factor
// and by log-normal run-to-run noise of standard deviation sd (seeded, one
// draw per payload row), and returns root.
func writeRuns(t *testing.T, root, base string, n int, factor, sd float64, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	src, err := experiment.Load(expDir(base))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("run-%02d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, s := range src.Summaries {
			rows := make([]result.SummaryRow, len(s.Rows))
			for j, r := range s.Rows {
				rows[j] = r
				// One factor per row keeps the row a consistent summary
				// (Min ≤ Median ≤ … ≤ Max).
				f := factor * math.Exp(sd*rng.NormFloat64())
				for _, col := range result.SummaryColumns {
					if v, ok := r.Get(col); ok {
						rows[j].Set(col, math.Round(v*f*1000)/1000)
					}
				}
			}
			if err := result.WriteSummaryFile(filepath.Join(dir, experiment.SummaryFileName(s.Type)), rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// TestStatisticalExitCodes runs compare unpaired on several runs per side
// (the runs are measured apart, though named alike): unchanged
// runs pass (0), a 50 % regression fails (1), too few runs are inconclusive
// (3) and one run against several is a usage error (2). Every run names
// its mode.
func TestStatisticalExitCodes(t *testing.T) {
	root := t.TempDir()
	ref := writeRuns(t, filepath.Join(root, "ref"), "v192", 10, 1, 0.02, 1)
	same := writeRuns(t, filepath.Join(root, "same"), "v192", 10, 1, 0.02, 2)
	slow := writeRuns(t, filepath.Join(root, "slow"), "v192", 10, 1.5, 0.02, 3)
	few := writeRuns(t, filepath.Join(root, "few"), "v192", 4, 1, 0.02, 4)
	fewRef := writeRuns(t, filepath.Join(root, "fewref"), "v192", 4, 1, 0.02, 5)
	nine := writeRuns(t, filepath.Join(root, "nine"), "v192", 9, 1, 0.02, 6)
	tests := []struct {
		name string
		args []string
		code int
		out  []string
	}{
		{"unchanged", []string{"--reference", ref, "--results", same}, exit.OK,
			[]string{"mode: statistical", "family-wise false-fail level 1%", "compare PASSED", "10 runs",
				"rule: pass: every check's interval lies within its threshold", "N = 10 runs per side", "drift: not controlled",
				"reference τ"}},
		// Sides of 10 and 9 runs: N was "9 runs per side".
		{"unequal sides", []string{"--reference", ref, "--results", nine}, exit.OK,
			[]string{"N = 9 runs on the smaller side (10 reference, 9 candidate)"}},
		{"regressed", []string{"--reference", ref, "--results", slow}, exit.GateFailed,
			[]string{"failed: 16 B Median: candidate/reference ×1.5", "regression beyond ×1.100", "runs 10/10"}},
		{"too few runs", []string{"--reference", fewRef, "--results", few}, exit.Inconclusive,
			[]string{"not gateable with 4 runs: needs ≈ 5 per side", "compare INCONCLUSIVE"}},
		{"runs given one by one", []string{"--reference", filepath.Join(fewRef, "run-01"), "--reference", filepath.Join(fewRef, "run-02"),
			"--results", filepath.Join(few, "run-01"), "--results", filepath.Join(few, "run-02")}, exit.Inconclusive,
			[]string{"runs 2/2", "not gateable with 2 runs"}},
		{"one against several", []string{"--reference", filepath.Join(ref, "run-01"), "--results", same}, exit.Usage,
			[]string{"1 reference runs and 10 runs to gate"}},
		{"bad false-fail", []string{"--reference", ref, "--results", same, "--false-fail", "0.7"}, exit.Usage,
			[]string{"--false-fail"}},
		{"max asked for", []string{"--reference", ref, "--results", same, "--columns", "Median,Max", "--false-fail", "5%"}, exit.OK,
			[]string{"family-wise false-fail level 5%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "plots")
			code, stdout, stderr := runCompare(t, root, append(tt.args, "--unpaired", "--plots-directory", out)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.out {
				if !strings.Contains(stdout+stderr, want) {
					t.Errorf("output lacks %q:\n%s%s", want, stdout, stderr)
				}
			}
		})
	}
}

// TestStatisticalChecks: with several runs per side every check carries the
// evidence, and Holm's correction spans all sub-experiments.
func TestStatisticalChecks(t *testing.T) {
	root := t.TempDir()
	refs, _, err := compare.LoadSide(t.Context(), []string{writeRuns(t, filepath.Join(root, "ref"), "v192", 8, 1, 0.02, 1)})
	if err != nil {
		t.Fatal(err)
	}
	tgts, _, err := compare.LoadSide(t.Context(), []string{writeRuns(t, filepath.Join(root, "tgt"), "v192", 9, 1.3, 0.02, 2)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := compare.CompareRuns(refs, tgts, compare.Config{Threshold: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != gate.ModeStatistical || len(res.Subs) != 2 {
		t.Fatalf("mode %q, %d subs", res.Mode, len(res.Subs))
	}
	k := 0
	for _, s := range res.Subs {
		k += len(s.Checks)
	}
	if k != 3*(len(res.Subs[0].Reference.Rows)+len(res.Subs[1].Reference.Rows)) {
		t.Errorf("%d checks: the default columns are Min, Median, 99%%", k)
	}
	for _, s := range res.Subs {
		for _, c := range s.Checks {
			st := c.Stats
			if st == nil || st.NReference != 8 || st.NCandidate != 9 {
				t.Fatalf("%s: stats %+v", c.Message, st)
			}
			if c.Status != gate.Failed {
				t.Errorf("a 30%% regression was not failed: %s", c.Message)
			}
			if st.PAdjusted < st.P || st.PAdjusted > float64(k)*st.P+1e-12 {
				t.Errorf("Holm-adjusted p %v outside [p, K·p] for p %v, K %d", st.PAdjusted, st.P, k)
			}
		}
	}
	v := res.Verdict()
	if v.Mode != gate.ModeStatistical || v.FalseFail != 0.01 || v.ExitCode() != exit.GateFailed {
		t.Errorf("verdict mode %q false-fail %v exit %d", v.Mode, v.FalseFail, v.ExitCode())
	}
	// Plots and tables show the median of the runs.
	if got, want := res.Subs[0].Target.Rows[0].Median, stats.Median(medians(res.Subs[0].TargetRuns)); got != want {
		t.Errorf("median row %v, want %v", got, want)
	}
}

func medians(runs []*experiment.Summary) []float64 {
	var x []float64
	for _, r := range runs {
		x = append(x, r.Rows[0].Median)
	}
	return x
}

// TestStatisticalInputErrors: a sub-experiment in some runs of a side only,
// and payloads that differ between runs, are input errors naming the runs.
func TestStatisticalInputErrors(t *testing.T) {
	root := t.TempDir()
	ref := writeRuns(t, filepath.Join(root, "ref"), "v192", 3, 1, 0.02, 1)
	tgt := writeRuns(t, filepath.Join(root, "tgt"), "v192", 3, 1, 0.02, 2)
	if err := os.Remove(filepath.Join(tgt, "run-02", experiment.SummaryFileName("intraprocess_best_effort"))); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCompare(t, root, "--reference", ref, "--results", tgt, "--plots-directory", filepath.Join(root, "p"))
	if code != exit.Usage || !strings.Contains(stderr, `sub-experiment "intraprocess_best_effort" is in 2 results runs but missing from 1`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	tgt2 := writeRuns(t, filepath.Join(root, "tgt2"), "v193-payloads", 1, 1, 0.02, 2)
	code, _, stderr = runCompare(t, root, "--reference", ref, "--results", filepath.Join(tgt, "run-01"), "--results", tgt2, "--plots-directory", filepath.Join(root, "p"))
	if code != exit.Usage || !strings.Contains(stderr, "different payloads") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestCalibrateCommand: compare --calibrate pools the runs of both flags,
// prints the false-fail rate and power, and writes JSON and the power plot.
func TestCalibrateCommand(t *testing.T) {
	root := t.TempDir()
	a := writeRuns(t, filepath.Join(root, "a"), "v192", 6, 1, 0.02, 1)
	b := writeRuns(t, filepath.Join(root, "b"), "v192", 6, 1, 0.02, 2)
	out := filepath.Join(root, "plots")
	js := filepath.Join(root, "cal.json")
	code, stdout, stderr := runCompare(t, root, "--calibrate", "--reference", a, "--results", b, "--plots-directory", out,
		"--runs-per-side", "6", "--splits", "20", "--factors", "1.2,2", "--json", js, "--thresholds", "0.1,50%")
	if code != exit.OK {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, want := range []string{"calibration: 12 unchanged runs, 6 per side, 20 random splits (seed 1), 42 checks",
		"false fails:  0 of 20", "×2 ", "power curve: $OUT/plots/calibration_power.svg", "verdicts: $OUT/plots/calibration_outcomes.svg",
		"unchanged system by --fail-threshold:", "verdicts by threshold: $OUT/plots/calibration_thresholds.svg"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{js, filepath.Join(out, "calibration_power.svg"), filepath.Join(out, "calibration_outcomes.svg")} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--calibrate", "--results", a, "--runs-per-side", "4"}, "--runs-per-side 4: the pool has 6 runs; expected at most 3 (half the pool)"},
		{[]string{"--calibrate", "--results", a, "--junit", filepath.Join(root, "x.xml")}, "--junit does not go with --calibrate"},
		{[]string{"--calibrate", "--results", a, "--factors", "1.1,x"}, `"x" is not a number`},
		{[]string{"--calibrate", "--results", a, "--thresholds", "0.1,-1"}, `--thresholds: -1 (-100%) is out of range`},
		{[]string{"--calibrate", "--results", a, "--split", "sideways"}, "unknown split"},
		{[]string{"--calibrate"}, "--calibrate needs unchanged runs"},
	} {
		code, stdout, stderr := runCompare(t, root, append(tt.args, "--plots-directory", out)...)
		if code != exit.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s%s", tt.args, code, tt.want, stdout, stderr)
		}
	}
}

// TestMissingChecksDecision: a statistical or paired gate that fails on
// missing checks alone (a sub-experiment the results lost, a run's value
// of 0 that forms no ratio) says so in its rule, reason and error line;
// the rule read "fail: Holm's correction rejects a check …: 0 check(s)
// failed", or the paired analysis' "inconclusive", and the error line
// "0 of 2 sub-experiments regressed (0 checks over threshold)".
func TestMissingChecksDecision(t *testing.T) {
	root := t.TempDir()
	refs := writeRuns(t, filepath.Join(root, "ref"), "v192", 10, 1, 0.02, 1)
	lost := writeRuns(t, filepath.Join(root, "lost"), "v192", 10, 1, 0.02, 2)
	zero := writeRuns(t, filepath.Join(root, "zero"), "v192", 10, 1, 0.02, 3)
	for i := 1; i <= 10; i++ {
		if err := os.Remove(filepath.Join(lost, fmt.Sprintf("run-%02d", i), experiment.SummaryFileName("intraprocess_best_effort"))); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(zero, "run-04", experiment.SummaryFileName("intraprocess_best_effort"))
	s, err := result.ReadSummaryFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s[0].Set("Min", 0)
	if err := result.WriteSummaryFile(path, s); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, results, reason, errLine string
		paired                         bool
	}{
		{"lost", lost, "check(s) missing, each failing the gate: intraprocess_best_effort ", "1 missing from the results", false},
		{"zero", zero, "1 check(s) missing, each failing the gate: intraprocess_best_effort ", "; 1 check missing (", false},
		{"zero paired", zero, "1 check(s) missing, each failing the gate: intraprocess_best_effort ", "; 1 check missing (", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "v.json")
			args := []string{"-R", refs, "-r", tt.results, "-p", filepath.Join(t.TempDir(), "p"), "--json", js}
			if tt.paired {
				args = append(args, "--paired")
			}
			code, stdout, stderr := runCompare(t, root, args...)
			if code != exit.GateFailed || !strings.Contains(stdout, "rule: fail: a check is missing (formats §5)") || !strings.Contains(stdout, tt.reason) ||
				!strings.Contains(stderr, tt.errLine) {
				t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr: %s", code, stdout, stderr)
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct{ Decision gate.Decision }
			if err := json.Unmarshal(b, &doc); err != nil || !strings.HasPrefix(doc.Decision.Rule, "fail: a check is missing") || !strings.Contains(doc.Decision.Reason, tt.reason) {
				t.Errorf("JSON decision %+v, %v", doc.Decision, err)
			}
		})
	}
}
