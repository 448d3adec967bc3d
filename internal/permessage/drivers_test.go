package permessage

import (
	"context"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/driver/udp"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/testenv"
	"github.com/mqgate/mqgate/internal/throughput"
)

// TestEveryDriver measures a bounded in-flight window (F = 1 and 16) and
// the per-message method over every one-way transport of issue 12 but the
// in-process one (TestMeasureIntraprocess, TestPerMessageIntraprocess):
// sockets with and without security, and each broker acknowledged and
// not. Datagram links may lose messages on a loaded machine, so there the
// counts must add up rather than all arrive.
func TestEveryDriver(t *testing.T) {
	embedded := func(t *testing.T, e driver.Embedder) string {
		url, stop, err := e.StartEmbedded(context.Background(), driver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stop() })
		return url
	}
	broker := func(tr driver.StreamTransport, url func(t *testing.T) string, reliable bool, params map[string]string) func(t *testing.T) load.Links {
		return func(t *testing.T) load.Links {
			topic := drivertest.TestTopic(t)
			return load.Links{Transport: tr, URL: url(t),
				Publish:   driver.Options{Reliable: reliable, Topic: topic, Params: params},
				Subscribe: driver.Options{Reliable: reliable, Topic: topic, Params: params}}
		}
	}
	secured := func(tr driver.StreamTransport) func(t *testing.T) load.Links {
		return func(t *testing.T) load.Links {
			sub, pub, err := secure.GenerateFiles(t.TempDir(), "127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			return load.Links{Transport: tr, Publish: driver.Options{Security: &pub}, Subscribe: driver.Options{Security: &sub, QueueDepth: 4096}}
		}
	}
	sockets := func(tr driver.StreamTransport) func(t *testing.T) load.Links {
		return func(*testing.T) load.Links {
			return load.Links{Transport: tr, Subscribe: driver.Options{QueueDepth: 4096}}
		}
	}
	natsURL := func(t *testing.T) string { return embedded(t, nats.Transport{}) }
	mqttURL := func(t *testing.T) string { return embedded(t, mqtt.Transport{}) }
	rabbit := func(t *testing.T) string {
		return testenv.Service(t, "rabbitmq", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	}
	for _, d := range []struct {
		name  string
		links func(t *testing.T) load.Links
		lossy bool
	}{
		{"tcp", sockets(tcp.Transport{}), false},
		{"tls", secured(secure.TLS{}), false},
		{"udp", sockets(udp.Transport{}), true},
		{"dtls", secured(secure.DTLS{}), true},
		{"nats-core", broker(nats.Transport{}, natsURL, false, nil), false},
		{"nats-jetstream", broker(nats.Transport{}, natsURL, true, nil), false},
		// QoS 0 is at most once: the client's inbox drops what a slow
		// Receive leaves behind, as it did on a loaded machine.
		{"mqtt-qos0", broker(mqtt.Transport{}, mqttURL, false, map[string]string{"mqtt-qos": "0"}), true},
		{"mqtt-qos1", broker(mqtt.Transport{}, mqttURL, true, map[string]string{"mqtt-qos": "1"}), false},
		{"rabbitmq-confirms", broker(amqp.Transport{}, rabbit, true, nil), false},
	} {
		t.Run(d.name, func(t *testing.T) {
			links := d.links(t)
			tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
			const size = 64
			for _, f := range []int{1, 16} {
				ends, err := links.Open(context.Background(), tp, size)
				if err != nil {
					t.Fatal(err)
				}
				p, err := throughput.Measure(context.Background(), ends, size, f, throughput.Config{MinWindow: time.Millisecond, Windows: 10}.WithDefaults())
				ends.Close()
				if err != nil {
					t.Fatalf("F %d: %v", f, err)
				}
				if len(p.Samples) != 10 || p.Median <= 0 || (!d.lossy && p.Lost != 0) {
					t.Fatalf("F %d: %d samples, median %g msg/s, %d lost", f, len(p.Samples), p.Median, p.Lost)
				}
			}
			ends, err := links.Open(context.Background(), tp, size)
			if err != nil {
				t.Fatal(err)
			}
			defer ends.Close()
			timeout := 10 * time.Second
			if d.lossy {
				timeout = time.Second // a lost message is waited for this long
			}
			cfg := Config{Count: 2000, Window: 50, CPUEvery: 500, Timeout: timeout}.WithDefaults()
			pm, err := Measure(context.Background(), ends, size, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(pm.O) != 2000 || (!d.lossy && pm.Lost != 0) || pm.Lost >= 2000 {
				t.Fatalf("%d messages, %d lost", len(pm.O), pm.Lost)
			}
			// O_n is read before the message is handed to Send: it
			// arrives after O_n (Measure fails the run
			// otherwise).
			for n := range pm.O {
				if pm.I[n] != Never && pm.I[n] < pm.O[n] {
					t.Fatalf("message %d arrived (%d) before it was sent (%d)", n, pm.I[n], pm.O[n])
				}
			}
		})
	}
}
