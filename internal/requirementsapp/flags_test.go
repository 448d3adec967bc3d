package requirementsapp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestNumericFlags: every numeric flag of requirements has a stated
// range, checked before any run starts or anything is read or written: 0,
// negative, huge, NaN and infinite values outside it exit 2 naming the flag
// and the range. Relative flags take a fraction or a percentage, and a bare
// number above 1 is refused asking whether the percentage was meant
// (--margin 25 was +2,500 %; --false-fail 5 was refused without saying
// that 5% was probably meant).
func TestNumericFlags(t *testing.T) {
	type c struct{ flag, value, stderr string }
	cases := []c{
		{"--runs", "0", "--runs 0 is out of range: expected 1 to 10000"},
		{"--runs", "-1", "--runs -1 is out of range"},
		{"--runs", "1000000000", "--runs 1000000000 is out of range"},
		{"--runs", "NaN", `--runs "NaN": expected a whole number`},
		{"--runs", "Inf", `--runs "Inf": expected a whole number`},
		{"--order-rank", "0", "--order-rank 0 is out of range: expected 1 to 10000"},
		{"--order-rank", "-1", "--order-rank -1 is out of range"},
		{"--order-rank", "1000000000", "--order-rank 1000000000 is out of range"},
		{"--order-rank", "NaN", `--order-rank "NaN": expected a whole number`},
		{"--percentile", "0", "--percentile 0: expected a number above 0 and at most 100"},
		{"--percentile", "-1", "--percentile -1: expected a number above 0 and at most 100"},
		{"--percentile", "1e300", "--percentile 1e+300: expected a number above 0 and at most 100"},
		{"--percentile", "NaN", "--percentile NaN: expected a number above 0 and at most 100"},
		{"--percentile", "Inf", "--percentile +Inf: expected a number above 0 and at most 100"},
		{"--reference-runs", "1", "--reference-runs 1 is out of range: expected 0 (the pool less the candidate runs) or 2 to 10000"},
		{"--reference-runs", "-1", "--reference-runs -1 is out of range"},
		{"--reference-runs", "1000000000", "--reference-runs 1000000000 is out of range"},
		{"--candidate-runs", "-1", "--candidate-runs -1 is out of range: expected 0 (half the pool) or 1 to 10000"},
		{"--candidate-runs", "1000000000", "--candidate-runs 1000000000 is out of range"},
		{"--splits", "0", "--splits 0 is out of range: expected 1 to 100000"},
		{"--splits", "-5", "--splits -5 is out of range"},
		{"--splits", "1000000000", "--splits 1000000000 is out of range"},
		{"--seed", "-1", `--seed "-1": expected a whole number`},
		{"--seed", "NaN", `--seed "NaN": expected a whole number`},
		{"--factors", "0", "--factors: 0 is out of range: expected factors above 1 and at most 1000"},
		{"--factors", "-1", "--factors: -1 is out of range"},
		{"--factors", "1e300", "--factors: 1e+300 is out of range"},
		{"--factors", "NaN", `--factors: "NaN" is not a finite number`},
		{"--factors", "Inf", `--factors: "Inf" is not a finite number`},
	}
	for _, level := range []string{"--false-fail", "--normality-level"} {
		cases = append(cases,
			c{level, "0", level + ": 0 (0%) is out of range: expected a value above 0% and below 100%"},
			c{level, "-0.01", level + ": -0.01 (-1%) is out of range"},
			c{level, "1", level + ": 1 read as a fraction is 100%: did you mean 1%?"},
			c{level, "5", level + ": 5 read as a fraction is 500%: did you mean 5%?"},
			c{level, "1e300", level + ": 1e300 read as a fraction"},
			c{level, "NaN", level + `: "NaN" is not a finite number`},
			c{level, "Inf", level + `: "Inf" is not a finite number`})
	}
	for _, margin := range []string{"--margin", "--margins"} {
		cases = append(cases,
			c{margin, "25", margin + ": 25 read as a fraction is 2500%: did you mean 25%?"},
			c{margin, "1", margin + ": 1 read as a fraction is 100%: did you mean 1%?"},
			c{margin, "150%", margin + ": 150% is out of range: expected a value at least 0% and below 100%"},
			c{margin, "-0.1", margin + ": -0.1 (-10%) is out of range"},
			c{margin, "1e300", margin + ": 1e300 read as a fraction"},
			c{margin, "NaN", margin + `: "NaN" is not a finite number`},
			c{margin, "Inf", margin + `: "Inf" is not a finite number`})
	}
	root := writeExperiments(t)
	for _, tt := range cases {
		t.Run(tt.flag+"="+tt.value, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "req.csv")
			args := []string{"-e", root, "-o", out, tt.flag, tt.value}
			switch tt.flag {
			case "--runs":
				args = []string{"--out", filepath.Join(dir, "runs"), "-o", out, tt.flag, tt.value}
			case "--reference-runs", "--candidate-runs", "--splits", "--seed", "--factors", "--margin", "--margins":
				args = []string{"-e", root, "--calibrate", "--plots-directory", filepath.Join(dir, "plots"), "--json", filepath.Join(dir, "c.json"), tt.flag, tt.value}
			}
			code, stdout, stderr := runRequirements(t, dir, args...)
			if code != exit.Usage || !strings.HasPrefix(stderr, "requirements: "+tt.flag) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want 2; stderr %q lacks %q", code, stderr, tt.stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%d file(s) written in %s", len(entries), dir)
			}
		})
	}
}

// TestRelativeFlagForms: --false-fail and --normality-level take a
// fraction or a percentage, the same value.
func TestRelativeFlagForms(t *testing.T) {
	root := writeExperiments(t)
	var files [2]string
	for i, ff := range []string{"0.05", "5%"} {
		out := filepath.Join(t.TempDir(), "req.csv")
		if code, _, stderr := runRequirements(t, root, "-e", root, "-o", out, "--false-fail", ff, "--method", "lognormal", "--normality-level", ff); code != exit.OK {
			t.Fatalf("--false-fail %s: exit %d\n%s", ff, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = string(b)
	}
	if files[0] != files[1] {
		t.Errorf("--false-fail 0.05 and 5%% differ:\n%s\n%s", files[0], files[1])
	}
}
