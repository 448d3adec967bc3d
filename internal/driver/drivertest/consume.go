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
	const before = 20
	k := &consumeCheck{origin: time.Now(), sent: make([]atomic.Int64, consumeN), all: make(chan struct{})}
	k.send(t, pub, 0, before)
	time.Sleep(100 * time.Millisecond) // let them reach the subscriber's queue

	consumed := make(chan error, 1)
	go func() { consumed <- c.Consume(k.deliver) }()
	k.send(t, pub, before, consumeN)
	select {
	case <-k.all:
	case err := <-consumed:
		t.Fatalf("Consume returned %v before the %d messages arrived", err, consumeN)
	case <-time.After(Watchdog):
		k.mu.Lock()
		defer k.mu.Unlock()
		t.Fatalf("%d of %d messages consumed within %v", k.got, consumeN, Watchdog)
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
	k.mu.Lock()
	k.returned = true
	k.mu.Unlock()
	if len(k.bad) > 0 {
		t.Errorf("%d bad deliveries, the first: %s", len(k.bad), k.bad[0])
	}
	if err := c.Consume(func([]byte, int64) {}); err == nil {
		t.Error("a second Consume returned nil, want an error")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.after != 0 {
		t.Errorf("the consumer was called %d times after Consume returned", k.after)
	}
}

// consumeN and consumeSize are how many messages RunConsume sends, and of
// how many bytes.
const consumeN, consumeSize = 2000, 24

// consumeCheck is RunConsume's consumer: it checks each message it is
// handed against what was sent (got so far, the last arrival time, bad
// deliveries) and counts the calls after Consume returned (after).
type consumeCheck struct {
	// Send times as monotonic offsets from origin, atomic: the race
	// detector cannot see that a message's arrival follows its send.
	origin time.Time
	sent   []atomic.Int64
	all    chan struct{} // closed when every message arrived

	mu       sync.Mutex
	got      int
	after    int
	last     time.Time
	bad      []string
	returned bool
}

// send sends messages from to to (exclusive): each its number and the
// number's complement.
func (k *consumeCheck) send(t *testing.T, pub driver.Publisher, from, to int) {
	msg := make([]byte, consumeSize)
	for i := from; i < to; i++ {
		k.sent[i].Store(int64(time.Since(k.origin)))
		binary.LittleEndian.PutUint64(msg, uint64(i))
		binary.LittleEndian.PutUint64(msg[8:], ^uint64(i))
		if err := pub.Send(msg); err != nil {
			t.Errorf("Send %d: %v", i, err)
			return
		}
	}
}

// deliver is the consumer handed to Consume; at is a driver.Mono reading.
func (k *consumeCheck) deliver(msg []byte, mono int64) {
	now := time.Now()
	at := driver.MonoTime(mono)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.returned {
		k.after++
		return
	}
	i := int(binary.LittleEndian.Uint64(msg))
	switch {
	case len(msg) != consumeSize || i < 0 || i >= consumeN || binary.LittleEndian.Uint64(msg[8:]) != ^uint64(i):
		k.bad = append(k.bad, "corrupt message")
	case i != k.got:
		k.bad = append(k.bad, "out of order")
	case int64(at.Sub(k.origin)) < k.sent[i].Load() || at.After(now) || at.Before(k.last):
		k.bad = append(k.bad, "arrival time outside [send, call] or decreasing")
	}
	k.got++
	k.last = at
	if k.got == consumeN {
		close(k.all)
	}
}

// ConsumeLost checks that Consume on sub returns an error naming what was
// lost (want), not a timeout, once kill broke the link.
func ConsumeLost(t *testing.T, sub driver.Subscriber, kill func(), want string) {
	t.Helper()
	c := sub.(driver.Consumer)
	consumed := make(chan error, 1)
	go func() { consumed <- c.Consume(func([]byte, int64) {}) }()
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
