package load

import (
	"math/bits"
	"sync"
	"sync/atomic"

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
// concurrently with the recorder's Snapshot and Interval, and with other
// Records: it adds one to a count of the interval histogram atomically,
// where a histogram under a mutex would cost each message two atomic
// operations and the histogram's own bookkeeping (BenchmarkShardRecord).
type Shard struct {
	mu    sync.Mutex              // the readers': total, and taking the interval
	total *hdrhistogram.Histogram // the whole measured period until the last Interval
	// interval is what was recorded since the last Interval, as the
	// counts of a histogram of the recorder's range (countsIndex).
	interval []atomic.Int64
	above    atomic.Uint64
}

// Shard returns a new shard of r.
func (r *Recorder) Shard() *Shard {
	s := &Shard{total: NewHistogram(), interval: make([]atomic.Int64, countsLen)}
	r.mu.Lock()
	r.shards = append(r.shards, s)
	r.mu.Unlock()
	return s
}

// Record adds one latency in nanoseconds. A negative value is the caller's
// to clamp (Clamp; it is recorded as 0); a value over HighestNs is recorded
// as HighestNs and counted. The interval's counts are added to the total
// when they are taken (Interval), so that a value is recorded once.
func (s *Shard) Record(ns int64) {
	if ns > HighestNs {
		ns = HighestNs
		s.above.Add(1)
	}
	s.interval[countsIndex(max(ns, 0))].Add(1)
}

// The layout of the counts of a histogram of the recorder's range, as
// hdrhistogram-go sets it out for LowestNs 1 and SigFigs 3 (TestCountsIndex
// holds the two together): values below 2,048 each have a count of their
// own; above, each power of two holds 1,024 counts.
const (
	subBucketHalfCountMag = 10 // log2 of half the values 3 significant figures resolve one by one (2,000 → 2,048)
	subBucketMask         = 1<<(subBucketHalfCountMag+1) - 1
)

// countsLen is the number of counts of a histogram of the recorder's range.
var countsLen = len(NewHistogram().Export().Counts)

// countsIndex is the index of the count of a histogram of the recorder's
// range that ns, 0 ≤ ns ≤ HighestNs, is recorded in.
func countsIndex(ns int64) int {
	bucket := 64 - bits.LeadingZeros64(uint64(ns)|subBucketMask) - (subBucketHalfCountMag + 1)
	return (bucket+1)<<subBucketHalfCountMag + int(ns>>bucket) - 1<<subBucketHalfCountMag
}

// intervalHistogram is the histogram of s's interval, emptied when take.
// A value recorded meanwhile is in it or in the next one, never in both.
func (s *Shard) intervalHistogram(take bool) *hdrhistogram.Histogram {
	counts := make([]int64, countsLen)
	for i := range s.interval {
		c := &s.interval[i]
		if n := c.Load(); n != 0 {
			if take {
				n = c.Swap(0)
			}
			counts[i] = n
		}
	}
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: LowestNs, HighestTrackableValue: HighestNs,
		SignificantFigures: SigFigs, Counts: counts})
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
		h.Merge(s.intervalHistogram(false))
		above += s.above.Load()
	})
	return h, above
}

// Interval returns the merge of what every shard recorded since the
// previous Interval call, and resets those interval histograms: the
// per-second histograms of the snapshot CSV and the histogram log.
func (r *Recorder) Interval() *hdrhistogram.Histogram {
	h := NewHistogram()
	r.each(func(s *Shard) {
		ih := s.intervalHistogram(true)
		h.Merge(ih)
		s.total.Merge(ih)
	})
	return h
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
