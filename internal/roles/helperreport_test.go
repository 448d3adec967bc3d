package roles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// TestHelperPubQryReports: a pub and a qry run by a helper (Zenoh) leave
// the role report the other drivers' pub and qry leave, made of what the
// helper counted: per publisher its id, topic and messages sent, the
// skipped slots and errors in all; the queries taken and replies sent.
func TestHelperPubQryReports(t *testing.T) {
	out := t.TempDir()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	end := start.Add(2 * time.Second)
	ten, twelve := uint64(10), uint64(12)
	pub := Settings{Role: RolePub, Driver: "zenoh", RunID: "h", OutDir: out, Label: "pubsub", Instance: 3, Topics: 2, Publishers: 2,
		Payload: 64, Rate: 5, ServePrefixes: []string{"k/query"}}
	met, err := NewMetrics(pub)
	if err != nil {
		t.Fatal(err)
	}
	run := driver.RoleRun{Helper: "mqgate-zenoh", Topic: "k", Completed: true,
		Counts:     driver.RoleCounts{Sent: 22, Skipped: 3, Errors: 1},
		Total:      driver.RoleCounts{Sent: 22, Errors: 1},
		Publishers: []driver.RolePublisher{{ID: 3 << 8, Sent: &ten}, {ID: 3<<8 | 1, Sent: &twelve}}}
	o := measuredByHelper(pub, met.Count, run, filepath.Join(out, "h", ReportsDir, "helper-pub-pubsub-3"), "", start, end)
	met.Close()
	var pr map[string]any
	readReport(t, filepath.Join(out, "h", ReportsDir, "pub-pubsub-3.json"), &pr)
	want := `{"clock_probes_answered":0,"completed":true,"driver":"zenoh","end":"2026-01-02T03:04:07Z","errors":1,"host":"` + hostname() +
		`","instance":3,"payload":64,"publishers":[{"errors":0,"id":768,"sent":10,"skipped":0,"topic":"k/data/0","unconfirmed":0},` +
		`{"errors":0,"id":769,"sent":12,"skipped":0,"topic":"k/data/1","unconfirmed":0}],"rate":5,"reliability":"best_effort","role":"pub","run_id":"h","skipped":3,` +
		`"start":"2026-01-02T03:04:05Z","unconfirmed":0}`
	if b, _ := json.Marshal(pr); string(b) != want {
		t.Errorf("pub report\n got %s\nwant %s", b, want)
	}
	if !strings.Contains(o.Summary, "report ") {
		t.Errorf("pub summary %q does not name the report", o.Summary)
	}

	qry := pub
	qry.Role, qry.Label, qry.ReplySize, qry.ProcDelay, qry.ProcJitter = RoleQry, "query", 100, time.Millisecond, 0
	met, err = NewMetrics(qry)
	if err != nil {
		t.Fatal(err)
	}
	run = driver.RoleRun{Helper: "mqgate-zenoh", Topic: "k", Reason: "the router went away",
		Counts: driver.RoleCounts{Received: 7, Replies: 6, Errors: 1}, Total: driver.RoleCounts{Received: 7, Errors: 1}}
	measuredByHelper(qry, met.Count, run, filepath.Join(out, "h", ReportsDir, "helper-qry-query-3"), "", start, end)
	met.Close()
	var qr map[string]any
	readReport(t, filepath.Join(out, "h", ReportsDir, "qry-query-3.json"), &qr)
	want = `{"completed":false,"driver":"zenoh","end":"2026-01-02T03:04:07Z","error":"the router went away","host":"` + hostname() +
		`","instance":3,"proc_delay_ns":1000000,"proc_jitter_ns":0,"queries":7,"replies":6,"reply_size":100,"role":"qry","run_id":"h",` +
		`"serve_prefix":"k/query","serve_prefixes":["k/query"],"start":"2026-01-02T03:04:05Z"}`
	if b, _ := json.Marshal(qr); string(b) != want {
		t.Errorf("qry report\n got %s\nwant %s", b, want)
	}
}

func readReport(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
