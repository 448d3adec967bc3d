package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
)

// fastrtpsVersions holds Fast-RTPS's published v1.9.2 (interprocess only)
// and v1.9.3 (interprocess and intraprocess) summaries.
const fastrtpsVersions = "../../testdata/fastrtps-versions"

// TestSubExperiments: -s follows the sub-experiments named alone, with
// their requirements alone (no warning about the others'); an unknown name
// is exit 2 naming those found, and nothing is written.
func TestSubExperiments(t *testing.T) {
	plots := t.TempDir()
	reqs := filepath.Join(t.TempDir(), "latency_requirements.csv")
	if err := os.WriteFile(reqs, []byte("Experiment type,Bytes,Median,99%,Max\nintraprocess_reliable,16,1.000,2.000,90.000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runHistoryApp(t, "-e", fastrtpsVersions, "-p", plots, "--format", "svg", "-r", reqs, "-s", "interprocess_reliable")
	if code != 0 || !strings.Contains(stdout, "3 experiment(s), 1 sub-experiment(s)") || strings.Contains(stderr, "intraprocess") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(plots, "intraprocess_reliable")); err == nil {
		t.Error("intraprocess_reliable plotted")
	}
	empty := t.TempDir()
	code, stdout, stderr = runHistoryApp(t, "-e", fastrtpsVersions, "-p", empty, "--subexperiments", "intraprocess_reliable,interprocess_best_effort")
	want := `history: --subexperiments: unknown sub-experiment "interprocess_best_effort": the sub-experiments found are interprocess_reliable, intraprocess_reliable` + "\n"
	if code != exit.Usage || stdout != "" || stderr != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr, want)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}
