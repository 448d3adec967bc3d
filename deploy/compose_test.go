package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/mqgate/mqgate/internal/testenv"
)

// composeFile is the topology under test.
const composeFile = "compose/compose.yaml"

// roleServices are the topology's services that end by themselves, each
// with exit 0 when its role completed.
var roleServices = []string{"zenoh-sub", "zenoh-pub", "zenoh-qry", "zenoh-req", "nats-sub", "nats-pub", "nats-qry", "nats-req"}

// portVars are the topology's ports, set in deploy/compose/.env.
var portVars = []string{"ZENOH_ROUTER_A_PORT", "ZENOH_ROUTER_B_PORT", "NATS_PORT", "ZENOH_SUB_HEALTH_PORT",
	"ZENOH_QRY_HEALTH_PORT", "NATS_SUB_HEALTH_PORT", "NATS_QRY_HEALTH_PORT"}

// composeProject is one Compose project of the topology under test: its
// environment (every port a free one of this host: host networking) and
// docker-compose with its file and project name.
type composeProject struct {
	t        *testing.T
	compose  string
	name     string
	env      []string
	profiles []string
}

// newProject prepares a project of the topology with the profiles given,
// brought down (and its logs shown on failure) when the test ends.
func newProject(t *testing.T, compose string, env []string, profiles ...string) *composeProject {
	p := &composeProject{t: t, compose: compose, name: fmt.Sprintf("mqgate%s%d", strings.ToLower(strings.NewReplacer("/", "", "_", "").Replace(t.Name())), os.Getpid()),
		env: env, profiles: profiles}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if t.Failed() {
			logs, _ := p.run(ctx, "logs", "--no-color")
			t.Logf("docker-compose logs:\n%s", logs)
		}
		if out, err := p.run(ctx, "down", "--timeout", "10"); err != nil {
			t.Errorf("docker-compose down: %v\n%s", err, out)
		}
	})
	return p
}

// run runs docker-compose -f compose.yaml -p NAME --profile … args.
func (p *composeProject) run(ctx context.Context, args ...string) (string, error) {
	all := []string{"-f", composeFile, "-p", p.name}
	for _, pr := range p.profiles {
		all = append(all, "--profile", pr)
	}
	cmd := exec.CommandContext(ctx, p.compose, append(all, args...)...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// exitCode is the exit code of svc's container, "" while it runs.
func (p *composeProject) exitCode(ctx context.Context, svc string) string {
	id, err := p.run(ctx, "ps", "-a", "-q", svc)
	id = strings.TrimSpace(id)
	if err != nil || id == "" {
		p.t.Fatalf("docker-compose ps -q %s: %q %v", svc, id, err)
	}
	out, err := exec.CommandContext(ctx, "docker", "inspect", "-f", "{{.State.Status}} {{.State.ExitCode}}", id).CombinedOutput()
	if err != nil {
		p.t.Fatalf("docker inspect %s: %v\n%s", svc, err, out)
	}
	status, code, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if status != "exited" {
		return ""
	}
	return code
}

// freePortsEnv gives every port of the topology a free port of this host.
func freePortsEnv(t *testing.T) []string {
	var env []string
	for _, v := range portVars {
		env = append(env, v+"="+strconv.Itoa(freePort(t)))
	}
	return env
}

// upCommand is docs/deploy.md's command, which ends with the roles: up
// attached to the collector alone, with its exit code.
func upCommand(collector string) []string {
	return []string{"up", "--exit-code-from", collector, collector}
}

// TestComposeSmoke brings the Compose topology up (Zenoh routers, a NATS
// server, pub+sub and req+qry over each), all at once, with the command
// docs/deploy.md gives: the roles' start barriers, not start order, get
// subscribers and queryables ready first, and up returns, exit 0, once
// every role completed with exit 0 (the collector done waits for them),
// while the routers and the server would run on. Reliable links, so that
// a loaded host delays messages rather than drops them (a best-effort sub
// missing its publishers' end markers exits 2). It then summarises the
// two experiments the roles merged their results into with process, and
// gates them with check against loose absolute limits (a median under
// 50 ms one way, a round trip under 100 ms): the pipeline of
// docs/deploy.md, end to end, in the image.
func TestComposeSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("brings the Compose topology up; skipped with -short")
	}
	// Mostly waiting for containers: the image and Compose tests overlap.
	t.Parallel()
	img := image(t)
	compose := testenv.Program(t, "docker-compose", "install it with: apt-get install docker-compose")
	results := volume(t)
	env := append(os.Environ(), "MQGATE_IMAGE="+img, "MQGATE_RESULTS="+results, "MQGATE_RUN_ID=smoke",
		"MQGATE_DURATION=3s", "MQGATE_RELIABILITY=reliable", "MQGATE_SERVE=30s", "MQGATE_WAIT_TIMEOUT=3m")
	p := newProject(t, compose, append(env, freePortsEnv(t)...), "all")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	if out, err := p.run(ctx, upCommand("done")...); err != nil {
		t.Fatalf("docker-compose %s: %v\n%s", strings.Join(upCommand("done"), " "), err, out)
	}
	t.Logf("up returned after %v", time.Since(start).Round(time.Second))
	for _, svc := range append(slices.Clone(roleServices), "zenoh-done", "nats-done", "done") {
		if code := p.exitCode(ctx, svc); code != "0" {
			t.Errorf("%s: exit code %q, want 0", svc, code)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// Each pub of the run keeps its report (both were instance 1, and one
	// report replaced the other).
	for _, f := range []string{"pub-pubsub-1.json", "pub-pubsub-2.json"} {
		b, err := os.ReadFile(filepath.Join(results, "smoke-pubsub", "roles", f))
		if err != nil || !strings.Contains(string(b), `"completed": true`) {
			t.Errorf("%s: %v\n%.300s", f, err, b)
		}
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

// TestComposeForeignBroker holds the topology's NATS port with another
// NATS server (as a broker of the host, CI's on 4222, would): the
// topology's nats-server cannot listen, and the roles, whose start
// barrier waits for the server named in .env, do not take the other one
// for it. They fail at MQGATE_WAIT_TIMEOUT naming the server they found,
// measure nothing, and the documented up returns non-zero.
func TestComposeForeignBroker(t *testing.T) {
	if testing.Short() {
		t.Skip("brings the Compose topology up; skipped with -short")
	}
	// Mostly waiting for containers: the image and Compose tests overlap.
	t.Parallel()
	img := image(t)
	compose := testenv.Program(t, "docker-compose", "install it with: apt-get install docker-compose")
	results := volume(t)
	port := freePort(t)
	other, err := natsserver.NewServer(&natsserver.Options{ServerName: "host-broker", Host: "127.0.0.1", Port: port, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go other.Start()
	defer other.Shutdown()
	if !other.ReadyForConnections(10 * time.Second) {
		t.Fatal("the other NATS server did not start")
	}
	subs := other.NumSubscriptions() // its own, internal ones
	env := append(os.Environ(), "MQGATE_IMAGE="+img, "MQGATE_RESULTS="+results, "MQGATE_RUN_ID=foreign",
		"MQGATE_DURATION=1s", "MQGATE_SERVE=5s", "MQGATE_WAIT_TIMEOUT=10s")
	env = append(append(env, freePortsEnv(t)...), "NATS_PORT="+strconv.Itoa(port))
	p := newProject(t, compose, env, "nats")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := p.run(ctx, upCommand("nats-done")...)
	if err == nil {
		t.Fatalf("docker-compose up returned 0 with another broker on the topology's port:\n%s", out)
	}
	t.Logf("docker-compose up: %v\n%s", err, out)
	logs, _ := p.run(ctx, "logs", "--no-color", "nats", "nats-sub")
	for _, want := range []string{"address already in use",
		`nats://127.0.0.1:` + strconv.Itoa(port) + `?server_name=mqgate-topology: not ready within 10s: the NATS server there is named "host-broker", not "mqgate-topology"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the logs lack %q:\n%s", want, logs)
		}
	}
	if n := other.NumSubscriptions(); n != subs {
		t.Errorf("the roles subscribed at the other broker: %d subscriptions, %d before", n, subs)
	}
	if entries, _ := os.ReadDir(results); len(entries) > 0 {
		t.Errorf("the roles wrote into %s: %s", results, entries[0].Name())
	}
}

// TestComposeSettings: every port and name of the topology comes from
// deploy/compose/.env (compose.yaml gives none a default of its own), and
// the routers' ids there are those their configurations set.
func TestComposeSettings(t *testing.T) {
	b, err := os.ReadFile("compose/.env")
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			set[k] = v
		}
	}
	yml, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range append(slices.Clone(portVars), "NATS_SERVER_NAME", "ZENOH_ROUTER_A_ID", "ZENOH_ROUTER_B_ID") {
		if set[v] == "" {
			t.Errorf(".env does not set %s", v)
		}
		if !strings.Contains(string(yml), "${"+v+"}") || strings.Contains(string(yml), "${"+v+":") {
			t.Errorf("compose.yaml: expected ${%s}, from .env, and no default of its own", v)
		}
	}
	for file, v := range map[string]string{"compose/zenoh-router-a.json5": "ZENOH_ROUTER_A_ID", "compose/zenoh-router-b.json5": "ZENOH_ROUTER_B_ID"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `id: "`+set[v]+`"`) {
			t.Errorf("%s: expected id %q, .env's %s", file, set[v], v)
		}
	}
}
