package load

import (
	"context"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	natsgo "github.com/nats-io/nats.go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/testenv"
)

// BenchmarkLoadBroker runs one unpaced publisher and one subscriber of
// 16-byte messages through the brokers installed on this host for a
// measured period of b.N × 100 ms, and reports the subscriber's rate
// (receive_rate): the load path that bench/load-vs-reference.sh compares
// with the reference clients. cpu-ns/msg is the process's CPU time (user
// and system, every goroutine: publisher, subscriber, the client library's
// reader and the recording) over the messages sent, which a busy machine
// changes far less than the rates; BenchmarkNATSBench is nats-bench's
// figure. Run it with -cpuprofile to see where a message's time goes.
func BenchmarkLoadBroker(b *testing.B) {
	for _, c := range []struct {
		name string
		tr   driver.StreamTransport
		url  string
		p    map[string]string
	}{
		{"nats", nats.Transport{}, testenv.Getenv("MQGATE_NATS_URL", "nats://127.0.0.1:4222"), nil},
		{"mqtt-qos0", mqtt.Transport{}, testenv.Getenv("MQGATE_MQTT_URL", "mqtt://127.0.0.1:1883"), map[string]string{"mqtt-qos": "0"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			url := testenv.Service(b, c.name, c.url, "start the broker")
			tp, _ := NewTopology(FanIn, 1, 0, 0)
			topic := drivertest.TestTopic(b)
			// No warm-up, so that the CPU time is the measured messages'
			// (connecting and the drain aside, a few ms).
			cfg := Config{Topology: tp, Payloads: []int{16}, Duration: time.Duration(b.N) * 100 * time.Millisecond,
				Drain: 10 * time.Second}
			links := Links{Transport: c.tr, URL: url, Publish: driver.Options{Topic: topic, Params: c.p}, Subscribe: driver.Options{Topic: topic, Params: c.p}}
			b.ResetTimer()
			cpu := cpuTime(b)
			res, err := Measure(context.Background(), "bench", links, cfg)
			cpu = cpuTime(b) - cpu
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res[0].ReceiveRate(), "recv-msg/s")
			b.ReportMetric(res[0].SendRate(), "sent-msg/s")
			b.ReportMetric(res[0].DeliveryRatio(), "delivered")
			b.ReportMetric(float64(cpu)/float64(res[0].Counters.MessagesSent), "cpu-ns/msg")
		})
	}
}

// BenchmarkNATSBench is what nats-bench (the nats.go example that
// bench/load-vs-reference.sh runs, -np 1 -ns 1 -ms 16) does with b.N ×
// 100,000 messages, in this process: a connection publishing a fixed
// 16-byte message in a loop, and one whose handler counts the deliveries,
// without limits on what may wait. Its cpu-ns/msg is the floor that the
// client library sets for BenchmarkLoadBroker/nats; the difference is
// what mqgate does per message (clock readings, header, sequence
// tracking, counters, histogram, raw samples). To compare two builds,
// compare that ratio, each build's two benchmarks run in one process:
// where the linker places nats.go's code moves both by up to a tenth
// (docs/methods.md, the peers).
func BenchmarkNATSBench(b *testing.B) {
	url := testenv.Service(b, "nats", testenv.Getenv("MQGATE_NATS_URL", "nats://127.0.0.1:4222"), "start it with: nats-server -js")
	n := b.N * 100_000
	subject := drivertest.TestTopic(b)
	pub, err := natsgo.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer pub.Close()
	sc, err := natsgo.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	var received atomic.Int64
	done := make(chan time.Time, 1)
	first := make(chan time.Time, 1)
	sub, err := sc.Subscribe(subject, func(*natsgo.Msg) {
		switch received.Add(1) {
		case 1:
			first <- time.Now()
		case int64(n):
			done <- time.Now()
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	sub.SetPendingLimits(-1, -1)
	sc.Flush()
	msg := make([]byte, 16)
	b.ResetTimer()
	cpu := cpuTime(b)
	start := time.Now()
	for range n {
		pub.Publish(subject, msg)
	}
	pub.Flush()
	sent := time.Since(start)
	var t0, t1 time.Time
	select {
	case t0 = <-first:
		t1 = <-done
	case <-time.After(30 * time.Second):
		b.Fatalf("%d of %d messages received", received.Load(), n)
	}
	cpu = cpuTime(b) - cpu
	b.ReportMetric(float64(n)/t1.Sub(t0).Seconds(), "recv-msg/s")
	b.ReportMetric(float64(n)/sent.Seconds(), "sent-msg/s")
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/msg")
}

// BenchmarkMQTTPlain is what a plain client of the library that
// mqtt_best_effort uses at MQTT 3.1.1 (paho.mqtt.golang, its default
// options: its own dialer, no write timeout) does with b.N × 30,000
// messages, in this process: one client publishing a fixed 16-byte
// message at QoS 0 in a loop, and one whose handler counts the deliveries.
// Its cpu-ns/msg is the floor that the library sets for
// BenchmarkLoadBroker/mqtt-qos0, which also reads through a buffer (the
// library reads a packet's header byte by byte) and bounds each write;
// mosquitto_pub and mosquitto_sub, the peers of
// bench/load-vs-reference.sh, are C programs on libmosquitto.
func BenchmarkMQTTPlain(b *testing.B) {
	url := testenv.Service(b, "mqtt-qos0", testenv.Getenv("MQGATE_MQTT_URL", "mqtt://127.0.0.1:1883"), "start the broker")
	broker := "tcp://" + strings.TrimPrefix(url, "mqtt://")
	n := b.N * 30_000
	topic := drivertest.TestTopic(b)
	connect := func(id string) paho.Client {
		c := paho.NewClient(paho.NewClientOptions().AddBroker(broker).SetClientID(id).SetAutoReconnect(false))
		if tok := c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
			b.Fatalf("connecting to %s: %v", broker, tok.Error())
		}
		return c
	}
	pub := connect(topic + "-pub")
	defer pub.Disconnect(0)
	sc := connect(topic + "-sub")
	defer sc.Disconnect(0)
	var received atomic.Int64
	var last atomic.Int64 // arrival of the latest delivery, Unix ns
	first := make(chan time.Time, 1)
	tok := sc.Subscribe(topic, 0, func(paho.Client, paho.Message) {
		now := time.Now()
		if received.Add(1) == 1 {
			first <- now
		}
		last.Store(now.UnixNano())
	})
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		b.Fatalf("subscribing: %v", tok.Error())
	}
	msg := make([]byte, 16)
	b.ResetTimer()
	cpu := cpuTime(b)
	start := time.Now()
	for range n {
		pub.Publish(topic, 0, false, msg)
	}
	sent := time.Since(start)
	// QoS 0: what the broker dropped never comes, so the wait ends when
	// all came or when a second passes without one.
	for seen := int64(-1); received.Load() < int64(n) && received.Load() != seen; {
		seen = received.Load()
		time.Sleep(time.Second)
	}
	cpu = cpuTime(b) - cpu
	got := received.Load()
	if got == 0 {
		b.Fatalf("none of %d messages received", n)
	}
	t0 := <-first
	b.ReportMetric(float64(got)/time.Unix(0, last.Load()).Sub(t0).Seconds(), "recv-msg/s")
	b.ReportMetric(float64(n)/sent.Seconds(), "sent-msg/s")
	b.ReportMetric(float64(got)/float64(n), "delivered")
	b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/msg")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
