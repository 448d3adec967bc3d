package load

import (
	"context"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/driver/udp"
	"github.com/mqgate/mqgate/internal/testenv"
)

// matrixDriver is one transport of TestScenariosPerDriver.
type matrixDriver struct {
	name string
	// links returns the links of a test; it may skip (testenv).
	links func(t *testing.T) Links
	// lossy links (datagrams) may lose messages on a loaded machine: the
	// counts must add up, not all arrive.
	lossy bool
}

// matrixDrivers are the one-way transports of issue 12 but the in-process
// one (TestMeasureIntraprocessScenarios): sockets with and without
// security, each broker with an acknowledged and an unacknowledged mode,
// and the embedded brokers over TLS.
func matrixDrivers() []matrixDriver {
	broker := func(tr driver.StreamTransport, start func(t *testing.T) string, reliable bool, params map[string]string) func(t *testing.T) Links {
		return func(t *testing.T) Links {
			url := start(t)
			topic := drivertest.TestTopic(t)
			return Links{Transport: tr, URL: url,
				Publish:   driver.Options{Reliable: reliable, Topic: topic, Params: params},
				Subscribe: driver.Options{Reliable: reliable, Topic: topic, Params: params}}
		}
	}
	embedded := func(e driver.Embedder) func(t *testing.T) string {
		return func(t *testing.T) string {
			url, stop, err := e.StartEmbedded(context.Background(), driver.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stop() })
			return url
		}
	}
	// brokerTLS starts an embedded broker serving TLS only with a
	// certificate of the run's CA; the clients verify it.
	brokerTLS := func(tr interface {
		driver.StreamTransport
		driver.Embedder
	}, reliable bool, params map[string]string) func(t *testing.T) Links {
		return func(t *testing.T) Links {
			server, client, err := secure.GenerateFiles(t.TempDir(), "127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			url, stop, err := tr.StartEmbedded(context.Background(), driver.Options{Security: &server})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stop() })
			topic := drivertest.TestTopic(t)
			return Links{Transport: tr, URL: url,
				Publish:   driver.Options{Reliable: reliable, Topic: topic, Params: params, Security: &client},
				Subscribe: driver.Options{Reliable: reliable, Topic: topic, Params: params, Security: &client}}
		}
	}
	rabbit := func(t *testing.T) string {
		return testenv.Service(t, "rabbitmq", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	}
	secured := func(tr driver.StreamTransport) func(t *testing.T) Links {
		return func(t *testing.T) Links {
			sub, pub, err := secure.GenerateFiles(t.TempDir(), "127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			return Links{Transport: tr, Publish: driver.Options{Security: &pub}, Subscribe: driver.Options{Security: &sub, QueueDepth: 4096}}
		}
	}
	sockets := func(tr driver.StreamTransport) func(t *testing.T) Links {
		return func(*testing.T) Links { return Links{Transport: tr, Subscribe: driver.Options{QueueDepth: 4096}} }
	}
	return []matrixDriver{
		{name: "tcp", links: sockets(tcp.Transport{})},
		{name: "tls", links: secured(secure.TLS{})},
		{name: "udp", links: sockets(udp.Transport{}), lossy: true},
		{name: "dtls", links: secured(secure.DTLS{}), lossy: true},
		{name: "nats-core", links: broker(nats.Transport{}, embedded(nats.Transport{}), false, nil)},
		{name: "nats-jetstream", links: broker(nats.Transport{}, embedded(nats.Transport{}), true, nil)},
		{name: "mqtt-qos0", links: broker(mqtt.Transport{}, embedded(mqtt.Transport{}), false, map[string]string{"mqtt-qos": "0"})},
		{name: "mqtt-qos2", links: broker(mqtt.Transport{}, embedded(mqtt.Transport{}), true, map[string]string{"mqtt-qos": "2"})},
		{name: "nats-core-tls", links: brokerTLS(nats.Transport{}, false, nil)},
		{name: "mqtt-qos1-tls", links: brokerTLS(mqtt.Transport{}, true, map[string]string{"mqtt-qos": "1"})},
		{name: "rabbitmq-confirms", links: broker(amqp.Transport{}, rabbit, true, map[string]string{"amqp-exchange": "amq.direct"})},
	}
}

// TestScenariosPerDriver runs every scenario (fan-in, fan-out,
// straight-run, round-robin with 3 publishers, 2 subscribers, 2 topics)
// over every one-way transport, and checks the delivery against the
// scenario's expected count, computed here from the scenario's definition
// (formats §9): Σ over publishers of messages sent × subscribers of its
// topic (one of them on round-robin).
func TestScenariosPerDriver(t *testing.T) {
	if testing.Short() {
		t.Skip("every scenario over every one-way transport; skipped with -short")
	}
	scenarios := []struct {
		name               string
		pubs, subs, topics int
	}{{FanIn, 2, 0, 0}, {FanOut, 0, 2, 0}, {StraightRun, 2, 0, 0}, {RoundRobin, 3, 2, 2}}
	for _, d := range matrixDrivers() {
		t.Run(d.name, func(t *testing.T) {
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					links := d.links(t)
					cfg := quick(t, sc.name, sc.pubs, sc.subs, sc.topics)
					cfg.Payloads = []int{100}
					res, err := Measure(context.Background(), "matrix_best_effort", links, cfg)
					if err != nil {
						t.Fatal(err)
					}
					checkExpected(t, res[0], cfg.Topology)
					if d.lossy {
						r := res[0]
						if r.Unique+r.Lost != r.Expected || (r.Unique == 0 && r.Expected > 0) {
							t.Errorf("%d unique + %d lost != %d expected", r.Unique, r.Lost, r.Expected)
						}
						return
					}
					checkComplete(t, res, cfg)
					if r := res[0]; links.Publish.Reliable && r.Counters.MessagesAcked != r.Counters.MessagesSent {
						t.Errorf("%d acknowledged of %d sent", r.Counters.MessagesAcked, r.Counters.MessagesSent)
					}
				})
			}
		})
	}
}

// checkExpected recomputes the expected deliveries from the scenario's
// placement rule, independently of Topology.Expected: publisher i on topic
// i mod T, subscriber j on j mod T (fan-in: every subscriber on topic 0,
// straight-run: pair i on topic i).
func checkExpected(t *testing.T, r PayloadResult, tp Topology) {
	t.Helper()
	var want uint64
	for _, p := range r.Publishers {
		subs := 0
		for j := range tp.Subscribers {
			if j%tp.Topics == p.Publisher%tp.Topics {
				subs++
			}
		}
		if tp.Scenario == RoundRobin {
			subs = min(subs, 1) // the subscribers of a topic compete
		}
		if p.Topic != p.Publisher%tp.Topics {
			t.Errorf("publisher %d on topic %d, want %d", p.Publisher, p.Topic, p.Publisher%tp.Topics)
		}
		if p.Expected != p.Sent*uint64(subs) {
			t.Errorf("publisher %d: expected %d, want %d sent × %d subscribers", p.Publisher, p.Expected, p.Sent, subs)
		}
		want += p.Sent * uint64(subs)
	}
	// want is 0 when a starved machine skipped every slot (checkComplete
	// checks they were all counted).
	if r.Expected != want {
		t.Errorf("expected deliveries %d, want %d", r.Expected, want)
	}
	if len(r.Publishers) != tp.Publishers {
		t.Errorf("%d publisher results, want %d", len(r.Publishers), tp.Publishers)
	}
}
