package load

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// BenchmarkRecord is the recording cost of one delivered message: header
// parse, sequence tracking, counters, HDR histogram, raw sample (formats
// §9), every one kept as a run keeps them; the figure scripts/bench.sh
// reports as the overhead per message.
func BenchmarkRecord(b *testing.B) {
	b.ReportAllocs()
	tp, _ := NewTopology(FanIn, 1, 0, 0)
	cfg := Config{Topology: tp, Payloads: []int{16}, MaxRaw: b.N + 1, RunID: 7}.WithDefaults()
	r := &run{cfg: cfg, payload: 16, tp: tp, clock: cfg.Clock, rec: NewRecorder(), delays: NewRecorder()}
	r.rawLeft.Store(int64(b.N + 1))
	rv := r.newReceiver(SubLink{}, 1)
	msg := make([]byte, 16)
	h := Header{RunID: 7}
	now := r.clock.Now()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := range b.N {
		h.Seq, h.SendNs = uint64(i), uint64(now)
		h.Put(msg)
		r.deliver(rv, msg, now+int64(i%5000)*1000)
	}
	reportCPU(b, cpu)
}

// reportCPU reports the process's CPU time since cpu per operation
// (cpu-ns/op): unlike ns/op, it leaves out the time the benchmark waited
// for a core on a busy machine.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkClockNow is one reading of the clock a message takes twice:
// the publisher's send time (Clock.Now) and the subscriber's arrival time
// (driver.Mono, which a Consumer's library handler reads as a message is
// handed over, converted by Clock.Mono; arrival-receive is driver.Now,
// what a Receiver returns, converted by Clock.Ns). On a virtual machine a
// reading can cost most of BenchmarkPublish (docs/methods.md, the peers);
// the reference clients of bench/load-vs-reference.sh read none.
func BenchmarkClockNow(b *testing.B) {
	c := NewClock()
	var sum int64
	b.Run("send", func(b *testing.B) {
		cpu := cpuTime(b)
		for range b.N {
			sum += c.Now()
		}
		reportCPU(b, cpu)
	})
	b.Run("arrival", func(b *testing.B) {
		cpu := cpuTime(b)
		for range b.N {
			sum += c.Mono(driver.Mono())
		}
		reportCPU(b, cpu)
	})
	b.Run("arrival-receive", func(b *testing.B) {
		cpu := cpuTime(b)
		for range b.N {
			sum += c.Ns(driver.Now())
		}
		reportCPU(b, cpu)
	})
	if sum == 0 {
		b.Log("no reading") // keeps the readings from being optimised away
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

// BenchmarkPublish is the publisher's own cost of one unpaced message
// (clock read, header, counters) over a link that takes it at once.
func BenchmarkPublish(b *testing.B) {
	tp, _ := NewTopology(FanIn, 1, 0, 0)
	cfg := Config{Topology: tp, Payloads: []int{16}, RunID: 7}.WithDefaults()
	r := &run{cfg: cfg, payload: 16, tp: tp, clock: cfg.Clock, rec: NewRecorder(), delays: NewRecorder()}
	r.t0 = time.Now()
	r.t1 = r.t0.Add(time.Hour)
	link := &haltingLink{left: b.N, halt: &r.halt}
	s := &sender{end: PubEnd{Senders: []driver.Publisher{link}}, delayShard: r.delays.Shard()}
	b.ResetTimer()
	cpu := cpuTime(b)
	r.publish(s, 16, r.t0)
	b.StopTimer()
	reportCPU(b, cpu)
	if s.sent != uint64(b.N) || r.c.MessagesSent.Load() != s.sent {
		b.Fatalf("sent %d, counted %d, want %d", s.sent, r.c.MessagesSent.Load(), b.N)
	}
}

// haltingLink takes messages and halts the run after left of them.
type haltingLink struct {
	left int
	halt *atomic.Bool
}

func (l *haltingLink) Send([]byte) error {
	if l.left--; l.left == 0 {
		l.halt.Store(true)
	}
	return nil
}

func (l *haltingLink) Close() error { return nil }
