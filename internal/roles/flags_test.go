package roles_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// freePort is a TCP port nobody listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestRoleFlags runs the role flags the other tests leave at their
// defaults, over an embedded NATS server:
//   - --serve-prefix and --expr: a queryable serving svc.x answers a
//     requester asking svc.x.deep (below the prefix);
//   - --concurrency 1 with a --proc-delay longer than the --qps period:
//     the slots that find the query in flight are skipped and counted, the
//     others answered;
//   - --prom-port: the queryable's /metrics counts the queries it took;
//   - --expr on a sub: only the topic chosen (of --topics 2) is taken;
//   - --endpoint repeated: a dead server first, the live one next.
func TestRoleFlags(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	qs := settings(t, roles.RoleQry, map[string]any{"endpoint": []string{url}, "run-id": "f", "out-dir": out, "serve-prefix": "svc.x",
		"proc-delay": "30ms", "duration": "2m", "prom-port": strconv.Itoa(port)})
	qdone := make(chan roles.Outcome, 1)
	go func() { qdone <- roles.Run(ctx, qs) }()
	time.Sleep(300 * time.Millisecond)
	req := settings(t, roles.RoleReq, map[string]any{"endpoint": []string{"nats://127.0.0.1:1", url}, "run-id": "f", "out-dir": out,
		"expr": "svc.x.deep", "qps": "100", "duration": "1s", "concurrency": "1", "timeout": "10s"})
	if o := roles.Run(context.Background(), req); o.Err != nil || o.Incomplete {
		t.Fatalf("req: %+v", o)
	}
	var rr roles.ReqReport
	readJSON(t, filepath.Join(out, "f", roles.ReportsDir, "req-query-"+strconv.Itoa(req.Instance)+".json"), &rr)
	// At most one query in flight, each ≥ 30 ms: at most ~34 sent of the
	// 100 slots of 1 s, the rest skipped.
	if rr.Queries == 0 || rr.Complete != rr.Queries || rr.Skipped == 0 || rr.Queries+rr.Skipped < 90 || rr.Queries > 40 || rr.Expr != "svc.x.deep" {
		t.Errorf("req report %+v", rr)
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`mqgate_queries_received_total\{role="qry"\} (\d+)`).FindSubmatch(body)
	if m == nil || string(m[1]) != strconv.FormatUint(rr.Queries, 10) {
		t.Errorf("/metrics: want %d queries received:\n%s", rr.Queries, body)
	}
	cancel()
	if o := <-qdone; o.Err != nil || !o.Interrupted {
		t.Errorf("qry: %+v", o)
	}

	// A sub of topic 1 only: publisher 1 of the two publishes there; a
	// second sub (--label zero) takes topic 0 into the same experiment.
	sub := settings(t, roles.RoleSub, map[string]any{"endpoint": []string{url}, "run-id": "fe", "out-dir": out, "expr": "mqgate.bench.data.1",
		"publishers": "1", "timeout": "10s"})
	sub0 := settings(t, roles.RoleSub, map[string]any{"endpoint": []string{url}, "run-id": "fe", "out-dir": out, "expr": "mqgate.bench.data.0",
		"publishers": "1", "timeout": "10s", "label": "zero"})
	sdone := make(chan roles.Outcome, 2)
	go func() { sdone <- roles.Run(context.Background(), sub) }()
	go func() { sdone <- roles.Run(context.Background(), sub0) }()
	time.Sleep(300 * time.Millisecond)
	if o := roles.Run(context.Background(), settings(t, roles.RolePub, map[string]any{"endpoint": []string{url}, "run-id": "fe", "out-dir": out,
		"publishers": "2", "topics": "2", "rate": "100", "duration": "500ms", "instance": "5"})); o.Err != nil || o.Incomplete {
		t.Fatalf("pub: %+v", o)
	}
	for range 2 {
		if o := <-sdone; o.Err != nil || o.Incomplete {
			t.Fatalf("sub: %+v", o)
		}
	}
	var sr roles.SubReport
	readJSON(t, filepath.Join(out, "fe", roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json"), &sr)
	if len(sr.Publishers) != 1 || sr.Publishers[0].ID != 5<<8|1 || sr.Publishers[0].Lost != 0 || sr.Samples == 0 {
		t.Errorf("sub report %+v", sr)
	}
	// Both subs merged into one experiment, which the pipeline reads.
	mt, err := meta.ReadFile(filepath.Join(out, "fe", meta.FileName))
	if err != nil || len(mt.SubExperiments) != 2 || !mt.Completed {
		t.Fatalf("meta %+v %v", mt, err)
	}
	types := []string{mt.SubExperiments[0].Type, mt.SubExperiments[1].Type}
	slices.Sort(types)
	if !slices.Equal(types, []string{"nats_best_effort_pubsub", "nats_best_effort_zero"}) {
		t.Errorf("sub-experiments %v", types)
	}
	var o, e bytes.Buffer
	if code := cliapp.Run(context.Background(), processcmd.App(), []string{"process", "--no-plots", filepath.Join(out, "fe")}, &o, &e); code != 0 {
		t.Errorf("process: exit %d: %s", code, e.String())
	}
}
