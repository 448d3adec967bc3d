package requirementsapp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/program"
)

// stubFront writes an executable at dir/name that logs its command line
// to dir/log and, started as `NAME run --out O --name N …`, makes the
// experiment O/N with a raw latency file, so that process follows.
func stubFront(t *testing.T, dir, name string) string {
	t.Helper()
	exe := filepath.Join(dir, name)
	script := "#!/bin/sh\nPATH=/usr/bin:/bin\n" +
		"echo \"$*\" >>'" + filepath.Join(dir, "log") + "'\n" +
		"if [ \"$1\" = run ]; then mkdir -p \"$3/$5\" && : >\"$3/$5/measurements_interprocess_reliable_tcp.csv\"; fi\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestRunsUnderFront: requirements --runs started as `mqgate requirements`
// runs `mqgate run …` and `mqgate process …`, though neither run nor
// process is beside it or on PATH.
func TestRunsUnderFront(t *testing.T) {
	bin := t.TempDir()
	exe := stubFront(t, bin, "mqgate")
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "runs")
	ctx := program.NewContext(context.Background(), program.Invocation{Exe: exe, Front: program.Front, Tool: "requirements"})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := repeatedRuns{N: 1, Out: out, RunArgs: []string{"-s", "interprocess_reliable_tcp"}, Stdout: io.Discard, Stderr: io.Discard,
		Now: func() time.Time { return now }}
	names, err := r.Execute(ctx)
	if err != nil || len(names) != 1 {
		t.Fatalf("Execute = %q, %v", names, err)
	}
	b, err := os.ReadFile(filepath.Join(bin, "log"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, names[0])
	want := "run --out " + out + " --name " + names[0] + " -s interprocess_reliable_tcp\nprocess " + dir + "\n"
	if string(b) != want {
		t.Errorf("the front was started as\n%s\nwant\n%s", b, want)
	}
}

// TestRunsToolMissing: a requirements built alone, with no run, process
// or mqgate beside it or on PATH, refuses --runs with exit 2 naming what
// it looked for, before running anything.
func TestRunsToolMissing(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	out := filepath.Join(t.TempDir(), "runs")
	ctx := program.NewContext(context.Background(), program.Invocation{Exe: filepath.Join(bin, "requirements"), Tool: "requirements"})
	r := repeatedRuns{N: 1, Out: out, Stdout: io.Discard, Stderr: io.Discard}
	_, err := r.Execute(ctx)
	if err == nil || !strings.Contains(err.Error(), "cannot find the run tool") || !strings.Contains(err.Error(), "mqgate") {
		t.Errorf("Execute = %v, want the run tool not found", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was created: %v", out, err)
	}
}
