package roles_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestZenohRoles runs the four roles over Zenoh through mqgate-zenoh,
// every one a client of a router the helper runs: the sub's one-way
// samples and the req's first and last replies land in the experiments,
// as the NATS roles' do.
func TestZenohRoles(t *testing.T) {
	ep := zenohtest.Router(t)
	out := t.TempDir()
	base := map[string]any{"driver": "zenoh", "endpoint": []string{ep}, "out-dir": out, "timeout": "3s", "payload": "64"}
	with := func(extra map[string]any) map[string]any { return merged(base, extra) }
	var wg sync.WaitGroup
	var subOut, qryOut roles.Outcome
	wg.Add(2)
	go func() {
		defer wg.Done()
		subOut = roles.Run(context.Background(), settings(t, roles.RoleSub, with(map[string]any{"run-id": "zps", "publishers": "2", "duration": "20s", "reliability": "reliable"})))
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer wg.Done()
		qryOut = roles.Run(ctx, settings(t, roles.RoleQry, with(map[string]any{"run-id": "zq", "duration": "1m", "replies": "2",
			"reply-size": "100", "proc-delay": "15ms±5ms", "reliability": "reliable"})))
	}()
	time.Sleep(time.Second)
	// Reliable (CongestionControl::Block): nothing is dropped, however
	// loaded the machine; slots a late publisher skipped are not sent.
	pubOut := roles.Run(context.Background(), settings(t, roles.RolePub, with(map[string]any{"run-id": "zps", "publishers": "2", "rate": "200", "duration": "1s", "reliability": "reliable"})))
	reqOut := roles.Run(context.Background(), settings(t, roles.RoleReq, with(map[string]any{"run-id": "zq", "qps": "100", "duration": "1s", "replies": "2", "concurrency": "16", "reliability": "reliable"})))
	// One query in flight at most, each ≥ 10 ms, at 200 slots a second:
	// most slots are skipped and counted.
	req1Out := roles.Run(context.Background(), settings(t, roles.RoleReq, with(map[string]any{"run-id": "zq1", "qps": "200", "duration": "1s", "replies": "2", "concurrency": "1", "reliability": "reliable"})))
	cancel()
	wg.Wait()
	for name, o := range map[string]roles.Outcome{"pub": pubOut, "sub": subOut, "req": reqOut, "req1": req1Out} {
		if o.Err != nil || o.Incomplete || o.Interrupted {
			t.Errorf("%s: %+v", name, o)
		}
	}
	if qryOut.Err != nil || !qryOut.Interrupted {
		t.Errorf("qry: %+v", qryOut)
	}
	qreps, _ := filepath.Glob(filepath.Join(out, "zq", roles.ReportsDir, "qry-*.json"))
	if len(qreps) != 1 {
		t.Fatalf("qry reports %v", qreps)
	}
	var qrep roles.QryReport
	readJSON(t, qreps[0], &qrep)
	rows := rawRows(t, filepath.Join(out, "zps"), "zenoh_reliable_pubsub")
	m, err := meta.ReadFile(filepath.Join(out, "zps", meta.FileName))
	if err != nil || m.Latency != meta.LatencyOneWay || !m.Completed || m.SubExperiments[0].System.Product != "zenoh" || m.SubExperiments[0].System.Version == "" {
		t.Fatalf("zps meta %+v %v", m, err)
	}
	// Every message the pub sent arrives; how many it sent depends on how
	// much of its schedule a loaded machine let it keep.
	if len(pubOut.Paths) != 2 {
		t.Fatalf("pub: %+v", pubOut)
	}
	sent, pubSkipped := zenohPubSent(t, pubOut.Paths[0]) // the helper's output
	if uint64(len(rows)) != sent || m.SubExperiments[0].Payloads[0].Lost != 0 || m.SubExperiments[0].Payloads[0].Samples != len(rows) {
		t.Errorf("%d rows of %d sent (%d skipped), counts %+v", len(rows), sent, pubSkipped, m.SubExperiments[0].Payloads[0])
	}
	// The pub's report, as the other drivers' pub writes it, says what the
	// helper counted and the sub received.
	var pr roles.PubReport
	readJSON(t, pubOut.Paths[1], &pr)
	var perPub uint64
	for _, p := range pr.Publishers {
		perPub += p.Sent
	}
	if pr.Driver != "zenoh" || !pr.Completed || len(pr.Publishers) != 2 || perPub != sent || pr.Skipped != pubSkipped ||
		pr.Publishers[1].Topic != "mqgate/bench/data/0" || uint64(len(rows)) != perPub {
		t.Errorf("pub report %+v: want 2 publishers sending %d in all (%d skipped), as the helper and the sub counted", pr, sent, pubSkipped)
	}
	checkSubLatency(t, filepath.Join(out, "zps"), rows, subOut.Summary)
	// Reliable (CongestionControl::Block): no reply is dropped on a loaded
	// machine, as best-effort replies may be.
	first, last := rawRows(t, filepath.Join(out, "zq"), "zenoh_reliable_query"), rawRows(t, filepath.Join(out, "zq"), "zenoh_reliable_querylast")
	qm, err := meta.ReadFile(filepath.Join(out, "zq", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	extra := qm.SubExperiments[0].System.Extra
	queries, _ := strconv.Atoi(extra["queries"])
	skipped, _ := strconv.Atoi(extra["skipped"])
	// A slot is skipped only when --concurrency 16 queries are in flight,
	// which a loaded machine's slow round trips cause; the first 16 slots
	// always find room.
	if len(first) != queries || len(last) != queries || queries+skipped != 100 || queries < 16 ||
		extra["replies_per_query_min"] != "2" || extra["measures"] != "time to first reply" {
		t.Fatalf("%d first, %d last replies; extra %v", len(first), len(last), extra)
	}
	for i := range first {
		// The queryable waits 15 ms ± 5 ms from each query's arrival.
		if last[i].Latency < first[i].Latency || first[i].Latency < 10_000 {
			t.Fatalf("query %d: first reply %.1f us, last %.1f us", i+1, first[i].Latency, last[i].Latency)
		}
	}
	m1, err := meta.ReadFile(filepath.Join(out, "zq1", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	e1 := m1.SubExperiments[0].System.Extra
	q1, _ := strconv.Atoi(e1["queries"])
	s1, _ := strconv.Atoi(e1["skipped"])
	if q1 == 0 || q1+s1 != 200 || q1 > 110 {
		t.Errorf("concurrency 1: %d queries, %d skipped of 200 slots; extra %v", q1, s1, e1)
	}
	// The req's report carries the query metrics the other drivers' req
	// write: every reply is the queryable's 100 bytes.
	reps, _ := filepath.Glob(filepath.Join(out, "zq", roles.ReportsDir, "req-*.json"))
	if len(reps) != 1 {
		t.Fatalf("req reports %v", reps)
	}
	var rr roles.ReqReport
	readJSON(t, reps[0], &rr)
	if rr.Driver != "zenoh" || !rr.Completed || rr.Queries != uint64(queries) || rr.Answered != rr.Queries || rr.Complete != rr.Queries ||
		rr.Replies != 2*rr.Queries || rr.ResultBytes != 100*rr.Replies || rr.Skipped != uint64(skipped) || rr.RepliesMin != 2 ||
		rr.RepliesMean != 2 {
		t.Errorf("req report %+v", rr)
	}
	// Its times are the raw files' (the queryable waits 15 ms ± 5 ms).
	checkReqTimes(t, rr, first, last)
	if p50 := measured(t, "first p50", rr.FirstP50Us); p50 < 10_000 {
		t.Errorf("time to first reply p50 %g µs, want ≥ 10 ms", p50)
	}
	if extra["result_bytes"] != strconv.FormatUint(rr.ResultBytes, 10) {
		t.Errorf("meta result_bytes %q, report %d", extra["result_bytes"], rr.ResultBytes)
	}
	// The qry's report counts the queries of both requesters and their
	// replies, 2 each.
	if q1u := uint64(q1); qrep.Driver != "zenoh" || qrep.Queries != rr.Queries+q1u || qrep.Replies != 2*qrep.Queries ||
		qrep.ReplySize != 100 || qrep.ServePrefix != "mqgate/bench/query" {
		t.Errorf("qry report %+v: want %d queries (%d and %d of the two req), 2 replies each", qrep, rr.Queries+q1u, rr.Queries, q1)
	}
}

// zenohPubSent returns how many messages a Zenoh pub's helper, whose
// output is in dir, sent and how many slots it skipped.
func zenohPubSent(t *testing.T, dir string) (sent, skipped uint64) {
	t.Helper()
	res, err := zenohhelper.ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range res.Summary.Payloads {
		sent += pc.Sent
		skipped += pc.Skipped
	}
	return sent, skipped
}

// TestWaitReadyZenohRouter waits for a router of the Zenoh helper by the
// id its configuration gives it (the Compose topology's routers'), which
// its InitAck announces; another id keeps the barrier waiting.
func TestWaitReadyZenohRouter(t *testing.T) {
	bin := zenohtest.Helper(t)
	cfg := filepath.Join(t.TempDir(), "router.json5")
	if err := os.WriteFile(cfg, []byte(`{ id: "6d71676174652d61" }`), 0o644); err != nil {
		t.Fatal(err)
	}
	router, err := zenohhelper.Start(context.Background(), bin, zenohhelper.RouterArgs(zenohhelper.Serve{Common: zenohhelper.Common{
		Listen: []string{"tcp/127.0.0.1:0"}, ConfigFile: cfg}}))
	if err != nil {
		t.Fatal(err)
	}
	defer router.Stop(10 * time.Second)
	addr := "zenoh://" + strings.TrimPrefix(router.Ready.Locator("tcp"), "tcp/")
	if err := roles.WaitReady(context.Background(), []string{addr + "?zid=6d71676174652d61"}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	err = roles.WaitReady(context.Background(), []string{addr + "?zid=6d71676174652d62"}, 500*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "the Zenoh router there has id 6d71676174652d61, not 6d71676174652d62") {
		t.Errorf("error %v", err)
	}
}
