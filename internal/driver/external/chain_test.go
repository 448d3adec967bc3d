package external_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/urfave/cli/v2"
)

// tool runs one of mqgate's commands in-process.
func tool(t *testing.T, app *cli.App, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), app, append([]string{app.Name}, args...), &out, &errb)
	return code, out.String() + errb.String()
}

// TestChain takes what an external program measured through the whole
// pipeline: run → process → requirements → check → compare → history. Two
// reference runs of a program set the requirements; a candidate whose
// program is twice as slow fails check and compare, a reference run passes.
func TestChain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every tool; skipped with -short")
	}
	root := t.TempDir()
	refs := filepath.Join(root, "refs")
	typ := "fastdds_reliable"
	measure := func(out, name, scale string) string {
		t.Helper()
		var errb bytes.Buffer
		args := []string{"run", "--quiet", "--out", out, "--name", name, "-s", typ, "--external-name", typ,
			"--external-format", "fastrtps", "--payloads", "16,64,256", "--samples", "40", "--warmup", "0",
			"--external-command", fakeCommand(t, "-payloads", "{payload}", "-n", "{samples}", "-out", "{out}", "-scale", scale)}
		if code := cliapp.Run(context.Background(), runcmd.App(), args, &bytes.Buffer{}, &errb); code != 0 {
			t.Fatalf("run %s: exit %d: %s", name, code, errb.String())
		}
		dir := filepath.Join(out, name)
		if code, out := tool(t, processcmd.App(), "--quiet", "--no-plots", dir); code != 0 {
			t.Fatalf("process %s: exit %d: %s", dir, code, out)
		}
		return dir
	}
	ref1 := measure(refs, "2026-01-01_00-00-00", "1")
	measure(refs, "2026-01-02_00-00-00", "1.01")
	cand := measure(filepath.Join(root, "cand"), "2026-01-03_00-00-00", "2")

	reqs := filepath.Join(root, "latency_requirements.csv")
	if code, out := tool(t, requirementscmd.App(), "--experiments-results", refs, "--output-file", reqs); code != 0 {
		t.Fatalf("requirements: exit %d: %s", code, out)
	}
	b, err := os.ReadFile(reqs)
	if err != nil || !strings.Contains(string(b), typ+",16,") || !strings.Contains(string(b), typ+",256,") {
		t.Fatalf("requirements %q %v", b, err)
	}
	if code, out := tool(t, checkcmd.App(), "--requirements", reqs, "--experiment-directory", ref1, "--plots-directory", filepath.Join(root, "p1")); code != 0 {
		t.Errorf("check of a reference run: exit %d, want 0: %s", code, out)
	}
	if code, out := tool(t, checkcmd.App(), "--requirements", reqs, "--experiment-directory", cand, "--plots-directory", filepath.Join(root, "p2")); code != 1 || !strings.Contains(out, "failed") {
		t.Errorf("check of the slow candidate: exit %d, want 1: %s", code, out)
	}
	if code, out := tool(t, comparecmd.App(), "--reference", ref1, "--results", cand, "--plots-directory", filepath.Join(root, "cmp"), "--fail-threshold", "0.1"); code != 1 {
		t.Errorf("compare: exit %d, want 1: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(root, "cmp", typ+"_comparison.csv")); err != nil {
		t.Error(err)
	}
	if code, out := tool(t, historycmd.App(), "--experiments-results", refs, "--requirements", reqs, "--plots-directory", filepath.Join(root, "hist")); code != 0 {
		t.Errorf("history: exit %d, want 0: %s", code, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "hist")); len(entries) == 0 {
		t.Error("history wrote nothing")
	}
}
