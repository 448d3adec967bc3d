//go:build unix

package requirements

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadNotRegular: a requirements file that is a named pipe or a
// directory is an error naming it and what was expected; the pipe, which has
// no writer, does not block the reader.
func TestReadNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "latency_requirements.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	sub := filepath.Join(dir, "min_throughput_requirements.csv")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		read func(string) error
		path string
		want string
	}{
		{func(p string) error { _, err := ReadFile(p); return err }, fifo, fifo + ": is a named pipe (FIFO), not a regular file: expected a requirements CSV; remove or rename it"},
		{func(p string) error { _, err := ReadFile(p); return err }, sub, sub + ": is a directory, not a regular file: expected a requirements CSV"},
		{func(p string) error { _, err := ReadThroughputFile(p); return err }, fifo, fifo + ": is a named pipe (FIFO), not a regular file: expected a throughput requirements CSV"},
		{func(p string) error { _, err := ReadThroughputFile(p); return err }, sub, sub + ": is a directory, not a regular file: expected a throughput requirements CSV"},
	} {
		done := make(chan error, 1)
		go func() { done <- c.read(c.path) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want %s", c.path, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the reader blocked", c.path)
		}
	}
}
