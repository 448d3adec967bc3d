package compare_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/exit"
)

// mainEnv set to 1 makes the test binary the compare command (cliapp.Main,
// which cancels on SIGINT and SIGTERM), for the tests that signal it or
// run several at once.
const mainEnv = "MQGATE_COMPARE_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		cliapp.Main(comparecmd.App())
	}
	os.Exit(m.Run())
}

// compareProcess returns the compare command with args in a process of
// its own, its stdout and stderr in the buffers returned.
func compareProcess(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"--format", "svg"}, args...)...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// TestSignalEndsLongModes: SIGINT or SIGTERM ends compare --plan at once
// with exit 130 and no plan printed; it ran the plan to the end and
// exited 0.
func TestSignalEndsLongModes(t *testing.T) {
	root := t.TempDir()
	a := writeRuns(t, filepath.Join(root, "a"), "v192", 12, 1, 0.03, 1)
	b := writeRuns(t, filepath.Join(root, "b"), "v192", 12, 1, 0.03, 2)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stdout, stderr := compareProcess(t, "--plan", "--paired", "--reference", a, "--results", b, "--plots-directory", filepath.Join(root, "plan"))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // the runs are read; the resampling takes a second or more
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if code, took := cmd.ProcessState.ExitCode(), time.Since(sent); code != exit.Interrupted || took > 3*time.Second {
				t.Errorf("exit %d %v after the signal, want 130 at once\n%s%s", code, took.Round(time.Millisecond), stdout, stderr)
			}
			if strings.Contains(stdout.String(), "pairs needed") {
				t.Errorf("an interrupted plan printed its result:\n%s", stdout)
			}
		})
	}
}

// TestPlotsDirectoryOneCall: a plots directory that another compare is
// writing into (it holds the directory's lock) is refused, exit 2 naming
// it, with nothing written there; two calls started together into one
// directory never leave comparisons of both: each either wrote the whole
// folder or was refused. Once the other call has ended, the folder is
// reused, as for a re-run.
func TestPlotsDirectoryOneCall(t *testing.T) {
	root := t.TempDir()
	plots := filepath.Join(root, "plots")
	if err := os.Mkdir(plots, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(plots)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	args := []string{"--reference", expDir("v192"), "--results", expDir("v193-regressed"), "-p", plots}
	code, stdout, stderr := runCompare(t, root, args...)
	if code != exit.Usage || !strings.Contains(stderr, "--plots-directory $OUT/plots is in use: another compare is writing") {
		t.Errorf("a directory in use: exit %d, want 2 naming it\n%s%s", code, stdout, stderr)
	}
	if entries, _ := os.ReadDir(plots); len(entries) > 0 {
		t.Errorf("a refused compare wrote %d files into the directory in use", len(entries))
	}
	f.Close()
	if code, stdout, stderr = runCompare(t, root, args...); code != exit.GateFailed {
		t.Errorf("the directory free again: exit %d, want 1\n%s%s", code, stdout, stderr)
	}

	// Two processes at once, each with results of another name: the
	// folder's comparison CSVs all name one of them.
	for try := range 3 {
		dir := filepath.Join(root, "together", string(rune('a'+try)))
		var cmds []*exec.Cmd
		var errs []*bytes.Buffer
		for _, results := range []string{"v192-rerun", "v193-regressed"} {
			cmd, _, stderr := compareProcess(t, "--reference", expDir("v192"), "--results", expDir(results), "-p", dir)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, errs = append(cmds, cmd), append(errs, stderr)
		}
		for i, cmd := range cmds {
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code == exit.Usage && !strings.Contains(errs[i].String(), "is in use") {
				t.Errorf("exit 2 for another reason: %s", errs[i])
			}
		}
		csvs, _ := filepath.Glob(filepath.Join(dir, "*_comparison.csv"))
		names := map[string]bool{}
		for _, c := range csvs {
			b, err := os.ReadFile(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"v192-rerun", "v193-regressed"} {
				if bytes.Contains(b, []byte("Result: "+name)) {
					names[name] = true
				}
			}
		}
		if len(names) != 1 {
			t.Errorf("try %d: the folder holds comparisons of %d calls (%v)", try, len(names), names)
		}
	}
}

// TestCancelledEveryMode: with its context cancelled (SIGINT or SIGTERM
// under cliapp.Main) every mode of compare exits 130 and writes nothing:
// the runs read from folders made it an input error (exit 2), and --plan
// ignored it (exit 0).
func TestCancelledEveryMode(t *testing.T) {
	root := t.TempDir()
	a := writeRuns(t, filepath.Join(root, "a"), "v192", 4, 1, 0.03, 1)
	b := writeRuns(t, filepath.Join(root, "b"), "v192", 4, 1, 0.03, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"single run", []string{"-R", expDir("v192"), "-r", expDir("v193-regressed")}},
		{"statistical", []string{"-R", a, "-r", b}},
		{"paired", []string{"-R", a, "-r", b, "--paired"}},
		{"plan", []string{"-R", a, "-r", b, "--plan", "--paired"}},
		{"calibrate", []string{"-r", a, "-r", b, "--calibrate"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plots := filepath.Join(root, "plots-"+strings.ReplaceAll(tt.name, " ", "-"))
			var out, errb bytes.Buffer
			code := cliapp.Run(ctx, comparecmd.App(), append([]string{"compare", "--format", "svg", "-p", plots}, tt.args...), &out, &errb)
			if code != exit.Interrupted {
				t.Errorf("exit %d, want 130\n%s%s", code, &out, &errb)
			}
			if _, err := os.Stat(plots); err == nil {
				t.Errorf("%s written", plots)
			}
		})
	}
}
