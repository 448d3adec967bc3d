package runapp_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
)

// TestLoadPrometheus scrapes `run load --prom-port` while it measures:
// what it serves passes Prometheus' promlint, under the families of
// formats §9 "Prometheus metrics", with the tool's version in
// mqgate_build_info.
func TestLoadPrometheus(t *testing.T) {
	port := freePort(t)
	done := make(chan string, 1)
	go func() {
		code, stderr := runBounded(t, "load", "-s", "intraprocess_best_effort", "--payloads", "16", "--rate", "2000", "--duration", "3s",
			"--interval", "100ms", "--warmup", "0", "--drain", "0", "--no-plots", "--quiet", "--prom-port", strconv.Itoa(port), "--out", t.TempDir(), "--name", "p")
		done <- strconv.Itoa(code) + " " + stderr
	}()
	var body string
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if body = string(b); strings.Contains(body, "mqgate_messages_per_second{") {
			break
		}
	}
	for _, want := range []string{`mqgate_messages_sent_total{payload="16",role="load",subexperiment="intraprocess_best_effort"}`,
		`mqgate_latency_seconds_count{payload="16",role="load",subexperiment="intraprocess_best_effort"}`,
		`mqgate_messages_per_second{direction="sent",payload="16",role="load",subexperiment="intraprocess_best_effort"}`, "mqgate_build_info{"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, `version=""`) {
		t.Errorf("mqgate_build_info without the version:\n%s", body)
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	if out := <-done; !strings.HasPrefix(out, "0 ") {
		t.Errorf("run load: exit %s", out)
	}
}
