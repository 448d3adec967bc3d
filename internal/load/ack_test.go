package load

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
)

// ackTransport is the in-process link whose publishers acknowledge each
// message as soon as it is handed over, counting the acknowledgements
// themselves.
type ackTransport struct {
	intraprocess.Transport
	acks *atomic.Uint64
}

type ackPublisher struct {
	driver.Publisher
	f    func(error)
	acks *atomic.Uint64
}

func (p *ackPublisher) OnAck(f func(error))      { p.f = f }
func (p *ackPublisher) WaitAcks(time.Time) error { return nil }
func (p *ackPublisher) Send(msg []byte) error {
	err := p.Publisher.Send(msg)
	if err == nil {
		p.acks.Add(1)
		p.f(nil)
	}
	return err
}

func (t ackTransport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	p, err := t.Transport.Publish(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	return &ackPublisher{Publisher: p, acks: t.acks}, nil
}

// tickLog keeps every tick, and what scrape returns at each.
type tickLog struct {
	ticks   []Tick
	scrape  func() string
	scrapes []string
}

func (l *tickLog) Begin(string, int, *Counters, *Recorder, Config) {}
func (l *tickLog) End(*PayloadResult)                              {}
func (l *tickLog) Tick(t Tick) {
	l.ticks = append(l.ticks, t)
	if l.scrape != nil {
		l.scrapes = append(l.scrapes, l.scrape())
	}
}

// TestAcksCountedLive: acknowledgements are in the counters as they come,
// so that every snapshot of the measured period (and Prometheus, which
// reads the same counters) has those of the messages counted sent by the
// snapshot before; the warm-up's are not counted, and the final count is
// the publisher's own count of acknowledgements less the warm-up's.
func TestAcksCountedLive(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads = []int{16}
	var acks atomic.Uint64
	e, err := ServePrometheus("127.0.0.1:0", "test")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	log := &tickLog{scrape: func() string {
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + e.Addr() + "/metrics")
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}}
	cfg.Observers = []Observer{e, log}
	links := Links{Transport: ackTransport{acks: &acks}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	var prevSent uint64
	measured := 0
	for k, tk := range log.ticks {
		if tk.Drain {
			continue
		}
		measured++
		if v := tk.Values; v.MessagesAcked < prevSent || v.MessagesAcked > v.MessagesSent+countBatch {
			t.Errorf("snapshot at %v: %d acknowledged, %d sent (%d by the snapshot before)", tk.Elapsed, v.MessagesAcked, v.MessagesSent, prevSent)
		}
		// Prometheus, scraped just after the snapshot, has at least its
		// acknowledgements, and those of the messages sent before it.
		if n, ok := promValue(log.scrapes[k], "mqgate_messages_acked_total{"); !ok || n < float64(max(tk.Values.MessagesAcked, prevSent)) {
			t.Errorf("scrape after the snapshot at %v: mqgate_messages_acked_total %g (found %v), want at least %d", tk.Elapsed, n, ok, max(tk.Values.MessagesAcked, prevSent))
		}
		prevSent = tk.Values.MessagesSent
	}
	if measured < 2 || prevSent == 0 {
		t.Fatalf("%d snapshots in the measured period, %d sent by the last", measured, prevSent)
	}
	// The publisher's own count: warm-up, measured and the end marker.
	if warm := r.Counters.Warmup; r.Counters.MessagesAcked != r.Counters.MessagesSent || acks.Load() != warm+r.Counters.MessagesSent+1 {
		t.Errorf("%d acknowledged of %d sent; the publisher acknowledged %d, with %d warm-up messages and the end marker", r.Counters.MessagesAcked, r.Counters.MessagesSent, acks.Load(), warm)
	}
}

// promValue is the value of the first series of metrics starting with
// prefix.
func promValue(metrics, prefix string) (float64, bool) {
	for _, line := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(line, prefix) {
			f := strings.Fields(line)
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// TestEndMarkerAckNotCounted: the live count takes the acknowledgements
// of measured messages alone: neither the warm-up's before them nor the
// end marker's after them, so that no snapshot has more acknowledged than
// sent (the drain's did, by one a link, before the final count).
func TestEndMarkerAckNotCounted(t *testing.T) {
	r := &run{}
	s := &sender{acked: make([]atomic.Uint64, 1), refused: make([]atomic.Uint64, 1)}
	s.warm.Store(2)
	s.measured.Store(^uint64(0))
	for range 2 + 5 {
		r.onAck(s, 0, nil)
	}
	s.measured.Store(5) // the end marker goes
	r.onAck(s, 0, nil)
	if got := r.c.MessagesAcked.Load(); got != 5 {
		t.Errorf("%d acknowledgements counted live; want the 5 measured messages'", got)
	}
}
