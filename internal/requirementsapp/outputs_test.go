package requirementsapp

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestOutputsCommit: files of one call land together, keeping the
// permissions of the files they replace, or, when one cannot be written,
// none does: the files already there are as they were, and neither the
// temporary files nor the directories made for them are left.
func TestOutputsCommit(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "req.csv")
	if err := os.WriteFile(first, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(first, 0o640); err != nil {
		t.Fatal(err)
	}
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	second := filepath.Join(dir, "new", "deeper", "second.csv")

	var failing outputs
	failing.Add("--output-file", first, text("new\n"))
	failing.Add("--second", second, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk full")
	})
	err := failing.Commit()
	if exit.Code(err) != exit.Usage || err.Error() != "--second: cannot write "+second+": disk full" {
		t.Errorf("Commit = %v; want exit 2 naming --second and its file", err)
	}
	if b, _ := os.ReadFile(first); string(b) != "old\n" {
		t.Errorf("%s = %q after a failed commit, want it as it was", first, b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left in %s: %s; want only req.csv", dir, strings.Join(names, ", "))
	}

	var ok outputs
	ok.Add("--output-file", first, text("new\n"))
	ok.Add("--second", second, text("second\n"))
	if err := ok.Commit(); err != nil {
		t.Fatalf("Commit = %v", err)
	}
	for path, want := range map[string]string{first: "new\n", second: "second\n"} {
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("%s = %q, want %q", path, b, want)
		}
	}
	if st, err := os.Stat(first); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("%s: mode %v, %v; want 0640 kept", first, st.Mode().Perm(), err)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries in %s, want req.csv and new", len(entries), dir)
	}
}
