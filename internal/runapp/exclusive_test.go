package runapp_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestRunFolderTaken: an experiment folder belongs to the one run that
// creates it. A folder that exists already, even empty, is refused with
// exit 2 naming it and left as it was; of two runs given the same --out and
// --name at once, one measures and the other exits 2 without writing into
// the winner's folder.
func TestRunFolderTaken(t *testing.T) {
	out := t.TempDir()
	taken := filepath.Join(out, "taken")
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"-s", "intraprocess_reliable", "--payloads", "64", "--samples", "2000", "--warmup", "10", "-q", "--out", out}
	for _, a := range [][]string{args, {"throughput", "-s", "intraprocess_best_effort", "--payloads", "16", "--windows", "2", "--max-in-flight", "10", "-q", "--out", out}} {
		code, _, stderr := run(t, append(a, "--name", "taken")...)
		if code != exit.Usage || !strings.Contains(stderr, taken+" exists already") {
			t.Errorf("run %s into an existing folder: exit %d, %q; want 2 naming %s", strings.Join(a, " "), code, stderr, taken)
		}
		if entries, _ := os.ReadDir(taken); len(entries) > 0 {
			t.Errorf("%s now holds %v", taken, entries)
		}
	}
	// Two processes, as two runs at once are: this binary is run when
	// started without test flags (TestMain). Two runs in one process would
	// share the command-line library's global flags, a race of the test
	// alone.
	codes, stderrs := make([]int, 2), make([]string, 2)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var errb bytes.Buffer
			cmd := exec.Command(os.Args[0], append(args, "--name", "both")...)
			cmd.Stderr = &errb
			err := cmd.Run()
			codes[i], stderrs[i] = exitCode(err), errb.String()
		}()
	}
	wg.Wait()
	both := filepath.Join(out, "both")
	win, lose := 0, 1
	if codes[0] != 0 {
		win, lose = 1, 0
	}
	if codes[win] != 0 || codes[lose] != exit.Usage || !strings.Contains(stderrs[lose], both) {
		t.Fatalf("exits %d (%s) and %d (%s); want one 0 and one 2 naming %s", codes[0], stderrs[0], codes[1], stderrs[1], both)
	}
	m, _ := readMeta(t, both)
	if !m.Completed || len(m.SubExperiments) != 1 {
		t.Errorf("the winner's meta.json: completed %v, %d sub-experiments", m.Completed, len(m.SubExperiments))
	}
}

// exitCode is the exit code of a command that ended with err: 0 for nil,
// -1 when it did not run.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}
