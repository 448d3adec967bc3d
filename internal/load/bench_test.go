package load

import (
	"testing"
	"time"
)

// BenchmarkRecord is the recording cost of one delivered message: header
// parse, sequence tracking, counters, HDR histogram, raw sample (formats
// §9); the figure scripts/bench.sh reports as the overhead per message.
func BenchmarkRecord(b *testing.B) {
	b.ReportAllocs()
	tp, _ := NewTopology(FanIn, 1, 0, 0)
	cfg := Config{Topology: tp, Payloads: []int{16}, MaxRaw: b.N + 1, RunID: 7}.WithDefaults()
	r := &run{cfg: cfg, payload: 16, tp: tp, clock: cfg.Clock, rec: NewRecorder(), delays: NewRecorder()}
	r.rawLeft.Store(int64(b.N + 1))
	rv := &receiver{shard: r.rec.Shard(), trackers: map[uint16]*Tracker{}, raw: make([]RawSample, 0, b.N)}
	msg := make([]byte, 16)
	h := Header{RunID: 7}
	now := time.Now()
	b.ResetTimer()
	for i := range b.N {
		h.Seq, h.SendNs = uint64(i), uint64(r.clock.Ns(now))
		h.Put(msg)
		r.deliver(rv, msg, now.Add(time.Duration(i%5000)*time.Microsecond))
	}
}

// BenchmarkShardRecord is the HDR recording alone.
func BenchmarkShardRecord(b *testing.B) {
	b.ReportAllocs()
	s := NewRecorder().Shard()
	for i := range b.N {
		s.Record(int64(1000 + i%1_000_000))
	}
}
