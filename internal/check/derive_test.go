package check_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// experiments writes n experiment folders under root whose summaries are
// the Fast-RTPS fixture scaled, per experiment, by a deterministic factor
// between 0.91 and 1.09, and returns the folder names and factors.
func experiments(t *testing.T, root string, n int) ([]string, []float64) {
	t.Helper()
	base, err := result.ReadSummaryFile("testdata/fastrtps/measurements_interprocess_reliable_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var factors []float64
	for i := 0; i < n; i++ {
		f := 1 + 0.03*float64((i*5)%7-3)
		name := fmt.Sprintf("2024-01-%02d_00-00-00", i+1)
		rows := make([]result.SummaryRow, len(base))
		for j, r := range base {
			// Round as a summary file would, so that what is checked equals
			// what was derived from.
			s := func(x float64) float64 { return math.Round(x*f*1000) / 1000 }
			r.Max, r.Min, r.Mean, r.Median, r.P90, r.P99, r.P9999 = s(r.Max), s(r.Min), s(r.Mean), s(r.Median), s(r.P90), s(r.P99), s(r.P9999)
			rows[j] = r
		}
		for _, typ := range []string{"interprocess_reliable", "intraprocess_best_effort"} {
			if err := result.WriteSummaryFile(filepath.Join(root, name, experiment.SummaryFileName(typ)), rows); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, name)
		factors = append(factors, f)
	}
	return names, factors
}

// TestDeriveThenCheck derives requirements from 7 experiments and checks
// them: at the 100th percentile (the maximum) every experiment passes; at
// the 50th the slowest fails and the fastest passes.
func TestDeriveThenCheck(t *testing.T) {
	root := t.TempDir()
	names, factors := experiments(t, root, 7)
	slowest, fastest := 0, 0
	for i, f := range factors {
		if f > factors[slowest] {
			slowest = i
		}
		if f < factors[fastest] {
			fastest = i
		}
	}
	for _, tt := range []struct {
		percentile string
		want       map[int]int // experiment index → exit code
	}{
		{"100", map[int]int{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0}},
		{"50", map[int]int{slowest: 1, fastest: 0}},
	} {
		t.Run("p"+tt.percentile, func(t *testing.T) {
			reqFile := filepath.Join(t.TempDir(), requirements.DefaultFileName)
			var stdout, stderr bytes.Buffer
			code := cliapp.Run(context.Background(), requirementscmd.App(),
				[]string{"requirements", "--experiments-results", root, "--output-file", reqFile, "--percentile", tt.percentile}, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("requirements exited %d: %s", code, stderr.String())
			}
			rows, err := requirements.ReadFile(reqFile)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 22 {
				t.Fatalf("%d requirements, want 2 sub-experiments × 11 payloads", len(rows))
			}
			for i, want := range tt.want {
				code, out, errOut := runCheck(t, "", "--requirements", reqFile,
					"--experiment-directory", filepath.Join(root, names[i]), "--plots-directory", t.TempDir(), "--format", "svg")
				if code != want {
					t.Errorf("check of %s (factor %.2f) exited %d, want %d\n%s%s", names[i], factors[i], code, want, out, errOut)
				}
			}
		})
	}
}
