package roles

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
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

// TestHelperReqSubReports: a req and a sub run by a helper (Zenoh) write
// the percentiles of what the helper measured, and null where it measured
// nothing (no queryable answered, no message came), not 0, which would
// read as an instant answer.
func TestHelperReqSubReports(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	end := start.Add(2 * time.Second)
	times := []string{"time_to_first_p50_us", "time_to_first_p99_us", "time_to_last_p50_us", "time_to_last_p99_us"}
	lats := []string{"latency_p50_us", "latency_p90_us", "latency_p95_us", "latency_p99_us"}
	for _, tc := range []struct {
		name, role string
		run        driver.RoleRun
		want       map[string]string // field: its JSON
	}{
		{"req without reply", RoleReq, driver.RoleRun{Helper: "mqgate-zenoh", Topic: "k", Reason: "no queryable matched k/query within 1s"},
			map[string]string{times[0]: "null", times[1]: "null", times[2]: "null", times[3]: "null", "answered": "0"}},
		// numpy: p50 of 1, 2, 3, 10 is 2.5, p99 9.79; of 2, 4, 6, 20
		// twice those.
		{"req answered", RoleReq, driver.RoleRun{Helper: "mqgate-zenoh", Topic: "k", Completed: true,
			Counts: driver.RoleCounts{Sent: 4, Received: 4, Replies: 4, RepliesMin: 1, RepliesMax: 1},
			First:  []float64{10, 1, 3, 2}, Last: []float64{20, 2, 6, 4}},
			map[string]string{times[0]: "2.5", times[1]: "9.79", times[2]: "5", times[3]: "19.58", "answered": "4"}},
		{"sub without message", RoleSub, driver.RoleRun{Helper: "mqgate-zenoh", Topic: "k", Reason: "no message arrived on k/data/** within 2s"},
			map[string]string{lats[0]: "null", lats[1]: "null", lats[2]: "null", lats[3]: "null", "samples": "0", "publishers": "[]"}},
		// One-way 1 to 5 µs as measured, the clock offset not corrected.
		{"sub measured", RoleSub, driver.RoleRun{Helper: "mqgate-zenoh", Topic: "k", Completed: true, SampleBytes: 64,
			First:    []float64{5, 1, 4, 2, 3},
			Arrivals: []driver.Arrival{{Ns: 5000}, {Ns: 1000}, {Ns: 4000}, {Ns: 2000}, {Ns: 3000}}},
			map[string]string{lats[0]: "3", lats[1]: "4.6", lats[2]: "4.8", lats[3]: "4.96", "samples": "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			s := Settings{Role: tc.role, Driver: "zenoh", RunID: "h", OutDir: out, Label: "query", Instance: 3, Payload: 64,
				Expr: "k", Duration: time.Second, QPS: 4, Concurrency: 1, Replies: 1, Timeout: time.Second}
			if tc.role == RoleSub {
				s.Label, s.Publishers = "pubsub", 1
			}
			met, err := NewMetrics(s)
			if err != nil {
				t.Fatal(err)
			}
			latency, _ := s.measures()
			o := measuredByHelper(s, met.Count, tc.run, filepath.Join(out, "h", ReportsDir, "helper-"+tc.role), latency, start, end)
			met.Close()
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			var rep map[string]json.RawMessage
			readReport(t, filepath.Join(out, "h", ReportsDir, tc.role+"-"+s.Label+"-3.json"), &rep)
			for f, want := range tc.want {
				got := string(rep[f])
				g, gerr := strconv.ParseFloat(got, 64)
				w, werr := strconv.ParseFloat(want, 64)
				if got != want && (gerr != nil || werr != nil || math.Abs(g-w) > 1e-9) {
					t.Errorf("%s: %s, want %s", f, got, want)
				}
			}
		})
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
