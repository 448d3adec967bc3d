package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// TestBurstCheckCommand: check --requirements with a burst requirements
// file checks the experiment's burst summaries, writes
// checks_burst_<type>.csv and exits 1 on a violated requirement.
func TestBurstCheckCommand(t *testing.T) {
	dir := t.TempDir()
	sum := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000,990,10,1000.000,990000.000,126.720\n"
	os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(sum), 0o644)
	reqs := filepath.Join(t.TempDir(), "reqs.csv")
	for _, c := range []struct {
		req  string
		code int
	}{{"nats_best_effort,16,10.000,100.000", 0}, {"nats_best_effort,16,5.000,100.000", 1}} {
		os.WriteFile(reqs, []byte(strings.Join(requirements.BurstColumns, ",")+"\n"+c.req+"\n"), 0o644)
		code, _, stderr := runCheck(t, "", "--requirements", reqs, "--experiment_directory", dir)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.req, code, c.code, stderr)
		}
		report, err := os.ReadFile(filepath.Join(dir, check.ReportFileName("burst_nats_best_effort")))
		if err != nil || !strings.HasPrefix(string(report), strings.Join(check.BurstReportColumns, ",")+"\n") {
			t.Errorf("report %q, %v", report, err)
		}
	}
}

// TestBurstCheckMalformedSummaryWritesNothing: a malformed burst summary
// is refused (exit 2) before any check report is written; the report of
// a summary read before it used to be written first.
func TestBurstCheckMalformedSummaryWritesNothing(t *testing.T) {
	dir := t.TempDir()
	good := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000,990,10,1000.000,990000.000,126.720\n"
	os.WriteFile(filepath.Join(dir, "burst_amqp_best_effort_summary.csv"), []byte(good), 0o644)
	os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(result.BurstHeader+"\n16,100,0\n"), 0o644)
	reqs := filepath.Join(t.TempDir(), "reqs.csv")
	os.WriteFile(reqs, []byte(strings.Join(requirements.BurstColumns, ",")+"\namqp_best_effort,16,10.000,100.000\nnats_best_effort,16,10.000,100.000\n"), 0o644)
	code, _, stderr := runCheck(t, "", "--requirements", reqs, "--experiment-directory", dir)
	if code != 2 || !strings.Contains(stderr, "burst_nats_best_effort_summary.csv") {
		t.Errorf("exit %d, want 2 naming the malformed summary: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, check.ReportFileName("burst_amqp_best_effort"))); !os.IsNotExist(err) {
		t.Errorf("a refused check wrote a report: %v", err)
	}
}
