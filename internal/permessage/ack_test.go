package permessage

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
)

// ackTransport is the in-process link whose publishers acknowledge the
// messages they sent, from a goroutine of their own, refusing every
// refuseEvery-th (0: none), and count what they acknowledged and refused.
type ackTransport struct {
	intraprocess.Transport
	refuseEvery int
	mu          sync.Mutex
	pubs        []*ackPublisher
}

type ackPublisher struct {
	driver.Publisher
	refuseEvery    int
	f              func(error)
	sent           int
	acked, refused atomic.Uint64
	pending        sync.WaitGroup
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
	p.sent++
	refuse := p.refuseEvery > 0 && p.sent%p.refuseEvery == 0
	p.pending.Add(1)
	go func() { // acknowledged later, as a broker does
		defer p.pending.Done()
		time.Sleep(time.Millisecond)
		if refuse {
			p.refused.Add(1)
			p.f(errors.New("refused"))
			return
		}
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
	ap := &ackPublisher{Publisher: p, refuseEvery: t.refuseEvery}
	t.mu.Lock()
	t.pubs = append(t.pubs, ap)
	t.mu.Unlock()
	return ap, nil
}

// TestPerMessageRecordsAcks: on an acknowledging link, meta.json's
// messages_acked and messages_refused of each payload are the
// acknowledgements and refusals the publisher's link gave (here 9 in 10
// confirmed, the 10th refused), not 0; on a link without
// acknowledgements they stay 0.
func TestPerMessageRecordsAcks(t *testing.T) {
	const count = 2000
	payloads := []int{16, 64}
	for _, c := range []struct {
		name  string
		acks  bool
		every int
	}{{"acknowledged", true, 10}, {"all confirmed", true, 0}, {"unacknowledged", false, 0}} {
		t.Run(c.name, func(t *testing.T) {
			tr := &ackTransport{refuseEvery: c.every}
			links := load.Links{Transport: tr, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 4096}}
			if !c.acks {
				links.Transport = intraprocess.Transport{}
			}
			m := &meta.Meta{Experiment: "x"}
			r := &Runner{Config: Config{Count: count, Window: 100, CPUEvery: 500}, Payloads: payloads, Dir: t.TempDir(), Meta: m, NoPlots: true}
			sub := load.Sub{Type: "intraprocess_reliable", Transport: "intraprocess", Reliable: true, Links: links}
			if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
				t.Fatal(err)
			}
			if len(m.SubExperiments) != 1 || len(m.SubExperiments[0].Payloads) != len(payloads) {
				t.Fatalf("meta %+v", m.SubExperiments)
			}
			rec := m.SubExperiments[0]
			if rec.Acknowledged != c.acks {
				t.Errorf("acknowledged %v, want %v", rec.Acknowledged, c.acks)
			}
			if c.acks && len(tr.pubs) != len(payloads) {
				t.Fatalf("%d publishers for %d payloads", len(tr.pubs), len(payloads))
			}
			for i, p := range rec.Payloads {
				var acked, refused uint64
				if c.acks {
					acked, refused = tr.pubs[i].acked.Load(), tr.pubs[i].refused.Load()
					if acked+refused != count {
						t.Fatalf("%d B: the publisher acknowledged %d and refused %d of %d", p.Bytes, acked, refused, count)
					}
				}
				if p.MessagesAcked != acked || p.MessagesRefused != refused || p.Samples != count || !p.Completed {
					t.Errorf("%d B: messages_acked %d, messages_refused %d, %d samples; the link acknowledged %d and refused %d of %d",
						p.Bytes, p.MessagesAcked, p.MessagesRefused, p.Samples, acked, refused, count)
				}
			}
			if c.every == 10 && rec.Payloads[0].MessagesAcked != count*9/10 {
				t.Errorf("messages_acked %d, want %d", rec.Payloads[0].MessagesAcked, count*9/10)
			}
		})
	}
}
