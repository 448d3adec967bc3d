package permessage

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/testenv"
)

// procCPU is the CPU time of process pid ("self" for this one) in ns, read
// from /proc/<pid>/stat (utime + stime, 10 ms ticks of USER_HZ 100): the
// kernel's account, read here independently of the clocks the code uses.
func procCPU(t *testing.T, pid string) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		t.Skipf("no /proc/%s/stat: %v", pid, err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return (ut + st) * tickNs
}

// listenerPid finds the process listening at TCP port on this host, from
// /proc/net/tcp and the processes' socket descriptors ("" when none).
func listenerPid(port int) string {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			c := strings.Fields(sc.Text())
			if len(c) > 9 && c[3] == "0A" && strings.HasSuffix(c[1], fmt.Sprintf(":%04X", port)) {
				inodes["socket:["+c[9]+"]"] = true
			}
		}
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && inodes[l] {
			return strings.Split(fd, "/")[2]
		}
	}
	return ""
}

// cpuRun measures count 16 B messages back to back over links, and returns
// the record, the console line and the /proc CPU time of this process and
// of broker (when not "") over the measurement.
func cpuRun(t *testing.T, links load.Links, count int, broker string) (pm *Record, line string, self, brk int64) {
	t.Helper()
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	ends, err := links.Open(context.Background(), tp, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	src := BrokerCPU(links.URL)
	cfg := Config{Count: count, Window: 100, CPUEvery: 1000, Timeout: 2 * time.Second, Broker: &src}.WithDefaults()
	s0, b0 := procCPU(t, "self"), int64(0)
	if broker != "" {
		b0 = procCPU(t, broker)
	}
	pm, err = Measure(context.Background(), ends, 16, cfg)
	self = procCPU(t, "self") - s0
	if broker != "" {
		brk = procCPU(t, broker) - b0
	}
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	(&progressPrinter{w: &b}).print("nats_best_effort", pm)
	return pm, b.String(), self, brk
}

// figure is the ns/msg figure after the text matched by prefix in the
// console line (NaN when absent).
func figure(line, prefix string) float64 {
	m := regexp.MustCompile(prefix + `[^\n]*?[ (]([\d,]+) ns/msg`).FindStringSubmatch(line)
	if m == nil {
		return math.NaN()
	}
	v, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	return v
}

// near reports whether the CPU time per message got agrees with want ns
// over n messages: within 15 %, and 3 ticks of /proc besides.
func near(got, want float64, n int) bool {
	return math.Abs(got-want) <= 0.15*want+3*tickNs/float64(n)
}

// covered is the number of messages the CPU figures are over: from the
// first reading to the last.
func covered(pm *Record) int { return (pm.Receiver.taken() - 1) * pm.CPUEvery }

// TestPerMessageCPUAgainstProc checks the CPU figures against the kernel's
// account in /proc. Through the nats-server of this host, unpaced (its
// messages come in bursts): the client process, all threads, is what
// /proc/self/stat counted (the sender and receiver threads were about a
// third of it), and the broker's figure on the console is its CPU over
// the run by /proc/<pid>/stat (the median of 1000-message windows was 0
// there: a burst drained from the socket buffer costs the broker nothing
// meanwhile). With the broker in this process, sender, receiver and
// broker do not count a thread twice: they add up to the process.
func TestPerMessageCPUAgainstProc(t *testing.T) {
	const count = 300_000
	t.Run("nats-server", func(t *testing.T) {
		addr := testenv.Service(t, "nats-server", testenv.Getenv("MQGATE_NATS_URL", nats.DefaultURL), "start it with: nats-server -a 127.0.0.1 -p 4222")
		u, _ := url.Parse(addr)
		port, _ := strconv.Atoi(u.Port())
		pid := listenerPid(port)
		if pid == "" || pid == strconv.Itoa(os.Getpid()) {
			testenv.Unavailable(t, "no process of this host listens at %s: the broker's CPU cannot be read", addr)
			return
		}
		topic := drivertest.TestTopic(t)
		links := load.Links{Transport: nats.Transport{}, URL: addr, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}
		pm, line, self, brk := cpuRun(t, links, count, pid)
		n := covered(pm)
		a := Aggregates(pm)
		client := math.NaN()
		if i := slices.Index(permessagefile.Quantities, "Client CPU [ns/msg]"); i >= 0 {
			client = a[i].Overall
		}
		t.Logf("%s\n/proc: this process %.0f ns/msg, nats-server %s %.0f ns/msg over %d messages", line, float64(self)/float64(n), pid, float64(brk)/float64(n), n)
		if c := figure(line, `client process \(all threads\)`); !near(c, float64(self)/float64(n), n) || c != math.Round(client) {
			t.Errorf("client process on the console %g ns/msg, in the summary %g, /proc/self/stat %g", c, client, float64(self)/float64(n))
		}
		if b := figure(line, "broker"); !near(b, float64(brk)/float64(n), n) {
			t.Errorf("broker on the console %g ns/msg, /proc/%s/stat %g", b, pid, float64(brk)/float64(n))
		}
		if !strings.Contains(line, "broker process "+pid) {
			t.Errorf("the console does not name the broker's process %s: %s", pid, line)
		}
	})
	t.Run("embedded", func(t *testing.T) {
		natsURL, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		topic := drivertest.TestTopic(t)
		links := load.Links{Transport: nats.Transport{}, URL: natsURL, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}
		pm, line, self, _ := cpuRun(t, links, count, "")
		n := covered(pm)
		proc := float64(self) / float64(n)
		sum := 0.0
		for _, w := range []string{"sender thread", "receiver thread", "broker"} {
			v := figure(line, w)
			if math.IsNaN(v) {
				t.Fatalf("no %s figure on the console: %s", w, line)
			}
			sum += v
		}
		t.Logf("%s\n/proc/self/stat %.0f ns/msg over %d messages", line, proc, n)
		if !near(sum, proc, n) {
			t.Errorf("sender, receiver and broker add up to %g ns/msg, this process by /proc %g: a thread is counted twice or not at all", sum, proc)
		}
		if c := figure(line, `client process \(all threads\)`); !near(c, proc, n) {
			t.Errorf("client process %g ns/msg, /proc/self/stat %g", c, proc)
		}
	})
}

// serverInfo is what the NATS server at addr announces to a plain TCP
// client: the INFO line it sends first.
func serverInfo(t *testing.T, addr string) (name, version string) {
	t.Helper()
	u, _ := url.Parse(addr)
	c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "INFO ") {
		t.Fatalf("no INFO from %s: %q, %v", addr, line, err)
	}
	var info struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(line[5:]), &info); err != nil {
		t.Fatal(err)
	}
	return "nats-server", info.Version
}

// TestPerMessageRecordsTheBroker: the meta.json of a run through the
// nats-server of this host names it and its version as the server
// announces them to a plain client (not run's default, mqgate-builtin),
// and holds the load average of /proc/loadavg at the start and the end.
func TestPerMessageRecordsTheBroker(t *testing.T) {
	addr := testenv.Service(t, "nats-server", testenv.Getenv("MQGATE_NATS_URL", nats.DefaultURL), "start it with: nats-server -a 127.0.0.1 -p 4222")
	product, version := serverInfo(t, addr)
	loadavg := func() []float64 {
		b, err := os.ReadFile("/proc/loadavg")
		if err != nil {
			t.Skipf("no load average here: %v", err)
		}
		var la [3]float64
		fmt.Sscan(string(b), &la[0], &la[1], &la[2])
		return la[:]
	}
	dir := t.TempDir()
	topic := drivertest.TestTopic(t)
	start0 := loadavg()
	m := &meta.Meta{Start: time.Now().UTC(), System: meta.System{Name: "mqgate-builtin"}, Host: meta.HostFingerprint()}
	start1 := loadavg()
	r := &Runner{Config: Config{Count: 2000, Window: 100, CPUEvery: 500}, Payloads: []int{64}, Dir: dir, Meta: m, NoPlots: true}
	sub := load.Sub{Type: "nats_best_effort", Transport: "nats", Topic: topic,
		Links: load.Links{Transport: nats.Transport{}, URL: addr, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}}
	end0 := loadavg()
	if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
		t.Fatal(err)
	}
	end1 := loadavg()
	b, err := os.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		System struct{ Name, Version string } `json:"system"`
		Host   struct {
			Load map[string][]float64 `json:"load_average"`
		} `json:"host"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.System.Name != product || doc.System.Version != version {
		t.Errorf("meta.json system %q %q, the server announces %s %s", doc.System.Name, doc.System.Version, product, version)
	}
	in := func(got, a, b []float64) bool { return slices.Equal(got, a) || slices.Equal(got, b) }
	if got := doc.Host.Load["start"]; !in(got, start0, start1) {
		t.Errorf("load average at the start %v, /proc/loadavg %v then %v", got, start0, start1)
	}
	if got := doc.Host.Load["end"]; !in(got, end0, end1) {
		t.Errorf("load average at the end %v, /proc/loadavg %v then %v", got, end0, end1)
	}
}
