package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// migrateTools puts the tools a migration from the Fast-RTPS scripts uses
// into dir and returns their paths by name.
func migrateTools(t *testing.T, dir string) map[string]string {
	t.Helper()
	names := []string{"process", "compare", "check", "history"}
	copyTools(t, dir, names...)
	bins := map[string]string{}
	for _, name := range names {
		bins[name] = filepath.Join(dir, name)
	}
	return bins
}

// TestFastRTPSMigration: Fast-RTPS results imported as they are (folders
// v1.9.2, v1.9.3 and 2019-11-15, no meta.json; throughput results with the
// older header) go through the tools without hand edits: process labels
// the folders, history orders them by start, compare takes v1.9.3's new
// intraprocess sub-experiment with -s or --allow-missing, and process reads
// the throughput results.
func TestFastRTPSMigration(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	bins := migrateTools(t, t.TempDir())
	root := filepath.Join(t.TempDir(), "fastrtps")
	copyTree(t, filepath.Join("..", "..", "testdata", "fastrtps-versions"), root)
	if err := os.Remove(filepath.Join(root, "README.md")); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][]string{{"v1.9.2", "1.9.2", "2019-11-05"}, {"2019-11-15", "1.9.3-rc1", "2019-11-15"}, {"v1.9.3", "1.9.3", "2019-11-22"}} {
		runTool(t, 0, bins["process"], "--sut-name", "Fast-RTPS", "--sut-version", l[1], "--start", l[2], filepath.Join(root, l[0]))
	}
	plots := t.TempDir()
	runTool(t, 0, bins["history"], "-e", root, "-p", plots, "--format", "svg")
	csv, err := os.ReadFile(filepath.Join(plots, "history.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(string(csv), "\n")[1:] {
		if name, _, ok := strings.Cut(line, ","); ok && !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	if !slices.Equal(order, []string{"v1.9.2", "2019-11-15", "v1.9.3"}) {
		t.Errorf("history order %v, want by --start", order)
	}

	v192, v193 := filepath.Join(root, "v1.9.2"), filepath.Join(root, "v1.9.3")
	runTool(t, 2, bins["compare"], "-R", v192, "-r", v193, "-p", t.TempDir())
	out := runTool(t, 0, bins["compare"], "-R", v192, "-r", v193, "-p", t.TempDir(), "--allow-missing")
	if !strings.Contains(out, `sub-experiment "intraprocess_reliable" is new in the results and not compared`) {
		t.Errorf("compare --allow-missing does not report the new sub-experiment:\n%s", out)
	}
	runTool(t, 0, bins["compare"], "-R", v192, "-r", v193, "-p", t.TempDir(), "-s", "interprocess_reliable")
	runTool(t, 1, bins["compare"], "-R", v193, "-r", v192, "-p", t.TempDir())

	raw := filepath.Join(t.TempDir(), "results_all_2019-11-04_15-39-11.csv")
	copyTree(t, filepath.Join("..", "process", "testdata", "fastrtps-throughput"), filepath.Dir(raw))
	out = runTool(t, 0, bins["process"], "--raw-csv", raw, "--no-plots")
	if !strings.Contains(out, "read as burst measurements") {
		t.Errorf("process does not say how it read the older header:\n%s", out)
	}
}

// TestDemoSaysBuildTime: make demo says how long a cold build takes
// before it starts building (here a build that fails at once).
func TestDemoSaysBuildTime(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	dir := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "scripts"), filepath.Join(dir, "scripts"))
	cmd := exec.Command("bash", filepath.Join(dir, "scripts", "demo.sh"))
	cmd.Env = append(os.Environ(), "GO=false")
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("demo went on after a failed build:\n%s", out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if !strings.Contains(first, "cold build") || !strings.Contains(first, "minutes") {
		t.Errorf("the first line does not say how long a cold build takes: %q", first)
	}
}
