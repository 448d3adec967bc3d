package process_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLoadSummaryTrailingData: a load summary with data after its JSON
// object (a second object appended, a stray brace) is refused with exit
// code 2 at the line and character of that data, before process writes
// anything: no latency summary, no plot.
func TestLoadSummaryTrailingData(t *testing.T) {
	for name, tail := range map[string]string{"brace": "}\n", "second object": "{}\n", "text": "x"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_n_reliable.csv"))
			src := "testdata/load/load_intraprocess_best_effort_summary.json"
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(string(data), "\n")
			if !strings.HasSuffix(string(data), "\n") {
				t.Fatalf("%s does not end in a newline", src)
			}
			js := filepath.Join(dir, "load_intraprocess_best_effort_summary.json")
			if err := os.WriteFile(js, append(data, tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runProcess(t, dir)
			want := js + ":" + strconv.Itoa(lines+1) + ":1: unexpected data after the JSON object"
			if code != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
			for _, p := range []string{"measurements_n_reliable_summary.csv", "plots"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s was written though the input was refused", p)
				}
			}
		})
	}
}
