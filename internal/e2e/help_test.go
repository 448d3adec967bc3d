package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// helpExamples returns the command lines under "Examples:" in out (a
// --help text), continuation lines joined.
func helpExamples(out string) []string {
	var cmds []string
	in := false
	var cur string
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "Examples:":
			in = true
		case in && t == "":
			in = false
		case in:
			cur += strings.TrimSuffix(t, "\\")
			if strings.HasSuffix(t, "\\") {
				cur += " "
				continue
			}
			cmds = append(cmds, cur)
			cur = ""
		}
	}
	return cmds
}

// TestHelpExamples runs every example of every tool's --help in a workspace
// laid out as the examples assume, so that --help cannot drift from the
// tools. Examples that need another host (run echo, --target) are skipped.
func TestHelpExamples(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("runs every --help example; skipped with -short")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	copyTools(t, bin)
	sh := func(script string) (string, error) {
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The experiments as run writes them (Sample from 1 in each payload);
	// the Fast-RTPS file as it is for the --raw_csv example.
	for _, d := range []string{"results/2026-11-20_09-00-00", "results/2026-11-21_09-00-00"} {
		scaledRaw(t, filepath.Join(work, d, rawName), 1, 0)
	}
	raw, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, rawName), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := sh(`process --no-plots results/2026-11-20_09-00-00 && process --no-plots results/2026-11-21_09-00-00 &&
		requirements --experiments-results results --output-file latency_requirements.csv`); err != nil {
		t.Fatalf("setting up the workspace: %v\n%s", err, out)
	}
	ran := 0
	// run last: its experiments (raw files only) would otherwise join the
	// history of results/.
	for _, tool := range []string{"process", "check", "compare", "history", "run"} {
		help, err := exec.Command(filepath.Join(bin, tool), "--help").CombinedOutput()
		if err != nil {
			t.Fatalf("%s --help: %v", tool, err)
		}
		examples := helpExamples(string(help))
		if len(examples) == 0 {
			t.Errorf("%s --help shows no examples", tool)
		}
		for _, ex := range examples {
			if strings.Contains(ex, " echo ") || strings.Contains(ex, "--target") {
				continue // needs another host
			}
			if tool == "run" {
				// Experiments are named by their start second: start each
				// in a new second.
				time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
			}
			ex = strings.ReplaceAll(ex, "/tmp/", "tmp/")
			// By path: in bash, "history" is a builtin.
			out, err := sh(filepath.Join(bin, ex))
			if code := exitCode(err); code != 0 && code != 1 {
				t.Errorf("%s --help example failed with exit %d:\n%s\n%s", tool, code, ex, out)
			}
			ran++
		}
	}
	t.Logf("ran %d --help examples", ran)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
