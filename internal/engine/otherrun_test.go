package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/meta"
)

// tally wraps a pinger and sorts what it receives by what it sent: the
// first echo of one of its messages, a second one, or a message it never
// sent (another run's), each message known by its header.
type tally struct {
	driver.Pinger
	mu                  sync.Mutex
	echoes              map[[HeaderSize]byte]int // echoes received of each message sent
	first, again, other int
}

func (p *tally) Send(msg []byte) error {
	p.mu.Lock()
	p.echoes[[HeaderSize]byte(msg)] = 0
	p.mu.Unlock()
	return p.Pinger.Send(msg)
}

func (p *tally) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, at, err := p.Pinger.Receive(buf, deadline)
	if err != nil || n < HeaderSize {
		return n, at, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := [HeaderSize]byte(buf)
	switch c, sent := p.echoes[k]; {
	case !sent:
		p.other++
	case c == 0:
		p.first++
	default:
		p.again++
	}
	if _, sent := p.echoes[k]; sent {
		p.echoes[k]++
	}
	return n, at, nil
}

// TestTwoRunsOneTopic runs two round-trip measurements at once on one topic
// of one NATS server, each with its own echo end, as two CI jobs sharing a
// broker and a --topic do. Every echo end echoes both runs' messages, so
// each pinger receives the other run's messages and two echoes of each of
// its own. Each run's samples must be its own messages' first echoes, the
// other run's messages counted as such and nothing else, and its second
// echoes as duplicates (or, after a payload's last message, out of order).
func TestTwoRunsOneTopic(t *testing.T) {
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	opts := driver.Options{Topic: "same", LargestMessage: 256}
	var ready sync.WaitGroup // both echo ends subscribed before either run sends
	ready.Add(2)
	sub := func(p **tally) Sub {
		return Sub{Type: "nats_best_effort", Transport: nats.Name, Echo: EchoInProcess, Topic: opts.Topic,
			Open: func(ctx context.Context) (*Link, error) {
				defer ready.Wait()
				defer ready.Done()
				e, err := nats.Transport{}.Listen(ctx, url, opts)
				if err != nil {
					return nil, err
				}
				pinger, err := nats.Transport{}.Dial(ctx, url, opts)
				if err != nil {
					e.Close()
					return nil, err
				}
				sctx, cancel := context.WithCancel(context.Background())
				served := make(chan struct{})
				go func() { defer close(served); e.Serve(sctx) }()
				*p = &tally{Pinger: pinger, echoes: map[[HeaderSize]byte]int{}}
				return &Link{Pinger: *p, Close: func() error { cancel(); <-served; return e.Close() }}, nil
			}}
	}
	const samples = 1500
	cfg := Config{Payloads: []int{16, 256}, Samples: samples, Warmup: 0} // every echo received is counted
	runs := []*Runner{newRunner(t, cfg), newRunner(t, cfg)}
	tallies := make([]*tally, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = r.Run(context.Background(), []Sub{sub(&tallies[i])}) }()
	}
	wg.Wait()
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		var c meta.Payload
		for _, p := range r.Meta.SubExperiments[0].Payloads {
			if p.Samples+int(p.Lost) != samples || p.Errors != 0 {
				t.Errorf("run %d, %d B: %d samples, %d lost, %d errors; want %d samples or lost, no error (%+v)", i, p.Bytes, p.Samples, p.Lost, p.Errors, samples, p)
			}
			c.Samples += p.Samples
			c.Duplicates += p.Duplicates
			c.OutOfOrder += p.OutOfOrder
			c.OtherRuns += p.OtherRuns
		}
		tl := tallies[i]
		if tl.other == 0 {
			t.Fatalf("run %d received no message of the other run: the runs did not overlap", i)
		}
		// Every echo of the run's own messages is a sample, a duplicate or
		// out of order (a first echo after its timeout is late, its
		// message lost), and every echo of the other run's is counted as
		// such and nothing else.
		own := uint64(tl.first + tl.again)
		if c.Samples > tl.first || uint64(c.Samples)+c.Duplicates+c.OutOfOrder != own || c.OtherRuns != uint64(tl.other) {
			t.Errorf("run %d: %d samples, %d duplicates, %d out of order, %d of another run; received %d first and %d second echoes of its messages, %d of the other run's",
				i, c.Samples, c.Duplicates, c.OutOfOrder, c.OtherRuns, tl.first, tl.again, tl.other)
		}
	}
	if a, b := runs[0].Meta.Config.RunID, runs[1].Meta.Config.RunID; a == b || a == 0 {
		t.Errorf("run ids %#x and %#x: want two distinct ids", a, b)
	}
}
