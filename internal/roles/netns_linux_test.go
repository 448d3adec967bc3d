package roles_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/roles"
)

// netns is a small network of hosts made of network namespaces: each
// host's eth0 is a veth whose peer sits on a bridge in a switch namespace,
// addresses 10.77.<net>.<host>/24.
type netns struct {
	t     *testing.T
	id    string
	net   int
	hosts []string
}

// ip runs `ip args…`.
func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// newNetns makes n hosts, or skips the test with the reason when this
// machine cannot (not root, no ip, no namespaces in a container).
func newNetns(t *testing.T, n int) *netns {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skipf("skipping: the ip command (iproute2) is not installed: %v", err)
	}
	id := fmt.Sprintf("mqg%d", os.Getpid()%100000)
	nw := &netns{t: t, id: id, net: 100 + os.Getpid()%100}
	probe := id + "probe"
	if err := ip("netns", "add", probe); err != nil {
		t.Skipf("skipping: network namespaces cannot be made here (needs root and CAP_SYS_ADMIN): %v", err)
	}
	ip("netns", "del", probe)
	sw := id + "sw"
	t.Cleanup(nw.cleanup)
	must := func(args ...string) {
		if err := ip(args...); err != nil {
			t.Fatal(err)
		}
	}
	must("netns", "add", sw)
	must("-n", sw, "link", "add", "br0", "type", "bridge")
	must("-n", sw, "link", "set", "br0", "up")
	for i := 1; i <= n; i++ {
		h := fmt.Sprintf("%sh%d", id, i)
		nw.hosts = append(nw.hosts, h)
		must("netns", "add", h)
		must("link", "add", fmt.Sprintf("%sv%d", id, i), "type", "veth", "peer", "name", fmt.Sprintf("%sp%d", id, i))
		must("link", "set", fmt.Sprintf("%sv%d", id, i), "netns", h)
		must("link", "set", fmt.Sprintf("%sp%d", id, i), "netns", sw)
		must("-n", h, "link", "set", fmt.Sprintf("%sv%d", id, i), "name", "eth0")
		must("-n", h, "addr", "add", nw.addr(i)+"/24", "dev", "eth0")
		must("-n", h, "link", "set", "eth0", "up")
		must("-n", h, "link", "set", "lo", "up")
		must("-n", sw, "link", "set", fmt.Sprintf("%sp%d", id, i), "master", "br0")
		must("-n", sw, "link", "set", fmt.Sprintf("%sp%d", id, i), "up")
	}
	return nw
}

func (nw *netns) addr(i int) string { return fmt.Sprintf("10.77.%d.%d", nw.net, i) }

// exec is the command prefix that runs a program on host i.
func (nw *netns) exec(i int) []string { return []string{"ip", "netns", "exec", nw.hosts[i-1]} }

// cut takes host i off the network: its link goes down, as a pulled cable.
func (nw *netns) cut(i int) error { return ip("-n", nw.hosts[i-1], "link", "set", "eth0", "down") }

func (nw *netns) cleanup() {
	for _, h := range nw.hosts {
		ip("netns", "del", h)
	}
	ip("netns", "del", nw.id+"sw")
}

// TestThreeHosts runs the roles on three hosts made of network namespaces:
// a NATS server, a publisher and a queryable on host 1; a publisher and a
// queryable on host 2; the subscriber and the requester on host 3. Host 2
// is cut off mid-run. Every role still ends, within its --duration and a
// few --timeouts, and reports: the sub with the samples of both hosts and
// host 2's publishers without end markers, the req with the queries host 2
// no longer answered as timeouts; both experiments say incomplete.
func TestThreeHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes in network namespaces; skipped with -short")
	}
	nw := newNetns(t, 3)
	broker := nw.addr(1) + ":4222"
	nats := exec.Command("ip", append(nw.exec(1)[1:], os.Args[0])...)
	nats.Env = append(os.Environ(), natsEnv+"="+broker)
	stdout, _ := nats.StdoutPipe()
	nats.Stderr = os.Stderr
	if err := nats.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		nats.Process.Signal(os.Interrupt)
		nats.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("NATS server on host 1: %q %v", line, err)
	}
	url := "nats://" + broker
	out := t.TempDir()
	common := []string{"--endpoint", url, "--out-dir", out, "--timeout", "2s", "--log-level", "warn"}
	const duration = 6 * time.Second
	limit := duration + 60*time.Second // watchdog only
	type proc struct {
		name   string
		cmd    *exec.Cmd
		stderr fmt.Stringer
	}
	var procs []proc
	start := func(host int, name string, args ...string) {
		cmd, stderr := roleProcess(t, nw.exec(host), append(args, common...)...)
		procs = append(procs, proc{name, cmd, stderr})
	}
	start(3, "sub", "sub", "--run-id", "ps", "--publishers", "4", "--duration", duration.String())
	start(1, "qry1", "qry", "--run-id", "rq", "--duration", (duration + time.Minute).String()) // serving until interrupted
	start(2, "qry2", "qry", "--run-id", "rq", "--duration", (duration + time.Minute).String())
	time.Sleep(1500 * time.Millisecond) // subscriptions and queryables in place
	start(1, "pub1", "pub", "--run-id", "ps", "--publishers", "2", "--rate", "200", "--duration", duration.String(), "--instance", "1")
	start(2, "pub2", "pub", "--run-id", "ps", "--publishers", "2", "--rate", "200", "--duration", duration.String(), "--instance", "2")
	start(3, "req", "req", "--run-id", "rq", "--qps", "50", "--replies", "2", "--duration", duration.String())
	time.Sleep(duration / 2)
	if err := nw.cut(2); err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, p := range procs {
		if p.name == "qry1" || p.name == "qry2" {
			continue
		}
		codes[p.name] = waitExit(t, p.cmd, limit, p.name, p.stderr.(*bytesBuffer))
		t.Logf("%s: exit %d: %s", p.name, codes[p.name], lastLine(p.stderr.String()))
	}
	// Host 1's roles are whole; the sub, the req and host 2's pub lost
	// a peer: exit 2 with what they measured written.
	if codes["pub1"] != 0 || codes["sub"] != 2 || codes["req"] != 0 && codes["req"] != 2 {
		t.Errorf("exit codes %v", codes)
	}
	var sr roles.SubReport
	for _, f := range globReports(t, filepath.Join(out, "ps"), "sub-") {
		readJSON(t, f, &sr)
	}
	var fromHost = map[int]uint64{}
	for _, p := range sr.Publishers {
		fromHost[int(p.ID>>8)] += p.Received
		if int(p.ID>>8) == 1 && (p.Sent == nil || p.Lost != 0) {
			t.Errorf("host 1 publisher %+v", p)
		}
		if int(p.ID>>8) == 2 && p.Sent != nil {
			t.Errorf("host 2 publisher %d sent an end marker after its host was cut off", p.ID)
		}
	}
	if sr.Completed || fromHost[1] == 0 || fromHost[2] == 0 || !strings.Contains(sr.Reason, "2 of 4 publishers ended") {
		t.Errorf("sub report: completed %v, samples per host %v, reason %q", sr.Completed, fromHost, sr.Reason)
	}
	m, err := meta.ReadFile(filepath.Join(out, "ps", meta.FileName))
	if err != nil || m.Completed || m.Latency != meta.LatencyOneWay || m.SubExperiments[0].Payloads[0].Samples != sr.Samples {
		t.Errorf("ps meta %+v %v", m, err)
	}
	var rr roles.ReqReport
	for _, f := range globReports(t, filepath.Join(out, "rq"), "req-") {
		readJSON(t, f, &rr)
	}
	if rr.Queries == 0 || rr.Complete == 0 || rr.Timeouts == 0 || rr.Answered < rr.Complete {
		t.Errorf("req report: %+v", rr)
	}
	for _, p := range procs {
		if p.name == "qry1" || p.name == "qry2" {
			p.cmd.Process.Signal(os.Interrupt)
			code := waitExit(t, p.cmd, limit, p.name, p.stderr.(*bytesBuffer))
			if p.name == "qry1" && code != 130 {
				t.Errorf("qry1 interrupted: exit %d: %s", code, p.stderr)
			}
		}
	}
}

func globReports(t *testing.T, dir, prefix string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, roles.ReportsDir, prefix+"*.json"))
	if len(files) != 1 {
		t.Fatalf("%s: reports %v", dir, files)
	}
	return files
}
