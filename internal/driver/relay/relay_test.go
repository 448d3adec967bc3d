package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/driver/relay"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
)

// adapterBin is tools/relay-echo, built once for the package's tests.
var adapterBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "relay-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	adapterBin = filepath.Join(dir, "relay-echo")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "build", "-o", adapterBin, "../../../tools/relay-echo").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building tools/relay-echo: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command is --relay-command for the example adapter with args.
func command(args ...string) string {
	b, _ := json.Marshal(append([]string{adapterBin}, args...))
	return string(b)
}

func config(args ...string) drivertest.Config {
	params := map[string]string{relay.FlagCommand: command(args...), relay.FlagName: "relay_reliable"}
	return drivertest.Config{Transport: relay.Transport{},
		Listen: driver.Options{Params: params}, Dial: driver.Options{Params: params},
		MaxAllocs: 0}
}

// TestConformance runs the transport suite through the example adapter,
// echoing directly and through TCP on loopback.
func TestConformance(t *testing.T) {
	t.Run("direct", func(t *testing.T) { drivertest.Run(t, config()) })
	t.Run("tcp", func(t *testing.T) { drivertest.Run(t, config("-via", "tcp")) })
}

// TestHello checks that the adapter's hello frame reaches the system info.
func TestHello(t *testing.T) {
	c := config("-via", "tcp")
	e := drivertest.StartEcho(t, c)
	p := drivertest.Dial(t, c, e.Addr())
	info := p.(driver.InfoReporter).SystemInfo()
	if info.Product != "relay-echo" || !strings.HasPrefix(info.Version, "relay-echo tcp 127.0.0.1:") || !strings.Contains(info.Extra["command"], `"-via","tcp"`) {
		t.Errorf("system info %+v", info)
	}
}

// run runs the run command in-process.
func run(t *testing.T, ctx context.Context, root string, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"run", "--quiet", "--out", root, "--name", "exp"}, args...)
	code := cliapp.Run(ctx, runcmd.App(), args, &out, &errb)
	return code, errb.String()
}

func rows(t *testing.T, dir, typ string) map[int]int {
	t.Helper()
	path := filepath.Join(dir, experiment.RawFileName(typ))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := measurements.NewReader(f, path)
	n := map[int]int{}
	for r.Next() {
		n[r.Sample().Payload]++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRun measures through the example adapter with run: every round trip
// is a sample, and meta.json names the adapter and its hello.
func TestRun(t *testing.T) {
	root := t.TempDir()
	code, stderr := run(t, context.Background(), root, "-s", "relay_reliable", "--relay-name", "relay_reliable",
		"--relay-command", command("-via", "tcp"), "--payloads", "16,1024", "--samples", "300", "--warmup", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := filepath.Join(root, "exp")
	if n := rows(t, dir, "relay_reliable"); n[16] != 300 || n[1024] != 300 {
		t.Errorf("rows %v", n)
	}
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	sub := m.SubExperiments[0]
	if !m.Completed || sub.Transport != relay.Name || !sub.Reliable || sub.System == nil || sub.System.Product != "relay-echo" ||
		!strings.HasPrefix(sub.System.Version, "relay-echo tcp") || sub.Payloads[0].Lost != 0 {
		t.Errorf("meta: completed %v sub %+v system %+v", m.Completed, sub, sub.System)
	}
}

// TestFaults checks the adapter's failures: not found, no hello, a frame
// that is not one, an exit mid-run, an adapter that stops reading; and
// SIGINT (a cancelled context).
func TestFaults(t *testing.T) {
	base := []string{"-s", "relay_best_effort", "--relay-name", "relay_best_effort", "--payloads", "16,64", "--samples", "200", "--connect-timeout", "1s"}
	t.Run("not found", func(t *testing.T) {
		root := t.TempDir()
		code, stderr := run(t, context.Background(), root, append(base, "--relay-command", "no-such-adapter-mqgate --x")...)
		if code != 2 || !strings.Contains(stderr, `--relay-command: program "no-such-adapter-mqgate" not found`) {
			t.Errorf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(root, "exp")); err == nil {
			t.Error("an experiment was created")
		}
	})
	t.Run("no hello", func(t *testing.T) {
		root := t.TempDir()
		start := time.Now()
		code, stderr := run(t, context.Background(), root, append(base, "--relay-command", "sleep 30")...)
		if code != 2 || !strings.Contains(stderr, "adapter sleep wrote no hello frame within --connect-timeout") {
			t.Errorf("exit %d: %s", code, stderr)
		}
		if d := time.Since(start); d > 25*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("not a frame", func(t *testing.T) {
		root := t.TempDir()
		code, stderr := run(t, context.Background(), root, append(base, "--relay-command", `["echo", "hello, I am not an adapter"]`)...)
		if code != 2 || !strings.Contains(stderr, "larger than the largest it may write, 4096") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
	t.Run("exits mid-run", func(t *testing.T) {
		root := t.TempDir()
		code, stderr := run(t, context.Background(), root, append(base, "--warmup", "10", "--relay-command", command("-fail-after", "150"))...)
		if code != 2 || !strings.Contains(stderr, "exited with status 3") || !strings.Contains(stderr, "giving up after 150 messages") ||
			!strings.Contains(stderr, "meta.json marks the run incomplete") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		dir := filepath.Join(root, "exp")
		if n := rows(t, dir, "relay_best_effort"); n[16] != 140 {
			t.Errorf("rows %v, want the 140 measured before the adapter quit", n)
		}
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil || m.Completed || m.SubExperiments[0].Completed {
			t.Errorf("meta %+v %v", m, err)
		}
	})
	t.Run("stops reading", func(t *testing.T) {
		root := t.TempDir()
		start := time.Now()
		code, stderr := run(t, context.Background(), root, "-s", "relay_best_effort", "--relay-name", "relay_best_effort",
			"--payloads", "16384", "--samples", "100", "--warmup", "0", "--timeout", "50ms", "--max-lost-in-row", "1000",
			"--relay-command", command("-stall"))
		if code != 2 || !strings.Contains(stderr, "it has not read its standard input for "+relay.SendTimeout.String()) {
			t.Errorf("exit %d: %s", code, stderr)
		}
		if d := time.Since(start); d > relay.SendTimeout+30*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		root := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(2*time.Second, cancel)
		code, stderr := run(t, ctx, root, "-s", "relay_best_effort", "--relay-name", "relay_best_effort", "--payloads", "16",
			"--samples", "3000000", "--warmup", "0", "--relay-command", command())
		if code != exit.Interrupted {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		dir := filepath.Join(root, "exp")
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil || m.Completed || !m.Interrupted || rows(t, dir, "relay_best_effort")[16] == 0 {
			t.Errorf("meta %+v %v", m, err)
		}
	})
}

// BenchmarkOverhead measures the relay protocol's cost: round trips of 16-
// and 1024-byte messages, one in flight, through an echo inside this
// process (driver intraprocess, reliable: the floor of any link), through
// the example adapter echoing directly (adding two pipe crossings and two
// process wake-ups), and through the adapter's TCP loopback path. p50-ns
// is the median round trip; the pipes' cost is relay-direct's p50 minus
// inprocess's, measured in the same run:
//
//	go test -run '^$' -bench Overhead -benchtime 50000x -count 5 ./internal/driver/relay
//
// Each case runs alone: an in-process echoer polls while it waits, and
// would take a CPU from the adapter if both ran at once. docs/relay.md
// states the figures.
func BenchmarkOverhead(b *testing.B) {
	inproc := drivertest.Config{Transport: intraprocess.Transport{}, Addr: "",
		Listen: driver.Options{Reliable: true}, Dial: driver.Options{Reliable: true}}
	for _, size := range []int{16, 1024} {
		b.Run(fmt.Sprintf("inprocess/%dB", size), func(b *testing.B) { bench(b, size, inproc) })
		b.Run(fmt.Sprintf("relay-direct/%dB", size), func(b *testing.B) { bench(b, size, config()) })
		b.Run(fmt.Sprintf("relay-tcp/%dB", size), func(b *testing.B) { bench(b, size, config("-via", "tcp")) })
	}
}

// bench times round trips over c's pinger and reports their median.
func bench(b *testing.B, size int, c drivertest.Config) {
	e := drivertest.StartEcho(b, c)
	p := drivertest.Dial(b, c, e.Addr())
	msg := make([]byte, size)
	buf := make([]byte, size)
	for range 500 {
		if _, err := drivertest.RoundTrip(p, msg, buf); err != nil {
			b.Fatal(err)
		}
	}
	rtts := make([]time.Duration, 0, 1<<17)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if err := p.Send(msg); err != nil {
			b.Fatal(err)
		}
		if _, _, err := p.Receive(buf, t0.Add(drivertest.ReceiveDeadline)); err != nil {
			b.Fatal(err)
		}
		if len(rtts) < cap(rtts) {
			rtts = append(rtts, time.Since(t0))
		}
	}
	b.StopTimer()
	sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
	if n := len(rtts); n > 0 {
		b.ReportMetric(float64(rtts[n/2]), "p50-ns")
		b.ReportMetric(float64(rtts[n*99/100]), "p99-ns")
	}
}
