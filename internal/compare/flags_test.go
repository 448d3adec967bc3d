package compare_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestNumericFlags: every numeric flag of compare has a stated range,
// checked before anything is read or written: 0, negative, huge, NaN and
// infinite values outside it exit 2 naming the flag and the range, and
// leave no plots directory or report. A bare number above 1 for a relative
// flag is refused asking whether the percentage was meant: --fail-threshold
// 50 allowed 5,000 % and passed a regressed run.
func TestNumericFlags(t *testing.T) {
	type c struct{ flag, value, stderr string }
	var cases []c
	for _, v := range []c{
		{"", "50", "read as a fraction is 5000%: did you mean 50%?"},
		{"", "1", "did you mean 1%?"},
		{"", "150%", "out of range: expected a value at least 0% and below 100%"},
		{"", "-0.1", "out of range: expected a value at least 0% and below 100%"},
		{"", "1e300", "did you mean 1e300%?"},
		{"", "NaN", `"NaN" is not a finite number`},
		{"", "Inf", `"Inf" is not a finite number`},
		{"", "-Inf%", "not a finite number"},
	} {
		cases = append(cases, c{"--fail-threshold", v.value, v.stderr},
			c{"--threshold", "99%=" + v.value, v.stderr},
			c{"--thresholds", "0.1," + v.value, v.stderr})
	}
	for _, v := range []string{"0", "0%", "-0.01", "0.5", "50%", "5", "NaN", "Inf", "1e300"} {
		cases = append(cases, c{"--false-fail", v, "--false-fail: "})
	}
	cases = append(cases,
		c{"--false-fail", "0", "expected a value above 0% and below 50%"},
		c{"--false-fail", "5", "did you mean 5%?"},
		c{"--runs-per-side", "1", "--runs-per-side 1 is out of range: expected 0 (half the pool) or 2 to 10000"},
		c{"--runs-per-side", "-2", "--runs-per-side -2 is out of range"},
		c{"--runs-per-side", "1000000000", "--runs-per-side 1000000000 is out of range"},
		c{"--runs-per-side", "NaN", `--runs-per-side "NaN": expected a whole number`},
		c{"--runs-per-side", "Inf", `--runs-per-side "Inf": expected a whole number`},
		c{"--splits", "0", "--splits 0 is out of range: expected 1 to 100000"},
		c{"--splits", "-1", "--splits -1 is out of range"},
		c{"--splits", "1000000000", "--splits 1000000000 is out of range"},
		c{"--splits", "NaN", `--splits "NaN": expected a whole number`},
		c{"--seed", "-1", `--seed "-1": expected a whole number`},
		c{"--seed", "1e30", `--seed "1e30": expected a whole number`},
		c{"--seed", "NaN", `--seed "NaN": expected a whole number`},
		c{"--seed", "Inf", `--seed "Inf": expected a whole number`},
		c{"--factors", "1.1,0", "--factors: 0 is out of range: expected factors above 1 and at most 1000"},
		c{"--factors", "1", "--factors: 1 is out of range"},
		c{"--factors", "-2", "--factors: -2 is out of range"},
		c{"--factors", "1e300", "--factors: 1e+300 is out of range"},
		c{"--factors", "NaN", `--factors: "NaN" is not a finite number`},
		c{"--factors", "Inf", `--factors: "Inf" is not a finite number`},
	)
	for _, tt := range cases {
		t.Run(tt.flag+"="+tt.value, func(t *testing.T) {
			dir := t.TempDir()
			plots := filepath.Join(dir, "plots")
			args := []string{"--reference", expDir("v192"), "--results", expDir("v193-regressed"), "--plots-directory", plots,
				"--json", filepath.Join(dir, "report.json"), tt.flag, tt.value}
			switch tt.flag {
			case "--runs-per-side", "--splits", "--seed", "--factors", "--thresholds":
				args = append(args, "--calibrate")
			}
			code, stdout, stderr := runCompare(t, dir, args...)
			if code != exit.Usage || !strings.Contains(stderr, tt.stderr) || !strings.HasPrefix(stderr, "compare: "+tt.flag) {
				t.Errorf("exit %d, want 2; stderr %q lacks %q", code, stderr, tt.stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			for _, p := range []string{plots, filepath.Join(dir, "report.json")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written", p)
				}
			}
		})
	}
}

// TestRelativeFlagForms: a threshold written as a fraction or a percentage
// is the same; 0 is allowed (no slack).
func TestRelativeFlagForms(t *testing.T) {
	for _, tt := range []struct {
		value string
		code  int
	}{
		{"0", exit.GateFailed}, {"0%", exit.GateFailed},
		{"0.25", exit.OK}, {"25%", exit.OK}, {"99.9%", exit.OK},
	} {
		dir := t.TempDir()
		code, _, stderr := runCompare(t, dir, "--reference", expDir("v192"), "--results", expDir("v193-regressed"),
			"--plots-directory", dir, "--fail-threshold", tt.value)
		if code != tt.code {
			t.Errorf("--fail-threshold %s: exit %d, want %d\n%s", tt.value, code, tt.code, stderr)
		}
	}
}
