package compare_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestPairedCommand runs the paired gate end to end on runs named alike on
// both sides, given --paired: the unchanged candidate passes (0), a 20 % slower one fails
// (1), too few pairs are inconclusive naming the checks (3); every report
// says which rule decided, the interval, the family level and N. The
// transcripts and the reports of the regressed comparison are goldens.
func TestPairedCommand(t *testing.T) {
	root := t.TempDir()
	ref := writeRuns(t, filepath.Join(root, "ref"), "v192", 12, 1, 0.01, 1)
	same := writeRuns(t, filepath.Join(root, "same"), "v192", 12, 1, 0.01, 2)
	slow := writeRuns(t, filepath.Join(root, "slow"), "v192", 12, 1.2, 0.01, 3)
	fewRef := writeRuns(t, filepath.Join(root, "fewref"), "v192", 3, 1, 0.01, 4)
	few := writeRuns(t, filepath.Join(root, "few"), "v192", 3, 1, 0.01, 5)
	odd := writeRuns(t, filepath.Join(root, "odd"), "v192", 4, 1, 0.01, 6)
	if err := os.Rename(filepath.Join(odd, "run-04"), filepath.Join(odd, "run-07")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"unchanged", []string{"--reference", ref, "--results", same, "--columns", "Median", "--paired"}, exit.OK},
		{"regressed", []string{"--reference", ref, "--results", slow, "--columns", "Median", "--paired",
			"--junit", filepath.Join(root, "regressed", "compare.xml"), "--markdown", filepath.Join(root, "regressed", "compare.md"),
			"--json", filepath.Join(root, "regressed", "compare.json"), "--html", filepath.Join(root, "regressed", "compare.html")}, exit.GateFailed},
		{"few pairs", []string{"--reference", fewRef, "--results", few, "--columns", "Median", "--paired"}, exit.Inconclusive},
		{"unmatched", []string{"--reference", fewRef, "--results", odd, "--paired"}, exit.Usage},
		{"paired and unpaired", []string{"--reference", ref, "--results", same, "--paired", "--unpaired"}, exit.Usage},
		{"pass margin 0", []string{"--reference", ref, "--results", same, "--paired", "--pass-margin", "0"}, exit.Usage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCompare(t, root, append(tt.args, "--plots-directory", filepath.Join(root, "plots-"+tt.name))...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			golden(t, "transcript.txt", transcript(code, stdout, stderr))
		})
	}
	html, err := os.ReadFile(filepath.Join(root, "regressed", "compare.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mode: paired", "rule: fail", "interval of interprocess_reliable 2048 B Median: [1.190, 1.211]; family level 1%; N = 12 pairs",
		"median of the pairs&#39; ratios", "minimum for a decision: 11 pairs"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	for _, name := range []string{"compare.xml", "compare.md", "compare.json"} {
		b, err := os.ReadFile(filepath.Join(root, "regressed", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"paired", "0.01", "12", "median of the pairs", "Bonferroni 0.0034"} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		// The earlier method's names are gone from every report: the
		// estimand is the median pair ratio, the bounds the sign tests'.
		for _, old := range []string{"Westfall", "max-T", "geometric mean", "simultaneous", "sign flip"} {
			if bytes.Contains(b, []byte(old)) {
				t.Errorf("%s still says %q", name, old)
			}
		}
		golden(t, name, bytes.ReplaceAll(b, []byte(root), []byte("$OUT")))
	}
}

// TestPlanCommand plans the paired gate from 12 A/A pairs whose every
// value varies by 3 % from run to run: the fewest pairs that can decide
// (11 for 14 checks at 1 %), the pairs needed, the pass and fail shares at
// each number tried (golden, the plan is seeded).
func TestPlanCommand(t *testing.T) {
	root := t.TempDir()
	a := writeRuns(t, filepath.Join(root, "a"), "v192", 12, 1, 0.03, 1)
	b := writeRuns(t, filepath.Join(root, "b"), "v192", 12, 1, 0.03, 2)
	code, stdout, stderr := runCompare(t, root, "--plan", "--paired", "--reference", a, "--results", b, "--columns", "Median",
		"--plots-directory", filepath.Join(root, "plots"))
	if code != exit.OK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"from 12 A/A pairs, 14 checks", "a 10% regression", "pairs needed: ", "no FAIL and no PASS below 11 pairs"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	golden(t, "transcript.txt", transcript(code, stdout, stderr))
	code, stdout, stderr = runCompare(t, root, "--plan", "--paired", "--reference", a, "--results", b, "--json", filepath.Join(root, "p.json"),
		"--plots-directory", filepath.Join(root, "plots"))
	if code != exit.Usage {
		t.Errorf("--plan --json: exit %d, want 2\n%s%s", code, stdout, stderr)
	}
}
