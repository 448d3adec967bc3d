package permessage

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
)

// handLink delivers a message the moment Send is given it and stamps its
// arrival then; Send itself returns only block later (a client library
// that blocks while it flushes). skew moves the arrival stamps, as a
// driver whose clock is not the sender's would.
type handLink struct {
	block, skew time.Duration
	got         chan handed
	handedAt    []time.Time // when Send was entered, by message
}

type handed struct {
	msg []byte
	at  time.Time
}

func (l *handLink) Send(msg []byte) error {
	at := time.Now()
	l.handedAt = append(l.handedAt, at)
	l.got <- handed{bytes.Clone(msg), at.Add(l.skew)}
	time.Sleep(l.block)
	return nil
}

func (l *handLink) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	select {
	case h := <-l.got:
		return copy(buf, h.msg), h.at, nil
	case <-time.After(time.Until(deadline)):
		return 0, time.Time{}, driver.ErrTimeout
	}
}

func (l *handLink) Addr() string { return "hand" }
func (l *handLink) Close() error { return nil }

func handEnds(l *handLink) *load.Ends {
	return &load.Ends{Pubs: []load.PubEnd{{Senders: []driver.Publisher{l}}}, Subs: []load.SubLink{{R: l}}}
}

// TestSendStampBeforeSend: O_n is the moment the message is handed to the
// client library, so a Send that blocks after handing it over cannot make
// the latency negative (it was −block with O_n read after Send returned).
// The link's own record of when it was handed each message bounds O_n
// from above: O_n ≤ handed_n, and L_n = I_n − O_n is the short time
// between the two, well under the blocking.
func TestSendStampBeforeSend(t *testing.T) {
	const block = 3 * time.Millisecond
	l := &handLink{block: block, got: make(chan handed, 100)}
	cfg := Config{Count: 40, Window: 5, CPUEvery: 10, Timeout: 5 * time.Second}.WithDefaults()
	pm, err := Measure(context.Background(), handEnds(l), 32, cfg)
	if err != nil || pm.Lost != 0 {
		t.Fatalf("%v, %d lost", err, pm.Lost)
	}
	for n, v := range pm.L() {
		// handed_n − I_n is 0 (the link delivers at once): L_n is the
		// delay between taking O_n and entering Send.
		if v < 0 || v >= float64(block) {
			t.Fatalf("message %d: L = %.0f ns, want 0 ≤ L < %v (the Send blocked for %v after handing it over)", n, v, block, block)
		}
	}
	if a := Aggregates(pm)[qL]; a.Count != cfg.Count || a.Min < 0 {
		t.Fatalf("L aggregate %+v", a.Aggregate)
	}
}

// TestNegativeLatencyFailsTheRun: a message delivered before it was sent
// (an arrival stamp from another clock) is an error of the run, counted
// and reported, never a latency sample.
func TestNegativeLatencyFailsTheRun(t *testing.T) {
	l := &handLink{skew: -50 * time.Millisecond, got: make(chan handed, 100)}
	cfg := Config{Count: 30, Window: 5, CPUEvery: 10, Timeout: 5 * time.Second}.WithDefaults()
	pm, err := Measure(context.Background(), handEnds(l), 32, cfg)
	if !errors.Is(err, ErrNegativeLatency) || !strings.Contains(err.Error(), "30 of 30 messages") {
		t.Fatalf("error %v, want ErrNegativeLatency naming 30 of 30 messages", err)
	}
	if pm == nil || pm.Negative != 30 {
		t.Fatalf("negative latencies counted: %+v", pm)
	}
	if a := Aggregates(pm)[qL]; a.Count != 0 || !math.IsNaN(a.Median) {
		t.Fatalf("a negative latency became a sample: %+v", a.Aggregate)
	}
}
