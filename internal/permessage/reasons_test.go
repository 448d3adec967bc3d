package permessage

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/driver/tcp"
	"github.com/mqgate/mqgate/internal/driver/udp"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/permessagefile"
)

// TestCPUNoteFewerThanCPUEvery: a run of fewer messages than --cpu-every
// takes no CPU sample; the summary's Note and the console say so, naming
// the flag and both numbers, instead of an empty Note beside a count of 0
// and a bare "—".
func TestCPUNoteFewerThanCPUEvery(t *testing.T) {
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 512}}
	ends, err := links.Open(context.Background(), tp, 16)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	src := LinkCPU(links)
	cfg := Config{Count: 300, Window: 100, CPUEvery: 1000, Timeout: 10 * time.Second, Broker: &src}.WithDefaults()
	pm, err := Measure(context.Background(), ends, 16, cfg)
	if err != nil || pm.Lost != 0 {
		t.Fatalf("%v, %d lost", err, pm.Lost)
	}
	const why = "no sample: 300 messages sent, fewer than --cpu-every 1000, so no CPU sample was taken"
	a := Aggregates(pm)
	for q := qSenderCPU; q < len(a); q++ {
		if a[q].Count != 0 || !strings.HasSuffix(a[q].Note, why) {
			t.Errorf("%s: count %d, Note %q; want 0 and a Note ending %q", permessagefile.Quantities[q], a[q].Count, a[q].Note, why)
		}
	}
	var out bytes.Buffer
	(&progressPrinter{w: &out}).print("intraprocess_reliable", pm)
	if want := "no CPU figure for the sender thread, receiver thread, client process and rest of this process: " + why; !strings.Contains(out.String(), want) {
		t.Errorf("the console does not say why the CPU figures are missing (%q):\n%s", want, out.String())
	}

	// Enough messages sent, too few delivered: the receiver's readings
	// (the client's and the broker's with them) are taken at deliveries.
	lossy := &Record{O: make([]int64, 2000), Lost: 1500, CPUEvery: 1000,
		Sender:   CPUSeries{Resolution: 1, R: []CPUReading{{0, 0}, {10, 10}, {20, 20}}},
		Receiver: CPUSeries{Resolution: 1, R: []CPUReading{{0, 0}, {-1, -1}, {-1, -1}}}}
	if got, want := lossy.cpuReason(lossy.Receiver, false), "no sample: 500 messages delivered, fewer than --cpu-every 1000, so no CPU sample was taken"; got != want {
		t.Errorf("too few delivered: %q, want %q", got, want)
	}
	if got := lossy.cpuReason(lossy.Sender, true); got != "" {
		t.Errorf("sender with its samples: %q", got)
	}
}

// TestNoBrokerLabel: on a link without a broker (in-process queues, TCP,
// UDP: transports not declaring driver.Capabilities.Broker) the figure of
// this process less the sender and receiver threads is the rest of this
// process, on the console and in the summary's Note, not a broker's; a
// broker transport (NATS, embedded here) keeps "broker".
func TestNoBrokerLabel(t *testing.T) {
	for _, tr := range []driver.StreamTransport{intraprocess.Transport{}, tcp.Transport{}, udp.Transport{}} {
		if src := LinkCPU(load.Links{Transport: tr}); !src.NoBroker || !src.InProcess || src.What != RestOfProcessWhat {
			t.Errorf("%s: %+v, want the rest of this process, no broker", tr.Name(), src)
		}
	}
	if src := LinkCPU(load.Links{Transport: nats.Transport{}, URL: "nats://127.0.0.1:1"}); src.NoBroker {
		t.Errorf("nats: %+v, want a broker", src)
	}

	natsURL, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	topic := drivertest.TestTopic(t)
	for _, c := range []struct {
		typ    string
		links  load.Links
		broker bool
	}{
		{"intraprocess_reliable", load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 4096}}, false},
		{"interprocess_best_effort_tcp", load.Links{Transport: tcp.Transport{}, Subscribe: driver.Options{QueueDepth: 4096}}, false},
		{"nats_best_effort", load.Links{Transport: nats.Transport{}, URL: natsURL, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}, true},
	} {
		t.Run(c.typ, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			m := &meta.Meta{Start: time.Now().UTC(), System: meta.System{Name: "mqgate-builtin"}}
			r := &Runner{Config: Config{Count: 2000, Window: 100, CPUEvery: 500, Timeout: 10 * time.Second}, Payloads: []int{64}, Dir: dir, Meta: m, NoPlots: true, Progress: &out}
			sub := load.Sub{Type: c.typ, Transport: c.links.Transport.Name(), Topic: topic, Links: c.links}
			if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			rows, err := permessagefile.ReadSummaryFile(filepath.Join(dir, permessagefile.SummaryFileName(c.typ)))
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows {
				if !strings.HasPrefix(row.Quantity, "Broker CPU") {
					continue
				}
				if got := strings.HasPrefix(row.Note, "rest of this process (no broker)"); got == c.broker {
					t.Errorf("%s Note %q: says no broker %v, want %v", row.Quantity, row.Note, got, !c.broker)
				}
			}
			if c.broker {
				if !strings.Contains(text, ", broker (") || strings.Contains(text, "rest of this process") {
					t.Errorf("a broker link's figure is not the broker's:\n%s", text)
				}
				return
			}
			if !strings.Contains(text, "rest of this process (no broker: this process less the sender and receiver threads") {
				t.Errorf("the console does not name the rest of this process:\n%s", text)
			}
			if strings.Contains(strings.ToLower(text), "broker (") || strings.Contains(text, "the broker's included") || strings.Contains(text, "broker CPU") {
				t.Errorf("the console calls part of this process a broker on a link without one:\n%s", text)
			}
		})
	}
}
