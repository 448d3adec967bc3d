package fileerr

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: a regular file is read; a named pipe is refused at once
// (reading it would block until a writer came), and so is a directory.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "fifo.pem")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if b, err := ReadRegular(file, "x"); err != nil || string(b) != "x" {
		t.Errorf("ReadRegular(file) = %q, %v", b, err)
	}
	for path, want := range map[string]string{fifo: "is a named pipe (FIFO), not a regular file", dir: "is a directory, not a regular file"} {
		if _, err := ReadRegular(path, "x"); err == nil || !strings.Contains(err.Error(), path+": "+want) {
			t.Errorf("ReadRegular(%s) = %v, want %q", path, err, want)
		}
	}
}
