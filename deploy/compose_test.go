package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/testenv"
)

// composeFile is the topology under test.
const composeFile = "compose/compose.yaml"

// roleServices are the topology's services that end by themselves, each
// with exit 0 when its role completed.
var roleServices = []string{"zenoh-sub", "zenoh-pub", "zenoh-qry", "zenoh-req", "nats-sub", "nats-pub", "nats-qry", "nats-req"}

// TestComposeSmoke brings the Compose topology up (Zenoh routers, a NATS
// server, pub+sub and req+qry over each), all at once: the roles' start
// barriers, not start order, get subscribers and queryables ready first.
// Reliable links, so that a loaded host delays messages rather than drops
// them (a best-effort sub missing its publishers' end markers exits 2).
// It waits for every role to finish with exit 0, then summarises the two
// experiments the roles merged their results into with process, and gates
// them with check against loose absolute limits (a median under 50 ms one
// way, a round trip under 100 ms): the pipeline of docs/deploy.md, end to
// end, in the image.
func TestComposeSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("brings the Compose topology up; skipped with -short")
	}
	img := image(t)
	compose := testenv.Program(t, "docker-compose", "install it with: apt-get install docker-compose")
	results := volume(t)
	project := fmt.Sprintf("mqgatesmoke%d", os.Getpid())
	env := append(os.Environ(), "MQGATE_IMAGE="+img, "MQGATE_RESULTS="+results, "MQGATE_RUN_ID=smoke",
		"MQGATE_DURATION=3s", "MQGATE_RELIABILITY=reliable", "MQGATE_SERVE=30s", "MQGATE_WAIT_TIMEOUT=3m")
	// Host networking: every port is a free one of this host.
	for _, v := range []string{"ZENOH_ROUTER_A_PORT", "ZENOH_ROUTER_B_PORT", "NATS_PORT", "ZENOH_SUB_HEALTH_PORT",
		"ZENOH_QRY_HEALTH_PORT", "NATS_SUB_HEALTH_PORT", "NATS_QRY_HEALTH_PORT"} {
		env = append(env, v+"="+strconv.Itoa(freePort(t)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dc := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, compose, append([]string{"-f", composeFile, "-p", project, "--profile", "zenoh", "--profile", "nats"}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if t.Failed() {
			logs, _ := dc(ctx, "logs", "--no-color")
			t.Logf("docker-compose logs:\n%s", logs)
		}
		if out, err := dc(ctx, "down", "--timeout", "10"); err != nil {
			t.Errorf("docker-compose down: %v\n%s", err, out)
		}
	})
	start := time.Now()
	if out, err := dc(ctx, "up", "-d"); err != nil {
		t.Fatalf("docker-compose up: %v\n%s", err, out)
	}
	for _, svc := range roleServices {
		id, err := dc(ctx, "ps", "-q", svc)
		id = strings.TrimSpace(id)
		if err != nil || id == "" {
			t.Fatalf("docker-compose ps -q %s: %q %v", svc, id, err)
		}
		out, err := exec.CommandContext(ctx, "docker", "wait", id).CombinedOutput()
		if err != nil {
			t.Fatalf("docker wait %s: %v\n%s", svc, err, out)
		}
		if code := strings.TrimSpace(string(out)); code != "0" {
			t.Errorf("%s exited with code %s", svc, code)
		}
	}
	t.Logf("the topology's roles finished in %v", time.Since(start).Round(time.Second))
	if t.Failed() {
		t.FailNow()
	}

	// The merged results, summarised and gated in the image.
	reqs := map[string]string{
		"smoke-pubsub": "Experiment type,Bytes,Median,99%,Max,Latency\n" +
			"nats_reliable_pubsub,64,50000.000,1000000.000,10000000.000,one-way\n" +
			"zenoh_reliable_pubsub,64,50000.000,1000000.000,10000000.000,one-way\n",
		"smoke-query": "Experiment type,Bytes,Median,99%,Max,Latency\n" +
			"nats_reliable_query,64,100000.000,1000000.000,10000000.000,rtt\n" +
			"nats_reliable_querylast,64,100000.000,1000000.000,10000000.000,rtt\n" +
			"zenoh_reliable_query,64,100000.000,1000000.000,10000000.000,rtt\n" +
			"zenoh_reliable_querylast,64,100000.000,1000000.000,10000000.000,rtt\n",
	}
	run := []string{"run", "--rm", "--network", "host", "--read-only", "-v", results + ":/artifacts", img}
	for exp, req := range reqs {
		if err := os.WriteFile(filepath.Join(results, exp+"-requirements.csv"), []byte(req), 0o644); err != nil {
			t.Fatal(err)
		}
		docker(t, 0, append(run, "process", "--no-plots", "/artifacts/"+exp)...)
		out := docker(t, 0, append(run, "check", "--requirements", "/artifacts/"+exp+"-requirements.csv", "--experiment-directory", "/artifacts/"+exp,
			"--columns", "Median", "--json", "/artifacts/"+exp+"-check.json", "--plots-directory", "/artifacts/"+exp+"-plots", "--print-summaries")...)
		t.Logf("check of %s:\n%s", exp, out)
		var v struct {
			Status string `json:"status"`
			Checks []struct {
				Status string `json:"status"`
			} `json:"checks"`
		}
		b, err := os.ReadFile(filepath.Join(results, exp+"-check.json"))
		if err == nil {
			err = json.Unmarshal(b, &v)
		}
		if err != nil || v.Status != "passed" || len(v.Checks) != strings.Count(req, "\n")-1 {
			t.Errorf("check of %s: %v, %+v", exp, err, v)
		}
	}
}

// freePort is a TCP port of 127.0.0.1 nothing listens at now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
