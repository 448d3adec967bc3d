package roles

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/zenohhelper"
	"github.com/mqgate/mqgate/internal/zenohhelper/zenohtest"
)

// TestZenohRoles runs the four roles over Zenoh through mqgate-zenoh,
// every one a client of a router the helper runs: the sub's one-way
// samples and the req's first and last replies land in the experiments,
// as the NATS roles' do.
func TestZenohRoles(t *testing.T) {
	bin := zenohtest.Helper(t)
	t.Setenv(zenohhelper.EnvHelper, bin)
	router, err := zenohhelper.Start(context.Background(), bin, zenohhelper.RouterArgs(zenohhelper.Serve{Common: zenohhelper.Common{Listen: []string{"tcp/127.0.0.1:0"}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer router.Stop(10 * time.Second)
	ep := router.Ready.Locator("tcp")
	out := t.TempDir()
	base := map[string]any{"driver": "zenoh", "endpoint": []string{ep}, "out-dir": out, "timeout": "3s", "payload": "64"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	var wg sync.WaitGroup
	var subOut, qryOut Outcome
	wg.Add(2)
	go func() {
		defer wg.Done()
		subOut = Run(context.Background(), settings(t, RoleSub, with(map[string]any{"run-id": "zps", "publishers": "2", "duration": "20s", "reliability": "reliable"})))
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer wg.Done()
		qryOut = Run(ctx, settings(t, RoleQry, with(map[string]any{"run-id": "zq", "duration": "1m", "replies": "2"})))
	}()
	time.Sleep(time.Second)
	// Reliable (CongestionControl::Block): nothing is dropped, however
	// loaded the machine; slots a late publisher skipped are not sent.
	pubOut := Run(context.Background(), settings(t, RolePub, with(map[string]any{"run-id": "zps", "publishers": "2", "rate": "200", "duration": "1s", "reliability": "reliable"})))
	reqOut := Run(context.Background(), settings(t, RoleReq, with(map[string]any{"run-id": "zq", "qps": "100", "duration": "1s", "replies": "2"})))
	cancel()
	wg.Wait()
	for name, o := range map[string]Outcome{"pub": pubOut, "sub": subOut, "req": reqOut} {
		if o.Err != nil || o.Incomplete || o.Interrupted {
			t.Errorf("%s: %+v", name, o)
		}
	}
	if qryOut.Err != nil || !qryOut.Interrupted {
		t.Errorf("qry: %+v", qryOut)
	}
	rows := rawRows(t, filepath.Join(out, "zps"), "zenoh_reliable_pubsub")
	m, err := meta.ReadFile(filepath.Join(out, "zps", meta.FileName))
	if err != nil || m.Latency != meta.LatencyOneWay || !m.Completed || m.SubExperiments[0].System.Product != "zenoh" || m.SubExperiments[0].System.Version == "" {
		t.Fatalf("zps meta %+v %v", m, err)
	}
	if len(rows) == 0 || m.SubExperiments[0].Payloads[0].Lost != 0 || m.SubExperiments[0].Payloads[0].Samples != len(rows) {
		t.Errorf("%d rows, counts %+v", len(rows), m.SubExperiments[0].Payloads[0])
	}
	first, last := rawRows(t, filepath.Join(out, "zq"), "zenoh_best_effort_query"), rawRows(t, filepath.Join(out, "zq"), "zenoh_best_effort_querylast")
	if len(first) != 100 || len(last) != 100 {
		t.Fatalf("%d first, %d last replies", len(first), len(last))
	}
	for i := range first {
		if last[i].Latency < first[i].Latency {
			t.Fatalf("query %d: last reply before the first", i+1)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "zq", ReportsDir)); err != nil {
		t.Error(err)
	}
}
