package engine

import (
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
)

// Workload is what a sub-experiment does over its link and what it
// measures. RoundTrip (one message in flight, the echo timed on return) is
// the one there is; one-way latency under load and throughput modes are
// workloads too, each with its own driver.Measurer.
type Workload interface {
	// Mode is meta.json's "mode": how messages flow and are paced.
	Mode(p Pacer) string
	// Latency is meta.json's "latency": what a sample is (formats §2).
	Latency(c Config) string
	// Check refuses a configuration the workload cannot measure with.
	Check(c Config) error
	// Start prepares the measurement of one sub-experiment over link:
	// everything its payloads need is allocated here, before the first
	// message. stop is set from another goroutine to end a Measure in
	// progress; tick, when non-nil, reports progress now and then.
	Start(link *Link, c Config, stop *atomic.Bool, tick driver.TickFunc) driver.Measurer
}

// Pacer decides when each message of a payload is sent, like vegeta's
// pacer: ClosedLoop (the next message when the previous one is answered)
// is the one there is; an open-loop pacer (a constant rate per publisher)
// makes a workload measure from each message's intended send time, so that
// a stall delays the measured messages instead of hiding them.
type Pacer interface {
	// Pace returns how long to wait before sending message n (from 0,
	// within a payload) when elapsed has passed since the payload's first
	// message was due; 0 sends at once.
	Pace(elapsed time.Duration, n uint64) time.Duration
	// Name describes the pacing in meta.json's mode, e.g. "closed-loop".
	Name() string
}

// ClosedLoop sends each message as soon as the previous one is done.
type ClosedLoop struct{}

// Pace returns 0: never wait.
func (ClosedLoop) Pace(time.Duration, uint64) time.Duration { return 0 }

// Name returns "closed-loop".
func (ClosedLoop) Name() string { return "closed-loop" }

// RoundTrip is the round-trip workload: the pinger sends a message, waits
// for its echo and records the round trip, one message in flight (see the
// package documentation).
type RoundTrip struct{}

// Mode returns "round-trip " followed by the pacer's name.
func (RoundTrip) Mode(p Pacer) string { return "round-trip " + p.Name() }

// Latency returns c.Latency: half the round trip or the whole.
func (RoundTrip) Latency(c Config) string { return c.Latency }

// Check accepts half-rtt and rtt latencies and closed-loop pacing only.
func (RoundTrip) Check(c Config) error {
	if c.Latency != meta.LatencyHalfRTT && c.Latency != meta.LatencyRTT {
		return fmt.Errorf("latency %q: expected %q or %q (one-way needs a throughput mode)", c.Latency, meta.LatencyHalfRTT, meta.LatencyRTT)
	}
	if _, ok := c.Pacer.(ClosedLoop); !ok {
		return fmt.Errorf("pacing %q: a round trip keeps one message in flight, so it is closed-loop", c.Pacer.Name())
	}
	return nil
}

// Start returns the ping loop over link's pinger.
func (RoundTrip) Start(link *Link, c Config, stop *atomic.Bool, tick driver.TickFunc) driver.Measurer {
	l := newPingLoop(c, link.Pinger, stop)
	l.tick = tick
	return l
}

// selfWorkload is a self-measuring link's workload (driver.SelfMeasuring)
// as the engine's.
type selfWorkload struct{ w driver.SelfWorkload }

func (s selfWorkload) Mode(Pacer) string       { return s.w.Mode() }
func (s selfWorkload) Latency(c Config) string { return s.w.Latency(c.Latency) }
func (s selfWorkload) Check(c Config) error    { return s.w.Check(c.plan()) }
func (s selfWorkload) Start(link *Link, c Config, stop *atomic.Bool, tick driver.TickFunc) driver.Measurer {
	return s.w.Start(c.plan(), link.System, stop, tick)
}

// Sink writes what a sub-experiment measured, once it is measured
// (accumulate, then render): RawCSV now; a throughput mode's histograms
// are another sink.
type Sink interface {
	// Write records sub's payloads in the experiment directory dir;
	// latency is the workload's definition of a sample.
	Write(dir string, sub Sub, latency string, payloads []driver.PayloadResult) error
}

// RawCSV writes measurements_<type>.csv (formats §2), atomically.
type RawCSV struct{}

// Write writes the kept samples in microseconds: half the round trip for
// meta.LatencyHalfRTT, the nanoseconds as they are otherwise, or Micros
// as they are when a payload has them.
func (RawCSV) Write(dir string, sub Sub, latency string, payloads []driver.PayloadResult) error {
	div := 1000.0
	if latency == meta.LatencyHalfRTT {
		div = 2000 // ns round trip → µs half round trip
	}
	return atomicfile.Write(filepath.Join(dir, experiment.RawFileName(sub.Type)), func(w io.Writer) error {
		mw := measurements.NewWriter(w)
		for _, p := range payloads {
			for i := range sampleCount(p) {
				if err := mw.Write(measurements.Sample{Sample: i + 1, Payload: p.Counts.Bytes, Latency: microAt(p, div, i)}); err != nil {
					return err
				}
			}
		}
		return mw.Flush()
	})
}

// micros is a copy of p's samples in µs (microAt).
func micros(p driver.PayloadResult, div float64) []float64 {
	x := make([]float64, sampleCount(p))
	for i := range x {
		x[i] = microAt(p, div, i)
	}
	return x
}

// sampleCount is how many samples p holds: its Micros when it has them.
func sampleCount(p driver.PayloadResult) int {
	if p.Micros != nil {
		return len(p.Micros)
	}
	return len(p.Nanos)
}

// microAt is p's sample i in µs: from Micros when p has them (a program's
// own samples are exact; Nanos rounds them), else Nanos[i] / div. The raw
// file is written sample by sample through it, with no copy of a payload.
func microAt(p driver.PayloadResult, div float64, i int) float64 {
	if p.Micros != nil {
		return p.Micros[i]
	}
	return float64(p.Nanos[i]) / div
}
