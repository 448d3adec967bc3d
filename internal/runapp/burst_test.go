package runapp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
)

// TestBurstEndToEnd runs `run burst` over the in-process link with the
// Fast-RTPS demands and recoveries files: one row per payload, demand and
// recovery time, nothing lost on a reliable queue, and the summary.
func TestBurstEndToEnd(t *testing.T) {
	dir := t.TempDir()
	demands, recoveries := filepath.Join(dir, "payloads_demands.csv"), filepath.Join(dir, "recoveries.csv")
	os.WriteFile(demands, []byte("16;10;100\n64;100\n"), 0o644)
	os.WriteFile(recoveries, []byte("0;5\n"), 0o644)
	out := filepath.Join(dir, "results")
	code, _, stderr := run(t, "burst", "-s", "intraprocess_reliable", "--file", demands, "--recoveries_file", recoveries,
		"--time", "0.05", "--timeout", "100ms", "--out", out, "--name", "x", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "x", experiment.BurstFileName("intraprocess_reliable")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), result.BurstHeader+"\n") {
		t.Fatalf("header:\n%s", data)
	}
	rows, err := result.ReadBurst(strings.NewReader(string(data)), "burst.csv")
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, r := range rows {
		cases = append(cases, strings.Join(r.Record()[:3], ","))
		if r.Lost != 0 || r.Received != r.Sent || r.Sent == 0 {
			t.Errorf("reliable in-process link: %+v", r)
		}
	}
	if got := strings.Join(cases, " "); got != "16,10,0 16,10,5 16,100,0 16,100,5 64,100,0 64,100,5" {
		t.Errorf("cases %s", got)
	}
	if _, err := os.Stat(filepath.Join(out, "x", experiment.BurstSummaryFileName("intraprocess_reliable"))); err != nil {
		t.Error(err)
	}

	code, _, stderr = run(t, "burst", "--file", demands, "--payloads", "16", "--out", out)
	if code != 2 || !strings.Contains(stderr, "--file gives the payloads and demands") {
		t.Errorf("--file with --payloads: exit %d, %s", code, stderr)
	}
}
