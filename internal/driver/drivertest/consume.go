package drivertest

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// RunConsume checks a driver.Consumer: messages published before Consume
// was called are handed over first, then the rest, every one once, in
// order, byte-exact, with arrival times that never decrease and lie
// between the send and the call; Close makes Consume return nil, and the
// consumer is never called after that. sub and pub are open ends of one
// reliable link (nothing may be lost) that the test closes.
func RunConsume(t *testing.T, sub driver.Subscriber, pub driver.Publisher) {
	t.Helper()
	c, ok := sub.(driver.Consumer)
	if !ok {
		t.Fatalf("%T is no driver.Consumer", sub)
	}
	const before, n, size = 20, 2000, 24
	// Send times as monotonic offsets, atomic: the race detector cannot
	// see that a message's arrival follows its send.
	origin := time.Now()
	sent := make([]atomic.Int64, n)
	send := func(from, to int) {
		msg := make([]byte, size)
		for i := from; i < to; i++ {
			sent[i].Store(int64(time.Since(origin)))
			binary.LittleEndian.PutUint64(msg, uint64(i))
			binary.LittleEndian.PutUint64(msg[8:], ^uint64(i))
			if err := pub.Send(msg); err != nil {
				t.Errorf("Send %d: %v", i, err)
				return
			}
		}
	}
	send(0, before)
	time.Sleep(100 * time.Millisecond) // let them reach the subscriber's queue

	var mu sync.Mutex
	got, after := 0, 0
	var last time.Time
	var bad []string
	returned := false
	all := make(chan struct{})
	consumed := make(chan error, 1)
	go func() {
		consumed <- c.Consume(func(msg []byte, at time.Time) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if returned {
				after++
				return
			}
			i := int(binary.LittleEndian.Uint64(msg))
			switch {
			case len(msg) != size || i < 0 || i >= n || binary.LittleEndian.Uint64(msg[8:]) != ^uint64(i):
				bad = append(bad, "corrupt message")
			case i != got:
				bad = append(bad, "out of order")
			case int64(at.Sub(origin)) < sent[i].Load() || at.After(now) || at.Before(last):
				bad = append(bad, "arrival time outside [send, call] or decreasing")
			}
			got++
			last = at
			if got == n {
				close(all)
			}
		})
	}()
	send(before, n)
	select {
	case <-all:
	case err := <-consumed:
		t.Fatalf("Consume returned %v before the %d messages arrived", err, n)
	case <-time.After(Watchdog):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%d of %d messages consumed within %v", got, n, Watchdog)
	}
	pub.Close()
	if err := sub.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-consumed:
		if err != nil {
			t.Errorf("Consume after Close = %v, want nil", err)
		}
	case <-time.After(Watchdog):
		t.Fatal("Consume did not return after Close")
	}
	mu.Lock()
	returned = true
	mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("%d bad deliveries, the first: %s", len(bad), bad[0])
	}
	if err := c.Consume(func([]byte, time.Time) {}); err == nil {
		t.Error("a second Consume returned nil, want an error")
	}
	mu.Lock()
	defer mu.Unlock()
	if after != 0 {
		t.Errorf("the consumer was called %d times after Consume returned", after)
	}
}

// ConsumeLost checks that Consume on sub returns an error naming what was
// lost (want), not a timeout, once kill broke the link.
func ConsumeLost(t *testing.T, sub driver.Subscriber, kill func(), want string) {
	t.Helper()
	c := sub.(driver.Consumer)
	consumed := make(chan error, 1)
	go func() { consumed <- c.Consume(func([]byte, time.Time) {}) }()
	time.Sleep(50 * time.Millisecond) // let Consume wait
	kill()
	select {
	case err := <-consumed:
		if err == nil || errors.Is(err, driver.ErrTimeout) || !strings.Contains(err.Error(), want) {
			t.Fatalf("Consume after the link broke = %v, want an error naming %q", err, want)
		}
		t.Log(err)
	case <-time.After(Watchdog):
		t.Fatal("Consume did not return after the link broke")
	}
}
