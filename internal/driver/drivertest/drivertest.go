package drivertest

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Config describes the transport under test.
type Config struct {
	Transport driver.Transport
	// Listen and Dial are the options of the echoer and the pinger.
	Listen, Dial driver.Options
	// Addr is where the echoer listens; default "127.0.0.1:0".
	Addr string
	// Sizes are the message sizes that must round-trip; default
	// DefaultSizes.
	Sizes []int
	// MaxAllocs is the most allocations one Send+Receive may make in a
	// steady state; negative skips the check.
	MaxAllocs float64
	// DeadEchoErr, when set, must hold for the error of a Receive after
	// the echoer was closed (beyond "it is an error").
	DeadEchoErr func(error) bool
	// OnePinger says that an echoer serves one pinger only (an in-process
	// link's two queues), so that TwoPingers is skipped.
	OnePinger bool
}

// DefaultSizes are the payloads of the built-in experiments (16 B … 16 KB
// in powers of two) and a few sizes that are not powers of two.
var DefaultSizes = []int{16, 17, 32, 64, 100, 128, 256, 512, 1000, 1024, 1400, 1500, 2048, 4096, 8000, 8192, 8193, 12345, 16384}

// Watchdog bounds any single step of the suite: it turns a hang into a
// failure, it is not a performance expectation.
const Watchdog = 20 * time.Second

// ReceiveDeadline is the deadline the suite gives a Receive that should
// succeed.
const ReceiveDeadline = 5 * time.Second

func (c Config) addr() string { return cmp.Or(c.Addr, "127.0.0.1:0") }

func (c Config) sizes() []int { return sizesOr(c.Sizes) }

// sizesOr is sizes, or DefaultSizes when nil.
func sizesOr(sizes []int) []int {
	if sizes != nil {
		return sizes
	}
	return DefaultSizes
}

// Run runs the conformance suite as subtests of t, then the checks the
// transport's declared capabilities imply (Capabilities, EchoDelay,
// BrokerDies). Addr may be a broker
// URL: the echoer is opened there with the Listen options and the pinger
// dials the echoer's Addr, so both must carry the same Topic (when both are
// empty, each test gets a topic of its own).
func Run(t *testing.T, c Config) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, c.forTest(t)) })
	t.Run("Timeout", func(t *testing.T) { testTimeout(t, c.forTest(t)) })
	t.Run("CloseUnblocksReceive", func(t *testing.T) { testCloseUnblocks(t, c.forTest(t)) })
	t.Run("DeadEcho", func(t *testing.T) { testDeadEcho(t, c.forTest(t)) })
	if !c.OnePinger {
		t.Run("TwoPingers", func(t *testing.T) { testTwoPingers(t, c.forTest(t)) })
	}
	t.Run("ServeStopsWithContext", func(t *testing.T) { testServeStops(t, c.forTest(t)) })
	t.Run("ShortBuffer", func(t *testing.T) { testShortBuffer(t, c.forTest(t)) })
	if c.MaxAllocs >= 0 {
		t.Run("Allocs", func(t *testing.T) { testAllocs(t, c.forTest(t)) })
	}
	RunDeclared(t, c)
}

// forTest gives a broker's ends a topic of their own for this test.
func (c Config) forTest(t testing.TB) Config {
	ownTopic(t, c.Transport, &c.Listen, &c.Dial)
	return c
}

// ownTopic gives a broker's two ends, a and b, a topic of their own for
// this test when neither has one.
func ownTopic(t testing.TB, tr driver.Transport, a, b *driver.Options) {
	if driver.IsBroker(tr) && a.Topic == "" && b.Topic == "" {
		a.Topic = TestTopic(t)
		b.Topic = a.Topic
	}
}

// Echo is a running echoer.
type Echo struct {
	driver.Echoer
	cancel context.CancelFunc
	done   chan error
}

// StartEcho listens with c's options and serves in a goroutine. The echoer
// is stopped and checked at the end of the test.
func StartEcho(t testing.TB, c Config) *Echo {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := c.Transport.Listen(ctx, c.addr(), c.Listen)
	if err != nil {
		cancel()
		t.Fatalf("Listen(%s): %v", c.addr(), err)
	}
	ec := &Echo{Echoer: e, cancel: cancel, done: make(chan error, 1)}
	go func() { ec.done <- e.Serve(ctx) }()
	t.Cleanup(func() { ec.Stop(t) })
	return ec
}

// Stop cancels Serve, checks it returned nil, and closes the echoer. It may
// be called more than once.
func (e *Echo) Stop(t testing.TB) {
	t.Helper()
	e.cancel()
	select {
	case err, ok := <-e.done:
		if ok && err != nil {
			t.Errorf("Serve: %v", err)
		}
		if ok {
			close(e.done)
		}
	case <-time.After(Watchdog):
		t.Errorf("Serve did not return %v after its context was cancelled", Watchdog)
	}
	if err := e.Close(); err != nil {
		t.Errorf("echoer Close: %v", err)
	}
}

// Dial dials the echoer with c's options; the pinger is closed at the end
// of the test.
func Dial(t testing.TB, c Config, addr string) driver.Pinger {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Watchdog)
	defer cancel()
	p, err := c.Transport.Dial(ctx, addr, c.Dial)
	if err != nil {
		t.Fatalf("Dial(%s): %v", addr, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// RoundTrip sends msg and receives its echo into buf. Like the engine, it
// skips echoes of earlier messages, which a reliable datagram transport
// produces when it resends a message whose echo was only late: an echo is
// taken as msg's when its first 8 bytes (the engine's sequence number)
// equal msg's, so callers make those unique.
func RoundTrip(p driver.Pinger, msg, buf []byte) (int, error) {
	if err := p.Send(msg); err != nil {
		return 0, fmt.Errorf("Send: %w", err)
	}
	deadline := time.Now().Add(ReceiveDeadline)
	k := min(8, len(msg))
	for {
		n, _, err := p.Receive(buf, deadline)
		if err != nil {
			return 0, fmt.Errorf("Receive: %w", err)
		}
		if n >= k && bytes.Equal(buf[:k], msg[:k]) {
			return n, nil
		}
	}
}

// withWatchdog runs f and fails the test if it does not return in time.
func withWatchdog(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(Watchdog):
		t.Fatalf("%s hung for %v", what, Watchdog)
	}
}

func testRoundTrip(t *testing.T, c Config) {
	e := StartEcho(t, c)
	p := Dial(t, c, e.Addr())
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := c.sizes()
	buf := make([]byte, slices.Max(sizes)+64)
	// Every size twice in a row, then all sizes again in reverse, so that
	// a transport carrying state from one message to the next is caught.
	var order []int
	for _, s := range sizes {
		order = append(order, s, s)
	}
	for i := len(sizes) - 1; i >= 0; i-- {
		order = append(order, sizes[i])
	}
	for i, size := range order {
		msg := make([]byte, size)
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		var n int
		var err error
		withWatchdog(t, "round trip", func() { n, err = RoundTrip(p, msg, buf) })
		if err != nil {
			t.Fatalf("message %d (%d B): %v", i, size, err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Fatalf("message %d: sent %d B, echo has %d B and differs at byte %d", i, size, n, firstDiff(buf[:n], msg))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func testTimeout(t *testing.T, c Config) {
	e := StartEcho(t, c)
	p := Dial(t, c, e.Addr())
	buf := make([]byte, 64)
	checkTimesOut(t, p, buf, "sent")
	// A deadline already past times out too.
	_, _, err := p.Receive(buf, time.Now().Add(-time.Second))
	if !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("Receive with a past deadline = %v, want driver.ErrTimeout", err)
	}
	// The link still works after timeouts.
	msg := []byte("0123456789abcdef")
	n, err := RoundTrip(p, msg, buf)
	if err != nil || !bytes.Equal(buf[:n], msg) {
		t.Fatalf("round trip after a timeout: %q, %v", buf[:n], err)
	}
}

// checkTimesOut: with nothing sent (done), a Receive on r with a deadline
// times out with driver.ErrTimeout.
func checkTimesOut(t *testing.T, r driver.Receiver, buf []byte, done string) {
	var err error
	withWatchdog(t, "Receive with a deadline", func() {
		_, _, err = r.Receive(buf, time.Now().Add(50*time.Millisecond))
	})
	if !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("Receive with nothing %s = %v, want an error wrapping driver.ErrTimeout", done, err)
	}
}

func testCloseUnblocks(t *testing.T, c Config) {
	e := StartEcho(t, c)
	checkCloseUnblocks(t, Dial(t, c, e.Addr()), "pinger")
}

// checkCloseUnblocks: Close unblocks a Receive without a deadline on r (a
// what), which then returns an error other than a timeout.
func checkCloseUnblocks(t *testing.T, r driver.Receiver, what string) {
	errc := make(chan error, 1)
	go func() {
		_, _, err := r.Receive(make([]byte, 64), time.Time{})
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // let Receive block
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if err == nil || errors.Is(err, driver.ErrTimeout) {
			t.Fatalf("Receive on a closed %s = %v, want a closed-link error", what, err)
		}
	case <-time.After(Watchdog):
		t.Fatal("Close did not unblock Receive")
	}
}

func testDeadEcho(t *testing.T, c Config) {
	e := StartEcho(t, c)
	p := Dial(t, c, e.Addr())
	buf := make([]byte, 64)
	msg := []byte("0123456789abcdef")
	if _, err := RoundTrip(p, msg, buf); err != nil {
		t.Fatal(err)
	}
	e.Stop(t)
	// The echoer is gone mid-run: the next round trip must fail, by a
	// timeout or a broken link, not hang past its deadline.
	var err error
	withWatchdog(t, "Receive from a dead echoer", func() {
		for range 3 {
			if err = p.Send(msg); err != nil {
				return
			}
			if _, _, err = p.Receive(buf, time.Now().Add(300*time.Millisecond)); err != nil {
				return
			}
		}
	})
	if err == nil {
		t.Fatal("round trips to a closed echoer succeeded")
	}
	if c.DeadEchoErr != nil && !c.DeadEchoErr(err) {
		t.Fatalf("error after the echoer died: %v", err)
	}
	t.Logf("after the echoer died: %v", err)
}

func testTwoPingers(t *testing.T, c Config) {
	e := StartEcho(t, c)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range 2 {
		p := Dial(t, c, e.Addr())
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 2048)
			for k := range 50 {
				msg := bytes.Repeat([]byte{byte(i), byte(k)}, 8+k*10) // unique first 8 bytes
				n, err := RoundTrip(p, msg, buf)
				if err != nil {
					errs <- fmt.Errorf("pinger %d message %d: %w", i, k, err)
					return
				}
				if !bytes.Equal(buf[:n], msg) {
					errs <- fmt.Errorf("pinger %d message %d: got another pinger's or a corrupt echo", i, k)
					return
				}
			}
		}()
	}
	withWatchdog(t, "two pingers", wg.Wait)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testServeStops(t *testing.T, c Config) {
	e := StartEcho(t, c)
	if _, err := RoundTrip(Dial(t, c, e.Addr()), []byte("0123456789abcdef"), make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	e.Stop(t) // Serve must return nil once its context is cancelled
}

func testShortBuffer(t *testing.T, c Config) {
	e := StartEcho(t, c)
	p := Dial(t, c, e.Addr())
	msg := make([]byte, 100)
	if err := p.Send(msg); err != nil {
		t.Fatal(err)
	}
	var err error
	withWatchdog(t, "Receive into a short buffer", func() {
		_, _, err = p.Receive(make([]byte, 50), time.Now().Add(ReceiveDeadline))
	})
	if err == nil || errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("Receive of a 100-byte echo into 50 bytes = %v, want an error", err)
	}
}

func testAllocs(t *testing.T, c Config) {
	e := StartEcho(t, c)
	p := Dial(t, c, e.Addr())
	for _, size := range []int{16, 16384} {
		msg := make([]byte, size)
		buf := make([]byte, size)
		msg[0] = byte(size)
		for range 10 { // warm up lazily allocated state
			if _, err := RoundTrip(p, msg, buf); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		allocs := testing.AllocsPerRun(200, func() {
			if err == nil {
				_, err = RoundTrip(p, msg, buf)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if allocs > c.MaxAllocs {
			t.Errorf("%d B round trip: %.1f allocations, want at most %.1f", size, allocs, c.MaxAllocs)
		}
	}
}
