package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// installVersion is what the test stamps into the installed program, as
// the Makefile's install target stamps git describe.
const installVersion = "e2e-install"

// installMqgate installs cmd/mqgate into an empty GOBIN as `make install`
// does and returns the directory, which holds mqgate alone.
func installMqgate(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	gobin := t.TempDir()
	cmd := exec.Command(goTool, "install", "-ldflags", "-X github.com/mqgate/mqgate/internal/cliapp.Version="+installVersion,
		"github.com/mqgate/mqgate/cmd/mqgate")
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(gobin)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "mqgate" {
		t.Fatalf("go install put %v in GOBIN, want mqgate alone", entries)
	}
	return gobin
}

// installedEnv is the environment with PATH holding gobin alone and no
// MQGATE_ variable (MQGATE_RUN_SELF would choose the echo program).
func installedEnv(gobin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "MQGATE_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+gobin)
}

// runInstalled runs `mqgate ARGS…` in dir, found on PATH as a user's shell
// finds it, and checks its exit code.
func runInstalled(t *testing.T, env []string, dir string, wantCode int, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Started as a shell starts it from PATH: argv[0] is the bare name.
	var path string
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = p
		}
	}
	cmd := exec.CommandContext(ctx, filepath.Join(path, "mqgate"), args...)
	cmd.Args[0] = "mqgate"
	cmd.Env, cmd.Dir = env, dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mqgate %s: %v", strings.Join(args, " "), err)
	}
	if code != wantCode {
		t.Fatalf("mqgate %s: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// wantFiles fails unless every path under dir exists as a non-empty file.
func wantFiles(t *testing.T, dir string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		st, err := os.Stat(filepath.Join(dir, p))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: want a non-empty file (%v)", p, err)
		}
	}
}

// TestInstalledProgram: the one program `make install` puts on PATH
// measures on its own, with no other tool on PATH: run's echo processes
// (an interprocess and a broker sub-experiment, the broker embedded), run
// ab, and requirements --runs, which starts run and process; its messages
// name the tools as typed.
func TestInstalledProgram(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("installs mqgate and measures")
	}
	gobin := installMqgate(t)
	env := installedEnv(gobin)
	dir := t.TempDir()
	small := []string{"--samples", "50", "--warmup", "5", "--payloads", "16", "--quiet"}

	for _, name := range []string{"run", "process", "requirements"} {
		if _, err := os.Stat(filepath.Join(gobin, name)); err == nil {
			t.Fatalf("%s is on the test's PATH", name)
		}
	}
	if out, _ := runInstalled(t, env, dir, 0, "--version"); out != "mqgate version "+installVersion+"\n" {
		t.Errorf("mqgate --version = %q", out)
	}

	t.Run("interprocess", func(t *testing.T) {
		runInstalled(t, env, dir, 0, append([]string{"run", "-s", "interprocess_reliable_tcp", "--out", "results", "--name", "tcp"}, small...)...)
		wantFiles(t, filepath.Join(dir, "results", "tcp"), "meta.json", "measurements_interprocess_reliable_tcp.csv")
	})
	t.Run("echo-command", func(t *testing.T) {
		// Another build's installed front as the far end, as run ab's
		// --reference "--echo-command /old/mqgate" names it.
		runInstalled(t, env, dir, 0, append([]string{"run", "-s", "interprocess_reliable_tcp", "--echo-command", "mqgate", "--out", "results", "--name", "other"}, small...)...)
		wantFiles(t, filepath.Join(dir, "results", "other"), "meta.json", "measurements_interprocess_reliable_tcp.csv")
	})
	t.Run("broker", func(t *testing.T) {
		runInstalled(t, env, dir, 0, append([]string{"run", "-s", "nats_reliable", "--broker", "embedded", "--out", "results", "--name", "nats"}, small...)...)
		wantFiles(t, filepath.Join(dir, "results", "nats"), "meta.json", "measurements_nats_reliable.csv")
	})
	t.Run("ab", func(t *testing.T) {
		args := append([]string{"run", "ab", "--runs", "2", "--out", "ab", "--name", "x", "--seed", "1",
			"--candidate", "--echo-delay 20us", "--", "-s", "interprocess_reliable_tcp"}, small...)
		runInstalled(t, env, dir, 0, args...)
		for _, side := range []string{"reference", "candidate"} {
			for _, n := range []string{"x-01", "x-02"} {
				wantFiles(t, filepath.Join(dir, "ab", side, n), "meta.json", "measurements_interprocess_reliable_tcp.csv")
			}
		}
		wantFiles(t, filepath.Join(dir, "ab"), "x-series.csv")
	})
	t.Run("requirements", func(t *testing.T) {
		args := append([]string{"requirements", "--runs", "2", "--out", "pool", "--output-file", "req.csv", "--",
			"-s", "interprocess_reliable_tcp"}, small...)
		runInstalled(t, env, dir, 0, args...)
		wantFiles(t, dir, "req.csv")
		runs, err := filepath.Glob(filepath.Join(dir, "pool", "*", "measurements_interprocess_reliable_tcp_summary.csv"))
		if err != nil || len(runs) != 2 {
			t.Errorf("pool holds %d processed runs, want 2 (%v)", len(runs), err)
		}
	})
	t.Run("names", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"run", "--bad-flag"}, "mqgate run: unknown flag --bad-flag (see 'mqgate run --help')\n"},
			{[]string{"run", "extra"}, "mqgate run: unexpected argument \"extra\" (run takes flags only; see 'mqgate run --help')\n"},
			{[]string{"requirements", "--bad-flag"}, "mqgate requirements: unknown flag --bad-flag (see 'mqgate requirements --help')\n"},
		} {
			if _, errb := runInstalled(t, env, dir, 2, c.args...); errb != c.want {
				t.Errorf("mqgate %s: stderr %q, want %q", strings.Join(c.args, " "), errb, c.want)
			}
		}
	})
}

// TestSeparateTools: the tools built on their own (make build, the image)
// start themselves and each other from beside one another, with nothing
// on PATH, and name themselves by their own names.
func TestSeparateTools(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("builds the tools and measures")
	}
	bin := buildTools(t, t.TempDir())
	env := installedEnv(t.TempDir()) // an empty PATH
	dir := t.TempDir()
	small := []string{"--samples", "50", "--warmup", "5", "--payloads", "16", "--quiet"}
	run := func(wantCode int, tool string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin[tool], args...)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if code != wantCode {
			t.Fatalf("%s %s: exit %d, want %d\n%s", tool, strings.Join(args, " "), code, wantCode, out)
		}
		return string(out)
	}
	run(0, "run", append([]string{"-s", "interprocess_reliable_tcp", "--out", "results", "--name", "tcp"}, small...)...)
	wantFiles(t, filepath.Join(dir, "results", "tcp"), "meta.json", "measurements_interprocess_reliable_tcp.csv")
	run(0, "requirements", append([]string{"--runs", "1", "--out", "pool", "--output-file", "req.csv", "--", "-s", "interprocess_reliable_tcp"}, small...)...)
	wantFiles(t, dir, "req.csv")
	if out := run(2, "run", "--bad-flag"); out != "run: unknown flag --bad-flag (see 'run --help')\n" {
		t.Errorf("run --bad-flag: %q", out)
	}
}
