package roles_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// roleProcess starts the test binary as `run ROLE args…`, prefixed by
// prefix (e.g. ip netns exec NS).
func roleProcess(t *testing.T, prefix []string, args ...string) (*exec.Cmd, *bytesBuffer) {
	t.Helper()
	return roleProcessEnv(t, prefix, nil, args...)
}

// roleProcessEnv is roleProcess with more environment variables.
func roleProcessEnv(t *testing.T, prefix, env []string, args ...string) (*exec.Cmd, *bytesBuffer) {
	t.Helper()
	argv := append(append([]string{}, prefix...), os.Args[0])
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), mainEnv+"=1"), env...)
	var stderr bytesBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &stderr
}

// waitExit waits for cmd within limit (a watchdog, not a timing claim)
// and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration, what string, stderr *bytesBuffer) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		// A goroutine dump says where it hangs.
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		t.Fatalf("%s did not end within %v; stderr:\n%s", what, limit, stderr)
	}
	return cmd.ProcessState.ExitCode()
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestSIGTERM stops a sub process waiting for its publishers with
// SIGTERM, and one with SIGINT (its flags given to run before the role's
// name): each flushes, exits 130 and prints one line naming the results.
func TestSIGTERM(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		id := strings.ToLower(sig.String()[:4]) + strconv.Itoa(int(sig))
		csv := filepath.Join(out, id+".csv")
		args := []string{"sub", "--endpoint", url, "--run-id", id, "--out-dir", out, "--duration", "5m", "--log-level", "error", "--csv", csv}
		if sig == syscall.SIGINT {
			args = []string{"--run-id", id, "--out-dir", out, "--log-level", "error", "sub", "--endpoint", url, "--duration", "5m", "--csv", csv}
		}
		cmd, stderr := roleProcess(t, nil, args...)
		// Stopped once it measures: its snapshot file is being written
		// (beside its name, until the role ends).
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if tmp, _ := filepath.Glob(filepath.Join(out, "."+id+".csv.tmp*")); len(tmp) > 0 {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(sig)
		code := waitExit(t, cmd, time.Minute, "sub", stderr)
		dir := filepath.Join(out, id)
		// One line: the summary, naming the results.
		if want := "run: sub " + id + ": 0 samples from 0 publishers, 0 lost, interrupted; results in " + dir + "\n"; code != 130 || stderr.String() != want {
			t.Fatalf("%v: exit %d, stderr:\n%s\nwant\n%s", sig, code, stderr, want)
		}
		if m, err := meta.ReadFile(filepath.Join(dir, meta.FileName)); err != nil || !m.Interrupted {
			t.Errorf("%v: meta %+v %v", sig, m, err)
		}
		if _, err := os.Stat(csv); err != nil {
			t.Errorf("%v: the snapshots: %v", sig, err)
		}
	}
}

// bytesBuffer is a bytes.Buffer safe for a writing process and a reading
// test.
type bytesBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *bytesBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *bytesBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
