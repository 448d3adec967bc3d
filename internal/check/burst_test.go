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

// TestBurstCheckReadsMeta: a burst check reads the experiment's meta.json
// as every check does (formats §6): an incomplete run is refused unless
// --allow-incomplete, a malformed meta.json is refused, and a payload it
// does not list is refused. The burst check read none of it and passed.
func TestBurstCheckReadsMeta(t *testing.T) {
	sum := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000,990,10,1000.000,990000.000,126.720\n"
	reqs := filepath.Join(t.TempDir(), "reqs.csv")
	os.WriteFile(reqs, []byte(strings.Join(requirements.BurstColumns, ",")+"\nnats_best_effort,16,10.000,100.000\n"), 0o644)
	const head = `{"schema": 1, "experiment": "b", "start": "2026-11-20T09:00:00Z", "end": "2026-11-20T09:01:00Z", `
	for _, c := range []struct {
		name, meta string
		args       []string
		code       int
		want       string
	}{
		{"incomplete", head + `"completed": false}`, nil, 2, "is incomplete (meta.json says the run did not complete)"},
		{"incomplete allowed", head + `"completed": false}`, []string{"--allow-incomplete"}, 0, ""},
		{"malformed", "garbage", nil, 2, "meta.json:1:1: invalid JSON"},
		{"payload not listed", head + `"completed": true, "subexperiments": [{"type": "nats_best_effort", "payloads": [{"bytes": 64}]}]}`, nil, 2,
			"payload 16 B of sub-experiment nats_best_effort is not in "},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(sum), 0o644)
			os.WriteFile(filepath.Join(dir, "meta.json"), []byte(c.meta), 0o644)
			code, stdout, stderr := runCheck(t, "", append([]string{"--requirements", reqs, "--experiment-directory", dir}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d and %q: %s", code, c.code, c.want, stderr)
			}
			if c.code == 0 && !strings.Contains(stdout, "used anyway because of --allow-incomplete") {
				t.Errorf("no warning of the incomplete run:\n%s", stdout)
			}
		})
	}
}
