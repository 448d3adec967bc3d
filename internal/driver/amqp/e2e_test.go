package amqp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/runapp"
	"github.com/mqgate/mqgate/internal/testenv"
)

// tool runs one of the tools in-process and returns its exit code and
// output; a code not in want fails the test.
func tool(t *testing.T, app *cli.App, want []int, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	code := cliapp.Run(context.Background(), app, append([]string{app.Name}, args...), &out, &out)
	for _, w := range want {
		if code == w {
			return out.String()
		}
	}
	t.Fatalf("%s %s: exit %d, want one of %v\n%s", app.Name, strings.Join(args, " "), code, want, out.String())
	return ""
}

// TestRunThroughEveryTool measures amqp_best_effort and amqp_reliable
// through RabbitMQ with run (echo processes of this test binary, as run
// places them), and takes the raw files through process, requirements,
// check, compare and history.
func TestRunThroughEveryTool(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end through RabbitMQ; skipped with -short")
	}
	url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	t.Setenv(runMainEnv, "1")
	t.Setenv(runapp.SelfEnv, os.Args[0])
	work := t.TempDir()
	base, cand := filepath.Join(work, "baseline"), filepath.Join(work, "candidate")
	types := []string{"amqp_best_effort", "amqp_reliable"}
	measure := func(out, name string) string {
		tool(t, runcmd.App(), []int{0}, "-s", strings.Join(types, ","), "--amqp-url", url,
			"--payloads", "16,1024,16384", "--samples", "300", "--warmup", "30", "--timeout", "5s",
			"--out", out, "--name", name, "-q")
		dir := filepath.Join(out, name)
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
		if strings.Contains(string(doc), ":guest@") {
			t.Errorf("%s holds the broker password", filepath.Join(dir, meta.FileName))
		}
		if !m.Completed || len(m.SubExperiments) != 2 {
			t.Fatalf("%s: completed %v, %d sub-experiments", dir, m.Completed, len(m.SubExperiments))
		}
		for _, s := range m.SubExperiments {
			reliable := s.Type == "amqp_reliable"
			if s.System == nil || s.System.Product != "RabbitMQ" || s.Acknowledged != reliable || s.Echo != "subprocess" {
				t.Errorf("%s: system %+v, acknowledged %v, echo %q", s.Type, s.System, s.Acknowledged, s.Echo)
			}
			for _, p := range s.Payloads {
				if p.Samples != 300 || !p.Completed || (reliable && p.MessagesAcked != 300) {
					t.Errorf("%s/%d B: %+v", s.Type, p.Bytes, p)
				}
			}
		}
		return dir
	}
	var baseDirs []string
	for _, name := range []string{"run1", "run2", "run3"} {
		dir := measure(base, name)
		tool(t, processcmd.App(), []int{0}, "--no-plots", dir)
		baseDirs = append(baseDirs, dir)
	}
	c := measure(cand, "new")
	tool(t, processcmd.App(), []int{0}, c)

	reqs := filepath.Join(work, "latency_requirements.csv")
	tool(t, requirementscmd.App(), []int{0}, "--experiments-results", base, "--output-file", reqs)
	// Latencies through a broker on a busy machine vary: the verdicts may
	// go either way (exit 0 or 1), errors (exit 2) may not.
	tool(t, checkcmd.App(), []int{0, 1}, "--requirements", reqs, "--experiment-directory", c)
	comparison := filepath.Join(work, "comparison")
	tool(t, comparecmd.App(), []int{0, 1}, "--reference", baseDirs[0], "--results", c, "--plots-directory", comparison, "--fail-threshold", "0.5")
	hist := filepath.Join(work, "history")
	tool(t, historycmd.App(), []int{0}, "--experiments-results", base, "--requirements", reqs, "--plots-directory", hist)

	var want []string
	for _, typ := range types {
		want = append(want,
			filepath.Join(c, experiment.RawFileName(typ)),
			filepath.Join(c, strings.TrimSuffix(experiment.RawFileName(typ), ".csv")+"_summary.csv"),
			filepath.Join(c, "checks_"+typ+".csv"),
			filepath.Join(comparison, typ+"_comparison.csv"),
		)
	}
	want = append(want, filepath.Join(hist, "history.csv"))
	for _, f := range want {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("the chain did not write %s: %v", f, err)
			continue
		}
		if f == filepath.Join(hist, "history.csv") && !strings.Contains(string(data), "amqp_reliable") {
			t.Errorf("%s has no amqp_reliable rows", f)
		}
	}
	reqData, _ := os.ReadFile(reqs)
	for _, typ := range types {
		if !strings.Contains(string(reqData), typ) {
			t.Errorf("%s has no requirement for %s", reqs, typ)
		}
	}
}

// TestRunSecurity measures the _security sub-experiments with run against
// RabbitMQ's TLS listener, configured with tools/certgen's certificates
// (MQGATE_AMQP_TLS_DIR).
func TestRunSecurity(t *testing.T) {
	url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	dir := os.Getenv("MQGATE_AMQP_TLS_DIR")
	if dir == "" {
		testenv.Unavailable(t, "MQGATE_AMQP_TLS_DIR is not set: configure RabbitMQ's TLS port with certificates from tools/certgen (see README)")
	}
	t.Setenv(runMainEnv, "1")
	t.Setenv(runapp.SelfEnv, os.Args[0])
	out := t.TempDir()
	tool(t, runcmd.App(), []int{0}, "-s", "amqp_best_effort_security,amqp_reliable_security", "--amqp-url", url,
		"--ca", filepath.Join(dir, "ca.pem"), "--cert", filepath.Join(dir, "pinger.pem"), "--key", filepath.Join(dir, "pinger-key.pem"),
		"--payloads", "16,16384", "--samples", "100", "--warmup", "10", "--timeout", "5s", "--out", out, "--name", "tls", "-q")
	m, err := meta.ReadFile(filepath.Join(out, "tls", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.SubExperiments {
		if !s.Completed || s.System == nil || !strings.HasPrefix(s.System.URL, "amqps://") || !strings.HasPrefix(s.System.Extra["tls"], "TLS 1.") {
			t.Errorf("%s: completed %v, system %+v", s.Type, s.Completed, s.System)
		}
	}
}

// TestRunStopsWhenBrokerClosesConnection: the broker closes the pinger's
// connection mid-run (rabbitmqctl close_connection, as an operator or a
// broker shutting down would); run stops at once with exit 2, the reason
// and the URL without its password, and keeps what it measured in a
// meta.json marked incomplete.
func TestRunStopsWhenBrokerClosesConnection(t *testing.T) {
	url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	ctl := testenv.Program(t, "rabbitmqctl", "it comes with rabbitmq-server")
	t.Setenv(runMainEnv, "1")
	t.Setenv(runapp.SelfEnv, os.Args[0])
	out := t.TempDir()
	topic := fmt.Sprintf("mqgate-test-kill-%d", time.Now().UnixNano())
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stderr bytes.Buffer
		// Far more round trips than the test waits for.
		code := cliapp.Run(context.Background(), runcmd.App(), []string{"run", "-s", "amqp_reliable", "--amqp-url", url,
			"--topic", topic, "--payloads", "16", "--samples", "10000000", "--warmup", "0", "--timeout", "30s",
			"--out", out, "--name", "killed", "-q"}, io.Discard, &stderr)
		done <- result{code, stderr.String()}
	}()
	// connection returns the pid of the connection named name and the
	// frames the broker sent on it, once it is listed.
	connection := func(name string) (pid string, sent int) {
		listing, err := exec.Command(ctl, "list_connections", "-q", "--no-table-headers", "pid", "send_cnt", "client_properties").CombinedOutput()
		if err != nil {
			testenv.Unavailable(t, "rabbitmqctl list_connections: %v: %s", err, listing)
		}
		for _, line := range strings.Split(string(listing), "\n") {
			if f := strings.Fields(line); len(f) > 2 && strings.Contains(line, `"`+name+`"`) {
				n, _ := strconv.Atoi(f[1])
				return f[0], n
			}
		}
		return "", 0
	}
	// await polls until ok, under a watchdog, or fails if run ended.
	await := func(what string, ok func() bool) {
		for start := time.Now(); !ok(); {
			if time.Since(start) > 2*time.Minute {
				t.Fatalf("%s: not after 2 minutes", what)
			}
			select {
			case r := <-done:
				t.Fatalf("run ended before the connection was closed: exit %d, %s", r.code, r.stderr)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	// run's probe opens a pinger and closes it before the echo starts: the
	// pinger connection that exists once the echo does is the measuring one.
	await("the echo's connection", func() bool { p, _ := connection("mqgate echo consuming " + topic); return p != "" })
	// A delivery takes 3 frames, and the next ping is sent only once the
	// last echo was received: 300 frames mean about 100 round trips kept.
	var pid string
	await("100 echoes delivered to the pinger", func() bool {
		var sent int
		pid, sent = connection("mqgate pinger consuming " + topic)
		return sent >= 300
	})
	if b, err := exec.Command(ctl, "close_connection", pid, "mqgate test: broker closed the connection").CombinedOutput(); err != nil {
		t.Fatalf("rabbitmqctl close_connection: %v: %s", err, b)
	}
	select {
	case r := <-done:
		// The broker's reason, unless a publish raced with the close
		// and the client library kept only its own failed write (seen
		// once under a loaded CI run): then what happened.
		said := strings.Contains(r.stderr, "CONNECTION_FORCED") || strings.Contains(r.stderr, "was cut by the broker or the network")
		if r.code != exit.Usage || !said ||
			!strings.Contains(r.stderr, "amqp://guest:xxxxx@") || strings.Contains(r.stderr, ":guest@") {
			t.Fatalf("exit %d, stderr %q; want 2 and the broker's reason (or that the broker cut the link), naming the URL without its password", r.code, r.stderr)
		}
		t.Log(strings.TrimSpace(r.stderr))
	case <-time.After(25 * time.Second): // less than --timeout: not a timeout
		t.Fatal("run did not stop within 25 s of its connection being closed")
	}
	m, err := meta.ReadFile(filepath.Join(out, "killed", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Completed || len(m.SubExperiments) != 1 || m.SubExperiments[0].Completed || len(m.SubExperiments[0].Payloads) != 1 {
		t.Fatalf("meta.json: completed %v, sub-experiments %+v; want the run and its sub-experiment incomplete", m.Completed, m.SubExperiments)
	}
	if p := m.SubExperiments[0].Payloads[0]; p.Samples < 90 || p.Completed {
		t.Errorf("meta.json payload %+v: want the round trips measured before the connection was closed", p)
	}
	rows, err := os.ReadFile(filepath.Join(out, "killed", experiment.RawFileName("amqp_reliable")))
	if n := strings.Count(string(rows), "\n") - 1; err != nil || n != m.SubExperiments[0].Payloads[0].Samples {
		t.Errorf("raw file: %d samples (%v), meta.json says %d", n, err, m.SubExperiments[0].Payloads[0].Samples)
	}
}

// TestMethodParametersEveryMode runs every mode of run over RabbitMQ with
// the RabbitMQ throughput method's parameters set against the
// sub-experiment's defaults: persistent messages on a best-effort
// sub-experiment, manual acknowledgements committed in transactions,
// producer transactions of several messages (one-way modes), mandatory
// publishing and queues named by the broker. Each run completes with every
// message delivered, and meta.json records the values; immediate is
// refused with its reason.
func TestMethodParametersEveryMode(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end through RabbitMQ; skipped with -short")
	}
	url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	t.Setenv(runMainEnv, "1")
	t.Setenv(runapp.SelfEnv, os.Args[0])
	out := t.TempDir()
	method := []string{"--amqp-url", url, "--amqp-persistent", "true", "--amqp-auto-ack", "false",
		"--amqp-consumer-tx-size", "5", "--amqp-mandatory", "true", "-q", "--out", out}
	oneWay := append([]string{"--amqp-producer-tx-size", "10", "--amqp-queue", "server"}, method...)
	params := func(name string) map[string]string {
		t.Helper()
		m, err := meta.ReadFile(filepath.Join(out, name, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !m.Completed {
			t.Errorf("%s: meta.json marks the run incomplete", name)
		}
		for k, want := range map[string]string{"amqp-persistent": "true", "amqp-auto-ack": "false",
			"amqp-consumer-tx-size": "5", "amqp-mandatory": "true", "amqp-immediate": "false"} {
			if got := m.Config.Params[k]; got != want {
				t.Errorf("%s: meta.json params[%s] = %q, want %q", name, k, got, want)
			}
		}
		return m.Config.Params
	}
	oneWayParams := func(name string) {
		t.Helper()
		p := params(name)
		if p["amqp-tx-size"] != "10" || p["amqp-queue"] != "server" {
			t.Errorf("%s: meta.json params %v, want transactions of 10 and queues named by the broker", name, p)
		}
	}

	// Round trip: one message in flight, so producer transactions of 1.
	tool(t, runcmd.App(), []int{0}, append([]string{"-s", "amqp_best_effort", "--payloads", "16", "--samples", "50",
		"--warmup", "5", "--amqp-tx-size", "1", "--name", "rt"}, method...)...)
	params("rt")
	if msg := tool(t, runcmd.App(), []int{exit.Usage}, append([]string{"-s", "amqp_best_effort", "--payloads", "16",
		"--amqp-tx-size", "10", "--name", "rt10"}, method...)...); !strings.Contains(msg, "one message in flight") {
		t.Errorf("round trip with transactions of 10: %s", msg)
	}

	tool(t, runcmd.App(), []int{0}, append([]string{"throughput", "-s", "amqp_best_effort", "--payloads", "16",
		"--max-in-flight", "100", "--windows", "10", "--name", "tp"}, oneWay...)...)
	oneWayParams("tp")
	rows, err := os.ReadFile(filepath.Join(out, "tp", "throughput_amqp_best_effort.csv"))
	if err != nil || !strings.Contains(string(rows), "\n16,window,") {
		t.Errorf("throughput rows: %q, %v", rows, err)
	}

	tool(t, runcmd.App(), []int{0}, append([]string{"load", "-s", "amqp_best_effort", "--payloads", "64",
		"--rate", "500", "--duration", "2s", "--warmup", "200ms", "--interval", "200ms", "--no-plots", "--name", "load"}, oneWay...)...)
	oneWayParams("load")
	doc, err := os.ReadFile(filepath.Join(out, "load", "load_amqp_best_effort_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Payloads []struct {
			Counters struct {
				Sent     uint64 `json:"messages_sent"`
				Acked    uint64 `json:"messages_acked"`
				Refused  uint64 `json:"messages_refused"`
				Received uint64 `json:"messages_received"`
			} `json:"counters"`
			Lost uint64 `json:"lost"`
		} `json:"payloads"`
	}
	if err := json.Unmarshal(doc, &summary); err != nil || len(summary.Payloads) != 1 {
		t.Fatalf("load summary: %v", err)
	}
	if c := summary.Payloads[0].Counters; c.Sent < 10 || c.Received != c.Sent || c.Acked != c.Sent || c.Refused != 0 || summary.Payloads[0].Lost != 0 {
		t.Errorf("load in transactions of 10: %+v, lost %d; want every message committed and delivered", c, summary.Payloads[0].Lost)
	}

	tool(t, runcmd.App(), []int{0}, append([]string{"permessage", "-s", "amqp_best_effort", "--payloads", "64",
		"--count", "2000", "--window", "100", "--name", "pm"}, oneWay...)...)
	oneWayParams("pm")

	tool(t, runcmd.App(), []int{0}, append([]string{"burst", "-s", "amqp_best_effort", "--payloads", "64",
		"--demand", "25", "--recovery_time", "10", "--time", "0.3", "--name", "burst"}, oneWay...)...)
	oneWayParams("burst")
	rows, err = os.ReadFile(filepath.Join(out, "burst", "burst_amqp_best_effort.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Bursts of 25 in transactions of 10: the last 5 of each burst are
	// committed when the burst ends, so nothing is lost.
	lines := strings.Split(strings.TrimSpace(string(rows)), "\n")
	if f := strings.Split(lines[len(lines)-1], ","); len(lines) != 2 || len(f) < 9 || f[8] != "0" || f[3] != f[7] {
		t.Errorf("burst rows:\n%s\nwant every message received", rows)
	}

	msg := tool(t, runcmd.App(), []int{exit.Usage}, "load", "-s", "amqp_best_effort", "--amqp-url", url,
		"--amqp-immediate", "true", "--out", out, "--name", "immediate")
	if !strings.Contains(msg, "removed the immediate flag in 3.0") {
		t.Errorf("--amqp-immediate true: %s", msg)
	}
	if _, err := os.Stat(filepath.Join(out, "immediate")); !os.IsNotExist(err) {
		t.Errorf("a refused --amqp-immediate left %s: %v", filepath.Join(out, "immediate"), err)
	}
}
