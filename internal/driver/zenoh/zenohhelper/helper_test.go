package zenohhelper

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/testenv"
)

// These tests run the real helper. They skip when it is not built (or
// fail under CI=true, where it must be): build it with `make zenoh`.

// helperBin returns the helper binary or skips/fails the test.
func helperBin(t *testing.T) string {
	t.Helper()
	bin, err := Find()
	if err != nil {
		if _, cerr := exec.LookPath("cargo"); cerr != nil {
			testenv.Unavailable(t, "cargo is not installed, so mqgate-zenoh cannot be built (%v)", err)
		} else {
			testenv.Unavailable(t, "%v", err)
		}
	}
	return bin
}

// watchdog turns a hang into a failure; it is no timing assertion.
func watchdog(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func start(t *testing.T, ctx context.Context, bin string, args []string) *Process {
	t.Helper()
	p, err := Start(ctx, bin, args)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// run runs a measuring role to its end.
func run(t *testing.T, ctx context.Context, bin string, args []string) Exit {
	t.Helper()
	return start(t, ctx, bin, args).Wait()
}

// listen is a loopback TCP endpoint whose port the system picks.
var listen = []string{"tcp/127.0.0.1:0"}

// tcpOf returns the TCP locator a role listens on.
func tcpOf(t *testing.T, p *Process) string {
	t.Helper()
	l := p.Ready.Locator("tcp")
	if l == "" || strings.HasSuffix(l, ":0") {
		t.Fatalf("%s listens on no resolved tcp locator: %v", p.Ready.Role, p.Ready.Locators)
	}
	return l
}

func readResults(t *testing.T, dir string) Results {
	t.Helper()
	r, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkHDR checks the summary's histogram against the raw samples of the
// same payload: same count, and a median within the histogram's 0.1 %.
func checkHDR(t *testing.T, l *LatencyStats, raw []float64) {
	t.Helper()
	if l == nil {
		t.Fatal("no latency statistics")
	}
	h, err := l.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != int64(len(raw)) || l.Count != uint64(len(raw)) {
		t.Fatalf("histogram holds %d (summary %d), raw file %d", h.TotalCount(), l.Count, len(raw))
	}
	s := append([]float64(nil), raw...)
	sort.Float64s(s)
	// HdrHistogram's median: the value at rank ceil(n/2), reported as the
	// highest value equivalent to it at 3 significant digits.
	exact := s[(len(s)+1)/2-1] * 1000
	if got := float64(l.P50Ns); got < exact*0.998 || got > exact*1.002+1000 {
		t.Errorf("hdr p50 %d ns, raw median %.0f ns", l.P50Ns, exact)
	}
	if float64(l.MaxNs) < s[len(s)-1]*1000*0.999 {
		t.Errorf("hdr max %d ns below the raw maximum %.3f us", l.MaxNs, s[len(s)-1])
	}
}

func byPayload(r Results) map[int][]float64 {
	m := map[int][]float64{}
	for _, s := range r.Samples {
		m[s.Payload] = append(m[s.Payload], s.Latency)
	}
	return m
}

func TestPingPongPeerLoopback(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Listen: listen, Reliable: true, Out: filepath.Join(dir, "pong")}}))
	ping := Ping{
		Common:   Common{Connect: []string{tcpOf(t, pong)}, Reliable: true, Out: filepath.Join(dir, "ping")},
		Payloads: []int{16, 1024, 16384}, Samples: 300, Warmup: 20,
	}
	if e := run(t, ctx, bin, ping.Args()); e.Err() != nil || e.Status != "complete" {
		t.Fatalf("ping: %+v", e)
	}
	if e := pong.Stop(30 * time.Second); e.Code != ExitComplete {
		t.Fatalf("pong: %+v", e)
	}
	r := readResults(t, filepath.Join(dir, "ping"))
	s := r.Summary
	if len(s.Links) != 1 || !strings.HasPrefix(s.Links[0], "tcp/") {
		t.Errorf("links %q, want the one tcp link", s.Links)
	}
	if s.Role != "ping" || s.Latency != LatencyHalfRTT || !s.Completed || s.ZenohVersion == "" ||
		s.Mode != ModePeer || s.Reliability != "reliable" || s.CongestionControl != "block" || !s.Express {
		t.Errorf("summary header: %+v", s)
	}
	raw := byPayload(r)
	for i, p := range s.Payloads {
		if want := []int{16, 1024, 16384}[i]; int(p.Payload) != want {
			t.Fatalf("payload %d is %d, want %d", i, p.Payload, want)
		}
		if p.Sent != 300 || p.Received != 300 || p.Lost != 0 || p.Timeouts != 0 || p.Warmup != 20 {
			t.Errorf("payload %d counts: %+v", p.Payload, p)
		}
		for _, v := range raw[int(p.Payload)] {
			if v <= 0 {
				t.Fatalf("payload %d: latency %v", p.Payload, v)
			}
		}
		checkHDR(t, p.Latency, raw[int(p.Payload)])
	}
	// The pong echoed every ping, warm-up and probes included.
	pr := readResults(t, filepath.Join(dir, "pong"))
	var echoed uint64
	for _, p := range pr.Summary.Payloads {
		echoed += p.Sent
	}
	if echoed < 3*320 {
		t.Errorf("pong echoed %d messages, want at least %d: %+v", echoed, 3*320, pr.Summary.Payloads)
	}
}

func TestPingRTTDefinition(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Listen: listen}}))
	ping := Ping{Common: Common{Connect: []string{tcpOf(t, pong)}, Out: dir}, Payloads: []int{64}, Samples: 50, RTT: true}
	if e := run(t, ctx, bin, ping.Args()); e.Err() != nil {
		t.Fatal(e.Err())
	}
	r := readResults(t, dir)
	if r.Summary.Latency != LatencyRTT || r.Summary.Reliability != "best-effort" || r.Summary.CongestionControl != "drop" {
		t.Errorf("summary: %+v", r.Summary)
	}
	if len(r.Samples) != int(r.Summary.Payloads[0].Received) {
		t.Errorf("%d rows for %d received", len(r.Samples), r.Summary.Payloads[0].Received)
	}
}

// Best effort with a TCP and a UDP link between the two peers: Zenoh sends
// the best-effort pings and echoes over UDP (formats §9: summary links).
func TestBestEffortOverUDP(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Listen: []string{"tcp/127.0.0.1:0", "udp/127.0.0.1:0"}, MaxLinks: 2}}))
	udp := pong.Ready.Locator("udp")
	if udp == "" {
		t.Fatalf("the pong listens on no udp locator: %v", pong.Ready.Locators)
	}
	ping := Ping{Common: Common{Connect: []string{tcpOf(t, pong), udp}, MaxLinks: 2, Out: dir}, Payloads: []int{16, 1024}, Samples: 200, Warmup: 10}
	if e := run(t, ctx, bin, ping.Args()); e.Err() != nil {
		t.Fatalf("ping: %+v", e)
	}
	r := readResults(t, dir)
	var be, rel bool
	for _, l := range r.Summary.Links {
		be = be || strings.HasPrefix(l, "udp/") && strings.HasSuffix(l, " best-effort")
		rel = rel || strings.HasPrefix(l, "tcp/") && strings.HasSuffix(l, " reliable")
	}
	if !be || !rel {
		t.Errorf("links %q: want a best-effort udp link and a reliable tcp link", r.Summary.Links)
	}
	for _, p := range r.Summary.Payloads {
		// Loopback UDP may drop under load; every ping is accounted for.
		if p.Sent != 200 || p.Received+p.Lost != p.Sent {
			t.Errorf("payload %d: %+v", p.Payload, p)
		}
	}
}

func TestPubSubOneWay(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	runID := uint32(77)
	sub := start(t, ctx, bin, Sub{Common: Common{Listen: listen, Reliable: true, Out: filepath.Join(dir, "sub")},
		Publishers: 2, RunID: &runID}.Args())
	pub := Pub{
		Common:   Common{Connect: []string{tcpOf(t, sub)}, Reliable: true, Out: filepath.Join(dir, "pub")},
		Payloads: []int{16, 1024}, Rate: 1000, Publishers: 2, Topics: 2,
		Duration: 500 * time.Millisecond, Warmup: 100 * time.Millisecond, RunID: &runID,
	}
	if e := run(t, ctx, bin, pub.Args()); e.Err() != nil {
		t.Fatalf("pub: %+v", e)
	}
	if e := sub.Wait(); e.Err() != nil || e.Status != "complete" {
		t.Fatalf("sub: %+v", e)
	}
	ps := readResults(t, filepath.Join(dir, "pub")).Summary
	r := readResults(t, filepath.Join(dir, "sub"))
	if r.Summary.Latency != LatencyOneWay || !r.Summary.Completed {
		t.Fatalf("sub summary: %+v", r.Summary)
	}
	raw := byPayload(r)
	if len(ps.Payloads) != 2 || len(r.Summary.Payloads) != 2 {
		t.Fatalf("payloads: pub %d, sub %d", len(ps.Payloads), len(r.Summary.Payloads))
	}
	for i, got := range r.Summary.Payloads {
		sent := ps.Payloads[i]
		if got.Payload != sent.Payload || sent.Sent == 0 {
			t.Fatalf("payload %d: pub %+v, sub %+v", i, sent, got)
		}
		// Reliable over TCP on loopback: everything arrives, once.
		if got.Sent != sent.Sent || got.Received != sent.Sent || got.Lost != 0 || got.Duplicates != 0 {
			t.Errorf("payload %d: pub sent %d; sub: %+v", got.Payload, sent.Sent, got)
		}
		if len(got.Publishers) != 2 {
			t.Fatalf("payload %d: publishers %+v", got.Payload, got.Publishers)
		}
		// Open loop: every slot of the measured half second is either sent
		// or skipped, however loaded the machine is.
		if sent.Sent+sent.Skipped != 2*500 {
			t.Errorf("payload %d: %d sent + %d skipped, want 2 publishers × 500 slots", got.Payload, sent.Sent, sent.Skipped)
		}
		for j, pc := range got.Publishers {
			want := sent.Publishers[j]
			if pc.Sent == nil || *pc.Sent != *want.Sent || pc.Received != *want.Sent {
				t.Errorf("payload %d publisher %d: got %+v, publisher says %d", got.Payload, j, pc, *want.Sent)
			}
			// 16-byte messages have no room for the run id.
			if got.Payload == 16 && pc.RunID != nil || got.Payload > 16 && (pc.RunID == nil || *pc.RunID != runID) {
				t.Errorf("payload %d publisher %d: run id %v", got.Payload, j, pc.RunID)
			}
		}
		checkHDR(t, got.Latency, raw[int(got.Payload)])
	}
}

func TestQueryQueryable(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	qa := start(t, ctx, bin, Queryable{Common: Common{Listen: listen, Reliable: true, Out: filepath.Join(dir, "queryable")}, Replies: 3}.Args())
	q := Query{Common: Common{Connect: []string{tcpOf(t, qa)}, Reliable: true, Out: filepath.Join(dir, "query")},
		Payloads: []int{16, 4096}, Samples: 200, Warmup: 10, Replies: 3}
	if e := run(t, ctx, bin, q.Args()); e.Err() != nil {
		t.Fatalf("query: %+v", e)
	}
	if e := qa.Stop(30 * time.Second); e.Code != ExitComplete {
		t.Fatalf("queryable: %+v", e)
	}
	r := readResults(t, filepath.Join(dir, "query"))
	if r.Summary.Latency != LatencyRTT || len(r.Last) != len(r.Samples) || len(r.Samples) != 400 {
		t.Fatalf("query: latency %q, %d first and %d last rows", r.Summary.Latency, len(r.Samples), len(r.Last))
	}
	for _, p := range r.Summary.Payloads {
		if p.Sent != 200 || p.Received != 200 || p.Replies != 600 || p.RepliesMin != 3 || p.RepliesMax != 3 || p.Timeouts != 0 || p.Lost != 0 {
			t.Errorf("payload %d: %+v", p.Payload, p)
		}
		if p.Latency == nil || p.LatencyLast == nil || p.LatencyLast.MaxNs < p.Latency.MinNs {
			t.Errorf("payload %d: latency %+v last %+v", p.Payload, p.Latency, p.LatencyLast)
		}
	}
	for i := range r.Samples {
		if r.Last[i].Latency < r.Samples[i].Latency {
			t.Fatalf("row %d: last reply at %v us before the first at %v us", i+1, r.Last[i].Latency, r.Samples[i].Latency)
		}
	}
	qs := readResults(t, filepath.Join(dir, "queryable")).Summary
	var served, replies uint64
	for _, p := range qs.Payloads {
		served += p.Received
		replies += p.Replies
	}
	if served != 420 || replies != 3*420 {
		t.Errorf("queryable served %d queries with %d replies, want 420 and 1260", served, replies)
	}
}

func TestClientModeThroughRouter(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	router := start(t, ctx, bin, RouterArgs(Serve{Common: Common{Listen: listen}}))
	if router.Ready.Role != "router" {
		t.Fatalf("ready: %+v", router.Ready)
	}
	via := []string{tcpOf(t, router)}
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Mode: ModeClient, Connect: via, Reliable: true}}))
	ping := Ping{Common: Common{Mode: ModeClient, Connect: via, Reliable: true, Out: dir}, Payloads: []int{16, 1024}, Samples: 200, Warmup: 10}
	if e := run(t, ctx, bin, ping.Args()); e.Err() != nil {
		t.Fatalf("ping: %+v", e)
	}
	pong.Stop(30 * time.Second)
	if e := router.Stop(30 * time.Second); e.Code != ExitComplete {
		t.Fatalf("router: %+v", e)
	}
	r := readResults(t, dir)
	if r.Summary.Mode != ModeClient || len(r.Samples) != 400 {
		t.Fatalf("mode %s, %d samples", r.Summary.Mode, len(r.Samples))
	}
}

func TestPongDiesMidRun(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Listen: listen, Reliable: true}}))
	// Far more round trips than can run before the pong is killed.
	ping := start(t, ctx, bin, Ping{Common: Common{Connect: []string{tcpOf(t, pong)}, Reliable: true, Out: dir},
		Payloads: []int{16, 1024}, Samples: 50_000_000, Warmup: 10, Timeout: 500 * time.Millisecond}.Args())
	// Once the first payload is being measured, give it a moment, then
	// kill the pong as a crash would.
	select {
	case line := <-ping.Progress():
		if !strings.Contains(line, "payload=16") {
			t.Fatalf("progress %q", line)
		}
	case <-ping.Done():
		t.Fatalf("ping ended early: %+v", ping.Wait())
	}
	time.Sleep(time.Second)
	pong.Kill()
	e := ping.Wait()
	if e.Code != ExitIncomplete || e.Status != "incomplete" || !errors.Is(e.Err(), ErrIncomplete) {
		t.Fatalf("ping after the pong died: %+v", e)
	}
	r := readResults(t, dir) // checks rows == received
	s := r.Summary
	if s.Completed || !(strings.Contains(s.Reason, "went away") || strings.Contains(s.Reason, "consecutive")) {
		t.Errorf("reason %q", s.Reason)
	}
	if len(s.Payloads) != 1 {
		t.Fatalf("payloads %+v", s.Payloads)
	}
	p := s.Payloads[0]
	if p.Received == 0 || p.Timeouts == 0 || p.Lost != p.Timeouts || p.Sent != p.Received+p.Lost {
		t.Errorf("partial counts: %+v", p)
	}
}

func TestNoPeer(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	dir := t.TempDir()
	// A pong on another key: the ping's probes match no subscriber.
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Listen: listen, Key: "elsewhere"}}))
	ping := Ping{Common: Common{Connect: []string{tcpOf(t, pong)}, Out: filepath.Join(dir, "ping")}, Payloads: []int{16}, Samples: 10, WaitPeer: 300 * time.Millisecond}
	e := run(t, ctx, bin, ping.Args())
	if e.Code != ExitIncomplete {
		t.Fatalf("ping without pong: %+v", e)
	}
	r := readResults(t, filepath.Join(dir, "ping"))
	if r.Summary.Completed || !strings.Contains(r.Summary.Reason, "no pong answered") || len(r.Samples) != 0 {
		t.Errorf("summary %+v, %d samples", r.Summary, len(r.Samples))
	}
	sub := Sub{Common: Common{Listen: listen, Out: filepath.Join(dir, "sub")}, WaitPeer: 300 * time.Millisecond}
	if e := run(t, ctx, bin, sub.Args()); e.Code != ExitIncomplete {
		t.Fatalf("sub without pub: %+v", e)
	}
	if r := readResults(t, filepath.Join(dir, "sub")); !strings.Contains(r.Summary.Reason, "no message arrived") {
		t.Errorf("sub reason %q", r.Summary.Reason)
	}
	pub := Pub{Common: Common{Connect: []string{tcpOf(t, pong)}, Out: filepath.Join(dir, "pub")}, Duration: time.Second, WaitPeer: 300 * time.Millisecond}
	if e := run(t, ctx, bin, pub.Args()); e.Code != ExitIncomplete {
		t.Fatalf("pub without sub: %+v", e)
	}
	q := Query{Common: Common{Connect: []string{tcpOf(t, pong)}, Out: filepath.Join(dir, "query")}, Samples: 5, WaitPeer: 300 * time.Millisecond}
	if e := run(t, ctx, bin, q.Args()); e.Code != ExitIncomplete {
		t.Fatalf("query without queryable: %+v", e)
	}
}

func TestUsageErrors(t *testing.T) {
	bin := helperBin(t)
	ctx := watchdog(t)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"ping", "--payloads", "8"}, ExitUsage, "smaller than the 16-byte header"},
		{[]string{"ping", "--samples", "0"}, ExitUsage, "--samples must be at least 1"},
		{[]string{"pub", "--rate", "0"}, ExitUsage, "--rate 0 must be"},
		{[]string{"ping", "--connect", "nonsense"}, ExitUsage, "connect/endpoints"},
		{[]string{"sub", "--config", "/nonexistent/zenoh.json5"}, ExitUsage, "--config /nonexistent/zenoh.json5"},
		{[]string{"fly"}, ExitUsage, "unrecognized subcommand"},
	} {
		cmd := exec.CommandContext(ctx, bin, tc.args...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(string(out), tc.msg) {
			t.Errorf("%v: %v, output %q; want exit %d mentioning %q", tc.args, err, out, tc.code, tc.msg)
		}
	}
	if _, err := Start(ctx, bin, []string{"ping", "--payloads", "8"}); err == nil || !strings.Contains(err.Error(), "before it was ready") {
		t.Errorf("Start of a failing role: %v", err)
	}
}

func TestVersionNamesZenoh(t *testing.T) {
	bin := helperBin(t)
	v, err := Version(watchdog(t), bin)
	if err != nil || !strings.HasPrefix(v, "mqgate-zenoh ") || !strings.Contains(v, "(zenoh 1.") {
		t.Fatalf("version %q, %v", v, err)
	}
}
