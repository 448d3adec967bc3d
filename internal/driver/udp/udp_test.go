package udp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func TestMain(m *testing.M) {
	drivertest.ServeEchoProcess(Transport{})
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		name := map[bool]string{false: "BestEffort", true: "Reliable"}[reliable]
		t.Run(name, func(t *testing.T) {
			drivertest.Run(t, drivertest.Config{
				Transport: Transport{},
				Dial:      driver.Options{Reliable: reliable},
			})
		})
	}
}

func TestRegistered(t *testing.T) {
	if tr, err := driver.Lookup(driver.UDP); err != nil || tr.Name() != driver.UDP {
		t.Fatalf("Lookup(udp) = %v, %v", tr, err)
	}
}

// seqMsg returns a size-byte message carrying seq in its first 8 bytes, as
// the engine writes it.
func seqMsg(seq uint64, size int) []byte {
	m := make([]byte, size)
	binary.LittleEndian.PutUint64(m, seq)
	for i := 16; i < size; i++ {
		m[i] = byte(seq) ^ byte(i)
	}
	return m
}

// receiveSeq receives until the echo of seq arrives, skipping duplicate
// echoes of earlier messages as the engine does, and returns how many it
// skipped.
func receiveSeq(p driver.Pinger, seq uint64, buf []byte, deadline time.Time) (skipped int, n int, err error) {
	for {
		n, _, err = p.Receive(buf, deadline)
		if err != nil {
			return skipped, 0, err
		}
		if n >= 8 && binary.LittleEndian.Uint64(buf) == seq {
			return skipped, n, nil
		}
		skipped++
	}
}

func TestReliableSurvivesLoss(t *testing.T) {
	const every, messages = 10, 300
	e := drivertest.StartEcho(t, drivertest.Config{Transport: Transport{}})
	relay := drivertest.NewLossyRelay(t, e.Addr(), every, 0)
	c := drivertest.Config{Transport: Transport{}, Dial: driver.Options{Reliable: true, RetransmitTimeout: 2 * time.Millisecond, MaxRetries: 20}}
	p := drivertest.Dial(t, c, relay.Addr())
	buf := make([]byte, 20000)
	for seq := uint64(1); seq <= messages; seq++ {
		msg := seqMsg(seq, 16+int(seq*53)%16000)
		if err := p.Send(msg); err != nil {
			t.Fatal(err)
		}
		_, n, err := receiveSeq(p, seq, buf, time.Now().Add(drivertest.ReceiveDeadline))
		if err != nil {
			t.Fatalf("message %d lost on a reliable link: %v", seq, err)
		}
		if !bytes.Equal(buf[:n], msg) {
			t.Fatalf("message %d: echo differs", seq)
		}
	}
	got := p.(driver.CounterReader).Counters().Retransmitted
	// Each drop costs at least one resend; a resend can itself be dropped.
	if dropped := relay.Dropped(); dropped < messages/every || got < dropped {
		t.Fatalf("relay dropped %d datagrams, pinger counted %d retransmissions; want dropped ≥ %d and retransmissions ≥ dropped",
			dropped, got, messages/every)
	}
	t.Logf("dropped %d, retransmitted %d", relay.Dropped(), got)
}

func TestBestEffortReportsLossAsTimeout(t *testing.T) {
	const every, messages = 10, 100
	e := drivertest.StartEcho(t, drivertest.Config{Transport: Transport{}})
	relay := drivertest.NewLossyRelay(t, e.Addr(), every, 0)
	p := drivertest.Dial(t, drivertest.Config{Transport: Transport{}}, relay.Addr())
	buf := make([]byte, 64)
	lost := 0
	for seq := uint64(1); seq <= messages; seq++ {
		seen := relay.Seen()
		if err := p.Send(seqMsg(seq, 16)); err != nil {
			t.Fatal(err)
		}
		// Whether the relay dropped this datagram decides what the pinger must
		// report; waiting for the relay to see it keeps the test independent of
		// how slow a loaded machine is.
		for wait := time.Now().Add(drivertest.ReceiveDeadline); relay.Seen() == seen; {
			if time.Now().After(wait) {
				t.Fatalf("message %d never reached the relay", seq)
			}
			time.Sleep(time.Millisecond)
		}
		deadline := time.Now().Add(drivertest.ReceiveDeadline)
		wasDropped := relay.Seen()%every == 0 // the relay's rule, with no skip
		if wasDropped {
			// Nothing can arrive: a short wait proves the timeout.
			deadline = time.Now().Add(100 * time.Millisecond)
		}
		_, _, err := receiveSeq(p, seq, buf, deadline)
		switch {
		case errors.Is(err, driver.ErrTimeout) && wasDropped:
			lost++
		case err != nil:
			t.Fatalf("message %d (dropped by the relay: %v): %v", seq, wasDropped, err)
		case wasDropped:
			t.Fatalf("message %d was dropped by the relay but the pinger received an echo", seq)
		}
	}
	if lost != messages/every || uint64(lost) != relay.Dropped() {
		t.Fatalf("%d messages timed out, want %d (every %dth dropped), relay dropped %d", lost, messages/every, every, relay.Dropped())
	}
	if c := p.(driver.CounterReader).Counters(); c.Retransmitted != 0 {
		t.Fatalf("best-effort pinger retransmitted %d times", c.Retransmitted)
	}
}

func TestReliableGivesUpAfterMaxRetries(t *testing.T) {
	// A relay that drops everything after the first datagram.
	e := drivertest.StartEcho(t, drivertest.Config{Transport: Transport{}})
	relay := drivertest.NewLossyRelay(t, e.Addr(), 1, 0)
	c := drivertest.Config{Transport: Transport{}, Dial: driver.Options{Reliable: true, RetransmitTimeout: time.Millisecond, MaxRetries: 3}}
	p := drivertest.Dial(t, c, relay.Addr())
	if err := p.Send(seqMsg(1, 16)); err != nil {
		t.Fatal(err)
	}
	_, _, err := p.Receive(make([]byte, 64), time.Now().Add(2*time.Second))
	if !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("Receive = %v, want a timeout", err)
	}
	if got := p.(driver.CounterReader).Counters().Retransmitted; got != 3 {
		t.Fatalf("retransmitted %d times, want MaxRetries = 3", got)
	}
}

func TestEchoProcessKilled(t *testing.T) {
	c := drivertest.Config{Transport: Transport{}}
	ep := drivertest.StartEchoProcess(t, c)
	p := drivertest.Dial(t, c, ep.Addr)
	buf := make([]byte, 64)
	if _, err := drivertest.RoundTrip(p, seqMsg(1, 16), buf); err != nil {
		t.Fatal(err)
	}
	ep.Kill()
	// The next exchange ends in an error: connection refused once the
	// kernel reports the closed port, or a timeout.
	var err error
	for seq := uint64(2); seq < 5 && err == nil; seq++ {
		if err = p.Send(seqMsg(seq, 16)); err == nil {
			_, _, err = p.Receive(buf, time.Now().Add(500*time.Millisecond))
		}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("after the echo process died: %v, want connection refused or a timeout", err)
	}
	t.Log(err)
}

func BenchmarkRoundTripUDP(b *testing.B) {
	for _, size := range []int{16, 16384} {
		b.Run(sizeName(size), func(b *testing.B) {
			drivertest.BenchmarkRoundTrip(b, drivertest.Config{Transport: Transport{}}, size)
		})
	}
}

func BenchmarkRoundTripUDPReliable(b *testing.B) {
	for _, size := range []int{16, 16384} {
		b.Run(sizeName(size), func(b *testing.B) {
			drivertest.BenchmarkRoundTrip(b, drivertest.Config{Transport: Transport{}, Dial: driver.Options{Reliable: true}}, size)
		})
	}
}

func sizeName(n int) string {
	if n >= 1024 {
		return itoa(n/1024) + "KB"
	}
	return itoa(n) + "B"
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
