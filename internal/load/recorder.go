package load

import (
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mqgate/mqgate/internal/loadsummary"
)

// Histogram range: values in nanoseconds up to 10 s with 3 significant
// digits everywhere from 1 µs up (and below: the lowest discernible value is
// 1 ns, as in the Zenoh helper's summaries, formats §9; a histogram whose
// lowest discernible value were 1 µs in ns units would resolve only 512 ns
// below 1 ms). Values over 10 s are recorded as 10 s and counted
// (Stats.AboveRange).
const (
	LowestNs  = 1
	HighestNs = 10_000_000_000
	SigFigs   = 3
)

// NewHistogram returns an empty histogram with the recorder's range.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(LowestNs, HighestNs, SigFigs) }

// Recorder accumulates latencies (ns) from any number of goroutines into an
// HDR histogram. Each receiving goroutine records through a Shard of its
// own, so that recording never contends; Snapshot and Interval merge the
// shards. The zero value is not usable: call NewRecorder.
type Recorder struct {
	mu     sync.Mutex
	shards []*Shard
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{} }

// Shard is one goroutine's part of a Recorder. Record is safe to call
// concurrently with the recorder's Snapshot and Interval, and (through its
// mutex, uncontended in the normal case) with other Records.
type Shard struct {
	mu       sync.Mutex
	total    *hdrhistogram.Histogram // the whole measured period
	interval *hdrhistogram.Histogram // since the last Interval
	above    uint64
}

// Shard returns a new shard of r.
func (r *Recorder) Shard() *Shard {
	s := &Shard{total: NewHistogram(), interval: NewHistogram()}
	r.mu.Lock()
	r.shards = append(r.shards, s)
	r.mu.Unlock()
	return s
}

// Record adds one latency in nanoseconds. A negative value is the caller's
// to clamp (Clamp); a value over HighestNs is recorded as HighestNs.
func (s *Shard) Record(ns int64) {
	s.mu.Lock()
	if ns > HighestNs {
		ns = HighestNs
		s.above++
	}
	// RecordValue fails only out of range, which was just excluded. The
	// interval histogram is added to the total when it is taken
	// (Interval), so that a value is recorded once.
	_ = s.interval.RecordValue(ns)
	s.mu.Unlock()
}

// Clamp returns ns, or 0 and true when ns is negative: a one-way latency
// below zero says the clocks disagree, and is recorded as 0 and counted.
func Clamp(ns int64) (int64, bool) {
	if ns < 0 {
		return 0, true
	}
	return ns, false
}

// Snapshot returns the merge of every shard's whole-period histogram and
// how many values were above the range.
func (r *Recorder) Snapshot() (*hdrhistogram.Histogram, uint64) {
	h := NewHistogram()
	var above uint64
	r.each(func(s *Shard) {
		h.Merge(s.total)
		h.Merge(s.interval)
		above += s.above
	})
	return h, above
}

// Interval returns the merge of what every shard recorded since the
// previous Interval call, and resets those interval histograms: the
// per-second histograms of the snapshot CSV and the histogram log.
func (r *Recorder) Interval() *hdrhistogram.Histogram {
	h := NewHistogram()
	r.each(func(s *Shard) {
		h.Merge(s.interval)
		s.total.Merge(s.interval)
		s.interval.Reset()
	})
	return h
}

// Reset empties every shard (the warm-up is over).
func (r *Recorder) Reset() {
	r.each(func(s *Shard) {
		s.total.Reset()
		s.interval.Reset()
		s.above = 0
	})
}

func (r *Recorder) each(f func(*Shard)) {
	r.mu.Lock()
	shards := append([]*Shard(nil), r.shards...)
	r.mu.Unlock()
	for _, s := range shards {
		s.mu.Lock()
		f(s)
		s.mu.Unlock()
	}
}

// Stats summarise a latency histogram, in nanoseconds, as the summary
// JSON holds them.
type Stats = loadsummary.Stats

// micros is ns in µs.
func micros(ns int64) float64 { return float64(ns) / 1000 }

// StatsOf summarises h; above is the count of values over the range.
// An empty histogram gives zero statistics.
func StatsOf(h *hdrhistogram.Histogram, above uint64) Stats {
	st := Stats{Count: h.TotalCount(), AboveRange: above}
	if st.Count == 0 {
		return st
	}
	st.MinNs, st.MaxNs, st.MeanNs = h.Min(), h.Max(), h.Mean()
	v := h.ValueAtPercentilesSlice([]float64{50, 95, 99, 99.9})
	st.P50Ns, st.P95Ns, st.P99Ns, st.P999Ns = v[0], v[1], v[2], v[3]
	return st
}
