package nats_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/runapp"
)

// mainEnv makes the test binary behave as the run command, so that run
// can start it in the echo role (runapp.SelfEnv).
const mainEnv = "MQGATE_NATS_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	drivertest.ServeEchoProcess(nats.Transport{})
	if os.Getenv(mainEnv) == "1" {
		cliapp.Main(runcmd.App())
	}
	os.Setenv(mainEnv, "1")
	os.Setenv(runapp.SelfEnv, os.Args[0])
	os.Exit(m.Run())
}

// tool runs one of mqgate's tools in-process and checks its exit code.
// verdict, as the exit code tool wants, is a gate's verdict: 0 (passed) or
// 1 (failed), not an input error.
const verdict = -1

func tool(t *testing.T, app *cli.App, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), app, append([]string{app.Name}, args...), &out, &errb)
	if code != want && !(want == verdict && (code == 0 || code == 1)) {
		t.Fatalf("%s %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", app.Name, strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String()
}

// TestRunThroughEveryTool measures nats_best_effort and nats_reliable twice
// with run on an embedded server, the echo in a child process, and takes
// the raw files through process, requirements, check, compare and
// history.
func TestRunThroughEveryTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole chain; skipped with -short")
	}
	root := t.TempDir()
	results := filepath.Join(root, "results")
	types := []string{"nats_best_effort", "nats_reliable"}
	for _, name := range []string{"base", "cand"} {
		tool(t, runcmd.App(), 0, "-s", strings.Join(types, ","), "--broker", "embedded", "--echo", "subprocess",
			"--payloads", "16,1024", "--samples", "300", "--warmup", "30", "--timeout", "10s",
			"--out", results, "--name", name, "-q")
		dir := filepath.Join(results, name)
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !m.Completed || len(m.SubExperiments) != 2 {
			t.Fatalf("%s: meta.json completed %v with %d sub-experiments", name, m.Completed, len(m.SubExperiments))
		}
		doc, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
		for _, want := range []string{`"nats-server"`, `"embedded": true`, `"jetstream_storage": "file"`} {
			if !bytes.Contains(doc, []byte(want)) {
				t.Errorf("%s: meta.json lacks %s:\n%s", name, want, doc)
			}
		}
		tool(t, processcmd.App(), 0, "--no-plots", dir)
		for _, typ := range types {
			for _, f := range []string{"measurements_" + typ + ".csv", "measurements_" + typ + "_summary.csv"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	reqs := filepath.Join(root, "latency_requirements.csv")
	tool(t, requirementscmd.App(), 0, "--experiments-results", results, "--output-file", reqs)
	got, err := os.ReadFile(reqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range types {
		if !bytes.Contains(got, []byte("\n"+typ+",16,")) || !bytes.Contains(got, []byte("\n"+typ+",1024,")) {
			t.Fatalf("requirements lack %s:\n%s", typ, got)
		}
	}
	// Generous requirements pass, impossible ones fail: the gate read the
	// measurements.
	loose, tight := filepath.Join(root, "loose.csv"), filepath.Join(root, "tight.csv")
	var l, s strings.Builder
	l.WriteString("Experiment type,Bytes,Median,99%,Max\n")
	s.WriteString("Experiment type,Bytes,Median,99%,Max\n")
	for _, typ := range types {
		for _, b := range []string{"16", "1024"} {
			l.WriteString(typ + "," + b + ",1000000000.000,1000000000.000,1000000000.000\n")
			s.WriteString(typ + "," + b + ",0.001,0.001,0.001\n")
		}
	}
	os.WriteFile(loose, []byte(l.String()), 0o644)
	os.WriteFile(tight, []byte(s.String()), 0o644)
	cand := filepath.Join(results, "cand")
	tool(t, checkcmd.App(), 0, "--requirements", loose, "--experiment-directory", cand, "--plots-directory", filepath.Join(root, "checkplots"))
	tool(t, checkcmd.App(), 1, "--requirements", tight, "--experiment-directory", cand, "--plots-directory", filepath.Join(root, "checkplots"))
	// Two short runs may differ by more than any threshold allows (below
	// 100 %) in their maxima: compare must judge them, pass or fail, and
	// write its comparisons.
	tool(t, comparecmd.App(), verdict, "--reference", filepath.Join(results, "base"), "--results", cand,
		"--plots-directory", filepath.Join(root, "comparison"), "--fail-threshold", "50%")
	for _, typ := range types {
		if _, err := os.Stat(filepath.Join(root, "comparison", typ+"_comparison.csv")); err != nil {
			t.Error(err)
		}
	}
	hist := filepath.Join(root, "history")
	tool(t, historycmd.App(), 0, "--experiments-results", results, "--requirements", reqs, "--plots-directory", hist)
	h, err := os.ReadFile(filepath.Join(hist, "history.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range types {
		if !bytes.Contains(h, []byte(typ)) {
			t.Errorf("history.csv lacks %s", typ)
		}
	}
}
