package roles_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
	"github.com/mqgate/mqgate/internal/testenv"
)

// endpoints start a system of each driver for a test, or skip it.
var endpoints = map[string]func(t *testing.T) string{
	"nats": embeddedNATS,
	"mqtt": func(t *testing.T) string {
		url, stop, err := mqtt.Transport{}.StartEmbedded(context.Background(), driver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stop() })
		return url
	},
	"amqp": func(t *testing.T) string {
		return testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	},
	"zenoh": func(t *testing.T) string {
		return zenohtest.Router(t)
	},
}

// TestRoleFlagsEveryDriver checks that the role flags mean the same on
// every driver: a qry with --prom-port serves /metrics and /health while
// it runs, the --csv snapshots of a qry and a req count the req's queries
// (sent by the one, received by the other) and the req's times to the last
// reply and replies per query, and --reliability reliable names the
// sub-experiment. AMQP and Zenoh skip without RabbitMQ or mqgate-zenoh.
func TestRoleFlagsEveryDriver(t *testing.T) {
	for _, name := range roles.Drivers() {
		t.Run(name, func(t *testing.T) {
			ep := endpoints[name]
			if ep == nil {
				t.Fatalf("no endpoint for driver %s: add one to this test", name)
			}
			out := t.TempDir()
			port := freePort(t)
			runID := "flags" + strconv.FormatInt(time.Now().UnixNano(), 36)
			base := map[string]any{"driver": name, "endpoint": []string{ep(t)}, "out-dir": out, "run-id": runID, "timeout": "3s",
				"reliability": "reliable", "topic-prefix": "mqgate.flags." + runID}
			with := func(extra map[string]any) map[string]any {
				for k, v := range base {
					extra[k] = v
				}
				return extra
			}
			qryCSV, reqCSV := filepath.Join(out, "qry.csv"), filepath.Join(out, "req.csv")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			qdone := make(chan roles.Outcome, 1)
			go func() {
				qdone <- roles.Run(ctx, settings(t, roles.RoleQry, with(map[string]any{"duration": "1m", "csv": qryCSV, "prom-port": strconv.Itoa(port)})))
			}()
			if code, body := scrape(t, port, "/metrics"); code != http.StatusOK || !strings.Contains(body, `mqgate_queries_received_total{role="qry"}`) ||
				!strings.Contains(body, `mqgate_run_info{role="qry",run_id="`+runID+`"} 1`) {
				t.Errorf("/metrics of the qry: %d\n%s", code, body)
			}
			// The qry's /health is the requester's start barrier.
			if err := roles.WaitReady(ctx, []string{fmt.Sprintf("http://127.0.0.1:%d/health", port)}, 30*time.Second); err != nil {
				t.Fatal(err)
			}
			if code, body := scrape(t, port, "/health"); code != http.StatusOK || body != "ok\n" {
				t.Errorf("/health of the qry: %d %q", code, body)
			}
			reqOut := roles.Run(context.Background(), settings(t, roles.RoleReq, with(map[string]any{"qps": "50", "duration": "1s", "csv": reqCSV})))
			cancel()
			qryOut := <-qdone
			if reqOut.Err != nil || reqOut.Incomplete || qryOut.Err != nil || !qryOut.Interrupted {
				t.Fatalf("req %+v, qry %+v", reqOut, qryOut)
			}
			m, err := meta.ReadFile(filepath.Join(out, runID, meta.FileName))
			if err != nil || m.SubExperiments[0].Type != name+"_reliable_query" {
				t.Fatalf("meta %+v %v", m, err)
			}
			queries := uint64(m.SubExperiments[0].Payloads[0].Samples)
			if sent := csvTotal(t, reqCSV, "Sent"); sent == 0 || sent < queries {
				t.Errorf("req --csv: %d sent, %d queries answered", sent, queries)
			}
			if received := csvTotal(t, qryCSV, "Received"); received < queries {
				t.Errorf("qry --csv: %d received, %d queries answered", received, queries)
			}
			ttl, perQuery := csvColumn(t, reqCSV, "TTL p50 [µs]"), csvColumn(t, reqCSV, "Replies per query")
			for i := range ttl {
				if (ttl[i] > 0) != (perQuery[i] > 0) || perQuery[i] > 1 {
					t.Errorf("req --csv window %d: TTL p50 %g us, %g replies per query", i, ttl[i], perQuery[i])
				}
			}
			if slices.Max(ttl) == 0 {
				t.Errorf("req --csv: no time to the last reply: %v", ttl)
			}
		})
	}
}

// TestAggWindowEveryDriver: --agg-window gathers a query's replies for
// that long after the first, past --replies: of two queryables, one
// answering at once and one a second later, a 100 ms window takes one
// reply, a 3 s window both (Zenoh's through the helper's query).
func TestAggWindowEveryDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a 3 s window on every driver; skipped with -short")
	}
	for _, name := range roles.Drivers() {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			runID := "agg" + strconv.FormatInt(time.Now().UnixNano(), 36)
			base := map[string]any{"driver": name, "endpoint": []string{endpoints[name](t)}, "out-dir": out, "timeout": "5s",
				"topic-prefix": "mqgate.agg." + runID}
			with := func(extra map[string]any) map[string]any {
				for k, v := range base {
					extra[k] = v
				}
				return extra
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			for i, delay := range []string{"0", "1s"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					roles.Run(ctx, settings(t, roles.RoleQry, with(map[string]any{"run-id": "q", "instance": strconv.Itoa(i), "proc-delay": delay, "duration": "1m"})))
				}()
			}
			time.Sleep(time.Second)
			for window, want := range map[string]float64{"100ms": 1, "3s": 2} {
				id := "w" + strings.TrimSuffix(window, "s")
				o := roles.Run(context.Background(), settings(t, roles.RoleReq, with(map[string]any{"run-id": id, "instance": "9", "agg-window": window,
					"qps": "10", "duration": "500ms", "concurrency": "16"})))
				var rr roles.ReqReport
				readJSON(t, filepath.Join(out, id, roles.ReportsDir, "req-query-9.json"), &rr)
				if o.Err != nil || o.Incomplete || rr.Queries == 0 || rr.Complete != rr.Queries || rr.RepliesMean != want {
					t.Errorf("--agg-window %s: %+v, report %+v; want %g replies per query", window, o, rr, want)
				}
			}
			cancel()
			wg.Wait()
		})
	}
}

// scrape gets path on port, waiting up to 10 s for it to listen.
func scrape(t *testing.T, port int, path string) (int, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return resp.StatusCode, string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("--prom-port %d: %v", port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// csvTotal is the sum of column col of a role's --csv snapshots.
func csvTotal(t *testing.T, path, col string) uint64 {
	t.Helper()
	var total uint64
	for _, v := range csvColumn(t, path, col) {
		total += uint64(v)
	}
	return total
}

// csvColumn is column col of a role's --csv snapshots.
func csvColumn(t *testing.T, path, col string) []float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != roles.SnapshotHeader {
		t.Fatalf("%s: header %q", path, lines[0])
	}
	idx := -1
	for i, h := range strings.Split(roles.SnapshotHeader, ",") {
		if h == col {
			idx = i
		}
	}
	var out []float64
	for _, l := range lines[1:] {
		v, err := strconv.ParseFloat(strings.Split(l, ",")[idx], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		out = append(out, v)
	}
	return out
}
