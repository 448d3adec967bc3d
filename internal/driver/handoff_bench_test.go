package driver

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkHandoffConsume is the handoff's cost of one message a client
// library's handler passes to a consumer (Consume, as run load consumes
// NATS and MQTT): the arrival time's clock reading and the hand-over,
// the consumer doing nothing. cpu-ns/op is the process's CPU time per
// message, which a busy machine changes far less than ns/op.
func BenchmarkHandoffConsume(b *testing.B) {
	h, _ := newTestHandoff(1024, false)
	var sum int64
	done := make(chan error, 1)
	go func() {
		t0 := time.Now().UnixNano()
		done <- h.Consume(func(msg []byte, at int64) { sum += int64(len(msg)) + t0 + at })
	}()
	for !h.on.Load() {
		time.Sleep(time.Millisecond)
	}
	msg := make([]byte, 16)
	b.ResetTimer()
	cpu := cpuTime(b)
	for range b.N {
		h.Deliver(msg)
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
	b.StopTimer()
	h.Close()
	if err := <-done; err != nil || sum == 0 {
		b.Fatal(err, sum)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
