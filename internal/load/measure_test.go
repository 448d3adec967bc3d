package load

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/driver/udp"
	"github.com/mqgate/mqgate/internal/testenv"
)

// quick is a short, paced configuration: deterministic counts on a loaded
// machine because every check is of counts, never of speed.
func quick(t *testing.T, scenario string, pubs, subs, topics int) Config {
	t.Helper()
	tp, err := NewTopology(scenario, pubs, subs, topics)
	if err != nil {
		t.Fatal(err)
	}
	return Config{Topology: tp, Payloads: []int{16, 100}, Rate: 500, Duration: 400 * time.Millisecond,
		Warmup: 100 * time.Millisecond, Drain: 10 * time.Second, Interval: 100 * time.Millisecond}
}

// checkComplete checks that every expected message arrived once, with a
// latency, and that the counters agree with each other.
func checkComplete(t *testing.T, res []PayloadResult, cfg Config) {
	t.Helper()
	if len(res) != len(cfg.Payloads) {
		t.Fatalf("%d payload results, want %d", len(res), len(cfg.Payloads))
	}
	for _, r := range res {
		c := r.Counters
		var sent uint64
		for _, p := range r.Publishers {
			sent += p.Sent
		}
		if sent != c.MessagesSent {
			t.Errorf("%d B: publishers sent %d, counter %d", r.Payload, sent, c.MessagesSent)
		}
		// A machine that starves the publishers past the end of the short
		// measured period skips every slot (open loop): then nothing is
		// sent and nothing is expected, and the checks below hold all the
		// same (the slots are all counted as skipped).
		if (sent == 0) != (r.Expected == 0) {
			t.Errorf("%d B: %d sent, %d deliveries expected", r.Payload, sent, r.Expected)
		}
		if sent == 0 {
			t.Logf("%d B: every slot skipped (a starved machine): %+v", r.Payload, c)
		}
		if r.Unique != r.Expected || r.Lost != 0 || r.Duplicates != 0 || !r.Drained {
			t.Errorf("%d B: %d of %d expected deliveries, %d lost, %d duplicates, drained %v", r.Payload, r.Unique, r.Expected, r.Lost, r.Duplicates, r.Drained)
		}
		if c.MessagesReceived != r.Unique+r.Duplicates || c.BytesReceived != c.MessagesReceived*uint64(r.Payload) {
			t.Errorf("%d B: received %d (%d B), unique %d, duplicates %d", r.Payload, c.MessagesReceived, c.BytesReceived, r.Unique, r.Duplicates)
		}
		if r.Latency.Count != int64(r.Unique) || uint64(len(r.Raw))+r.RawDropped != r.Unique {
			t.Errorf("%d B: %d latencies in the histogram, %d raw (%d dropped), want %d", r.Payload, r.Latency.Count, len(r.Raw), r.RawDropped, r.Unique)
		}
		if c.Errors != 0 {
			t.Errorf("%d B: %d errors", r.Payload, c.Errors)
		}
		if r.Latency.MinNs > r.Latency.P50Ns || r.Latency.P50Ns > r.Latency.P99Ns || r.Latency.P99Ns > r.Latency.MaxNs {
			t.Errorf("%d B: percentiles out of order: %+v", r.Payload, r.Latency)
		}
		for k := 1; k < len(r.Raw); k++ {
			if r.Raw[k].At < r.Raw[k-1].At {
				t.Fatalf("%d B: raw samples not in arrival order at %d", r.Payload, k)
			}
		}
		var ticked uint64
		for _, tk := range r.Ticks {
			ticked += uint64(tk.Latency.TotalCount())
		}
		if ticked != r.Unique {
			t.Errorf("%d B: the intervals hold %d latencies, want %d", r.Payload, ticked, r.Unique)
		}
		// Paced at 500/s per publisher for 400 ms: about 200 each; the
		// bound is loose because a loaded machine skips slots.
		if per := float64(sent) / float64(len(r.Publishers)); per > 201 {
			t.Errorf("%d B: %.0f messages per publisher, more than the schedule's 200", r.Payload, per)
		}
		// The offered schedule: every publisher's slots, sent or skipped,
		// times the subscribers of its topic.
		var offered uint64
		for _, p := range r.Publishers {
			if p.Offered != p.Sent+p.Skipped || p.IntendedRate != cfg.Rate {
				t.Errorf("%d B: publisher %d offered %d, sent %d, skipped %d, intended %g/s", r.Payload, p.Publisher, p.Offered, p.Sent, p.Skipped, p.IntendedRate)
			}
			offered += p.Offered * uint64(len(cfg.Topology.SubscribersOf(p.Topic)))
		}
		if r.Offered != offered || r.Offered < r.Expected {
			t.Errorf("%d B: %d deliveries offered, want %d (and at least the %d expected of what was sent)", r.Payload, r.Offered, offered, r.Expected)
		}
		// Every slot of the measured period is sent or skipped: 200 per
		// publisher, give or take the one at each end.
		if n, want := sent+c.Skipped, uint64(len(r.Publishers))*200; n+uint64(len(r.Publishers)) < want || n > want+uint64(len(r.Publishers)) {
			t.Errorf("%d B: %d sent and %d skipped, want %d slots", r.Payload, sent, c.Skipped, want)
		}
	}
}

func TestMeasureIntraprocessScenarios(t *testing.T) {
	for _, c := range []struct {
		scenario           string
		pubs, subs, topics int
	}{{FanIn, 3, 0, 0}, {FanOut, 0, 3, 0}, {StraightRun, 2, 0, 0}, {RoundRobin, 4, 2, 0}} {
		t.Run(c.scenario, func(t *testing.T) {
			cfg := quick(t, c.scenario, c.pubs, c.subs, c.topics)
			links := Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
			res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkComplete(t, res, cfg)
		})
	}
}

func TestMeasureSockets(t *testing.T) {
	for _, c := range []struct {
		name string
		tr   driver.StreamTransport
	}{{"tcp", tcp.Transport{}}, {"udp", udp.Transport{}}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := quick(t, FanIn, 2, 0, 0)
			cfg.Payloads = []int{16, 1000}
			links := Links{Transport: c.tr, Subscribe: driver.Options{QueueDepth: 4096}}
			res, err := Measure(context.Background(), "interprocess_best_effort", links, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "udp" {
				// Loopback UDP at 1000 msg/s does not drop, but a loaded
				// machine may: check the counts agree rather than all arrived.
				for _, r := range res {
					if r.Unique+r.Lost != r.Expected {
						t.Errorf("%d B: %d unique + %d lost != %d expected", r.Payload, r.Unique, r.Lost, r.Expected)
					}
				}
				return
			}
			checkComplete(t, res, cfg)
		})
	}
}

func TestMeasureEmbeddedNATS(t *testing.T) {
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg := quick(t, FanOut, 0, 2, 0)
	links := Links{Transport: nats.Transport{}, URL: url, Publish: driver.Options{Topic: "load-test"}, Subscribe: driver.Options{Topic: "load-test"}}
	res, err := Measure(context.Background(), "nats_best_effort", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkComplete(t, res, cfg)
}

func TestMeasureEmbeddedMQTTAcknowledged(t *testing.T) {
	url, stop, err := mqtt.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cfg := quick(t, FanIn, 2, 0, 0)
	params := map[string]string{"mqtt-qos": "1"}
	links := Links{Transport: mqtt.Transport{}, URL: url,
		Publish: driver.Options{Reliable: true, Topic: "load-test", Params: params}, Subscribe: driver.Options{Reliable: true, Topic: "load-test", Params: params}}
	res, err := Measure(context.Background(), "mqtt_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkComplete(t, res, cfg)
	for _, r := range res {
		if r.Counters.MessagesAcked != r.Counters.MessagesSent {
			t.Errorf("%d B: %d acknowledged of %d sent at QoS 1", r.Payload, r.Counters.MessagesAcked, r.Counters.MessagesSent)
		}
	}
}

func TestMeasureInterrupted(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Duration = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	links := Links{Transport: intraprocess.Transport{}, Subscribe: driver.Options{QueueDepth: 1024}}
	res, err := Measure(ctx, "intraprocess_best_effort", links, cfg)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want interrupted", err)
	}
	if len(res) != 1 {
		t.Fatalf("%d results, want the payload in progress", len(res))
	}
}

func TestValidate(t *testing.T) {
	tp, _ := NewTopology(FanIn, 1, 0, 0)
	for _, c := range []Config{
		{Topology: tp, Payloads: []int{8}},
		{Topology: tp, Payloads: []int{16}, Rate: -1},
		{Topology: tp, Payloads: nil},
		{Payloads: []int{16}},
	} {
		if err := c.WithDefaults().Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestMeasureRealBrokers measures the brokers running on this host (CI
// installs them): NATS core, Mosquitto at QoS 1 and RabbitMQ with
// publisher confirms, fan-out through an exchange.
func TestMeasureRealBrokers(t *testing.T) {
	for _, c := range []struct {
		name, sub string
		tr        driver.StreamTransport
		url, hint string
		reliable  bool
		params    map[string]string
	}{
		{"nats", "nats_best_effort", nats.Transport{}, testenv.Getenv("MQGATE_NATS_URL", "nats://127.0.0.1:4222"), "start it with: nats-server -js", false, nil},
		{"mosquitto", "mqtt_reliable", mqtt.Transport{}, testenv.Getenv("MQGATE_MQTT_URL", "mqtt://127.0.0.1:1883"), "start it with: mosquitto -d", true, map[string]string{"mqtt-qos": "1"}},
		{"rabbitmq", "amqp_reliable", amqp.Transport{}, testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached", true, map[string]string{"amqp-exchange": "amq.direct"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := testenv.Service(t, c.name, c.url, c.hint)
			cfg := quick(t, FanOut, 0, 2, 0)
			cfg.Payloads = []int{16}
			topic := drivertest.TestTopic(t)
			links := Links{Transport: c.tr, URL: url,
				Publish:   driver.Options{Reliable: c.reliable, Topic: topic, Params: c.params},
				Subscribe: driver.Options{Reliable: c.reliable, Topic: topic, Params: c.params}}
			res, err := Measure(context.Background(), c.sub, links, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkComplete(t, res, cfg)
			if c.reliable && res[0].Counters.MessagesAcked != res[0].Counters.MessagesSent {
				t.Errorf("%d acknowledged of %d sent", res[0].Counters.MessagesAcked, res[0].Counters.MessagesSent)
			}
		})
	}
}

// TestEveryMessageRecordedUnpaced sends as fast as the publisher can
// through the NATS server, the load that bench/load-vs-reference.sh compares
// with nats-bench, and checks that no message went unmeasured: every unique
// delivery has its latency in the histogram, in an interval histogram and
// in the raw samples, and the batched counters add up to what the loops
// counted. A recorder that sampled, or counts that a batch left behind,
// fail it; so does a run too slow to be called a load (fewer than 10,000
// deliveries in two seconds: a machine loaded sixty-fold still delivers
// several times that).
func TestEveryMessageRecordedUnpaced(t *testing.T) {
	url := testenv.Service(t, "nats", testenv.Getenv("MQGATE_NATS_URL", "nats://127.0.0.1:4222"), "start it with: nats-server -js")
	tp, err := NewTopology(FanIn, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Topology: tp, Payloads: []int{16, 64}, Duration: 2 * time.Second, Warmup: 100 * time.Millisecond,
		Drain: 20 * time.Second, Interval: 100 * time.Millisecond, MaxRaw: 50_000_000}
	topic := drivertest.TestTopic(t)
	links := Links{Transport: nats.Transport{}, URL: url, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}
	res, err := Measure(context.Background(), "nats_best_effort", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		c := r.Counters
		if r.Unique < 10_000 {
			t.Fatalf("%d B: %d deliveries in %v: not a load", r.Payload, r.Unique, r.Measured())
		}
		if c.MessagesSent != r.Publishers[0].Sent || c.BytesSent != c.MessagesSent*uint64(r.Payload) {
			t.Errorf("%d B: counters say %d sent (%d B), the publisher %d", r.Payload, c.MessagesSent, c.BytesSent, r.Publishers[0].Sent)
		}
		if c.MessagesReceived != r.Unique+r.Duplicates || c.BytesReceived != c.MessagesReceived*uint64(r.Payload) {
			t.Errorf("%d B: counters say %d received (%d B), %d unique and %d duplicates", r.Payload, c.MessagesReceived, c.BytesReceived, r.Unique, r.Duplicates)
		}
		if r.Histogram.TotalCount() != int64(r.Unique) || r.Latency.Count != int64(r.Unique) {
			t.Errorf("%d B: %d latencies recorded of %d unique deliveries", r.Payload, r.Histogram.TotalCount(), r.Unique)
		}
		if len(r.Raw) != int(r.Unique) || r.RawDropped != 0 {
			t.Errorf("%d B: %d raw samples (%d dropped) of %d unique deliveries", r.Payload, len(r.Raw), r.RawDropped, r.Unique)
		}
		var ticked, tickRecv uint64
		for _, tk := range r.Ticks {
			ticked += uint64(tk.Latency.TotalCount())
			tickRecv += tk.Delta.MessagesReceived
		}
		if ticked != r.Unique || tickRecv != c.MessagesReceived {
			t.Errorf("%d B: the intervals hold %d latencies and %d receptions, want %d and %d", r.Payload, ticked, tickRecv, r.Unique, c.MessagesReceived)
		}
		// Every raw sample is a message of its own: arrivals in order,
		// latencies that are not all one copied value.
		distinct := map[int64]bool{}
		for k, s := range r.Raw {
			if k > 0 && s.At < r.Raw[k-1].At {
				t.Fatalf("%d B: raw samples out of arrival order at %d", r.Payload, k)
			}
			if len(distinct) < 100 {
				distinct[s.Latency] = true
			}
		}
		if len(distinct) < 100 {
			t.Errorf("%d B: only %d distinct latencies among %d samples", r.Payload, len(distinct), len(r.Raw))
		}
		t.Logf("%d B: sent %d (%.0f msg/s), received %d (%.0f msg/s), all recorded", r.Payload, c.MessagesSent, r.SendRate(), r.Unique, r.ReceiveRate())
	}
}

func TestRateWarning(t *testing.T) {
	for _, c := range []struct {
		d, i time.Duration
		want string
	}{
		{10 * time.Second, time.Second, ""},
		{2 * time.Second, time.Second, "a measured period of 2s in intervals of 1s gives 2 rate sample(s) per payload"},
		{2500 * time.Millisecond, 250 * time.Millisecond, ""},
		{999 * time.Millisecond, 100 * time.Millisecond, "gives 9 rate sample(s)"},
	} {
		got := Config{Duration: c.d, Interval: c.i}.RateWarning()
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%v / %v: %q, want %q", c.d, c.i, got, c.want)
		}
	}
}

// TestRawBudget checks the bound on the raw samples kept (Config.MaxRaw),
// which the receivers claim from a chunk at a time: every unique delivery
// is kept or counted dropped, never more than the budget is kept, and what
// the receivers' last claims leave unused is small. One receiver keeps
// exactly the budget.
func TestRawBudget(t *testing.T) {
	for _, c := range []struct {
		scenario   string
		pubs, subs int
	}{{FanIn, 1, 0}, {FanOut, 0, 3}} {
		t.Run(c.scenario, func(t *testing.T) {
			cfg := quick(t, c.scenario, c.pubs, c.subs, 0)
			cfg.MaxRaw = 150 // of 200 deliveries per subscriber
			links := Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
			res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkComplete(t, res, cfg)
			subs := cfg.Topology.Subscribers
			claim := cfg.MaxRaw / (8 * subs)
			for _, r := range res {
				kept := len(r.Raw)
				if uint64(kept)+r.RawDropped != r.Unique {
					t.Errorf("%d B: %d kept and %d dropped of %d unique deliveries", r.Payload, kept, r.RawDropped, r.Unique)
				}
				want := min(cfg.MaxRaw, int(r.Unique))
				if kept > want || kept < want-subs*claim || (subs == 1 && kept != want) || (r.Unique > 2*uint64(cfg.MaxRaw) && r.RawDropped == 0) {
					t.Errorf("%d B: %d raw samples kept by %d receivers, budget %d", r.Payload, kept, subs, cfg.MaxRaw)
				}
				if !slices.IsSortedFunc(r.Raw, func(a, b RawSample) int { return cmp.Compare(a.At, b.At) }) {
					t.Errorf("%d B: raw samples out of arrival order", r.Payload)
				}
			}
		})
	}
}
