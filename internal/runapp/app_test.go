package runapp_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/drivertest/hub"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/meta/metatest"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/runapp"
	"github.com/mqgate/mqgate/internal/stats"
)

// mainEnv makes the test binary behave as the run command, so that it can
// start itself in the echo role.
const mainEnv = "MQGATE_RUNAPP_TEST_MAIN"

func init() { hub.Register() }

// diesAfterEnv makes the test binary, started as an echo, a plain echo
// that kills itself (SIGKILL) on receiving that many messages.
const diesAfterEnv = "MQGATE_RUNAPP_TEST_ECHO_DIES_AFTER"

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(diesAfterEnv)); err == nil && len(os.Args) > 1 && os.Args[1] == "echo" {
		dyingEcho(n)
	}
	// A fuzz worker is this binary started with -test. flags: a test run.
	if os.Getenv(mainEnv) == "1" && !slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(a, "-test.") }) {
		cliapp.Main(runcmd.App())
	}
	os.Setenv(mainEnv, "1")
	os.Setenv(runapp.SelfEnv, os.Args[0])
	quickRaceExit()
	os.Exit(m.Run())
}

// quickRaceExit spares the echo processes this binary starts as itself the
// race detector's pause at exit (atexit_sleep_ms, 1 s by default), unless
// GORACE sets it: the tests start such a process for every run over a
// network and for every round of an interleaved gate, and the pause, which
// only lets other goroutines run on after main returns, is most of what
// such a process costs. A race a child finds still ends it with the race
// detector's exit code and report, which the tests see.
func quickRaceExit() {
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
}

// run runs the command in-process.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cliapp.Run(context.Background(), runcmd.App(), append([]string{"run"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// available returns the built-in sub-experiments whose transport is
// registered in this binary.
func available() []string {
	var names []string
	for _, r := range driver.BuiltinScenarios() {
		if _, err := driver.Lookup(r.Transport); err == nil {
			names = append(names, r.Type)
		}
	}
	return names
}

// summarise reads a raw file with the measurements reader and summarises
// it as process does, through a summary CSV round trip.
func summarise(t *testing.T, path string) []result.SummaryRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := measurements.NewReader(f, path)
	by := map[int][]float64{}
	var order []int
	for r.Next() {
		s := r.Sample()
		if by[s.Payload] == nil {
			order = append(order, s.Payload)
		}
		by[s.Payload] = append(by[s.Payload], s.Latency)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	var rows []result.SummaryRow
	for _, p := range order {
		rows = append(rows, result.SummaryRow{Bytes: p, Summary: stats.Summarize(by[p], nil)})
	}
	out := filepath.Join(t.TempDir(), "summary.csv")
	if err := result.WriteSummaryFile(out, rows); err != nil {
		t.Fatal(err)
	}
	back, err := result.ReadSummaryFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestAllSubExperiments(t *testing.T) {
	out := t.TempDir()
	subs := available()
	code, _, stderr := run(t, "--subexperiments", strings.Join(subs, ","), "--payloads", "16,1000,16384",
		"--samples", "50", "--warmup", "5", "--timeout", "2s", "--out", out, "--name", "e",
		"--sut-version", "1.2.3", "--sut-commit", "abcdef", "--fill", "random")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	dir := filepath.Join(out, "e")
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
	if missing, err := metatest.MissingFields(doc); err != nil || len(missing) > 0 {
		t.Errorf("meta.json lacks formats §6 fields %v (%v)", missing, err)
	}
	if !m.Completed || m.System.Version != "1.2.3" || m.System.Commit != "abcdef" || m.Host.CPUModel == "" ||
		m.Config.Samples != 50 || m.Config.Fill != "random" || len(m.SubExperiments) != len(subs) {
		t.Errorf("meta.json: %+v", m)
	}
	for i, s := range m.SubExperiments {
		if s.Type != subs[i] || !s.Completed {
			t.Errorf("sub-experiment %d: %+v", i, s)
		}
		rows := summarise(t, filepath.Join(dir, experiment.RawFileName(s.Type)))
		if len(rows) != 3 {
			t.Fatalf("%s: %d summary rows", s.Type, len(rows))
		}
		for j, row := range rows {
			p := s.Payloads[j]
			if row.Bytes != p.Bytes || row.Samples != p.Samples || uint64(p.Samples)+p.Lost != 50 {
				t.Errorf("%s: summary row %+v, meta %+v", s.Type, row, p)
			}
		}
	}
	if !strings.Contains(stderr, "results in "+dir) {
		t.Errorf("stderr does not say where the results are:\n%s", stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, "-s", "intraprocess_reliable", "--samples", "5", "--warmup", "0", "--out", out, "--name", "x", "-q"); code != 0 {
		t.Fatalf("setup run: exit %d: %s", code, stderr)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-s", "intraprocess_fast"}, "unknown sub-experiment"},
		{[]string{"-s", "intraprocess_reliable,intraprocess_reliable"}, "twice"},
		{[]string{"--payloads", "8"}, "smaller than the 16-byte"},
		{[]string{"--payloads", "a,b"}, "--payloads"},
		{[]string{"--cpus", "0"}, "--cpus"},
		{[]string{"--cpus", "0,99"}, "--cpus"},
		{[]string{"--fill", "ones"}, "fill"},
		{[]string{"--latency", "one-way"}, "latency"},
		{[]string{"--target", "nohost"}, "--target"},
		{[]string{"--target", "127.0.0.1:1"}, "no selected sub-experiment is interprocess"},
		{[]string{"-s", "interprocess_reliable_tcp", "--target", "tcpx=127.0.0.1:1"}, `transport "tcpx" is not available`},
		{[]string{"--payloads", "16,32,16"}, "payload 16 is listed twice"},
		{[]string{"--name", "../up"}, "--name"},
		{[]string{"--name", "x"}, "exists already"},
		{[]string{"--ca", "ca.pem"}, "no selected sub-experiment is secure"},
		{[]string{"-s", "interprocess_reliable_tcp_security", "--target", "h:1"}, "needs --ca"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
	}
	for _, tt := range tests {
		args := append([]string{"--out", out, "-s", "intraprocess_reliable"}, tt.args...)
		code, _, stderr := run(t, args...)
		if code != exit.Usage || !strings.Contains(stderr, tt.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
	code, _, stderr := run(t, "echo", "--transport", "carrier-pigeon")
	if code != exit.Usage || !strings.Contains(stderr, "carrier-pigeon") {
		t.Errorf("echo with an unknown transport: exit %d, %q", code, stderr)
	}
}

func TestPinnedRecorded(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "-s", "intraprocess_best_effort", "--cpus", "0,0", "--samples", "50", "--payloads", "16", "--out", out, "--name", "p")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := meta.ReadFile(filepath.Join(out, "p", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.CPUs == nil || *m.Config.CPUs != (meta.CPUs{Pinger: 0, Ponger: 0}) || m.Config.Echo != "in-process" {
		t.Errorf("config %+v", m.Config)
	}
}

// needProc skips tests that watch the echo process through Linux's /proc.
func needProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux's /proc to watch the echo process")
	}
}

func registered(transport string) bool {
	_, err := driver.Lookup(transport)
	return err == nil
}

// startRun starts the test binary as the run command.
func startRun(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &stderr
}

// waitFor polls until cond holds or the test's patience ends.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("gave up waiting for %s", what)
}

// children returns the pids of processes whose parent is pid.
func children(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(b[bytes.LastIndexByte(b, ')')+1:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// cpuTicks returns the CPU time pid used so far, in clock ticks (user and
// system, from /proc/PID/stat).
func cpuTicks(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ... utime is field 14, stime 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// waitEchoing waits until the only child of pid, the echo process, has
// blocked a thousand times (summed over its threads): the run is measuring.
func waitEchoing(t *testing.T, pid int) []int {
	t.Helper()
	var echo []int
	waitFor(t, "the echo process to echo", func() bool {
		echo = children(pid)
		if len(echo) != 1 {
			return false
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", echo[0]))
		total := 0
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(v))
					total += n
				}
			}
		}
		return total >= 1000
	})
	return echo
}

// TestEchoProcessKilled has the echo process die in the middle of a run
// (it kills itself on its 500th message, so that the moment does not
// depend on the machine's load): run stops with exit code 2 well before
// its (long) timeout, says which sub-experiment, payload and round trip,
// and writes what it measured.
func TestEchoProcessKilled(t *testing.T) {
	out := t.TempDir()
	const timeout = 60 * time.Second
	for _, sub := range []string{"interprocess_best_effort", "interprocess_reliable_tcp"} {
		if r, _ := driver.ScenarioOf(sub); !registered(r.Transport) {
			continue
		}
		t.Run(sub, func(t *testing.T) {
			t.Setenv(diesAfterEnv, "500")
			cmd, stderr := startRun(t, "-s", sub, "--payloads", "16", "--samples", "5000000", "--warmup", "0",
				"--timeout", timeout.String(), "--max-lost-in-row", "1000", "--out", out, "--name", sub)
			start := time.Now()
			err := cmd.Wait()
			if since := time.Since(start); since >= timeout {
				t.Fatalf("run took %v after the echoer died", since)
			}
			code := cmd.ProcessState.ExitCode()
			if code != exit.Usage {
				t.Fatalf("exit %d (%v), want 2; stderr:\n%s", code, err, stderr)
			}
			msg := stderr.String()
			for _, want := range []string{sub + ": payload 16 B, round trip 500", "echo process", "signal: killed", "incomplete"} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr lacks %q:\n%s", want, msg)
				}
			}
			m, err := meta.ReadFile(filepath.Join(out, sub, meta.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if m.Completed || m.Interrupted || !strings.Contains(m.Error, "killed") || m.SubExperiments[0].Payloads[0].Samples != 499 {
				t.Errorf("meta: completed %v interrupted %v error %q payloads %+v; want 499 samples", m.Completed, m.Interrupted, m.Error, m.SubExperiments[0].Payloads)
			}
			summarise(t, filepath.Join(out, sub, experiment.RawFileName(sub)))
		})
	}
}

// dyingEcho is the echo role of TestEchoProcessKilled: a plain UDP or TCP
// echo at --listen that prints its address, as `run echo` does, and kills
// itself on receiving message number after (a TCP message is one read:
// one message is in flight at a time).
func dyingEcho(after int) {
	var transport, listen string
	for i, a := range os.Args[:len(os.Args)-1] {
		switch a {
		case "--transport":
			transport = os.Args[i+1]
		case "--listen":
			listen = os.Args[i+1]
		}
	}
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }() // the lifeline
	die := func(n int) {
		if n == after {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	buf := make([]byte, 1<<16)
	switch transport {
	case driver.UDP:
		pc, err := net.ListenPacket("udp", listen)
		if err != nil {
			os.Exit(2)
		}
		fmt.Println(pc.LocalAddr())
		for n := 1; ; n++ {
			k, a, err := pc.ReadFrom(buf)
			if err != nil {
				os.Exit(2)
			}
			die(n)
			pc.WriteTo(buf[:k], a)
		}
	case driver.TCP:
		l, err := net.Listen("tcp", listen)
		if err != nil {
			os.Exit(2)
		}
		fmt.Println(l.Addr())
		c, err := l.Accept()
		if err != nil {
			os.Exit(2)
		}
		c.(*net.TCPConn).SetNoDelay(true)
		for n := 1; ; n++ {
			k, err := c.Read(buf)
			if err != nil {
				os.Exit(2)
			}
			die(n)
			c.Write(buf[:k])
		}
	}
	os.Exit(2)
}

// TestInterrupt sends SIGINT to a run in progress: it exits 130 and leaves
// the samples and a meta.json marked interrupted.
func TestInterrupt(t *testing.T) {
	needProc(t)
	out := t.TempDir()
	for _, sub := range []string{"intraprocess_reliable", "interprocess_best_effort"} {
		t.Run(sub, func(t *testing.T) {
			cmd, stderr := startRun(t, "-s", sub+",intraprocess_best_effort", "--payloads", "16,32", "--samples", "5000000", "--warmup", "0",
				"--out", out, "--name", sub)
			metaPath := filepath.Join(out, sub, meta.FileName)
			waitFor(t, "meta.json", func() bool { _, err := os.Stat(metaPath); return err == nil })
			if strings.HasPrefix(sub, "interprocess") {
				waitEchoing(t, cmd.Process.Pid)
			} else {
				// The in-process ends spin: give the run up to a second
				// of CPU (or ten seconds) to measure. Whether it measured
				// anything by then does not matter to what is asserted.
				base := cpuTicks(cmd.Process.Pid)
				for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && cpuTicks(cmd.Process.Pid) < base+100; {
					time.Sleep(10 * time.Millisecond)
				}
			}
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != exit.Interrupted {
				t.Fatalf("exit %d, want 130; stderr:\n%s", code, stderr)
			}
			m, err := meta.ReadFile(metaPath)
			if err != nil {
				t.Fatal(err)
			}
			if m.Completed || !m.Interrupted || len(m.SubExperiments) != 1 || m.SubExperiments[0].Completed {
				t.Fatalf("meta: completed %v interrupted %v subs %+v", m.Completed, m.Interrupted, m.SubExperiments)
			}
			// What was measured is kept: the raw file holds exactly the
			// samples meta.json counts (none, and no file, if the signal
			// came before the first round trip).
			raw := filepath.Join(out, sub, experiment.RawFileName(sub))
			if len(m.SubExperiments[0].Payloads) == 0 {
				// On a loaded machine the signal can come before the
				// first payload began: nothing measured, nothing kept.
				if _, err := os.Stat(raw); !os.IsNotExist(err) {
					t.Errorf("no payload begun, yet %s exists (%v)", raw, err)
				}
				if children(cmd.Process.Pid) != nil {
					t.Errorf("echo process left behind")
				}
				return
			}
			p := m.SubExperiments[0].Payloads[0]
			if p.Completed {
				t.Errorf("payload %+v marked completed", p)
			}
			if p.Samples == 0 {
				if _, err := os.Stat(raw); !os.IsNotExist(err) {
					t.Errorf("no samples, yet %s exists (%v)", raw, err)
				}
			} else if rows := summarise(t, raw); len(rows) != 1 || rows[0].Samples != p.Samples {
				t.Errorf("payload %+v, summary %+v", p, rows)
			}
			if children(cmd.Process.Pid) != nil {
				t.Errorf("echo process left behind")
			}
		})
	}
}

// startEcho starts `run echo` as a separate process and returns the address
// it printed on the first line of its output; it is stopped with SIGTERM at
// the end of the test, which must end it cleanly.
func startEcho(t *testing.T, transport string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "echo", "--transport", transport, "--listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("echo after SIGTERM: %v; stderr %s", err, stderr.String())
		}
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no address: %v; stderr %s", err, stderr.String())
	}
	return strings.TrimSpace(addr)
}

// TestEchoRole measures against a `run echo` reached with --target.
func TestEchoRole(t *testing.T) {
	addr := startEcho(t, driver.UDP)
	out := t.TempDir()
	code, _, errs := run(t, "-s", "interprocess_best_effort,interprocess_reliable", "--target", addr, "--payloads", "16,2048",
		"--samples", "100", "--warmup", "10", "--out", out, "--name", "remote")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m, err := meta.ReadFile(filepath.Join(out, "remote", meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Echo != "remote" || m.Config.Target != addr || m.SubExperiments[0].Echo != "remote" {
		t.Errorf("meta config %+v", m.Config)
	}
}

// TestLossyLink puts a relay that drops every 10th datagram between the
// pinger and a `run echo`: best effort loses exactly the messages the relay
// dropped, reliable loses none and resends exactly what the relay saw
// beyond the messages sent. The timeouts are generous enough that only a
// dropped datagram can be lost (a loaded machine delays, it does not drop),
// and the counts asserted do not depend on timing: a resend made because
// an echo was slow rather than dropped still passes the relay, so the
// relay's count equals the messages plus the resends whatever the
// scheduling.
func TestLossyLink(t *testing.T) {
	echo := startEcho(t, driver.UDP)
	out := t.TempDir()
	t.Run("interprocess_best_effort", func(t *testing.T) {
		// Every dropped message waits out the timeout: few samples.
		const sub, samples = "interprocess_best_effort", 20
		relay := drivertest.NewLossyRelay(t, echo, 10, 0)
		code, _, errs := run(t, "-s", sub, "--target", relay.Addr(), "--payloads", "16,64", "--samples", strconv.Itoa(samples),
			"--warmup", "0", "--timeout", "2s", "--out", out, "--name", sub, "-q")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		m, err := meta.ReadFile(filepath.Join(out, sub, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.SubExperiments[0].Payloads {
			if p.Lost != 2 || p.Samples != samples-2 || p.Retransmitted != 0 {
				t.Errorf("payload %d: lost %d, samples %d, retransmitted %d; want 2, %d, 0", p.Bytes, p.Lost, p.Samples, p.Retransmitted, samples-2)
			}
		}
		if relay.Seen() != 2*samples || relay.Dropped() != 4 {
			t.Errorf("relay saw %d and dropped %d datagrams; want %d and 4", relay.Seen(), relay.Dropped(), 2*samples)
		}
	})
	t.Run("interprocess_reliable", func(t *testing.T) {
		// A message is resent every 20 ms up to 1000 times within a
		// 60 s timeout: it cannot be lost unless the resending is wrong.
		const sub, samples = "interprocess_reliable", 100
		relay := drivertest.NewLossyRelay(t, echo, 10, 0)
		code, _, errs := run(t, "-s", sub, "--target", relay.Addr(), "--payloads", "16,64", "--samples", strconv.Itoa(samples),
			"--warmup", "0", "--timeout", "60s", "--retransmit-timeout", "20ms", "--max-retries", "1000",
			"--out", out, "--name", sub, "-q")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		m, err := meta.ReadFile(filepath.Join(out, sub, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		var resent uint64
		for _, p := range m.SubExperiments[0].Payloads {
			resent += p.Retransmitted
			if p.Lost != 0 || p.Samples != samples || p.Duplicates > p.Retransmitted {
				t.Errorf("payload %d: lost %d, samples %d, duplicates %d, retransmitted %d; want 0 lost, %d samples, no more duplicates than resends",
					p.Bytes, p.Lost, p.Samples, p.Duplicates, p.Retransmitted, samples)
			}
		}
		// The last resend may still be on its way to the relay (which
		// does not count the probe run makes before it measures).
		want := uint64(2*samples) + resent
		waitFor(t, fmt.Sprintf("the relay to see %d datagrams", want), func() bool { return relay.Seen() >= want })
		if seen := relay.Seen(); seen != want || relay.Dropped() != seen/10 || resent < relay.Dropped()/2 {
			t.Errorf("relay saw %d and dropped %d datagrams, %d resent; want %d seen (%d messages and the resends), a tenth dropped, and a resend for each dropped message",
				seen, relay.Dropped(), resent, want, 2*samples)
		}
	})
}

// TestWrongCA gives both ends certificates from one CA and tells them to
// trust another, or a certificate with another certificate's key: run
// refuses before it creates anything, exit 2.
func TestWrongCA(t *testing.T) {
	good, bad := t.TempDir(), t.TempDir()
	echo, pinger, err := secure.GenerateFiles(good)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := secure.GenerateFiles(bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"interprocess_reliable_tcp_security", "interprocess_best_effort_security"} {
		t.Run(sub, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"-s", sub, "--samples", "10", "--payloads", "16", "--out", out, "--timeout", "2s",
				"--echo-cert", echo.CertFile, "--echo-key", echo.KeyFile}
			if code, _, stderr := run(t, append(args, "--ca", echo.CAFile, "--cert", pinger.CertFile, "--key", pinger.KeyFile, "--name", "right")...); code != 0 {
				t.Fatalf("with the right CA: exit %d: %s", code, stderr)
			}
			for _, tt := range []struct {
				name string
				args []string
				want string
			}{
				{"wrong-ca", []string{"--ca", other.CAFile, "--cert", pinger.CertFile, "--key", pinger.KeyFile}, "is not valid under the CA in " + other.CAFile},
				{"wrong-key", []string{"--ca", echo.CAFile, "--cert", pinger.CertFile, "--key", echo.KeyFile}, "private key does not match public key"},
				{"foreign-cert", []string{"--ca", echo.CAFile, "--cert", other.CertFile, "--key", other.KeyFile}, "is not valid under the CA"},
			} {
				code, _, stderr := run(t, append(args, append(tt.args, "--name", tt.name)...)...)
				if code != exit.Usage || !strings.Contains(stderr, tt.want) {
					t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.name, code, stderr, tt.want)
				}
				if _, err := os.Stat(filepath.Join(out, tt.name)); !os.IsNotExist(err) {
					t.Errorf("%s: the experiment directory was created (%v)", tt.name, err)
				}
			}
		})
	}
}

// TestHelpExamples runs the examples of 'run --help', so that they cannot
// drift from what run accepts.
func TestHelpExamples(t *testing.T) {
	var examples [][]string
	_, ex, _ := strings.Cut(runcmd.App().Description, "Examples:")
	for _, line := range strings.Split(ex, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "run ") && !strings.Contains(line, "--target") && !strings.HasPrefix(line, "run echo") {
			words, err := runapp.SplitCommand(line)
			if err != nil {
				t.Fatalf("example %q: %v", line, err)
			}
			examples = append(examples, words[1:])
		}
	}
	if len(examples) < 2 {
		t.Fatalf("found %d examples in the help", len(examples))
	}
	for i, args := range examples {
		out := t.TempDir()
		if !slices.Contains(args, "--list") { // which takes no other flag
			args = append(args, "--out", out, "-q")
		}
		if args[0] == "ab" { // ab takes --out itself; its run flags follow --
			args = append([]string{"ab", "--out", out}, append(args[1:len(args)-3], "-q")...)
		}
		if code, _, stderr := run(t, args...); code != 0 {
			t.Errorf("example %d (run %s): exit %d: %s", i+1, strings.Join(args, " "), code, stderr)
		}
	}
}
