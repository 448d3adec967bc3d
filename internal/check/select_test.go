package check_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// fastrtps holds Fast-RTPS's published v1.9.2 (interprocess only) and
// v1.9.3 (interprocess and intraprocess) summaries.
const fastrtps = "../../testdata/fastrtps-versions"

// looseRequirements writes requirements that every payload of summary
// meets, for each of types, and returns the file.
func looseRequirements(t *testing.T, dir, summary string, types ...string) string {
	t.Helper()
	f, err := os.Open(summary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("Experiment type,Bytes,Median,99%,Max\n")
	for _, typ := range types {
		for _, r := range rows[1:] {
			fmt.Fprintf(&b, "%s,%s,1000.000,1000.000,1000.000\n", typ, r[0])
		}
	}
	return writeFile(t, filepath.Join(dir, "latency_requirements.csv"), b.String())
}

// copyExperiment copies the summaries of src into dir/name and returns it.
func copyExperiment(t *testing.T, src, dir, name string) string {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeAll(t, filepath.Join(dir, name, e.Name()), string(b))
	}
	return filepath.Join(dir, name)
}

// TestSubExperiments: -s checks the sub-experiments named against their
// requirements alone. v1.9.2 has no intraprocess_reliable, which the
// requirements hold: a missing check that fails, unless -s leaves it out;
// named with -s it still fails; an unknown name is exit 2 naming those
// the runs and requirements hold.
func TestSubExperiments(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
		report bool // checks_interprocess_reliable.csv written
	}{
		{nil, exit.GateFailed, "missing", true},
		{[]string{"-s", "interprocess_reliable"}, exit.OK, "", true},
		{[]string{"--subexperiments", "intraprocess_reliable"}, exit.GateFailed, "missing", false},
		{[]string{"-s", "interprocess_reliable,intraprocess_reliabel"}, exit.Usage,
			`check: --subexperiments: unknown sub-experiment "intraprocess_reliabel": the sub-experiments found are interprocess_reliable, intraprocess_reliable (in the runs and the requirements)`, false},
		{[]string{"-s", ""}, exit.Usage, "--subexperiments", false},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			exp := copyExperiment(t, filepath.Join(fastrtps, "v1.9.2"), dir, "v1.9.2")
			reqs := looseRequirements(t, dir, filepath.Join(exp, "measurements_interprocess_reliable_summary.csv"), "interprocess_reliable", "intraprocess_reliable")
			code, stdout, stderr := runCheck(t, dir, append([]string{"-r", reqs, "-e", exp, "--format", "svg"}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q\n%s", code, stderr, c.code, c.stderr, stdout)
			}
			if _, err := os.Stat(filepath.Join(exp, "checks_interprocess_reliable.csv")); (err == nil) != c.report {
				t.Errorf("checks_interprocess_reliable.csv written: %v, want %v", err == nil, c.report)
			}
		})
	}
}

// TestPlotsFolder: check pointed at an experiment's plots folder says to
// give the experiment folder, not to run process.
func TestPlotsFolder(t *testing.T) {
	dir := t.TempDir()
	exp := copyExperiment(t, filepath.Join(fastrtps, "v1.9.2"), dir, "v1.9.2")
	reqs := looseRequirements(t, dir, filepath.Join(exp, "measurements_interprocess_reliable_summary.csv"), "interprocess_reliable")
	plots := filepath.Join(exp, "plots")
	writeAll(t, filepath.Join(plots, "measurements_interprocess_reliable", "histogram_16.png"), "")
	code, _, stderr := runCheck(t, "", "-r", reqs, "-e", plots)
	want := fmt.Sprintf("check: %s is the plots folder of the experiment %s: give the experiment folder itself (--experiment-directory %s), which holds the summaries\n", plots, exp, exp)
	if code != exit.Usage || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
	// Plots copied elsewhere are recognised by their folders.
	other := filepath.Join(dir, "copied-plots")
	writeAll(t, filepath.Join(other, "measurements_interprocess_reliable", "histogram_16.png"), "")
	code, _, stderr = runCheck(t, "", "-r", reqs, "-e", other)
	if code != exit.Usage || !strings.Contains(stderr, "holds plots (measurements_interprocess_reliable/), not results") || strings.Contains(stderr, "run process") {
		t.Errorf("exit %d, stderr %q; want 2 saying it holds plots", code, stderr)
	}
}

// writeAll writes content to path, creating its directory.
func writeAll(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, path, content)
}
