package engine

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func rtts(n int, ns int64) []int64 {
	x := make([]int64, n)
	for i := range x {
		x[i] = ns
	}
	return x
}

// TestProgressInALog: off a terminal (CI) a full line every logEvery, with
// done/total, rate, p50, p99 and the sub-experiment's ETA; nothing between.
func TestProgressInALog(t *testing.T) {
	var out bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0)}
	r := &Runner{Progress: &out, clock: c.now}
	cfg := Config{Payloads: []int{16, 1024}, Latency: meta.LatencyRTT}
	r.tick("nats_best_effort", 16, 0, 1000, nil, cfg)
	c.t = c.t.Add(time.Second)
	r.tick("nats_best_effort", 16, 100, 1000, rtts(100, 10_000), cfg)
	if out.Len() != 0 {
		t.Fatalf("a line before %v: %q", logEvery, out.String())
	}
	c.t = c.t.Add(5 * time.Second)
	r.tick("nats_best_effort", 16, 600, 1000, rtts(600, 10_000), cfg)
	want := "progress: nats_best_effort  16 B (payload 1 of 2)  600/1,000  100/s  p50 10.0 µs  p99 10.0 µs  ETA 14 s\n"
	if out.String() != want {
		t.Errorf("got  %q\nwant %q", out.String(), want)
	}
	c.t = c.t.Add(time.Second)
	r.tick("nats_best_effort", 16, 700, 1000, rtts(700, 10_000), cfg)
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("a second line within %v: %q", logEvery, out.String())
	}
}

// TestProgressWarnsOfASlowRun: the default samples at 19 round trips/s
// (MQTT QoS 1 at 22 ms) would take hours; after warnAfter the run says so
// once, with the likely cause, and a terminal's status line is cleared
// before it.
func TestProgressWarnsOfASlowRun(t *testing.T) {
	var out bytes.Buffer
	c := &fakeClock{t: time.Unix(0, 0)}
	r := &Runner{Progress: &out, Terminal: true, clock: c.now}
	cfg := Config{Payloads: []int{16, 64, 256, 1024}, Latency: meta.LatencyRTT}
	r.tick("mqtt_reliable", 16, 0, 10_000, nil, cfg)
	c.t = c.t.Add(time.Second)
	r.tick("mqtt_reliable", 16, 19, 10_000, rtts(19, 22_400_000), cfg)
	if strings.Contains(out.String(), "warning") {
		t.Fatalf("warned before %v: %q", warnAfter, out.String())
	}
	for i := 2; i <= 5; i++ {
		c.t = c.t.Add(time.Second)
		r.tick("mqtt_reliable", 16, 19*i, 10_000, rtts(19*i, 22_400_000), cfg)
	}
	got := out.String()
	if n := strings.Count(got, "warning:"); n != 1 {
		t.Fatalf("%d warnings, want 1: %q", n, got)
	}
	for _, want := range []string{"\r\x1b[Kwarning: mqtt_reliable: 19 round trips/s (p50 22.4 ms)", "the 39,943 round trips still to go take about 35 min 2 s", "Nagle", "--samples"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	if !strings.HasSuffix(got, "ETA 35 min 0 s") {
		t.Errorf("status line %q: want the ETA last", got[strings.LastIndex(got, "\r"):])
	}
}

// TestReportTable: the closing table has a row for every payload, not only
// the first, in auto-scaled units.
func TestReportTable(t *testing.T) {
	var out bytes.Buffer
	r := &Runner{Progress: &out}
	cfg := Config{Payloads: []int{16, 1024}, Latency: meta.LatencyRTT}
	res := subResult{elapsed: time.Second, payloads: []driver.PayloadResult{
		{Nanos: []int64{9_000, 10_000, 11_000}, Counts: meta.Payload{Bytes: 16}},
		{Nanos: []int64{20_000, 1_148_000}, Counts: meta.Payload{Bytes: 1024}},
	}}
	r.report(cfg, Sub{Type: "nats_best_effort"}, res, nil)
	got := out.String()
	for _, want := range []string{
		"nats_best_effort                       done: 2 payloads, 5 samples, 0 lost",
		"    payload   samples        min        p50        p90        p99        max  (round trip)\n",
		"       16 B         3    9.00 µs    10.0 µs    10.8 µs    11.0 µs    11.0 µs\n",
		"     1024 B         2    20.0 µs     584 µs    1.04 ms    1.14 ms    1.15 ms\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	// Half round trips, the default, are named so.
	out.Reset()
	r.report(Config{Payloads: []int{16}}.WithDefaults(), Sub{Type: "nats_best_effort"}, subResult{elapsed: time.Second,
		payloads: []driver.PayloadResult{{Nanos: []int64{20_000}, Counts: meta.Payload{Bytes: 16}}}}, nil)
	if want := "max  (half round trip)\n       16 B         1    10.0 µs"; !strings.Contains(out.String(), want) {
		t.Errorf("missing %q in\n%s", want, out.String())
	}
}
