package compare_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/compare"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/pairing"
)

// TestHelpExamples runs the examples of 'compare --help' on a copy of the
// test experiments, so that the documented commands keep working.
func TestHelpExamples(t *testing.T) {
	var help, errb bytes.Buffer
	if code := cliapp.Run(context.Background(), comparecmd.App(), []string{"compare", "--help"}, &help, &errb); code != exit.OK {
		t.Fatalf("--help: exit %d: %s", code, errb.String())
	}
	// The examples are the "compare" lines from "Examples:" on: the block
	// there and the statistical and paired ones after it.
	var examples [][]string
	in := false
	for _, line := range strings.Split(help.String(), "\n") {
		switch f := strings.Fields(line); {
		case len(f) == 1 && f[0] == "Examples:":
			in = true
		case in && len(f) > 1 && f[0] == "compare" && strings.HasPrefix(f[1], "--"):
			examples = append(examples, f)
		}
	}
	if len(examples) < 6 {
		t.Fatalf("only %d examples found", len(examples))
	}
	if len(examples) == 0 {
		t.Fatal("--help shows no example")
	}
	root := t.TempDir()
	copyDir(t, expDir("v192"), filepath.Join(root, "results", "2026-11-20_09-00-00"))
	copyDir(t, expDir("v193-regressed"), filepath.Join(root, "results", "2026-11-21_09-00-00"))
	writeRuns(t, filepath.Join(root, "baseline-runs"), "v192", 10, 1, 0.02, 1)
	writeRuns(t, filepath.Join(root, "candidate-runs"), "v192", 10, 1.3, 0.02, 2)
	// 30 pairs: the 42 default checks need 13 for a decision, and pairs
	// found serially dependent are judged in blocks of 2.
	writeRuns(t, filepath.Join(root, "ab", "reference"), "v192", 30, 1, 0.02, 3)
	writeRuns(t, filepath.Join(root, "ab", "candidate"), "v192", 30, 1.3, 0.02, 4)
	writeRuns(t, filepath.Join(root, "aa", "reference"), "v192", 8, 1, 0.02, 5)
	writeRuns(t, filepath.Join(root, "aa", "candidate"), "v192", 8, 1, 0.02, 6)
	// run ab writes its series file beside the two sides: it says the
	// runs were interleaved, and pairs them for the plan.
	writeSeries(t, filepath.Join(root, "aa"), "aa", pairing.DesignRandom, pairRows(8))
	t.Chdir(root)
	for _, args := range examples {
		var out, errb bytes.Buffer
		code := cliapp.Run(context.Background(), comparecmd.App(), args, &out, &errb)
		// The examples compare a regressed experiment: 0 or 1, never an error.
		if code != exit.OK && code != exit.GateFailed {
			t.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		for i, a := range args {
			if i > 0 && (args[i-1] == "--junit" || args[i-1] == "--markdown" || args[i-1] == "--json" || args[i-1] == "--html") {
				if _, err := os.Stat(a); err != nil {
					t.Errorf("%s: %v", strings.Join(args, " "), err)
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join("comparison", compare.CSVFileName("interprocess_reliable"))); err != nil {
		t.Error(err)
	}
}
