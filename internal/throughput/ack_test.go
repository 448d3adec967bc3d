package throughput

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
)

// ackTransport is the in-process link whose publishers acknowledge every
// message they sent, from a goroutine of their own as a broker does, and
// count their acknowledgements; pubs are the publishers in the order the
// measurements opened them.
type ackTransport struct {
	intraprocess.Transport
	mu   sync.Mutex
	pubs []*ackPublisher
}

type ackPublisher struct {
	driver.Publisher
	f       func(error)
	acked   atomic.Uint64
	pending sync.WaitGroup
}

func (p *ackPublisher) OnAck(f func(error)) { p.f = f }
func (p *ackPublisher) WaitAcks(deadline time.Time) error {
	done := make(chan struct{})
	go func() { p.pending.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(time.Until(deadline)):
		return driver.ErrTimeout
	}
}

func (p *ackPublisher) Send(msg []byte) error {
	if err := p.Publisher.Send(msg); err != nil {
		return err
	}
	p.pending.Add(1)
	go func() {
		defer p.pending.Done()
		time.Sleep(100 * time.Microsecond)
		p.acked.Add(1)
		p.f(nil)
	}()
	return nil
}

func (t *ackTransport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	p, err := t.Transport.Publish(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	ap := &ackPublisher{Publisher: p}
	t.mu.Lock()
	t.pubs = append(t.pubs, ap)
	t.mu.Unlock()
	return ap, nil
}

// TestThroughputRecordsAcks: on an acknowledging link, meta.json's
// messages_acked of each payload is the acknowledgements the links of its
// confirmation periods (whose windows and losses the payload records)
// received, not 0. Each measurement opens one publisher, in the order of
// the search's steps.
func TestThroughputRecordsAcks(t *testing.T) {
	tr := &ackTransport{}
	m := &meta.Meta{Experiment: "x"}
	payloads := []int{16, 64}
	r := &Runner{Config: Config{MinWindow: time.Millisecond, Windows: 10, MaxF: 100, Precision: 0.2}, Payloads: payloads, Dir: t.TempDir(), Meta: m}
	// The phase of each measurement, per payload, in order.
	var phases [][]string
	r.search = func(measure MeasureFunc, cfg Config, report func(Step)) (Outcome, []Step, error) {
		phases = append(phases, nil)
		return Search(measure, cfg, func(s Step) {
			phases[len(phases)-1] = append(phases[len(phases)-1], s.Phase)
			report(s)
		})
	}
	sub := load.Sub{Type: "intraprocess_reliable", Transport: "intraprocess", Reliable: true,
		Links: load.Links{Transport: tr, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 256}}}
	if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
		t.Fatal(err)
	}
	if len(m.SubExperiments) != 1 || len(m.SubExperiments[0].Payloads) != len(payloads) || !m.SubExperiments[0].Acknowledged {
		t.Fatalf("meta %+v", m.SubExperiments)
	}
	k := 0
	for i, steps := range phases {
		var want uint64
		periods := 0
		for _, ph := range steps {
			p := tr.pubs[k]
			k++
			if ph == "confirmation" && periods < DefaultPeriods {
				want += p.acked.Load()
				periods++
			}
		}
		got := m.SubExperiments[0].Payloads[i]
		if periods != DefaultPeriods || want == 0 || got.MessagesAcked != want || got.MessagesRefused != 0 {
			t.Errorf("%d B: messages_acked %d, refused %d; the links of its %d confirmation periods acknowledged %d", got.Bytes, got.MessagesAcked, got.MessagesRefused, periods, want)
		}
	}
	if k != len(tr.pubs) {
		t.Errorf("%d steps printed, %d publishers opened", k, len(tr.pubs))
	}
	// meta.json on disk says so too.
	b, err := os.ReadFile(filepath.Join(r.Dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var disk struct {
		SubExperiments []struct {
			Payloads []struct {
				MessagesAcked uint64 `json:"messages_acked"`
			} `json:"payloads"`
		} `json:"subexperiments"`
	}
	if err := json.Unmarshal(b, &disk); err != nil {
		t.Fatal(err)
	}
	for i, p := range disk.SubExperiments[0].Payloads {
		if p.MessagesAcked != m.SubExperiments[0].Payloads[i].MessagesAcked {
			t.Errorf("meta.json payload %d: messages_acked %d", i, p.MessagesAcked)
		}
	}
}
