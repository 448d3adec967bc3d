package runapp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// planConfig is an ABBA series of 4 runs per side whose sides' flags are
// accepted as they are.
func planConfig(out string) ABConfig {
	return ABConfig{Out: out, Name: "s", Runs: 4, Design: DesignABBA, Seed: 7,
		Common: []string{"-s", "ping"}, Reference: "--target a", Candidate: "--target b",
		Check: func([]string) (Config, error) { return Config{}, nil }}
}

// TestABPlanLayout: abPlan lays out ABBA blocks, each A B B A or B A A B,
// each run's experiment in its side's folder with the run arguments that
// make it, and the series file in --out; the same seed lays out the same
// series.
func TestABPlanLayout(t *testing.T) {
	out := t.TempDir()
	plan, series, err := abPlan(planConfig(out))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(out, "s"+SeriesSuffix); series != want {
		t.Errorf("series file %s, want %s", series, want)
	}
	if len(plan) != 8 {
		t.Fatalf("%d runs, want 8", len(plan))
	}
	for i, r := range plan {
		u := i/4 + 1
		first := plan[4*(u-1)].side
		second := SideReference
		if first == SideReference {
			second = SideCandidate
		}
		wantSide := []string{first, second, second, first}[i%4]
		wantN := []int{2*u - 1, 2*u - 1, 2 * u, 2 * u}[i%4]
		exp := fmt.Sprintf("s-%02d", wantN)
		if r.unit != u || r.pos != i+1 || r.side != wantSide || r.n != wantN || r.dir != filepath.Join(out, wantSide, exp) {
			t.Errorf("run %d = unit %d pos %d %s %d in %s, want unit %d pos %d %s %d in %s",
				i, r.unit, r.pos, r.side, r.n, r.dir, u, i+1, wantSide, wantN, filepath.Join(out, wantSide, exp))
		}
		flags := map[string]string{SideReference: "a", SideCandidate: "b"}[wantSide]
		wantArgs := []string{"run", "-s", "ping", "--target", flags, "--out", filepath.Join(out, wantSide), "--name", exp}
		if !slices.Equal(r.args, wantArgs) {
			t.Errorf("run %d args %q, want %q", i, r.args, wantArgs)
		}
	}
	again, _, err := abPlan(planConfig(out))
	if err != nil {
		t.Fatal(err)
	}
	for i := range plan {
		if again[i].side != plan[i].side {
			t.Fatalf("the same seed laid out another order: run %d is %s, then %s", i, plan[i].side, again[i].side)
		}
	}
}

// TestABPlanRefusalOrder: of several faults the one checked first is
// reported: the run counts and design, then the sides' lines and the
// series name, then each side's flags, then files that exist.
func TestABPlanRefusalOrder(t *testing.T) {
	badFlags := func([]string) (Config, error) { return Config{}, exit.Usagef("--bogus: unknown flag") }
	for _, tc := range []struct {
		name  string
		edit  func(cfg *ABConfig, out string)
		want  string
		exitc int
	}{
		{"runs and max-runs before the design", func(c *ABConfig, _ string) { c.MaxRuns, c.Design = 4, "zigzag" },
			"--runs 4 and --max-runs 4: give --runs", exit.Usage},
		{"an odd abba count before equal sides", func(c *ABConfig, _ string) { c.Runs, c.Candidate = 3, c.Reference },
			"--runs 3 with --design abba: expected an even number", exit.Usage},
		{"an odd max-runs names --max-runs", func(c *ABConfig, _ string) { c.Runs, c.MaxRuns = 0, 3 },
			"--max-runs 3 with --design abba", exit.Usage},
		{"equal sides before a bad name", func(c *ABConfig, _ string) { c.Candidate, c.Name = c.Reference, "a/b" },
			"the two sides are the same system", exit.Usage},
		{"side flags before existing files", func(c *ABConfig, out string) {
			c.Check = badFlags
			os.MkdirAll(filepath.Join(out, SideReference, "s-01"), 0o755)
		}, "reference side: --bogus: unknown flag", exit.Usage},
		{"an existing run folder before the series file", func(_ *ABConfig, out string) {
			os.MkdirAll(filepath.Join(out, SideCandidate, "s-02"), 0o755)
			os.WriteFile(filepath.Join(out, "s"+SeriesSuffix), nil, 0o644)
		}, "s-02 exists already, where candidate run 2 would go", exit.Usage},
		{"an existing series file", func(_ *ABConfig, out string) {
			os.WriteFile(filepath.Join(out, "s"+SeriesSuffix), nil, 0o644)
		}, "series file " + "%OUT%" + "/s" + SeriesSuffix + " exists already", exit.Usage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			cfg := planConfig(out)
			tc.edit(&cfg, out)
			_, _, err := abPlan(cfg)
			want := strings.ReplaceAll(tc.want, "%OUT%", out)
			if err == nil || !strings.Contains(err.Error(), want) || exit.Code(err) != tc.exitc {
				t.Errorf("err = %v (exit %d), want exit %d with %q", err, exit.Code(err), tc.exitc, want)
			}
		})
	}
}
