package load

import (
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
)

// TestPrometheus scrapes what run load serves while a payload is measured:
// the counters, rates, messages in flight, the latency histogram and
// mqgate_build_info, under names Prometheus' promlint passes.
func TestPrometheus(t *testing.T) {
	e, err := ServePrometheus("127.0.0.1:0", "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	get := func(path string) string {
		c := http.Client{Timeout: 10 * time.Second}
		resp, err := c.Get("http://" + e.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		return string(b)
	}
	if h := get("/health"); h != "ok\n" {
		t.Fatalf("/health = %q", h)
	}
	var c Counters
	r := NewRecorder()
	tp, _ := NewTopology(FanOut, 0, 3, 0)
	e.Begin("nats_best_effort", 16, &c, r, Config{Topology: tp})
	c.MessagesSent.Add(10)
	c.MessagesReceived.Add(25)
	sh := r.Shard()
	for _, ns := range []int64{1500, 3000, 40_000, 2_000_000} {
		sh.Record(ns)
	}
	e.Tick(Tick{Period: time.Second, Delta: CounterValues{MessagesSent: 10, MessagesReceived: 25}})
	m := get("/metrics")
	for _, want := range []string{
		`mqgate_messages_sent_total{payload="16",role="load",subexperiment="nats_best_effort"} 10`,
		`mqgate_messages_in_flight{payload="16",role="load",subexperiment="nats_best_effort"} 5`,
		`mqgate_latency_seconds_bucket{payload="16",role="load",subexperiment="nats_best_effort",le="2e-06"} 1`,
		`mqgate_latency_seconds_bucket{payload="16",role="load",subexperiment="nats_best_effort",le="5e-06"} 2`,
		`mqgate_latency_seconds_bucket{payload="16",role="load",subexperiment="nats_best_effort",le="5e-05"} 3`,
		`mqgate_latency_seconds_count{payload="16",role="load",subexperiment="nats_best_effort"} 4`,
		`mqgate_messages_per_second{direction="received",payload="16",role="load",subexperiment="nats_best_effort"} 25`,
		`mqgate_build_info{goversion="` + runtime.Version() + `",revision="`,
		`",version="v1.2.3"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, m)
		}
	}
	problems, err := promlint.New(strings.NewReader(m)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	// Every family has its own HELP, none a run id label.
	for _, line := range strings.Split(m, "\n") {
		if name, ok := strings.CutPrefix(line, "# HELP "); ok {
			if n, help, _ := strings.Cut(name, " "); help != Help[n] || help == "" {
				t.Errorf("HELP of %s: %q, want %q", n, help, Help[n])
			}
		}
		if strings.Contains(line, "run_id") {
			t.Errorf("run id label: %s", line)
		}
	}
}
