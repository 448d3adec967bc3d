package roles_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestReqQry runs two queryables (one reply after 2 ms ± 1 ms, two
// replies of 200 bytes at once) and a requester expecting three replies
// per query: every query is answered completely, the first reply comes no
// sooner than the slow queryable's... no: the fast one answers first, the
// last reply no sooner than 1 ms (the delay minus its jitter), and the
// counts add up.
func TestReqQry(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	base := map[string]any{"endpoint": []string{url}, "run-id": "q", "out-dir": out, "timeout": "10s"}
	with := func(extra map[string]any) map[string]any { return merged(base, extra) }
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	qry := []roles.Settings{
		settings(t, roles.RoleQry, with(map[string]any{"proc-delay": "2ms±1ms", "duration": "1m", "reply-size": "32"})),
		settings(t, roles.RoleQry, with(map[string]any{"replies": "2", "reply-size": "200", "duration": "1m"})),
	}
	qryOut := make([]roles.Outcome, 2)
	for i := range qry {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qryOut[i] = roles.Run(ctx, qry[i])
		}()
	}
	time.Sleep(300 * time.Millisecond)
	req := settings(t, roles.RoleReq, with(map[string]any{"qps": "100", "duration": "1s", "replies": "3", "concurrency": "16", "payload": "48"}))
	ro := roles.Run(context.Background(), req)
	cancel()
	wg.Wait()
	if ro.Err != nil || ro.Incomplete || ro.Interrupted {
		t.Fatalf("req: %+v", ro)
	}
	for _, o := range qryOut {
		// Stopped by their context: interrupted, reported.
		if o.Err != nil || !o.Interrupted {
			t.Errorf("qry: %+v", o)
		}
	}
	dir := filepath.Join(out, "q")
	var rr roles.ReqReport
	readJSON(t, filepath.Join(dir, roles.ReportsDir, "req-query-"+strconv.Itoa(req.Instance)+".json"), &rr)
	if rr.Queries == 0 || rr.Complete != rr.Queries || rr.Timeouts != 0 || rr.Errors != 0 ||
		rr.RepliesMin != 3 || rr.RepliesMax != 3 || rr.RepliesMean != 3 || rr.ResultBytes != rr.Queries*(32+2*200) {
		t.Fatalf("report %+v", rr)
	}
	if rr.Queries+rr.Skipped < 90 || rr.QPS <= 0 {
		t.Errorf("%d queries and %d skipped slots in 1 s at 100/s", rr.Queries, rr.Skipped)
	}
	first, last := rawRows(t, dir, "nats_best_effort_query"), rawRows(t, dir, "nats_best_effort_querylast")
	if uint64(len(first)) != rr.Queries || len(last) != len(first) {
		t.Fatalf("%d first, %d last rows for %d queries", len(first), len(last), rr.Queries)
	}
	for i := range first {
		if last[i].Latency < first[i].Latency || last[i].Latency < 1000 {
			t.Fatalf("query %d: first %.3f us, last %.3f us (the delayed reply takes ≥ 1 ms)", i+1, first[i].Latency, last[i].Latency)
		}
	}
	// The report's times are the raw files': measured, numbers.
	checkReqTimes(t, rr, first, last)
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency != meta.LatencyRTT || len(m.SubExperiments) != 2 || m.SubExperiments[0].System.Extra["replies_per_query_mean"] != "3.000" {
		t.Errorf("meta %+v", m)
	}
	var qr roles.QryReport
	readJSON(t, filepath.Join(dir, roles.ReportsDir, "qry-query-"+strconv.Itoa(qry[1].Instance)+".json"), &qr)
	if qr.Queries != rr.Queries || qr.Replies != 2*rr.Queries {
		t.Errorf("qry report %+v for %d queries", qr, rr.Queries)
	}
}

// TestReqTimeouts: without a queryable every query times out; the role
// counts them, and its run is incomplete (it measured nothing), saying why,
// as a sub's that got no message; its report's times to a reply are null.
func TestReqTimeouts(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	s := settings(t, roles.RoleReq, map[string]any{"endpoint": []string{url}, "run-id": "t", "out-dir": out, "timeout": "200ms", "qps": "20", "duration": "500ms"})
	o := roles.Run(context.Background(), s)
	if o.Err != nil || !o.Incomplete {
		t.Fatalf("%+v", o)
	}
	var rr roles.ReqReport
	path := filepath.Join(out, "t", roles.ReportsDir, "req-query-"+strconv.Itoa(s.Instance)+".json")
	readJSON(t, path, &rr)
	if rr.Queries == 0 || rr.Timeouts != rr.Queries || rr.Answered != 0 || rr.RepliesMax != 0 {
		t.Errorf("%+v", rr)
	}
	// No reply, no time to one: null, not 0 (an instant answer).
	checkNull(t, path, "time_to_first_p50_us", "time_to_first_p99_us", "time_to_last_p50_us", "time_to_last_p99_us")
	if want := "no query was answered with --replies 1 within --timeout 200ms"; rr.Completed || !strings.Contains(rr.Error, want) {
		t.Errorf("completed %v, error %q; want incomplete, %q", rr.Completed, rr.Error, want)
	}
	// No time to a reply is printed for queries that got none.
	if !strings.Contains(o.Summary, "0 errors, no reply, incomplete: ") || strings.Contains(o.Summary, "p50") {
		t.Errorf("summary %q: want no reply time", o.Summary)
	}
	// No sample, no raw file (formats §2); meta.json counts 0.
	if _, err := os.Stat(filepath.Join(out, "t", "measurements_nats_best_effort_query.csv")); !os.IsNotExist(err) {
		t.Errorf("a raw file without samples: %v", err)
	}
	m, err := meta.ReadFile(filepath.Join(out, "t", meta.FileName))
	if err != nil || m.SubExperiments[0].Payloads[0].Samples != 0 || m.SubExperiments[0].Payloads[0].Lost != rr.Queries {
		t.Errorf("meta %+v %v", m, err)
	}
}

// TestReqQueryableGone: the queryable stops once the req's queries are
// answered, as when it dies: the queries after its last answer time out,
// and the req's run is incomplete, saying how many went unanswered, with
// exit 2 as a sub's whose publishers went silent.
func TestReqQueryableGone(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	qctx, stopQry := context.WithCancel(context.Background())
	defer stopQry()
	qry := settings(t, roles.RoleQry, map[string]any{"endpoint": []string{url}, "run-id": "g", "out-dir": out, "duration": "1m"})
	qryDone := make(chan roles.Outcome, 1)
	go func() { qryDone <- roles.Run(qctx, qry) }()
	time.Sleep(300 * time.Millisecond) // serving
	csv := filepath.Join(out, "req.csv")
	wctx, stopWaiting := context.WithCancel(context.Background())
	waited := make(chan bool, 1)
	go func() {
		waited <- waitAnswered(wctx, filepath.Join(out, ".req.csv.tmp*"))
		stopQry()
	}()
	code, stderr := runApp(context.Background(), t, nil, "req", "--endpoint", url, "--run-id", "g", "--out-dir", out,
		"--instance", "3", "--qps", "50", "--duration", "3s", "--timeout", "200ms", "--log-level", "error",
		"--csv", csv, "--snapshot-interval", "100ms")
	stopWaiting()
	if !<-waited {
		t.Fatalf("the req counted no reply before it ended: exit %d: %s", code, stderr)
	}
	if o := <-qryDone; o.Err != nil || !o.Interrupted {
		t.Fatalf("qry: %+v", o)
	}
	if code != exit.Usage || !strings.Contains(stderr, "incomplete: no query was answered after ") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rr roles.ReqReport
	readJSON(t, filepath.Join(out, "g", roles.ReportsDir, "req-query-3.json"), &rr)
	// The queries sent after the last answer, all timed out; a loaded
	// machine may also have timed out one sent before it.
	m1 := regexp.MustCompile(`the (\d+) sent since got no reply within --timeout 200ms`).FindStringSubmatch(rr.Error)
	sent := uint64(0)
	if m1 != nil {
		sent, _ = strconv.ParseUint(m1[1], 10, 64)
	}
	if rr.Completed || rr.Answered == 0 || sent == 0 || sent > rr.Timeouts {
		t.Errorf("report: completed %v, %d answered, %d timeouts, error %q", rr.Completed, rr.Answered, rr.Timeouts, rr.Error)
	}
	since := "the " + strconv.FormatUint(sent, 10) + " sent since got no reply within --timeout 200ms"
	m, err := meta.ReadFile(filepath.Join(out, "g", meta.FileName))
	if err != nil || m.Completed || m.SubExperiments[0].Completed || !strings.Contains(m.Error, since) {
		t.Errorf("meta %+v, %v", m, err)
	}
}

// waitAnswered waits until the snapshots being written to the file
// matching glob count a reply (true), or ctx is done (false).
func waitAnswered(ctx context.Context, glob string) bool {
	col := slices.Index(strings.Split(roles.SnapshotHeader, ","), "Received")
	for ; ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		files, _ := filepath.Glob(glob)
		if len(files) == 0 {
			continue
		}
		data, _ := os.ReadFile(files[0])
		rows := strings.Split(string(data), "\n")
		for _, row := range rows[1 : max(len(rows), 2)-1] { // the last is being written
			if f := strings.Split(row, ","); len(f) > col && f[col] != "0" {
				return true
			}
		}
	}
	return false
}

// runApp runs the roles as commands of a small app, as `run` does.
func runApp(ctx context.Context, t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	app := testApp()
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(ctx, app, append([]string{"run"}, args...), &stdout, &stderr)
	return code, stderr.String()
}

// TestCommandPrecedence runs `run pub` with the rate in a TOML file, in
// MQ_RATE and on the command line: the flag wins, then the environment;
// the report shows the rate used.
func TestCommandPrecedence(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	cfg := filepath.Join(out, "roles.toml")
	os.WriteFile(cfg, []byte("rate = 50\nduration = \"300ms\"\ninstance = 9\n[pub]\npublishers = 2\n"), 0o644)
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, nil, `"rate": 50`},
		{[]string{"MQ_RATE=70"}, nil, `"rate": 70`},
		{[]string{"MQ_RATE=70"}, []string{"--rate", "90"}, `"rate": 90`},
	} {
		id := "p" + strings.TrimPrefix(tc.want, `"rate": `)
		args := append([]string{"pub", "--config", cfg, "--endpoint", url, "--run-id", id, "--out-dir", out}, tc.args...)
		code, stderr := runApp(context.Background(), t, tc.env, args...)
		os.Unsetenv("MQ_RATE")
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		rep, err := os.ReadFile(filepath.Join(out, id, roles.ReportsDir, "pub-pubsub-9.json"))
		if err != nil || !bytes.Contains(rep, []byte(tc.want)) || !bytes.Contains(rep, []byte(`"id": 2305`)) {
			t.Errorf("%v %v: report %s, %v", tc.env, tc.args, rep, err)
		}
		if !strings.Contains(stderr, "pub "+id+": ") {
			t.Errorf("no summary line: %s", stderr)
		}
	}
	code, stderr := runApp(context.Background(), t, []string{"MQ_RAET=1"}, "pub", "--endpoint", url)
	if code != 2 || !strings.Contains(stderr, "MQ_RAET") {
		t.Errorf("unknown variable: exit %d, %s", code, stderr)
	}
	os.Unsetenv("MQ_RAET")
	code, stderr = runApp(context.Background(), t, nil, "sub", "--payload", "1")
	if code != 2 || !strings.Contains(stderr, "--payload 1") {
		t.Errorf("bad payload: exit %d, %s", code, stderr)
	}
}

// TestDesignSpellingsRun runs `run pub` with its endpoint in MQ_ENDPOINTS,
// --reliability best and --csv alone: the snapshots go beside the report.
func TestDesignSpellingsRun(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	code, stderr := runApp(context.Background(), t, []string{"MQ_ENDPOINTS=" + url}, "pub", "--reliability", "best", "--csv",
		"--run-id", "d", "--out-dir", out, "--instance", "4", "--duration", "300ms")
	os.Unsetenv("MQ_ENDPOINTS")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep roles.PubReport
	readJSON(t, filepath.Join(out, "d", roles.ReportsDir, "pub-pubsub-4.json"), &rep)
	if rep.Reliability != "best_effort" || rep.Publishers[0].Sent == 0 {
		t.Errorf("report %+v", rep)
	}
	if sent := csvTotal(t, filepath.Join(out, "d", roles.ReportsDir, "pub-pubsub-4.csv"), "Sent"); sent != rep.Publishers[0].Sent {
		t.Errorf("--csv: %d sent, report %d", sent, rep.Publishers[0].Sent)
	}
}

// TestInterrupt stops a sub waiting for publishers: exit 130, a one-line
// summary naming the results, which are written and marked interrupted.
func TestInterrupt(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	// Interrupted once it measures: its snapshot file is being written
	// (beside its name, until the role ends).
	csv := filepath.Join(out, "snap.csv")
	go func() {
		for {
			if tmp, _ := filepath.Glob(filepath.Join(out, ".snap.csv.tmp*")); len(tmp) > 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	code, stderr := runApp(ctx, t, nil, "sub", "--endpoint", url, "--run-id", "i", "--out-dir", out, "--duration", "1m", "--log-level", "error", "--csv", csv)
	dir := filepath.Join(out, "i")
	if code != exit.Interrupted || !strings.Contains(stderr, "interrupted; results in "+dir) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil || !m.Interrupted || m.Completed {
		t.Fatalf("meta %+v, %v", m, err)
	}
	if got := csvColumn(t, csv, "Received"); len(got) == 0 {
		t.Errorf("%s: no snapshot", csv)
	}
}

// TestReqErrors: queries the system refuses (larger than the NATS
// server's max_payload, 1 MiB) are errors, not timeouts: counted in the
// report and meta.json, no sample.
func TestReqErrors(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	s := settings(t, roles.RoleReq, map[string]any{"endpoint": []string{url}, "run-id": "e", "out-dir": out, "timeout": "2s",
		"qps": "20", "duration": "500ms", "payload": strconv.Itoa(2 << 20)})
	o := roles.Run(context.Background(), s)
	if o.Err != nil || o.Incomplete {
		t.Fatalf("%+v", o)
	}
	var rr roles.ReqReport
	readJSON(t, filepath.Join(out, "e", roles.ReportsDir, "req-query-"+strconv.Itoa(s.Instance)+".json"), &rr)
	if rr.Queries == 0 || rr.Errors != rr.Queries || rr.Timeouts != 0 || rr.Answered != 0 {
		t.Errorf("%+v", rr)
	}
	m, err := meta.ReadFile(filepath.Join(out, "e", meta.FileName))
	if err != nil || m.SubExperiments[0].System.Extra["errors"] != strconv.FormatUint(rr.Queries, 10) || m.SubExperiments[0].Payloads[0].Errors != rr.Queries {
		t.Errorf("meta %+v %v", m, err)
	}
}
