package load

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/loadsummary"
)

// stampTransport is the in-process link whose publishers take delay over
// each send and note, per intended send time the header carries, the
// clock's reading when Send was called: the test's own record of the
// actual send times.
type stampTransport struct {
	intraprocess.Transport
	delay time.Duration
	clock *Clock
	mu    *sync.Mutex
	sent  map[uint64]int64 // intended send ns → Send called, ns
}

type stampPublisher struct {
	driver.Publisher
	t *stampTransport
}

func (p stampPublisher) Send(msg []byte) error {
	at := p.t.clock.Now()
	p.t.mu.Lock()
	p.t.sent[binary.LittleEndian.Uint64(msg)] = at
	p.t.mu.Unlock()
	time.Sleep(p.t.delay)
	return p.Publisher.Send(msg)
}

func (t *stampTransport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	p, err := t.Transport.Publish(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	return stampPublisher{p, t}, nil
}

// median is the lower median of v (HDR's p50 is the value at or below
// which half the values lie).
func median(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// TestLatencyFromActualSend: a publisher that takes 3 ms per send cannot
// keep to 500 msg/s, so it sends every message late. The latency from the
// intended send time (the headline) holds that lateness; the latency from
// the actual send beside it does not. Both are checked against the raw
// samples (arrival and intended-time latency) and the test's own record
// of when each Send was called, and the summary and closing line label
// them.
func TestLatencyFromActualSend(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads = []int{16}
	cfg.Duration = time.Second
	cfg.Clock = NewClock()
	tr := &stampTransport{delay: 3 * time.Millisecond, clock: cfg.Clock, mu: &sync.Mutex{}, sent: map[uint64]int64{}}
	links := Links{Transport: tr, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	var out bytes.Buffer
	cfg.Observers = []Observer{&Progress{W: &out}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.Raw) < 50 || len(r.Raw) != int(r.Unique) {
		t.Fatalf("%d raw samples of %d deliveries: too few to compare", len(r.Raw), r.Unique)
	}
	var intended, actual []int64
	for _, s := range r.Raw {
		sentAt, ok := tr.sent[uint64(s.At-s.Latency)]
		if !ok {
			t.Fatalf("raw sample %+v: no send with its intended time %d", s, s.At-s.Latency)
		}
		intended, actual = append(intended, s.Latency), append(actual, s.At-sentAt)
	}
	if r.FromSend.Count != int64(r.Unique) || r.Unpaired != 0 {
		t.Errorf("latency from the actual send: %d values, %d unpaired, want %d and 0", r.FromSend.Count, r.Unpaired, r.Unique)
	}
	// HDR keeps 3 significant digits; the code reads the clock a few
	// instructions before Send is called, the test at its start.
	near := func(what string, got, want int64) {
		t.Helper()
		if d := got - want; d < -want/500-1 || d > want/500+50_000 {
			t.Errorf("%s p50 %d ns, the raw samples give %d ns", what, got, want)
		}
	}
	near("latency from the intended send time", r.Latency.P50Ns, median(intended))
	near("latency from the actual send", r.FromSend.P50Ns, median(actual))
	// The lateness: every message sent after its slot, by up to a period
	// of 2 ms after the 3 ms sends, on average well above nothing.
	if median(intended)-median(actual) < 100_000 || r.SendDelay.P50Ns < 100_000 {
		t.Errorf("send delay p50 %d ns, intended−actual p50 %d ns: the test's publisher was not late", r.SendDelay.P50Ns, median(intended)-median(actual))
	}
	sum := SummaryOf(&r, cfg)
	if sum.LatencyFromSend != r.FromSend || !strings.HasPrefix(sum.LatencyFrom, "intended send time") || sum.LatencyP50Us == nil || *sum.LatencyP50Us != float64(r.Latency.P50Ns)/1e3 {
		t.Errorf("summary: latency_from %q, latency_from_send %+v, latency_p50_us %v", sum.LatencyFrom, sum.LatencyFromSend, sum.LatencyP50Us)
	}
	line := out.String()
	for _, want := range []string{"latency from the intended send time p50 ", "from the actual send p50 ", "send delay p50 ",
		"note: delivered ", "the publishers did not keep up", "note: send delay p50 "} {
		if !strings.Contains(line, want) {
			t.Errorf("console lacks %q:\n%s", want, line)
		}
	}
}

// TestLatencyFromSendUnpaced: unpaced, the intended send time is the send
// call, and the summary says so.
func TestLatencyFromSendUnpaced(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads, cfg.Rate, cfg.MaxRaw = []int{16}, 0, -1
	cfg.Duration = 100 * time.Millisecond
	links := Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum := SummaryOf(&res[0], cfg.WithDefaults())
	if sum.LatencyFromSend != sum.Latency || sum.LatencyFrom != LatencyFrom(0) || !strings.Contains(sum.LatencyFrom, "unpaced") {
		t.Errorf("unpaced: latency_from %q, latency %+v, latency_from_send %+v", sum.LatencyFrom, sum.Latency, sum.LatencyFromSend)
	}
}

// slowSubTransport is the in-process link whose subscribers take delay
// over each receive: deliveries last longer than the sending.
type slowSubTransport struct {
	intraprocess.Transport
	delay time.Duration
}

type slowSubscriber struct {
	driver.Subscriber
	delay time.Duration
}

func (s slowSubscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, at, err := s.Subscriber.Receive(buf, deadline)
	if err == nil {
		time.Sleep(s.delay)
	}
	return n, at, err
}

func (t slowSubTransport) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	s, err := t.Transport.Subscribe(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	return slowSubscriber{s, t.delay}, nil
}

// TestReceiveRateSpecFormula: a subscriber that takes 4 ms per message
// receives 500 msg/s of sending over about 2 s. receive_rate is the
// MQTT-bench spec's messages received / duration, the measured period
// (as send_rate is), and the rate over the period to the last delivery
// keeps its own name; the sent bytes of each publisher are its messages
// times the payload.
func TestReceiveRateSpecFormula(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads = []int{100}
	cfg.Duration = time.Second
	links := Links{Transport: slowSubTransport{delay: 4 * time.Millisecond}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	sum := SummaryOf(&r, cfg)
	if r.Unique == 0 || !r.Drained {
		t.Fatalf("%d delivered, drained %v", r.Unique, r.Drained)
	}
	if sum.MeasuredS != cfg.Duration.Seconds() {
		t.Fatalf("measured %g s, want the duration %g s", sum.MeasuredS, cfg.Duration.Seconds())
	}
	if sum.ReceivePeriodS < 1.2*sum.MeasuredS {
		t.Fatalf("deliveries took %g s for %g s of sending: the test's subscriber was not slow", sum.ReceivePeriodS, sum.MeasuredS)
	}
	// The spec's formula from the counts.
	if want := float64(sum.Received) / cfg.Duration.Seconds(); sum.ReceiveRate != want {
		t.Errorf("receive_rate %g, want received %d / duration %g s = %g", sum.ReceiveRate, sum.Received, cfg.Duration.Seconds(), want)
	}
	if want := float64(sum.Received) / sum.ReceivePeriodS; sum.ReceiveRateToLastDelivery != want {
		t.Errorf("receive_rate_to_last_delivery %g, want %d / %g s = %g", sum.ReceiveRateToLastDelivery, sum.Received, sum.ReceivePeriodS, want)
	}
	if want := sum.ReceiveRate * 100 * 8 / 1e6; sum.ReceiveMbps != want {
		t.Errorf("receive_mbps %g, want %g", sum.ReceiveMbps, want)
	}
	p := sum.Publishers[0]
	if p.SentBytes != p.Sent*100 || p.SentBytes == 0 || p.SentBytes != r.Counters.BytesSent {
		t.Errorf("publisher sent_bytes %d, want %d × 100 B (counters %d)", p.SentBytes, p.Sent, r.Counters.BytesSent)
	}
	if sum.OfferedTotal != p.Offered || sum.OfferedRateTotal != cfg.Rate {
		t.Errorf("offered_total %d (publisher %d), offered_rate_total %g (rate %g)", sum.OfferedTotal, p.Offered, sum.OfferedRateTotal, cfg.Rate)
	}
}

// TestOldSummaryReadable: a summary written before the latency from the
// actual send, the rate to the last delivery, the offered totals and the
// publishers' sent bytes is read, those fields zero.
func TestOldSummaryReadable(t *testing.T) {
	r := &PayloadResult{Payload: 16, Start: time.Unix(0, 0), End: time.Unix(1, 0), Unique: 10, Expected: 10, Offered: 10,
		Publishers: []PublisherResult{{Sent: 10, Offered: 10, SentBytes: 160}}, Latency: Stats{Count: 10, P50Ns: 1000}}
	cfg := Config{Rate: 10, Topology: Topology{Publishers: 1}}.WithDefaults()
	var b bytes.Buffer
	if err := loadsummary.Write(&b, Summary{Format: SummaryFormat, Payloads: []PayloadSummary{SummaryOf(r, cfg)}}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	p := m["payloads"].([]any)[0].(map[string]any)
	for _, k := range []string{"receive_rate_to_last_delivery", "offered_total", "offered_rate_total", "latency_from", "latency_from_send", "latency_from_send_missing"} {
		if _, ok := p[k]; !ok {
			t.Fatalf("the summary lacks %s", k)
		}
		delete(p, k)
	}
	delete(p["publishers"].([]any)[0].(map[string]any), "sent_bytes")
	old, _ := json.Marshal(m)
	path := filepath.Join(t.TempDir(), SummaryFileName("x"))
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := loadsummary.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Payloads[0]; got.LatencyFrom != "" || got.OfferedTotal != 0 || got.Publishers[0].SentBytes != 0 || got.Latency.P50Ns != 1000 {
		t.Errorf("old summary read as %+v", got)
	}
}
