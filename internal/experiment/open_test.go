//go:build unix

package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// within runs f and fails the test when it has not returned after a few
// seconds: a reader blocked on a named pipe without writer.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked: a named pipe was opened for reading as if it were a file")
		return nil
	}
}

func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := write(t, filepath.Join(dir, "a.csv"), "x")
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		f, err := fileerr.OpenRegular(p, "a file")
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Close()
	}
	fifo := mkfifo(t, filepath.Join(dir, "fifo.csv"))
	for _, c := range []struct{ path, want string }{
		{dir, dir + ": is a directory, not a regular file: expected a summary; remove or rename it"},
		{fifo, fifo + ": is a named pipe (FIFO), not a regular file: expected a summary; remove or rename it"},
	} {
		err := within(t, func() error { _, err := fileerr.OpenRegular(c.path, "a summary"); return err })
		if err == nil || err.Error() != c.want {
			t.Errorf("fileerr.OpenRegular(%s): %v, want %s", c.path, err, c.want)
		}
	}
	if _, err := fileerr.OpenRegular(filepath.Join(dir, "nope"), "a file"); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want the open's own error", err)
	}
}

// TestNotRegularFiles: a directory, or a named pipe, named as a file of an
// experiment is an error naming it, from every reader; none blocks.
func TestNotRegularFiles(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, dir string) string // returns the path named
		want string
	}{
		{"raw file is a directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, RawFileName("b"))
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is a directory, not a regular file: expected a raw measurements file (measurements_b.csv); remove or rename it"},
		{"raw file is a named pipe", func(t *testing.T, dir string) string {
			return mkfifo(t, filepath.Join(dir, RawFileName("b")))
		}, "is a named pipe (FIFO), not a regular file: expected a raw measurements file (measurements_b.csv)"},
		{"summary is a named pipe", func(t *testing.T, dir string) string {
			return mkfifo(t, filepath.Join(dir, SummaryFileName("b")))
		}, "is a named pipe (FIFO), not a regular file: expected a summary (measurements_b_summary.csv)"},
		{"summary is a link to a named pipe", func(t *testing.T, dir string) string {
			fifo := mkfifo(t, filepath.Join(t.TempDir(), "fifo"))
			p := filepath.Join(dir, SummaryFileName("b"))
			if err := os.Symlink(fifo, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is a named pipe (FIFO), not a regular file"},
		{"throughput summary is a directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ThroughputFileName("b"))
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is a directory, not a regular file: expected a throughput file"},
		{"meta.json is a named pipe", func(t *testing.T, dir string) string {
			os.Remove(filepath.Join(dir, "meta.json"))
			return mkfifo(t, filepath.Join(dir, "meta.json"))
		}, "is a named pipe (FIFO), not a regular file: expected the run's meta.json"},
		{"meta.json is a directory", func(t *testing.T, dir string) string {
			os.Remove(filepath.Join(dir, "meta.json"))
			if err := os.Mkdir(filepath.Join(dir, "meta.json"), 0o755); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "meta.json")
		}, "is a directory, not a regular file: expected the run's meta.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := experimentDir(t, filepath.Join(root, "run1"), "a")
			writeMeta(t, dir, nil)
			path := c.make(t, dir)
			want := path + ": " + c.want
			if err := within(t, func() error { _, err := Load(dir); return err }); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Load: %v\nwant %s", err, want)
			}
			if err := within(t, func() error { _, _, err := LoadRoot(context.Background(), root); return err }); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("LoadRoot: %v\nwant %s", err, want)
			}
		})
	}
	// RawFiles, which process lists its inputs with, refuses it too.
	dir := t.TempDir()
	p := filepath.Join(dir, RawFileName("b"))
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := RawFiles(dir); err == nil || !strings.Contains(err.Error(), p+": is a directory") {
		t.Errorf("RawFiles: %v", err)
	}
}
