package roles_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestMQTTRoles runs the roles over MQTT 5 on an embedded broker:
// publish/subscribe at QoS 1 (reliable) and request/response with the
// Response Topic and Correlation Data properties.
func TestMQTTRoles(t *testing.T) {
	url, stop, err := mqtt.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	out := t.TempDir()
	base := map[string]any{"driver": "mqtt", "endpoint": []string{url}, "out-dir": out, "timeout": "3s", "reliability": "reliable"}
	with := func(extra map[string]any) map[string]any { return merged(base, extra) }
	var wg sync.WaitGroup
	var subOut, qryOut roles.Outcome
	sub := settings(t, roles.RoleSub, with(map[string]any{"run-id": "mps", "publishers": "2"}))
	ctx, cancel := context.WithCancel(context.Background())
	wg.Add(2)
	go func() {
		defer wg.Done()
		subOut = roles.Run(context.Background(), sub)
	}()
	go func() {
		defer wg.Done()
		qryOut = roles.Run(ctx, settings(t, roles.RoleQry, with(map[string]any{"run-id": "mq", "duration": "1m", "replies": "2", "reply-size": "100"})))
	}()
	time.Sleep(500 * time.Millisecond)
	// --endpoint is repeatable: the pub's first broker refuses, the second
	// takes it.
	pubOut := roles.Run(context.Background(), settings(t, roles.RolePub, with(map[string]any{"run-id": "mps", "publishers": "2", "rate": "100", "duration": "1s", "instance": "4",
		"endpoint": []string{"mqtt://127.0.0.1:1", url}})))
	req := settings(t, roles.RoleReq, with(map[string]any{"run-id": "mq", "qps": "50", "duration": "1s", "replies": "2"}))
	reqOut := roles.Run(context.Background(), req)
	cancel()
	wg.Wait()
	for name, o := range map[string]roles.Outcome{"pub": pubOut, "sub": subOut, "req": reqOut} {
		if o.Err != nil || o.Incomplete || o.Interrupted {
			t.Fatalf("%s: %+v", name, o)
		}
	}
	if qryOut.Err != nil || !qryOut.Interrupted {
		t.Errorf("qry: %+v", qryOut)
	}
	var sr roles.SubReport
	readJSON(t, filepath.Join(out, "mps", roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json"), &sr)
	rows := rawRows(t, filepath.Join(out, "mps"), "mqtt_reliable_pubsub")
	var sent uint64
	for _, p := range sr.Publishers {
		if p.Sent == nil || p.Lost != 0 {
			t.Errorf("publisher %+v", p)
		} else {
			sent += *p.Sent
		}
	}
	if len(sr.Publishers) != 2 || sent == 0 || uint64(len(rows)) != sent {
		t.Errorf("%d publishers, %d sent, %d rows", len(sr.Publishers), sent, len(rows))
	}
	checkSubLatency(t, filepath.Join(out, "mps"), rows, subOut.Summary)
	var rr roles.ReqReport
	readJSON(t, filepath.Join(out, "mq", roles.ReportsDir, "req-query-"+strconv.Itoa(req.Instance)+".json"), &rr)
	if rr.Queries == 0 || rr.Complete != rr.Queries || rr.ResultBytes != 200*rr.Queries {
		t.Errorf("req %+v", rr)
	}
	m, err := meta.ReadFile(filepath.Join(out, "mq", meta.FileName))
	if err != nil || m.SubExperiments[0].Type != "mqtt_reliable_query" || !m.Completed {
		t.Errorf("meta %+v %v", m, err)
	}
}
