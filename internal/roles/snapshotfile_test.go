package roles_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestSnapshotWriteErrors: a --csv file that takes nothing (/dev/full:
// every write fails as on a full disk) fails the role at once, before it
// measures, naming the file; a --csv file whose writes start failing while
// the role runs (a pipe whose reader left after the header) fails the role
// at its end, naming the file, with its results and report written.
func TestSnapshotWriteErrors(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	common := func(role, csv string) map[string]any {
		return map[string]any{"endpoint": []string{url}, "run-id": "csv" + role, "out-dir": out, "csv": csv, "snapshot-interval": "50ms",
			"rate": "100", "duration": "500ms", "timeout": "1s"}
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		for _, role := range []string{roles.RolePub, roles.RoleQry} {
			o := roles.Run(context.Background(), settings(t, role, common(role, "/dev/full")))
			if o.Err == nil || !strings.Contains(o.Err.Error(), "--csv: cannot write /dev/full: no space left on device") {
				t.Errorf("%s --csv /dev/full: %+v", role, o)
			}
			if _, err := os.Stat(filepath.Join(out, "csv"+role)); err == nil {
				t.Errorf("%s --csv /dev/full: wrote into %s", role, filepath.Join(out, "csv"+role))
			}
		}
	}
	for _, role := range []string{roles.RolePub, roles.RoleQry} {
		fifo := filepath.Join(t.TempDir(), "snapshots")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		header := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				header <- err.Error()
				return
			}
			line, _ := bufio.NewReader(f).ReadString('\n')
			f.Close() // the writer's next rows fail: broken pipe
			header <- line
		}()
		o := roles.Run(context.Background(), settings(t, role, common(role, fifo)))
		if h := <-header; h != roles.SnapshotHeader+"\n" {
			t.Errorf("%s: the pipe read %q", role, h)
		}
		if o.Err == nil || !strings.Contains(o.Err.Error(), "--csv: cannot write "+fifo+": broken pipe") {
			t.Errorf("%s --csv into a closed pipe: %+v", role, o)
		}
		if len(o.Paths) == 0 {
			t.Fatalf("%s: no results named: %+v", role, o)
		}
		for _, p := range o.Paths {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v", role, err)
			}
		}
	}
}

// TestSnapshotFileReplaced: an existing --csv file stays as it was while
// the role runs and when it fails before measuring (Abort), and is
// replaced by the complete new one when the role ends (Close).
func TestSnapshotFileReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	const old = "an earlier run's snapshots\n"
	if err := os.WriteFile(path, []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	unchanged := func(when string) {
		t.Helper()
		if b, err := os.ReadFile(path); err != nil || string(b) != old {
			t.Errorf("%s: %q %v", when, b, err)
		}
	}
	m, err := roles.NewMetrics(roles.Settings{Role: roles.RolePub, CSV: path, SnapshotInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m.Sent(3)
	time.Sleep(50 * time.Millisecond)
	unchanged("while the role runs")
	m.Abort()
	unchanged("after Abort")
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}

	m, err = roles.NewMetrics(roles.Settings{Role: roles.RolePub, CSV: path, SnapshotInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	m.Sent(3)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if got := csvColumn(t, path, "Sent"); len(got) != 1 || got[0] != 3 {
		t.Errorf("Sent %v", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("the new file's mode: %v %v", fi.Mode(), err)
	}
}
