package clobber

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
)

func write(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	reqs := write(t, filepath.Join(dir, "latency_requirements.csv"))
	exp := filepath.Join(dir, "results", "new")
	summary := write(t, filepath.Join(exp, "measurements_a_summary.csv"))
	write(t, filepath.Join(exp, "measurements_a.csv"))
	root := filepath.Join(dir, "baseline")
	write(t, filepath.Join(root, "run1", "measurements_a_summary.csv"))
	elsewhere := filepath.Join(dir, "elsewhere", "run2")
	write(t, filepath.Join(elsewhere, "meta.json"))
	if err := os.Symlink(elsewhere, filepath.Join(root, "run2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(reqs, filepath.Join(dir, "reqs-link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(summary, filepath.Join(dir, "hardlink.csv")); err != nil {
		t.Fatal(err)
	}
	plots := filepath.Join(dir, "comparison")
	comparisons := func(rel string) bool { return strings.HasSuffix(rel, "_comparison.csv") }

	tests := []struct {
		name string
		set  func(g *Guard)
		want string // "" when allowed; else a substring of the error
	}{
		{"distinct files", func(g *Guard) {
			g.File("--requirements", reqs)
			g.Experiment("--experiment-directory", exp)
			g.Output("--json", filepath.Join(dir, "check.json"))
			g.Output("--html", filepath.Join(exp, "report.html"))
		}, ""},
		{"flags not given", func(g *Guard) { g.File("--requirements", ""); g.Output("--json", ""); g.Output("--html", "") }, ""},
		{"output is the input file", func(g *Guard) {
			g.File("--requirements", reqs)
			g.Output("--json", reqs)
		}, "--json " + reqs + " is the --requirements file " + reqs + ": an output must not replace the tool's input"},
		{"relative and unclean", func(g *Guard) {
			g.File("--requirements", reqs)
			g.Output("--json", "results/../latency_requirements.csv")
		}, "--json results/../latency_requirements.csv is the --requirements file"},
		{"through a symbolic link", func(g *Guard) {
			g.File("--requirements", reqs)
			g.Output("--markdown", filepath.Join(dir, "reqs-link.csv"))
		}, "--markdown " + filepath.Join(dir, "reqs-link.csv") + " is the --requirements file"},
		{"a summary of the input experiment", func(g *Guard) {
			g.Experiment("--experiment-directory", exp)
			g.Output("--markdown", summary)
		}, "lies in the --experiment-directory " + exp + ", where it is a summary (a file the pipeline owns)"},
		{"a raw file of the input experiment", func(g *Guard) {
			g.Experiment("EXPERIMENT_DIR", exp)
			g.Output("--html", filepath.Join(exp, "measurements_a.csv"))
		}, "where it is a raw measurements file"},
		{"a file the pipeline will own", func(g *Guard) {
			g.Experiment("--results", exp)
			g.Output("--json", filepath.Join(exp, "checks_b.csv"))
		}, "where it is a check report"},
		{"a plot of the input experiment", func(g *Guard) {
			g.Experiment("--results", exp)
			g.Output("--html", filepath.Join(exp, "plots", "x.png"))
		}, "where it is a plot"},
		{"a hard link to a summary", func(g *Guard) {
			g.Experiment("--experiment-directory", exp)
			g.Output("--json", filepath.Join(dir, "hardlink.csv"))
		}, "where it is a summary (measurements_a_summary.csv)"},
		{"the input experiment itself", func(g *Guard) {
			g.Experiment("--reference", exp)
			g.Output("--json", exp+"/")
		}, "is the --reference directory"},
		{"in an experiment of the root", func(g *Guard) {
			g.Experiments("--experiments-results", root)
			g.Output("--output-file", filepath.Join(root, "run1", "measurements_a_summary.csv"))
		}, "lies in the experiment " + filepath.Join(root, "run1") + " of --experiments-results " + root},
		{"in a linked experiment of the root", func(g *Guard) {
			g.Experiments("--experiments-results", root)
			g.Output("--html", filepath.Join(elsewhere, "meta.json"))
		}, "where it is the run's meta.json"},
		{"beside the experiments of the root", func(g *Guard) {
			g.Experiments("--experiments-results", root)
			g.Output("--output-file", filepath.Join(root, "latency_requirements.csv"))
		}, ""},
		{"the same output twice", func(g *Guard) {
			g.Output("--html", "x.out")
			g.Output("--junit", filepath.Join(dir, "x.out"))
		}, "--html x.out and --junit " + filepath.Join(dir, "x.out") + " are the same file: one output would replace the other"},
		{"an output a directory gets", func(g *Guard) {
			g.OutputDir("--plots-directory", plots, "its comparison CSVs", comparisons)
			g.Output("--json", filepath.Join(plots, "a_comparison.csv"))
		}, "--json " + filepath.Join(plots, "a_comparison.csv") + " is one of the files written into --plots-directory " + plots + " (its comparison CSVs)"},
		{"another file in that directory", func(g *Guard) {
			g.OutputDir("--plots-directory", plots, "its comparison CSVs", comparisons)
			g.Output("--json", filepath.Join(plots, "compare.json"))
		}, ""},
		{"an input a directory gets", func(g *Guard) {
			g.File("--requirements", reqs)
			g.OutputDir("--plots-directory", dir, "its CSV", func(rel string) bool { return rel == "latency_requirements.csv" })
		}, "--requirements " + reqs + " is one of the files written into --plots-directory " + dir + " (its CSV): writing them would replace the input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Guard
			tt.set(&g)
			err := g.Check()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("allowed, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n%v\nlacks\n%s", err, tt.want)
			}
			var ee *cliapp.ExitError
			if !errors.As(err, &ee) || ee.Code != cliapp.ExitUsage {
				t.Errorf("exit code %d, want %d", cliapp.CodeOf(err), cliapp.ExitUsage)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		filepath.Join(dir, "link", "a", "b.csv"),
		filepath.Join(dir, "real", "x", "..", "a", "b.csv"),
		filepath.Join(dir, "link", "a", ".", "b.csv"),
	} {
		if got, want := Canonical(p), filepath.Join(resolved, "a", "b.csv"); got != want {
			t.Errorf("Canonical(%s) = %s, want %s", p, got, want)
		}
	}
}
