package amqp

import (
	"fmt"
	"testing"

	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// BenchmarkRoundTrip measures round trips through RabbitMQ, the echoer in a
// child process (p50-ns and p99-ns are the median and 99th percentile).
// bench/amqp-overhead.sh compares run's with a minimal amqp091 ping-pong.
func BenchmarkRoundTrip(b *testing.B) {
	url := brokerURL(b)
	for _, reliable := range []bool{false, true} {
		for _, size := range []int{16, 16384} {
			b.Run(fmt.Sprintf("reliable=%v/%dB", reliable, size), func(b *testing.B) {
				drivertest.BenchmarkRoundTrip(b, conformance(url, opts(reliable)), size)
			})
		}
	}
}
