package load

import (
	"context"
	"testing"
	"time"

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
// with the reference clients. Run it with -cpuprofile to see where a
// message's time goes.
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
			cfg := Config{Topology: tp, Payloads: []int{16}, Duration: time.Duration(b.N) * 100 * time.Millisecond,
				Warmup: 500 * time.Millisecond, Drain: 10 * time.Second, MaxRaw: -1}
			links := Links{Transport: c.tr, URL: url, Publish: driver.Options{Topic: topic, Params: c.p}, Subscribe: driver.Options{Topic: topic, Params: c.p}}
			b.ResetTimer()
			res, err := Measure(context.Background(), "bench", links, cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res[0].ReceiveRate(), "recv-msg/s")
			b.ReportMetric(res[0].SendRate(), "sent-msg/s")
			b.ReportMetric(res[0].DeliveryRatio(), "delivered")
		})
	}
}
