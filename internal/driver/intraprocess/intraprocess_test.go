package intraprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// pair starts an echoer and dials it; the echoer stops with the test.
func pair(t testing.TB, opts driver.Options, serve bool) (driver.Pinger, driver.Echoer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := Transport{}.Listen(ctx, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Transport{}.Dial(ctx, e.Addr(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	if serve {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := e.Serve(ctx); err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		p.Close()
	})
	return p, e
}

func TestEcho(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		t.Run(fmt.Sprint("reliable=", reliable), func(t *testing.T) {
			p, _ := pair(t, driver.Options{Reliable: reliable, LargestMessage: 1024}, true)
			buf := make([]byte, 1024)
			for i, size := range []int{16, 17, 1000, 1024} {
				msg := bytes.Repeat([]byte{byte(i + 1)}, size)
				if err := p.Send(msg); err != nil {
					t.Fatal(err)
				}
				n, _, err := p.Receive(buf, time.Now().Add(5*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf[:n], msg) {
					t.Fatalf("echo of %d bytes differs", size)
				}
			}
			if err := p.Send(make([]byte, 1025)); err == nil {
				t.Error("sending more than LargestMessage succeeded")
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	p, _ := pair(t, driver.Options{}, false)
	_, _, err := p.Receive(make([]byte, 64), time.Now().Add(time.Millisecond))
	if !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("Receive without echo: %v, want ErrTimeout", err)
	}
}

// TestBestEffortDrops fills the ring of an echoer that does not serve: best
// effort drops what does not fit and counts it.
func TestBestEffortDrops(t *testing.T) {
	p, e := pair(t, driver.Options{QueueDepth: 4}, false)
	for i := 0; i < 10; i++ {
		if err := p.Send(make([]byte, 16)); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.(driver.CounterReader).Counters().Dropped; got != 6 {
		t.Errorf("pinger dropped = %d, want 6", got)
	}
	if got := e.(driver.CounterReader).Counters().Dropped; got != 6 {
		t.Errorf("echoer dropped = %d, want 6", got)
	}
}

// TestReliableNeverDrops sends a burst much larger than the rings, then
// reads every echo: reliable waits instead of dropping.
func TestReliableNeverDrops(t *testing.T) {
	p, _ := pair(t, driver.Options{Reliable: true, QueueDepth: 2}, true)
	const n = 1000
	done := make(chan error, 1)
	go func() {
		msg := make([]byte, 16)
		for i := 0; i < n; i++ {
			msg[0] = byte(i)
			if err := p.Send(msg); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	buf := make([]byte, 16)
	for i := 0; i < n; i++ {
		if _, _, err := p.Receive(buf, time.Now().Add(10*time.Second)); err != nil {
			t.Fatalf("echo %d: %v", i, err)
		}
		if buf[0] != byte(i) {
			t.Fatalf("echo %d carries %d", i, buf[0])
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := p.(driver.CounterReader).Counters().Dropped; got != 0 {
		t.Errorf("dropped = %d", got)
	}
}

func TestCloseUnblocksReceive(t *testing.T) {
	p, _ := pair(t, driver.Options{}, false)
	errc := make(chan error, 1)
	go func() {
		_, _, err := p.Receive(make([]byte, 16), time.Time{})
		errc <- err
	}()
	time.Sleep(time.Millisecond)
	p.Close()
	if err := <-errc; !errors.Is(err, driver.ErrClosed) {
		t.Errorf("Receive after Close: %v, want ErrClosed", err)
	}
}

func TestAddresses(t *testing.T) {
	ctx := context.Background()
	e, err := Transport{}.Listen(ctx, "named", driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Addr() != "named" {
		t.Errorf("Addr = %q", e.Addr())
	}
	if _, err := (Transport{}).Listen(ctx, "named", driver.Options{}); err == nil {
		t.Error("second Listen on the same name succeeded")
	}
	p, err := Transport{}.Dial(ctx, "named", driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := (Transport{}).Dial(ctx, "named", driver.Options{}); err == nil {
		t.Error("second pinger accepted")
	}
	if _, err := (Transport{}).Dial(ctx, "nowhere", driver.Options{}); err == nil {
		t.Error("Dial to a missing echoer succeeded")
	}
	if _, err := driver.Lookup(driver.Intraprocess); err != nil {
		t.Error(err)
	}
}

// TestOneP checks that spinning does not starve the peer when both ends
// share a single P.
func TestOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p, _ := pair(t, driver.Options{Reliable: true}, true)
	buf := make([]byte, 16)
	for i := 0; i < 100; i++ {
		if err := p.Send(buf); err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.Receive(buf, time.Now().Add(10*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip reports the in-process round trip (ns/op); half of it
// is what intraprocess sub-experiments write as latency.
func BenchmarkRoundTrip(b *testing.B) {
	for _, size := range []int{16, 1024, 16384} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			p, _ := pair(b, driver.Options{Reliable: true, LargestMessage: size}, true)
			msg := make([]byte, size)
			buf := make([]byte, size)
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := p.Send(msg); err != nil {
					b.Fatal(err)
				}
				if _, _, err := p.Receive(buf, time.Now().Add(10*time.Second)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChannelRoundTrip is the reference the rings are measured against:
// the same ping-pong over unbuffered channels.
func BenchmarkChannelRoundTrip(b *testing.B) {
	ping, pong := make(chan []byte), make(chan []byte)
	go func() {
		for m := range ping {
			pong <- m
		}
	}()
	msg := make([]byte, 16)
	for b.Loop() {
		ping <- msg
		<-pong
	}
	close(ping)
}
