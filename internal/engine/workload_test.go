package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// countingWorkload is a workload whose measurer records n nanoseconds for
// the n-th message of each payload, without the link: it checks that the
// runner takes mode, latency, measurements and the sink from the seams.
type countingWorkload struct{ started int }

func (w *countingWorkload) Mode(p Pacer) string   { return "test " + p.Name() }
func (w *countingWorkload) Latency(Config) string { return meta.LatencyOneWay }
func (w *countingWorkload) Check(c Config) error  { return nil }
func (w *countingWorkload) Start(_ *Link, c Config, _ *atomic.Bool, _ driver.TickFunc) driver.Measurer {
	w.started++
	return countingMeasurer{c}
}

type countingMeasurer struct{ c Config }

func (m countingMeasurer) Measure(payload int, res *driver.PayloadResult) (int, error) {
	for i := range m.c.Samples {
		res.Nanos = append(res.Nanos, int64(1000*(i+1)))
	}
	res.Counts = meta.Payload{Bytes: payload, Samples: m.c.Samples, Completed: true}
	return m.c.Samples, nil
}

// recordingSink keeps what it was given.
type recordingSink struct {
	latency string
	nanos   [][]int64
}

func (s *recordingSink) Write(_ string, _ Sub, latency string, payloads []driver.PayloadResult) error {
	s.latency = latency
	for _, p := range payloads {
		s.nanos = append(s.nanos, p.Nanos)
	}
	return nil
}

// paced is an open-loop pacer, which the round trip refuses.
type paced struct{}

func (paced) Pace(time.Duration, uint64) time.Duration { return time.Millisecond }
func (paced) Name() string                             { return "constant 1000/s" }

func TestWorkloadSeams(t *testing.T) {
	w := &countingWorkload{}
	sink := &recordingSink{}
	r := newRunner(t, Config{Payloads: []int{16, 32}, Samples: 3, Workload: w})
	r.Sink = sink
	if err := r.Run(context.Background(), []Sub{intraSub("intraprocess_reliable", true, nil)}); err != nil {
		t.Fatal(err)
	}
	if w.started != 1 || r.Meta.Mode != "test closed-loop" || r.Meta.Latency != meta.LatencyOneWay || sink.latency != meta.LatencyOneWay {
		t.Errorf("started %d, mode %q, latency %q, sink latency %q", w.started, r.Meta.Mode, r.Meta.Latency, sink.latency)
	}
	if len(sink.nanos) != 2 || len(sink.nanos[1]) != 3 || sink.nanos[1][2] != 3000 {
		t.Errorf("sink got %v", sink.nanos)
	}
}

func TestRoundTripChecks(t *testing.T) {
	c := Config{Pacer: paced{}}.WithDefaults()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `pacing "constant 1000/s": a round trip keeps one message in flight`) {
		t.Errorf("round trip with an open-loop pacer: %v", err)
	}
	c = Config{}.WithDefaults()
	if err := c.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	if got := (RoundTrip{}).Mode(ClosedLoop{}); got != "round-trip closed-loop" {
		t.Errorf("mode %q", got)
	}
	if (ClosedLoop{}).Pace(time.Hour, 1e9) != 0 {
		t.Error("the closed loop waits")
	}
}

// TestRawCSVUnits: the raw file holds half the round trip for half-rtt and
// the nanoseconds as microseconds otherwise.
func TestRawCSVUnits(t *testing.T) {
	for latency, want := range map[string]float64{meta.LatencyHalfRTT: 1.5, meta.LatencyRTT: 3, meta.LatencyOneWay: 3} {
		dir := t.TempDir()
		sub := Sub{Type: "x_reliable"}
		if err := (RawCSV{}).Write(dir, sub, latency, []driver.PayloadResult{{Nanos: []int64{3000}, Counts: meta.Payload{Bytes: 16}}}); err != nil {
			t.Fatal(err)
		}
		got, _ := readRaw(t, dir, sub.Type)
		if len(got[16]) != 1 || got[16][0] != want {
			t.Errorf("%s: %v, want %v µs", latency, got[16], want)
		}
	}
}

var _ driver.Pinger = (*scripted)(nil)
