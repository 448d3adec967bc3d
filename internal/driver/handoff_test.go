package driver

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func newTestHandoff(depth int, drop bool) (*Handoff, chan struct{}) {
	lost := make(chan struct{})
	return NewHandoff(HandoffConfig{Name: "test", Depth: depth, Drop: drop, Lost: lost,
		LostErr: func() error { return fmt.Errorf("test: link lost: %w", ErrClosed) },
		Closed:  fmt.Errorf("test: receiving: %w", ErrClosed),
		Timeout: fmt.Errorf("test: nothing arrived: %w", ErrTimeout)}), lost
}

// TestHandoffReceive: messages come out in order with the time Deliver was
// called; a full queue drops (counted) or holds the handler back; the
// deadline, Close and the loss end Receive with their errors.
func TestHandoffReceive(t *testing.T) {
	h, _ := newTestHandoff(2, true)
	before := time.Now()
	for i := range 5 {
		h.Deliver([]byte{byte(i)})
	}
	if h.Dropped() != 3 || h.Queued() != 2 {
		t.Fatalf("dropped %d, queued %d; want 3 and 2", h.Dropped(), h.Queued())
	}
	buf := make([]byte, 4)
	for want := range 2 {
		n, at, err := h.Receive(buf, time.Now().Add(time.Second))
		if err != nil || n != 1 || buf[0] != byte(want) || at.Before(before) || at.After(time.Now()) {
			t.Fatalf("message %d: n %d, byte %d, at %v, err %v", want, n, buf[0], at, err)
		}
	}
	if _, _, err := h.Receive(buf, time.Now().Add(10*time.Millisecond)); !errors.Is(err, ErrTimeout) {
		t.Fatalf("empty: %v, want a timeout", err)
	}
	h.Deliver(make([]byte, 8))
	if _, _, err := h.Receive(buf, time.Time{}); err == nil || err.Error() != "test: a 8-byte message does not fit the 4-byte receive buffer" {
		t.Fatalf("too large: %v", err)
	}
	h.Close()
	if _, _, err := h.Receive(buf, time.Time{}); !errors.Is(err, ErrClosed) || err.Error() != "test: receiving: connection closed" {
		t.Fatalf("closed: %v", err)
	}

	// Without Drop the handler waits for room, and Close releases it.
	w, lost := newTestHandoff(1, false)
	w.Deliver([]byte{1})
	released := make(chan struct{})
	go func() { w.Deliver([]byte{2}); close(released) }()
	select {
	case <-released:
		t.Fatal("Deliver did not wait for room")
	case <-time.After(20 * time.Millisecond):
	}
	if n, _, err := w.Receive(buf, time.Time{}); err != nil || n != 1 || buf[0] != 1 {
		t.Fatalf("first: %d %d %v", n, buf[0], err)
	}
	<-released
	// What arrived before the loss is still received; then the loss.
	close(lost)
	if n, _, err := w.Receive(buf, time.Time{}); err != nil || n != 1 || buf[0] != 2 {
		t.Fatalf("after the loss, the queued message: %d %d %v", n, buf[0], err)
	}
	if _, _, err := w.Receive(buf, time.Time{}); err == nil || err.Error() != "test: link lost: connection closed" {
		t.Fatalf("lost: %v", err)
	}
}

// TestHandoffConsume: Consume takes what was queued first, then every
// message on the handler's goroutine, in order; it returns nil on Close,
// the loss when the link is lost, and refuses a second call.
func TestHandoffConsume(t *testing.T) {
	for _, end := range []string{"close", "lost"} {
		t.Run(end, func(t *testing.T) {
			h, lost := newTestHandoff(4, false)
			since := Mono()
			h.Deliver([]byte{0})
			h.Deliver([]byte{1})
			var (
				mu  sync.Mutex
				got []byte
			)
			started := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				close(started)
				done <- h.Consume(func(msg []byte, at int64) {
					// The arrival time is the Mono reading of the
					// Deliver that handed the message over.
					if at < since || at > Mono() {
						t.Errorf("arrival %d not between the first Deliver's start (%d) and the call", at, since)
					}
					mu.Lock()
					got = append(got, msg[0])
					mu.Unlock()
				})
			}()
			<-started
			for i := 2; i < 100; i++ {
				h.Deliver([]byte{byte(i)})
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n == 100 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("consumed %d of 100", n)
				}
				time.Sleep(time.Millisecond)
			}
			for i, b := range got {
				if int(b) != i {
					t.Fatalf("message %d consumed as %d: out of order", i, b)
				}
			}
			if err := h.Consume(func([]byte, int64) {}); err == nil || err.Error() != "test: Consume called twice" {
				t.Errorf("second Consume: %v", err)
			}
			if end == "close" {
				h.Close()
				if err := <-done; err != nil {
					t.Errorf("Consume after Close: %v, want nil", err)
				}
			} else {
				close(lost)
				if err := <-done; !errors.Is(err, ErrClosed) || err.Error() != "test: link lost: connection closed" {
					t.Errorf("Consume after the loss: %v", err)
				}
			}
			mu.Lock()
			n := len(got)
			mu.Unlock()
			h.Deliver([]byte{200}) // after Consume returned: queued, not consumed
			if mu.Lock(); len(got) != n {
				t.Error("the consumer was called after Consume returned")
			}
			mu.Unlock()
		})
	}
}
