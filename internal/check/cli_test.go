package check_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/goldenfile"
)

// runCheck runs the check command in-process and returns its exit code and
// outputs, with dir replaced by "$DIR" so that they can be compared with
// golden files.
func runCheck(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(context.Background(), checkcmd.App(), append([]string{"check"}, args...), &stdout, &stderr)
	clean := func(s string) string {
		if dir == "" {
			return s
		}
		return strings.ReplaceAll(s, dir, "$DIR")
	}
	return code, clean(stdout.String()), clean(stderr.String())
}

// golden compares got with testdata/golden/<name>, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

// fixture copies the Fast-RTPS summary into a fresh experiment directory
// under a temporary root and returns the root.
func fixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	b, err := os.ReadFile("testdata/fastrtps/measurements_interprocess_reliable_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "exp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "exp", "measurements_interprocess_reliable_summary.csv"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), dir, "$DIR"))
}

func TestExitFailed(t *testing.T) {
	root := fixture(t)
	exp := filepath.Join(root, "exp")
	code, stdout, stderr := runCheck(t, root,
		"--requirements", "testdata/requirements.csv", "--experiment_directory", exp,
		"--junit", filepath.Join(root, "r", "junit.xml"), "--markdown", filepath.Join(root, "r", "summary.md"),
		"--json", filepath.Join(root, "r", "verdict.json"), "--html", filepath.Join(root, "r", "report.html"))
	if code != exit.GateFailed {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	golden(t, "failed.stdout", []byte(stdout))
	if stderr != "check: 4 of 33 checks failed, 0 missing\n" {
		t.Errorf("stderr %q", stderr)
	}
	golden(t, "checks_interprocess_reliable.csv", readFile(t, filepath.Join(exp, "checks_interprocess_reliable.csv"), root))
	golden(t, "failed.junit.xml", readFile(t, filepath.Join(root, "r", "junit.xml"), root))
	golden(t, "failed.md", readFile(t, filepath.Join(root, "r", "summary.md"), root))
	golden(t, "failed.json", readFile(t, filepath.Join(root, "r", "verdict.json"), root))

	var junit struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(readFile(t, filepath.Join(root, "r", "junit.xml"), root), &junit); err != nil {
		t.Fatal(err)
	}
	if junit.Tests != 33 || junit.Failures != 4 {
		t.Errorf("JUnit tests=%d failures=%d, want 33 and 4", junit.Tests, junit.Failures)
	}
	html := string(readFile(t, filepath.Join(root, "r", "report.html"), root))
	for _, want := range []string{"<svg", "interprocess_reliable", "29 of 33 checks passed"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	for _, name := range []string{"comparison_median.png", "comparison_99.png", "comparison_max.png"} {
		path := filepath.Join(experiment.PlotsDir(exp), "measurements_interprocess_reliable", name)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", name, err)
		}
	}
}

func TestExitPassed(t *testing.T) {
	root := fixture(t)
	req := writeFile(t, filepath.Join(root, "req.csv"), strings.ReplaceAll(mustRead(t, "testdata/requirements.csv"), ",8.000,", ",9.000,"))
	req = writeFile(t, req, strings.ReplaceAll(mustRead(t, req), ",32,9.000,50.000,", ",32,9.000,56.000,"))
	plotsDir := filepath.Join(root, "plots")
	code, stdout, stderr := runCheck(t, root, "--requirements", req, "--experiment-directory", filepath.Join(root, "exp"),
		"--plots-directory", plotsDir, "--format", "svg")
	if code != exit.OK {
		t.Fatalf("exit %d, want 0; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	golden(t, "passed.stdout", []byte(stdout))
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(plotsDir, "measurements_interprocess_reliable", "comparison_99.svg")); err != nil {
		t.Error(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPayloadWithoutRequirement: the fixture has 16384 bytes, the
// requirements do not; that fails, and passes with --allow-missing.
func TestPayloadWithoutRequirement(t *testing.T) {
	root := fixture(t)
	reqs := mustRead(t, "testdata/requirements.csv")
	reqs = strings.ReplaceAll(reqs, "interprocess_reliable,16384,13.000,75.000,150.000\n", "")
	reqs = strings.ReplaceAll(reqs, ",8.000,", ",9.000,")
	reqs = strings.ReplaceAll(reqs, ",32,9.000,50.000,", ",32,9.000,56.000,")
	req := writeFile(t, filepath.Join(root, "req.csv"), reqs)
	exp := filepath.Join(root, "exp")
	code, stdout, stderr := runCheck(t, root, "--requirements", req, "--experiment-directory", exp)
	if code != exit.GateFailed {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "missing: 16384 B Median: the requirements have no row for interprocess_reliable, 16384 bytes") {
		t.Errorf("stdout does not say what is missing:\n%s", stdout)
	}
	code, stdout, _ = runCheck(t, root, "--requirements", req, "--experiment-directory", exp, "--allow-missing")
	if code != exit.OK {
		t.Fatalf("--allow-missing: exit %d, want 0\n%s", code, stdout)
	}
	golden(t, "allow-missing.stdout", []byte(stdout))
}

func TestExitUsage(t *testing.T) {
	root := fixture(t)
	exp := filepath.Join(root, "exp")
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	const h = "Experiment type,Bytes,Median,99%,Max\n"
	malformed := writeFile(t, filepath.Join(root, "malformed.csv"), h+"interprocess_reliable,16,1,2,3\ninterprocess_reliable,32,1,x,3\n")
	dup := writeFile(t, filepath.Join(root, "dup.csv"), h+"interprocess_reliable,16,1,2,3\ninterprocess_reliable,16,1,2,3\n")
	badSummaryDir := filepath.Join(root, "bad")
	if err := os.Mkdir(badSummaryDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(badSummaryDir, "measurements_interprocess_reliable_summary.csv"), "Bytes,Samples\n16,1\n")
	tests := []struct {
		name   string
		args   []string
		stderr string // a substring of stderr
	}{
		{"malformed requirements", []string{"--requirements", malformed, "--experiment-directory", exp},
			`check: requirements: $DIR/malformed.csv:3: column "99%": "x" is not a number`},
		{"duplicate requirements", []string{"--requirements", dup, "--experiment-directory", exp},
			`check: requirements: $DIR/dup.csv:3: duplicate requirement for interprocess_reliable, 16 bytes (first on line 2)`},
		{"missing requirements file", []string{"--requirements", filepath.Join(root, "nope.csv"), "--experiment-directory", exp},
			`check: requirements: open $DIR/nope.csv: no such file or directory`},
		{"missing experiment directory", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", filepath.Join(root, "nope")},
			`check: $DIR/nope: no such directory (expected an experiment directory)`},
		{"empty experiment directory", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", empty},
			`check: $DIR/empty: no summary (measurements_<type>_summary.csv): run process on the experiment first`},
		{"malformed summary", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", badSummaryDir},
			`$DIR/bad/measurements_interprocess_reliable_summary.csv:1`},
		{"bad format", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", exp, "--format", "gif"},
			`check: --format: unknown plot format "gif"`},
		{"no requirements flag", []string{"--experiment-directory", exp}, `check: --requirements or --throughput-requirements is required (see 'check --help')`},
		{"stray argument", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", exp, "extra"},
			`check: unexpected argument "extra"`},
		{"unknown flag", []string{"--fail_threshold", "0.1"}, `check: unknown flag --fail_threshold (see 'check --help')`},
		// An empty path (an unset variable in a script) read as no flag:
		// no report written, or the plots in their default folder, and
		// the verdict's exit code.
		{"empty junit", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", exp, "--junit", ""},
			`check: --junit is empty (an unset variable?): give a value`},
		{"empty html", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", exp, "--html", ""},
			`check: --html is empty (an unset variable?)`},
		{"empty plots directory", []string{"--requirements", "testdata/requirements.csv", "--experiment-directory", exp, "-p", ""},
			`check: --plots-directory is empty (an unset variable?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCheck(t, root, tt.args...)
			if code != exit.Usage {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr\n%s\nlacks\n%s", stderr, tt.stderr)
			}
		})
	}
}
