package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadResultsRoot: an experiment flag given a results root (a folder of
// experiments, as run --out writes) says what it is and what to pass
// instead, rather than "run process first".
func TestLoadResultsRoot(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"b-02", "a-01", ".hidden", "notes"} {
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a-01/meta.json", "b-02/measurements_intraprocess_reliable.csv", ".hidden/meta.json", "notes/x.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(Folders(root), ","); got != "a-01,b-02" {
		t.Errorf("Folders = %s, want a-01,b-02", got)
	}
	_, err := Load(root)
	want := root + ": it is a results root holding 2 experiments (a-01, b-02), not an experiment: name one (" +
		filepath.Join(root, "a-01") + "), or give the root where a folder of experiments is expected (check --experiments-results"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load(root) = %v\nwant prefix %s", err, want)
	}
	// An empty folder is not a root: the old advice stands.
	if _, err := Load(filepath.Join(root, "notes")); err == nil || !strings.Contains(err.Error(), "run process on the experiment first") {
		t.Errorf("Load(notes) = %v", err)
	}
}
