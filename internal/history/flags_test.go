package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestNumericFlags: every numeric flag of history has a stated range,
// checked before anything is read or written: 0, negative, huge, NaN and
// infinite values outside it exit 2 naming the flag and the range.
// --min-change (formerly --gate-threshold, still accepted) is a fraction or
// a percentage, and a bare number above 1 is refused asking whether the
// percentage was meant (--gate-threshold 5 was a 500 % slowdown, a gate that
// never fails); --permutations 2000000000 was accepted and ran for hours.
// --gate-window below --min-segment could never judge a change point.
func TestNumericFlags(t *testing.T) {
	type c struct{ flag, value, stderr string }
	cases := []c{
		{"--significance", "0", "--significance: 0 (0%) is out of range: expected a value above 0% and below 100%"},
		{"--significance", "-0.01", "--significance: -0.01 (-1%) is out of range"},
		{"--significance", "1", "--significance: 1 read as a fraction is 100%: did you mean 1%?"},
		{"--significance", "1e300", "--significance: 1e300 read as a fraction"},
		{"--significance", "NaN", `--significance: "NaN" is not a finite number`},
		{"--significance", "Inf", `--significance: "Inf" is not a finite number`},
		{"--permutations", "0", "--permutations 0 is out of range: expected 1 to 1000000"},
		{"--permutations", "-1", "--permutations -1 is out of range"},
		{"--permutations", "2000000000", "--permutations 2000000000 is out of range"},
		{"--permutations", "NaN", `--permutations "NaN": expected a whole number`},
		{"--permutations", "Inf", `--permutations "Inf": expected a whole number`},
		{"--permutations", "50", "--permutations: 50 permutations cannot show significance at 0.01"},
		{"--min-segment", "0", "--min-segment 0 is out of range: expected 5 to 10000"},
		{"--min-segment", "4", "--min-segment 4 is out of range"},
		{"--min-segment", "-5", "--min-segment -5 is out of range"},
		{"--min-segment", "1000000", "--min-segment 1000000 is out of range"},
		{"--min-segment", "NaN", `--min-segment "NaN": expected a whole number`},
		{"--change-window", "-1", "--change-window -1 is out of range: expected 0 (every experiment) or 1 to 1000000"},
		{"--change-window", "2000000000", "--change-window 2000000000 is out of range"},
		{"--change-window", "NaN", `--change-window "NaN": expected a whole number`},
		{"--seed", "-1", `--seed "-1": expected a whole number`},
		{"--seed", "1e30", `--seed "1e30": expected a whole number`},
		{"--seed", "NaN", `--seed "NaN": expected a whole number`},
		{"--min-change", "5", "--min-change: 5 read as a fraction is 500%: did you mean 5%?"},
		{"--min-change", "1", "--min-change: 1 read as a fraction is 100%: did you mean 1%?"},
		{"--min-change", "150%", "--min-change: 150% is out of range: expected a value at least 0% and below 100%"},
		{"--min-change", "-0.05", "--min-change: -0.05 (-5%) is out of range"},
		{"--min-change", "1e300", "--min-change: 1e300 read as a fraction"},
		{"--min-change", "NaN", `--min-change: "NaN" is not a finite number`},
		{"--min-change", "Inf", `--min-change: "Inf" is not a finite number`},
		{"--gate-window", "-1", "--gate-window -1 is out of range: expected 0 (every experiment) or 1 to 1000000"},
		{"--gate-window", "4", "--gate-window 4 is below --min-segment 5: a change point needs --min-segment experiments after it"},
		{"--gate-window", "NaN", `--gate-window "NaN": expected a whole number`},
	}
	for _, tt := range cases {
		t.Run(tt.flag+"="+tt.value, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-e", "testdata/experiments", "-p", filepath.Join(dir, "plots"), "--json", filepath.Join(dir, "h.json"), tt.flag, tt.value}
			if strings.HasPrefix(tt.flag, "--min-change") || strings.HasPrefix(tt.flag, "--gate-") {
				args = append(args, "--gate")
			}
			code, stdout, stderr := runHistoryApp(t, args...)
			if code != exit.Usage || !strings.HasPrefix(stderr, "history: "+tt.flag) || !strings.Contains(stderr, tt.stderr) {
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

// TestEmptyPathFlags: a file or folder flag given an empty value (an unset
// variable in a CI script) is refused naming it, before anything is
// written; -p "" said "10 plots in ," and wrote history.csv into the
// working folder, and the report flags wrote nothing, all exiting 0.
func TestEmptyPathFlags(t *testing.T) {
	for _, flag := range []string{"-e", "-p", "-r", "--html", "--json", "--acknowledged", "--gate-junit", "--gate-markdown", "--gate-json"} {
		t.Run(flag, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			abs, err := filepath.Abs(filepath.Join(origDir, "testdata", "experiments"))
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"-e", abs, "-p", filepath.Join(dir, "plots"), "--gate", flag, ""}
			code, stdout, stderr := runHistoryApp(t, args...)
			if code != exit.Usage || stdout != "" || !strings.Contains(stderr, " is empty (an unset variable?)") {
				t.Errorf("exit %d, want 2; stdout %q, stderr %q", code, stdout, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("%d file(s) written in %s", len(entries), dir)
			}
		})
	}
}

// origDir is the package's folder, where the tests start.
var origDir, _ = os.Getwd()

// TestEarlierPlotsRemoved: the plots of an earlier history that this one
// does not draw again (a sub-experiment no longer followed, -s, the other
// image format) are removed once this one's are drawn, and a folder left
// empty with them; they stayed beside this call's plots as if of it. Other
// files stay.
func TestEarlierPlotsRemoved(t *testing.T) {
	plots := filepath.Join(t.TempDir(), "plots")
	stale := []string{"gone_reliable/history_Median.png", "gone_reliable/16_bytes_99.svg", "interprocess_reliable/history_Median.png"}
	for _, f := range append([]string{"notes.txt", "interprocess_reliable/notes.txt"}, stale...) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(plots, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(plots, f), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := runHistoryApp(t, "-e", "testdata/experiments", "-p", plots, "--format", "svg", "-s", "interprocess_reliable")
	if code != exit.OK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, f := range append(stale, "gone_reliable") {
		if _, err := os.Stat(filepath.Join(plots, f)); !os.IsNotExist(err) {
			t.Errorf("the earlier %s, which this history did not draw, is still there (%v)", f, err)
		}
	}
	for _, f := range []string{"notes.txt", "interprocess_reliable/notes.txt", "interprocess_reliable/history_Median.svg", "history.csv"} {
		if _, err := os.Stat(filepath.Join(plots, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
