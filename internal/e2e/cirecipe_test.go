package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// ciYAMLBlocks returns docs/ci.md's ```yaml blocks, in order: the GitHub
// Actions workflow, then the GitLab CI job.
func ciYAMLBlocks(t *testing.T) []string {
	t.Helper()
	blocks := fencedBlocks(t, "docs/ci.md", "yaml")
	if len(blocks) != 2 {
		t.Fatalf("docs/ci.md has %d yaml blocks, want 2 (GitHub Actions, GitLab CI)", len(blocks))
	}
	return blocks
}

// demoBuilds lays out what the recipes' checkouts and installs would:
// mqgate's tools in mqgate/bin, and two builds of the demo system (the
// far end of the built-in links is a build of run), base and head, each a
// folder whose `make build` puts its run into bin/. The head is the base
// build itself, or with slower a build spending 20 µs more on every
// message (run echo --echo-delay), its round trips about 1.4 times the
// unchanged build's here: the gate fails it at round 37, or, when the
// rounds' ratios wander together and the gate is held for serial
// dependence, at its first held look, round 94 (38 s and 93 s here). With
// 200 µs (×4) each round took 2.4 s and the held gate 3m42s.
func demoBuilds(t *testing.T, work, bin, base, head string, slower bool) {
	t.Helper()
	tools := filepath.Join(work, "mqgate", "bin")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"run", "process", "compare"} {
		if err := os.Symlink(filepath.Join(bin, name), filepath.Join(tools, name)); err != nil {
			t.Fatal(err)
		}
	}
	headRun := filepath.Join(bin, "run")
	if slower {
		headRun = filepath.Join(work, "slower-run")
		script := fmt.Sprintf("#!/bin/sh\nexec %q \"$@\" --echo-delay 20us\n", filepath.Join(bin, "run"))
		if err := os.WriteFile(headRun, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for dir, run := range map[string]string{base: filepath.Join(bin, "run"), head: headRun} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mk := fmt.Sprintf("build:\n\tmkdir -p bin && cp %q bin/run\n", run)
		if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runShell runs script as a CI runner would (bash, -e, pipefail) in dir and
// returns its exit code and output.
func runShell(t *testing.T, dir string, env []string, script string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// recipeEnv is the job's variables over this process's environment, as
// the recipes set them: margins, budget and all.
func recipeEnv(vars map[string]string, extra ...string) []string {
	env := os.Environ()
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return append(env, extra...)
}

// TestCIRecipes runs the shell steps of docs/ci.md's GitHub Actions and
// GitLab CI jobs, as written, against two builds of the demo system: an
// unchanged head passes the gate (or is inconclusive, which the default
// policy lets pass), a head 20 µs slower per message fails it, with the
// Markdown verdict in $GITHUB_STEP_SUMMARY (GitHub) and the JUnit and
// Markdown reports written. What a runner does outside the shell steps is
// done here instead: the checkouts (the builds' folders), installing mqgate
// (this tree's tools) and the `uses:` actions (not run); GitLab's
// before_script (install, fetch, worktree) likewise.
func TestCIRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docs/ci.md's jobs; skipped with -short")
	}
	blocks := ciYAMLBlocks(t)
	bin := t.TempDir()
	buildTools(t, bin)

	var gh struct {
		Jobs map[string]struct {
			Env   map[string]string `yaml:"env"`
			Steps []struct {
				Name string `yaml:"name"`
				If   string `yaml:"if"`
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(blocks[0]), &gh); err != nil {
		t.Fatalf("docs/ci.md's GitHub Actions workflow: %v", err)
	}
	var gl map[string]struct {
		Variables    map[string]string `yaml:"variables"`
		Script       []string          `yaml:"script"`
		AllowFailure struct {
			ExitCodes []int `yaml:"exit_codes"`
		} `yaml:"allow_failure"`
		Artifacts struct {
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(blocks[1]), &gl); err != nil {
		t.Fatalf("docs/ci.md's GitLab CI job: %v", err)
	}
	job, ok := gh.Jobs["latency-gate"]
	glJob, ok2 := gl["latency-gate"]
	if !ok || !ok2 {
		t.Fatalf("docs/ci.md: no latency-gate job (GitHub %v, GitLab %v)", ok, ok2)
	}

	for _, slower := range []bool{false, true} {
		t.Run(fmt.Sprintf("github/slower=%v", slower), func(t *testing.T) {
			work := t.TempDir()
			demoBuilds(t, work, bin, filepath.Join(work, "base"), filepath.Join(work, "head"), slower)
			summary := filepath.Join(work, "summary.md")
			env := recipeEnv(job.Env, "GITHUB_STEP_SUMMARY="+summary)
			gateCode := -1
			failed := false
			for _, st := range job.Steps {
				if st.Run == "" || st.Name == "Install mqgate" || (failed && st.If != "always()") {
					continue // an action, what demoBuilds did, or skipped after a failure
				}
				code, out := runShell(t, work, env, st.Run)
				if st.Name == "Gate" {
					gateCode = code
					failed = code != 0
					t.Logf("gate step: exit %d\n%s", code, out)
					continue
				}
				if code != 0 {
					t.Fatalf("step %q: exit %d\n%s", st.Name, code, out)
				}
			}
			want := 0
			if slower {
				want = 1
			}
			if gateCode != want {
				t.Errorf("the Gate step exited %d, want %d", gateCode, want)
			}
			b, err := os.ReadFile(summary)
			verdict := map[bool]string{false: "PASS|INCONCLUSIVE", true: "FAIL"}[slower]
			if err != nil || !containsAny(strings.ToUpper(string(b)), strings.Split(verdict, "|")) {
				t.Errorf("$GITHUB_STEP_SUMMARY does not give the verdict %s: %v\n%.600s", verdict, err, b)
			}
			if _, err := os.Stat(filepath.Join(work, "gate.xml")); err != nil {
				t.Errorf("no JUnit report for the test report step: %v", err)
			}
			if n, stated := gateChecks(t, filepath.Join(work, "gate.json")), statedChecks(t); n != stated {
				t.Errorf("the gate judged %d checks; docs/ci.md says an unchanged build passes %d", n, stated)
			}
			if m, _ := filepath.Glob(filepath.Join(work, "ab", "*", "run", "measurements_*_summary.csv")); len(m) != 2 {
				t.Errorf("the runs kept as artifacts are not summarised: %v", m)
			}
		})
		t.Run(fmt.Sprintf("gitlab/slower=%v", slower), func(t *testing.T) {
			work := t.TempDir()
			demoBuilds(t, work, bin, filepath.Join(work, "base"), work, slower)
			code, out := runShell(t, work, recipeEnv(glJob.Variables), strings.Join(glJob.Script, "\n"))
			t.Logf("script: exit %d\n%s", code, out)
			allowed := false
			for _, c := range glJob.AllowFailure.ExitCodes {
				allowed = allowed || c == code
			}
			switch {
			case slower && code != 1:
				t.Errorf("the script exited %d for the slower head, want 1 (a failed job)", code)
			case !slower && code != 0 && !allowed:
				t.Errorf("the script exited %d for the unchanged head, want 0 or an allowed failure %v", code, glJob.AllowFailure.ExitCodes)
			}
			if _, err := os.Stat(filepath.Join(work, glJob.Artifacts.Reports.JUnit)); err != nil {
				t.Errorf("no JUnit report %q: %v", glJob.Artifacts.Reports.JUnit, err)
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// gateChecks is the number of checks of the gate's JSON verdict at path.
func gateChecks(t *testing.T, path string) int {
	t.Helper()
	var v struct {
		Checks []json.RawMessage `json:"checks"`
	}
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		t.Fatalf("the gate's JSON verdict: %v", err)
	}
	return len(v.Checks)
}

// statedChecks is the number of checks docs/ci.md says the jobs' gate
// passes for an unchanged build ("passes the N checks").
func statedChecks(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`passes the (\d+) checks`).FindSubmatch(b)
	if m == nil {
		t.Fatal(`docs/ci.md does not say how many checks an unchanged build passes ("passes the N checks")`)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}
