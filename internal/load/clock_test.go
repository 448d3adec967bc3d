package load

import (
	"errors"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// TestClockMono: a driver.Mono reading (a Consumer's arrival time) and the
// time.Time of the same instant convert to the same ns since the epoch,
// and Now lies between the readings around it.
func TestClockMono(t *testing.T) {
	c := NewClock()
	for _, d := range []time.Duration{0, time.Nanosecond, -time.Nanosecond, 3 * time.Second, -time.Hour, 240 * time.Hour} {
		at := time.Now().Add(d)
		if got, want := c.Mono(driver.MonoOf(at)), c.Ns(at); got != want {
			t.Errorf("%v: Mono gives %d, Ns %d", d, got, want)
		}
	}
	for range 1000 {
		before := driver.Mono()
		now := c.Now()
		after := driver.Mono()
		if now < c.Mono(before) || now > c.Mono(after) {
			t.Fatalf("Now %d not between %d and %d", now, c.Mono(before), c.Mono(after))
		}
	}
}

// TestConsumerLatencies: a subscriber that hands its messages to a
// consumer (driver.Consumer) has each one's latency recorded as its
// arrival (a Mono reading) minus its send time, to the ns in the raw
// samples, with its arrival time.
func TestConsumerLatencies(t *testing.T) {
	tp, _ := NewTopology(FanIn, 1, 0, 0)
	cfg := Config{Topology: tp, Payloads: []int{16}, MaxRaw: 100, RunID: 7}.WithDefaults()
	r := &run{cfg: cfg, payload: 16, tp: tp, clock: cfg.Clock, rec: NewRecorder(), delays: NewRecorder()}
	r.rawLeft.Store(100)
	// Send times on the run's clock; each message arrives k µs + k ns
	// after its send.
	sent := driver.Mono()
	link := &fakeConsumer{}
	for k := range int64(20) {
		msg := make([]byte, 16)
		Header{Seq: uint64(k), SendNs: uint64(r.clock.Mono(sent + k*1000)), RunID: 7}.Put(msg)
		link.msgs = append(link.msgs, msg)
		link.at = append(link.at, sent+k*1000+k*1001)
	}
	rv := r.newReceiver(SubLink{R: link}, 1)
	r.receive(rv, 16)
	if r.err != nil {
		t.Fatal(r.err)
	}
	raw, _ := rawOf([]*receiver{rv})
	if n := len(raw); n != len(link.msgs) {
		t.Fatalf("%d raw samples of %d messages", n, len(link.msgs))
	}
	for k, s := range raw {
		if want := int64(k) * 1001; s.Latency != want || s.At != r.clock.Mono(link.at[k]) || s.At != r.clock.Ns(driver.MonoTime(link.at[k])) {
			t.Errorf("message %d: latency %d ns at %d, want %d ns at %d", k, s.Latency, s.At, want, r.clock.Mono(link.at[k]))
		}
	}
}

// fakeConsumer is a subscriber whose Consume hands msgs over with their
// arrival times at, then returns as a closed subscriber's does.
type fakeConsumer struct {
	msgs [][]byte
	at   []int64
}

func (f *fakeConsumer) Consume(fn func([]byte, int64)) error {
	for k, m := range f.msgs {
		fn(m, f.at[k])
	}
	return nil
}

func (f *fakeConsumer) Receive([]byte, time.Time) (int, time.Time, error) {
	return 0, time.Time{}, errors.New("fakeConsumer: Receive called on a Consumer")
}

func (f *fakeConsumer) Close() error { return nil }

func (f *fakeConsumer) Addr() string { return "fake" }
