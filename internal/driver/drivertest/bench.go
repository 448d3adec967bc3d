package drivertest

import (
	"sort"
	"testing"
	"time"
)

// BenchmarkRoundTrip measures round trips of size-byte messages between a
// pinger in the benchmark and an echoer in a child process (see
// StartEchoProcess). Besides ns/op (the mean round trip) it reports the
// median and 99th percentile round trips as p50-ns and p99-ns.
func BenchmarkRoundTrip(b *testing.B, c Config, size int) {
	ep := StartEchoProcess(b, c)
	p := Dial(b, c, ep.Addr)
	msg := make([]byte, size)
	buf := make([]byte, size)
	for range 200 { // warm-up: handshakes, caches, lazily grown buffers
		if _, err := RoundTrip(p, msg, buf); err != nil {
			b.Fatal(err)
		}
	}
	rtts := make([]time.Duration, 0, 1<<16)
	b.SetBytes(int64(2 * size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if err := p.Send(msg); err != nil {
			b.Fatal(err)
		}
		if _, _, err := p.Receive(buf, t0.Add(ReceiveDeadline)); err != nil {
			b.Fatal(err)
		}
		if len(rtts) < cap(rtts) {
			rtts = append(rtts, time.Since(t0))
		}
	}
	b.StopTimer()
	sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
	if n := len(rtts); n > 0 {
		b.ReportMetric(float64(rtts[n/2]), "p50-ns")
		b.ReportMetric(float64(rtts[(n*99)/100]), "p99-ns")
		b.ReportMetric(float64(rtts[n-1]), "max-ns")
	}
}
