package load

import (
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/testenv"
)

// TestRoundRobinShares runs 1 publisher × 3 subscribers round-robin over
// each system with competing consumers (NATS queue groups, MQTT 5 shared
// subscriptions, one AMQP queue with several consumers): every message
// reaches exactly one subscriber, so the deliveries are the messages sent
// (not 3× as each subscriber getting every one would make), with none
// twice, and each subscriber gets some.
func TestRoundRobinShares(t *testing.T) {
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
	for _, c := range []struct {
		name   string
		tr     driver.StreamTransport
		start  func(t *testing.T) string
		params map[string]string
	}{
		{"nats", nats.Transport{}, embedded(nats.Transport{}), nil},
		{"mqtt5", mqtt.Transport{}, embedded(mqtt.Transport{}), map[string]string{mqtt.ParamVersion: "5"}},
		{"amqp", amqp.Transport{}, func(t *testing.T) string {
			return testenv.Service(t, "rabbitmq", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
		}, nil},
		{"amqp-exchange", amqp.Transport{}, func(t *testing.T) string {
			return testenv.Service(t, "rabbitmq", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
		}, map[string]string{amqp.FlagExchange: "amq.direct"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := c.start(t)
			cfg := quick(t, RoundRobin, 1, 3, 0)
			cfg.Payloads = []int{100}
			topic := drivertest.TestTopic(t)
			links := Links{Transport: c.tr, URL: url, Publish: driver.Options{Topic: topic, Params: c.params}, Subscribe: driver.Options{Topic: topic, Params: c.params}}
			if err := links.Check(cfg.Topology); err != nil {
				t.Fatal(err)
			}
			res, err := Measure(context.Background(), "rr_best_effort", links, cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			sent := r.Counters.MessagesSent
			if r.Expected != sent || r.Unique != sent || r.Duplicates != 0 || r.Counters.MessagesReceived != sent {
				t.Errorf("sent %d: expected %d, received %d unique (%d in all), %d duplicates; want each message once", sent, r.Expected, r.Unique, r.Counters.MessagesReceived, r.Duplicates)
			}
			var split uint64
			for _, s := range r.Subscribers {
				if s.Received == 0 && sent >= 30 {
					t.Errorf("subscriber %d got nothing of %d sent: %+v", s.Subscriber, sent, r.Subscribers)
				}
				split += s.Received
			}
			if len(r.Subscribers) != 3 || split != sent {
				t.Errorf("per-subscriber split %+v sums to %d, want 3 subscribers summing to %d sent", r.Subscribers, split, sent)
			}
		})
	}
}

// TestRoundRobinRefused checks that a system without competing consumers
// refuses several subscribers of a round-robin topic, saying why, instead
// of giving each of them every message.
func TestRoundRobinRefused(t *testing.T) {
	tp, err := NewTopology(RoundRobin, 1, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []Links{
		{Transport: tcp.Transport{}},
		{Transport: mqtt.Transport{}, Subscribe: driver.Options{Params: map[string]string{mqtt.ParamVersion: "3.1.1"}}},
		{Transport: nats.Transport{}, Subscribe: driver.Options{Reliable: true}},
	} {
		err := l.Check(tp)
		if err == nil || !strings.Contains(err.Error(), "must share") {
			t.Errorf("%s: Check = %v, want a refusal saying why", l.Transport.Name(), err)
		}
	}
	// A subscriber per topic needs no sharing.
	if tp, _ := NewTopology(RoundRobin, 2, 2, 0); (Links{Transport: tcp.Transport{}}).Check(tp) != nil {
		t.Error("round-robin 2×2 on 2 topics refused on tcp")
	}
}
