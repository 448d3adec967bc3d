package drivertest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// StreamConfig describes a one-way transport under test.
type StreamConfig struct {
	Transport driver.StreamTransport
	// Subscribe and Publish are the options of the two ends. For a
	// broker, give both the same Topic (empty: one per test).
	Subscribe, Publish driver.Options
	// Addr is where the subscriber listens (default "127.0.0.1:0"), or the
	// broker URL; publishers are given the subscriber's Addr.
	Addr string
	// Sizes are the message sizes that must arrive intact; default
	// DefaultSizes.
	Sizes []int
	// Burst is how many messages are published back to back and must all
	// arrive, in order; 0 means 100 when Publish.Reliable and none
	// otherwise (a best-effort link may drop a burst).
	Burst int
}

// RunStream runs the one-way conformance suite as subtests of t: messages
// arrive byte-exact, arrival times lie between the send and the return of
// Receive and never decrease, Receive times out with driver.ErrTimeout,
// Close unblocks Receive, a burst arrives whole and in order on a reliable
// link, and the subscriber's Addr is what publishers are given.
func RunStream(t *testing.T, c StreamConfig) {
	t.Run("Intact", func(t *testing.T) { testStreamIntact(t, c.forTest(t)) })
	t.Run("Timeout", func(t *testing.T) { testStreamTimeout(t, c.forTest(t)) })
	t.Run("CloseUnblocksReceive", func(t *testing.T) { testStreamClose(t, c.forTest(t)) })
	if c.burst() > 0 {
		t.Run("Burst", func(t *testing.T) { testStreamBurst(t, c.forTest(t)) })
	}
}

func (c StreamConfig) burst() int {
	if c.Burst == 0 && c.Publish.Reliable {
		return 100
	}
	return c.Burst
}

// forTest gives a broker's ends a topic of their own for this test.
func (c StreamConfig) forTest(t testing.TB) StreamConfig {
	ownTopic(t, c.Transport, &c.Subscribe, &c.Publish)
	return c
}

// TestTopic is a topic unique to the test and this process, for broker
// ends: letters, digits and "-" only, which every broker accepts.
func TestTopic(t testing.TB) string {
	var b bytes.Buffer
	b.WriteString("mqgate-test-")
	for _, r := range t.Name() {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	fmt.Fprintf(&b, "-%d", rand.Uint32())
	return b.String()
}

func (c StreamConfig) addr() string { return cmp.Or(c.Addr, "127.0.0.1:0") }

// StartStream opens a subscriber and a publisher given the subscriber's
// Addr; both are closed at the end of the test.
func StartStream(t testing.TB, c StreamConfig) (driver.Subscriber, driver.Publisher) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Watchdog)
	defer cancel()
	s, err := c.Transport.Subscribe(ctx, c.addr(), c.Subscribe)
	if err != nil {
		t.Fatalf("Subscribe(%s): %v", driver.RedactURL(c.addr()), err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Addr() == "" || (!driver.IsBroker(c.Transport) && len(s.Addr()) > 2 && s.Addr()[len(s.Addr())-2:] == ":0") {
		t.Fatalf("subscriber Addr %q: want the address publishers reach, port resolved", s.Addr())
	}
	p, err := c.Transport.Publish(ctx, s.Addr(), c.Publish)
	if err != nil {
		t.Fatalf("Publish(%s): %v", driver.RedactURL(s.Addr()), err)
	}
	t.Cleanup(func() { p.Close() })
	if as, ok := p.(driver.AckSender); ok {
		as.OnAck(func(error) {})
	}
	return s, p
}

func (c StreamConfig) sizes() []int { return sizesOr(c.Sizes) }

// receiveSeq receives until a message whose first 8 bytes are seq arrives
// (a best-effort link may deliver a late one first).
func receiveSeq(s driver.Subscriber, buf []byte, seq uint64, deadline time.Time) (int, time.Time, error) {
	for {
		n, at, err := s.Receive(buf, deadline)
		if err != nil {
			return 0, at, err
		}
		if n >= 8 && binary.LittleEndian.Uint64(buf) == seq {
			return n, at, nil
		}
	}
}

func testStreamIntact(t *testing.T, c StreamConfig) {
	s, p := StartStream(t, c)
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, slices.Max(c.sizes())+64)
	var last time.Time
	for i, size := range c.sizes() {
		msg := make([]byte, max(size, 8))
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		binary.LittleEndian.PutUint64(msg, uint64(i+1))
		var n int
		var at, sent, back time.Time
		var err error
		withWatchdog(t, "publish and receive", func() {
			sent = time.Now()
			if err = p.Send(msg); err != nil {
				return
			}
			n, at, err = receiveSeq(s, buf, uint64(i+1), time.Now().Add(ReceiveDeadline))
			back = time.Now()
		})
		if err != nil {
			t.Fatalf("message %d (%d B): %v", i, size, err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Fatalf("message %d: sent %d B, received %d B differing at byte %d", i, len(msg), n, firstDiff(buf[:n], msg))
		}
		// Arrival times come from the monotonic clock: after the send,
		// before Receive returned, never before the previous one.
		if at.Before(sent) || at.After(back) || at.Before(last) {
			t.Fatalf("message %d: arrival %v is not between the send %v and the return of Receive %v, or before the previous arrival %v",
				i, at, sent, back, last)
		}
		last = at
	}
}

func testStreamTimeout(t *testing.T, c StreamConfig) {
	s, p := StartStream(t, c)
	buf := make([]byte, 64)
	checkTimesOut(t, s, buf, "published")
	// The link still works after a timeout.
	msg := []byte("0123456789abcdef")
	binary.LittleEndian.PutUint64(msg, 77)
	if err := p.Send(msg); err != nil {
		t.Fatal(err)
	}
	n, _, err := receiveSeq(s, buf, 77, time.Now().Add(ReceiveDeadline))
	if err != nil || !bytes.Equal(buf[:n], msg) {
		t.Fatalf("message after a timeout: %q, %v", buf[:n], err)
	}
}

func testStreamClose(t *testing.T, c StreamConfig) {
	s, _ := StartStream(t, c)
	checkCloseUnblocks(t, s, "subscriber")
}

func testStreamBurst(t *testing.T, c StreamConfig) {
	s, p := StartStream(t, c)
	n := c.burst()
	msg := make([]byte, 100)
	buf := make([]byte, 200)
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			binary.LittleEndian.PutUint64(msg, uint64(i+1))
			if err := p.Send(msg); err != nil {
				errc <- fmt.Errorf("Send %d: %w", i+1, err)
				return
			}
		}
		errc <- nil
	}()
	var last time.Time
	for i := range n {
		var k int
		var at time.Time
		var err error
		withWatchdog(t, "Receive of a burst", func() { k, at, err = s.Receive(buf, time.Now().Add(ReceiveDeadline)) })
		if err != nil {
			t.Fatalf("message %d of %d: %v", i+1, n, err)
		}
		if got := binary.LittleEndian.Uint64(buf); k != len(msg) || got != uint64(i+1) {
			t.Fatalf("message %d of %d: got sequence %d (%d B); a reliable link delivers every message once, in order", i+1, n, got, k)
		}
		if at.Before(last) {
			t.Fatalf("message %d arrived at %v, before the previous one (%v)", i+1, at, last)
		}
		last = at
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
