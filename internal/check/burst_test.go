package check_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/check"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// TestBurstReportSpecExample: the rows of the Fast-RTPS throughput check
// report example, from their requirement and experiment values; a Lost
// requirement of 0 gives the difference × 100 as its percentage, as the
// script computes it.
func TestBurstReportSpecExample(t *testing.T) {
	req := func(payload int, lost, mbps float64) requirements.KeyedRow {
		return requirements.KeyedRow{Type: "t", Key: result.Key{Payload: payload}, Limits: map[string]float64{result.BurstLost: lost, result.BurstThroughput: mbps}}
	}
	reqs := []requirements.KeyedRow{req(16, 58.8, 9.364), req(1024, 143.08, 555.954), req(64, 0, 1)}
	rows := []result.BurstRow{{Payload: 16, Lost: 2488, SubMbps: 9.263}, {Payload: 1024, Lost: 918, SubMbps: 547.765},
		{Payload: 64, Lost: 2, SubMbps: 1}}
	var b bytes.Buffer
	if err := check.WriteBurstReport(&b, check.EvaluateBurst("t", reqs, rows), false); err != nil {
		t.Fatal(err)
	}
	want := `Check,Payload [Bytes],Requirement,Experiment,Difference,Percentage over requirement,Status
Lost [samples],16,58.800,2488.000,2429.200,4131.293,failed
Lost [samples],1024,143.080,918.000,774.920,541.599,failed
Lost [samples],64,0.000,2.000,2.000,200.000,failed
Subscription throughput [Mb/s],16,9.364,9.263,0.101,-1.079,failed
Subscription throughput [Mb/s],1024,555.954,547.765,8.189,-1.473,failed
Subscription throughput [Mb/s],64,1.000,1.000,0.000,0.000,passed
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

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
		report, err := os.ReadFile(filepath.Join(dir, check.BurstReportFileName("nats_best_effort")))
		if err != nil || !strings.HasPrefix(string(report), strings.Join(check.BurstReportColumns, ",")+"\n") {
			t.Errorf("report %q, %v", report, err)
		}
	}
}
