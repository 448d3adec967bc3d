package driver

import (
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// Plan is what a run measures of every round-trip sub-experiment, as a
// self-measuring link needs it.
type Plan struct {
	Payloads     []int
	Samples      int // kept per payload (minus the lost)
	Warmup       int // discarded per payload
	Timeout      time.Duration
	MaxLostInRow int
	Latency      string // meta.LatencyHalfRTT or meta.LatencyRTT
}

// PayloadResult is what one payload size of one sub-experiment measured.
type PayloadResult struct {
	// Nanos holds the kept samples in nanoseconds, in the order measured:
	// round trips in the round-trip workload.
	Nanos []int64
	// Micros, when not nil, holds the same samples as the Latency column
	// (µs, in the run's latency definition), which the raw file then
	// holds exactly: a workload that reads samples a program wrote keeps
	// their precision, finer than Nanos' nanosecond. Nanos holds them
	// rounded, for progress and counts.
	Micros []float64
	Counts meta.Payload
}

// Measurer measures the payload sizes of one sub-experiment, one after the
// other.
type Measurer interface {
	// Measure measures one payload size into res, whose Nanos has
	// capacity Samples, and fills res.Counts. It returns how many
	// messages (warm-up included) it completed, and on error why it
	// stopped; res then holds what was measured before.
	Measure(payload int, res *PayloadResult) (attempt int, err error)
}

// TickFunc reports progress within a payload: done of total messages,
// with the samples kept so far (nanoseconds).
type TickFunc func(payload, done, total int, kept []int64)

// SelfMeasuring is implemented by pingers of links that time their own
// messages, such as an external program whose samples are read from what
// it wrote: the engine measures such a sub-experiment with the workload
// the pinger returns instead of its ping loop.
type SelfMeasuring interface {
	Pinger
	// Workload returns the workload of this sub-experiment; dir is the
	// experiment directory, where it may keep files of its own.
	Workload(dir string) SelfWorkload
}

// SelfWorkload is the workload of a self-measuring link. Its Latency must
// be the run's; its Measurer may fill PayloadResult.Micros and may
// complete system with what it learnt (an exit status).
type SelfWorkload interface {
	// Mode is meta.json's "mode".
	Mode() string
	// Latency is what a sample is (formats §2) when the run's is run.
	Latency(run string) string
	// Check refuses a plan the workload cannot measure.
	Check(p Plan) error
	// Start prepares the measurement of one sub-experiment. stop is set
	// from another goroutine to end a Measure in progress; tick, when
	// non-nil, reports progress now and then; system, when non-nil, is
	// what meta.json records of the link.
	Start(p Plan, system *meta.SystemInfo, stop *atomic.Bool, tick TickFunc) Measurer
}
