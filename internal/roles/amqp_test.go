package roles_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
	"github.com/mqgate/mqgate/internal/testenv"
)

// TestAMQPRoles runs the four roles over RabbitMQ, best effort and
// reliable: publish/subscribe through amq.topic with two publishers and
// the clock probes answered over AMQP, and queries by direct reply-to
// answered by two queryables, so that each query has a reply from each
// (replies per query 2, time to first and to last reply).
func TestAMQPRoles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the roles through RabbitMQ in both reliabilities; skipped with -short")
	}
	url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	for _, rel := range []string{"best_effort", "reliable"} {
		t.Run(rel, func(t *testing.T) {
			out := t.TempDir()
			// A run id of its own per test run: queries and messages of an
			// earlier run on the same broker are not counted.
			tag := strconv.FormatInt(time.Now().UnixNano(), 36)
			prefix := "mqgate.test." + tag
			base := map[string]any{"driver": "amqp", "endpoint": []string{url}, "out-dir": out, "timeout": "5s",
				"reliability": rel, "topic-prefix": prefix}
			with := func(extra map[string]any) map[string]any { return merged(base, extra) }
			// --endpoint is repeatable: the sub's first broker refuses, the
			// second takes it.
			sub := settings(t, roles.RoleSub, with(map[string]any{"run-id": "aps", "publishers": "2",
				"endpoint": []string{"amqp://guest:guest@127.0.0.1:1/", url}}))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			var subOut roles.Outcome
			qryOut := make([]roles.Outcome, 2)
			wg.Add(3)
			go func() {
				defer wg.Done()
				subOut = roles.Run(context.Background(), sub)
			}()
			for i := range 2 {
				go func() {
					defer wg.Done()
					qryOut[i] = roles.Run(ctx, settings(t, roles.RoleQry, with(map[string]any{"run-id": "aq", "duration": "2m",
						"reply-size": "100", "instance": strconv.Itoa(10 + i)})))
				}()
			}
			// The subscriptions and queryables are bound before anything
			// is sent: a watchdog-bounded wait for their queues.
			time.Sleep(2 * time.Second)
			pubOut := roles.Run(context.Background(), settings(t, roles.RolePub, with(map[string]any{"run-id": "aps", "publishers": "2",
				"rate": "100", "duration": "2s", "instance": "4"})))
			req := settings(t, roles.RoleReq, with(map[string]any{"run-id": "aq", "qps": "50", "duration": "2s", "replies": "2"}))
			reqOut := roles.Run(context.Background(), req)
			cancel()
			wg.Wait()
			for name, o := range map[string]roles.Outcome{"pub": pubOut, "sub": subOut, "req": reqOut} {
				if o.Err != nil || o.Incomplete || o.Interrupted {
					t.Fatalf("%s: %+v", name, o)
				}
			}
			for i, o := range qryOut {
				if o.Err != nil || !o.Interrupted {
					t.Errorf("qry %d: %+v", i, o)
				}
			}
			var sr roles.SubReport
			readJSON(t, filepath.Join(out, "aps", roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json"), &sr)
			rows := rawRows(t, filepath.Join(out, "aps"), "amqp_"+rel+"_pubsub")
			var sent uint64
			for _, p := range sr.Publishers {
				if p.Sent == nil || p.Lost != 0 || p.Duplicates != 0 {
					t.Errorf("publisher %+v", p)
				} else {
					sent += *p.Sent
				}
			}
			if len(sr.Publishers) != 2 || sent < 100 || uint64(len(rows)) != sent {
				t.Errorf("%d publishers, %d sent, %d rows", len(sr.Publishers), sent, len(rows))
			}
			checkSubLatency(t, filepath.Join(out, "aps"), rows, subOut.Summary)
			// The clock probes went over AMQP (direct reply-to) too.
			est, ok := sr.ClockOffset["4"]
			if !ok || est.Disabled || est.Method != "ntp-min-delay" || est.Kept == 0 {
				t.Errorf("clock offset of instance 4: %+v", sr.ClockOffset)
			}
			var rr roles.ReqReport
			readJSON(t, filepath.Join(out, "aq", roles.ReportsDir, "req-query-"+strconv.Itoa(req.Instance)+".json"), &rr)
			// 50 queries/s for 2 s: 100 slots, each a query or, when all
			// --concurrency queries are still out (a starved broker), a
			// counted skip.
			if rr.Queries == 0 || rr.Queries+rr.Skipped < 95 || rr.Complete != rr.Queries || rr.RepliesMin != 2 || rr.RepliesMax != 2 ||
				rr.ResultBytes != 200*rr.Queries || rr.Timeouts != 0 || rr.Errors != 0 ||
				measured(t, "last p50", rr.LastP50Us) < measured(t, "first p50", rr.FirstP50Us) {
				t.Errorf("req %+v", rr)
			}
			m, err := meta.ReadFile(filepath.Join(out, "aq", meta.FileName))
			if err != nil || len(m.SubExperiments) != 2 || m.SubExperiments[0].Type != "amqp_"+rel+"_query" || !m.Completed {
				t.Fatalf("meta %+v %v", m, err)
			}
			sys := m.SubExperiments[0].System
			if sys == nil || sys.Product != "RabbitMQ" || sys.Extra["replies_per_query_mean"] != "2.000" {
				t.Errorf("system %+v", sys)
			}
		})
	}
}
