package nats

import (
	"testing"

	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// BenchmarkRoundTrip measures round trips through the installed server at
// MQGATE_NATS_URL, the echo in a child process (as run places it by
// default), for best effort (core NATS) and reliable (JetStream).
func BenchmarkRoundTrip(b *testing.B) {
	url := installedURL(b)
	for _, sc := range scenarios[:2] {
		for _, size := range []int{16, 16384} {
			name := sc.name + map[int]string{16: "/16B", 16384: "/16KB"}[size]
			b.Run(name, func(b *testing.B) {
				drivertest.BenchmarkRoundTrip(b, config(b, url, sc, nil, nil, -1), size)
			})
		}
	}
}
