package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// acking is a pinger whose system acknowledges every message from another
// goroutine (or within Send, with inline), refuses every refuseEvery-th,
// and stops acknowledging after the stall-th message.
type acking struct {
	driver.Pinger
	refuseEvery, stall int
	inline             bool

	mu      sync.Mutex
	cond    *sync.Cond
	f       func(error)
	sent    int
	settled int
	queue   chan int
}

func newAcking(p driver.Pinger, refuseEvery, stall int) *acking {
	a := &acking{Pinger: p, refuseEvery: refuseEvery, stall: stall, queue: make(chan int, 1<<16)}
	a.cond = sync.NewCond(&a.mu)
	go func() {
		for k := range a.queue {
			a.settle(k)
		}
	}()
	return a
}

func (a *acking) settle(k int) {
	if a.stall > 0 && k > a.stall {
		return
	}
	var err error
	if a.refuseEvery > 0 && k%a.refuseEvery == 0 {
		err = fmt.Errorf("refused message %d", k)
	}
	a.f(err)
	a.mu.Lock()
	a.settled++
	a.cond.Broadcast()
	a.mu.Unlock()
}

func (a *acking) OnAck(f func(error)) { a.f = f }

func (a *acking) Send(msg []byte) error {
	if a.f == nil {
		return errors.New("Send before OnAck")
	}
	a.mu.Lock()
	a.sent++
	k := a.sent
	a.mu.Unlock()
	if err := a.Pinger.Send(msg); err != nil {
		return err
	}
	if a.inline {
		a.settle(k)
		return nil
	}
	a.queue <- k
	return nil
}

func (a *acking) WaitAcks(deadline time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	wake := time.AfterFunc(time.Until(deadline), func() { a.mu.Lock(); a.cond.Broadcast(); a.mu.Unlock() })
	defer wake.Stop()
	for a.settled < a.sent {
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%d of %d unacknowledged: %w", a.sent-a.settled, a.sent, driver.ErrTimeout)
		}
		a.cond.Wait()
	}
	return nil
}

func (a *acking) Close() error {
	err := a.Pinger.Close()
	return err
}

var _ driver.AckSender = (*acking)(nil)

// TestAcksCounted: every measured message is acknowledged or refused by
// the time its payload ends, and the counts cover the measured messages
// only, whatever the timing of the acknowledgements.
func TestAcksCounted(t *testing.T) {
	cfg := Config{Payloads: []int{16, 64}, Samples: 100, Warmup: 10, Timeout: time.Minute}
	r := newRunner(t, cfg)
	sub := intraSub("intraprocess_reliable", true, func(p driver.Pinger) driver.Pinger { return newAcking(p, 10, 0) })
	if err := r.Run(context.Background(), []Sub{sub}); err != nil {
		t.Fatal(err)
	}
	s := r.Meta.SubExperiments[0]
	if !s.Acknowledged {
		t.Error("meta.json does not say the link acknowledged")
	}
	// Messages 11-110 are measured for payload 16, 121-220 for payload 64:
	// ten of each hundred are multiples of 10.
	for _, p := range s.Payloads {
		if p.MessagesAcked != 90 || p.MessagesRefused != 10 || p.Samples != 100 || !p.Completed {
			t.Errorf("payload %d: acked %d refused %d samples %d; want 90, 10, 100", p.Bytes, p.MessagesAcked, p.MessagesRefused, p.Samples)
		}
	}
}

// TestAckStall: a system that stops acknowledging stops the sub-experiment
// at the end of the payload (after the timeout), with what was measured.
// The echoes (a scripted pinger) and the acknowledgements (within Send) take
// no time, so the counts do not depend on the machine's load.
func TestAckStall(t *testing.T) {
	cfg := Config{Payloads: []int{16, 64}, Samples: 50, Warmup: 0, Timeout: 100 * time.Millisecond}
	r := newRunner(t, cfg)
	a := newAcking(&scripted{}, 0, 40)
	a.inline = true
	err := r.Run(context.Background(), []Sub{scriptedSub(a)})
	var se *StopError
	if !errors.As(err, &se) || se.Payload != 16 || !strings.Contains(err.Error(), "not acknowledged") {
		t.Fatalf("err = %v, want a stop at payload 16 for missing acknowledgements", err)
	}
	p := r.Meta.SubExperiments[0].Payloads[0]
	if p.Samples != 50 || p.MessagesAcked != 40 || p.Completed {
		t.Errorf("payload %+v; want 50 samples, 40 acked, not completed", p)
	}
}
