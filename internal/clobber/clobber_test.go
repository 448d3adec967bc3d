package clobber

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
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
		{"a report over the meta.json of an experiment not read", func(g *Guard) {
			g.Experiment("EXPERIMENT_DIR", exp)
			g.Output("--html", filepath.Join(elsewhere, "meta.json"))
		}, "--html " + filepath.Join(elsewhere, "meta.json") + " lies in the experiment " + Canonical(elsewhere) + ", where it is the run's meta.json (a file the pipeline owns)"},
		{"a report over the meta.json beside the raw file read", func(g *Guard) {
			g.File("--raw-csv", filepath.Join(exp, "measurements_a.csv"))
			g.Output("--output-csv", filepath.Join(exp, "meta.json"))
		}, "--output-csv " + filepath.Join(exp, "meta.json") + " lies in the experiment " + Canonical(exp) + ", where it is the run's meta.json"},
		{"a report named as a summary in an experiment not read", func(g *Guard) {
			g.Output("--json", filepath.Join(elsewhere, "measurements_b_summary.csv"))
		}, "where it is a summary"},
		{"a report under the plots of an experiment not read", func(g *Guard) {
			g.Output("--html", filepath.Join(elsewhere, "plots", "report.html"))
		}, "lies in the experiment " + Canonical(elsewhere) + ", where it is a plot"},
		{"a report named as a summary outside any experiment", func(g *Guard) {
			g.Output("--json", filepath.Join(dir, "out", "measurements_b_summary.csv"))
		}, ""},
		{"the summary a tool writes by its role", func(g *Guard) {
			g.File("--raw-csv", filepath.Join(exp, "measurements_a.csv"))
			g.OwnedOutput("--output-csv", summary)
		}, ""},
		{"an owned output that is the input", func(g *Guard) {
			g.File("--raw-csv", filepath.Join(exp, "measurements_a.csv"))
			g.OwnedOutput("--output-csv", filepath.Join(exp, "measurements_a.csv"))
		}, "is the --raw-csv file"},
		{"an output outside the experiments, inside one", func(g *Guard) {
			g.Experiments("-e", root)
			g.OutputOutside("-o", filepath.Join(root, "run1", "latency_requirements.csv"))
		}, "-o " + filepath.Join(root, "run1", "latency_requirements.csv") + " lies in the experiment " + filepath.Join(root, "run1") + " of -e " + root + ", where it would pass for a file of that experiment; write it outside the experiments read"},
		{"an output outside the experiments, inside a linked one", func(g *Guard) {
			g.Experiments("-e", root)
			g.OutputOutside("-o", filepath.Join(elsewhere, "reqs.csv"))
		}, "lies in the experiment " + filepath.Join(root, "run2")},
		{"an output outside the experiments, beside them", func(g *Guard) {
			g.Experiments("-e", root)
			g.OutputOutside("-o", filepath.Join(root, "latency_requirements.csv"))
		}, ""},
		{"an output outside the input experiment, inside it", func(g *Guard) {
			g.Experiment("--reference", exp)
			g.OutputOutside("-o", filepath.Join(exp, "sub", "x.csv"))
		}, "lies in the --reference experiment " + exp},
		{"a report directory that is the input experiment", func(g *Guard) {
			g.Experiment("--results", exp)
			g.ReportDir("-p", exp, "its comparison CSVs", comparisons)
		}, "-p " + exp + " is the experiment --results " + exp + " that the tool reads: reports go in a directory of their own"},
		{"a report directory that is an experiment not read", func(g *Guard) {
			g.ReportDir("-p", elsewhere, "its comparison CSVs", comparisons)
		}, "-p " + elsewhere + " is an experiment folder (it holds meta.json)"},
		{"a report directory that is the root read", func(g *Guard) {
			g.Experiments("--experiments-results", root)
			g.ReportDir("-p", root+"/.", "its plots", comparisons)
		}, "is the results root --experiments-results " + root},
		{"a report directory in the root read", func(g *Guard) {
			g.Experiments("--experiments-results", root)
			g.ReportDir("-p", filepath.Join(root, "history"), "its plots", comparisons)
		}, "is a folder in the results root --experiments-results " + root + ", where the next reader would take it for an experiment"},
		{"a report directory under an experiment's plots", func(g *Guard) {
			g.ReportDir("-p", filepath.Join(exp, "plots", "cmp"), "its plots", comparisons)
		}, "lies in the experiment " + Canonical(exp) + ", where its files would be a plot"},
		{"a report directory that holds an earlier comparison", func(g *Guard) {
			write(t, filepath.Join(dir, "cmp2", "throughput_a_comparison.csv"))
			write(t, filepath.Join(dir, "cmp2", "checks_a.csv"))
			g.ReportDir("-p", filepath.Join(dir, "cmp2"), "its comparison CSVs", comparisons)
		}, ""},
		{"a report directory of its own", func(g *Guard) {
			g.Experiments("--experiments-results", root)
			g.Experiment("--results", exp)
			g.ReportDir("-p", plots, "its comparison CSVs", comparisons)
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
			var ee *exit.Error
			if !errors.As(err, &ee) || ee.Code != exit.Usage {
				t.Errorf("exit code %d, want %d", exit.Code(err), exit.Usage)
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
