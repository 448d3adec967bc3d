package requirements_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// TestBurstRequirements derives burst requirements from three experiments
// at the 99th percentile (numpy's linear method, as the Fast-RTPS script),
// writes them in its format, and reads them back.
func TestBurstRequirements(t *testing.T) {
	root := t.TempDir()
	for i, lost := range []string{"0", "10", "1000"} {
		dir := filepath.Join(root, "run"+string(rune('a'+i)))
		os.MkdirAll(dir, 0o755)
		mbps := []string{"100.000", "110.000", "90.000"}[i]
		sum := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000,1000," + lost + ",1000.000,1000000.000," + mbps + "\n"
		os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(sum), 0o644)
	}
	out := filepath.Join(t.TempDir(), "burst_requirements.csv")
	code, stdout, stderr := runRequirements(t, root, "--experiments-results", root, "--burst-output-file", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Lost: 10 + 0.98 × 990 = 980.2; throughput: 100 + 0.98 × 10 = 109.8.
	want := strings.Join(requirements.BurstColumns, ",") + "\nnats_best_effort,16,980.200,109.800\n"
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s\n(stdout %s)", got, want, stdout)
	}
	rows, err := requirements.ReadBurstFile(out)
	if err != nil || len(rows) != 1 || !reflect.DeepEqual(rows[0], requirements.KeyedRow{Type: "nats_best_effort", Key: result.Key{Payload: 16}, Limits: map[string]float64{result.BurstLost: 980.2, result.BurstThroughput: 109.8}}) {
		t.Errorf("%+v, %v", rows, err)
	}
	if !requirements.IsBurstFile(out) {
		t.Error("not taken for a burst requirements file")
	}
	os.WriteFile(out, []byte(strings.Join(requirements.BurstColumns, ",")+"\nt,16,-1,2\n"), 0o644)
	if _, err := requirements.ReadBurstFile(out); err == nil || !strings.Contains(err.Error(), `:2: column "Lost [samples]"`) {
		t.Errorf("negative Lost: %v", err)
	}
}
