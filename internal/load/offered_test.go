package load

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/loadsummary"
)

// slowTransport is the in-process link with a publisher that takes delay
// over each send: it cannot keep to a schedule faster than 1/delay.
type slowTransport struct {
	intraprocess.Transport
	delay time.Duration
}

type slowPublisher struct {
	driver.Publisher
	delay time.Duration
}

func (s slowPublisher) Send(msg []byte) error {
	time.Sleep(s.delay)
	return s.Publisher.Send(msg)
}

func (t slowTransport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	p, err := t.Transport.Publish(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	return slowPublisher{p, t.delay}, nil
}

// TestDeliveryAgainstTheOfferedSchedule: publishers offered 500 msg/s that
// can send at most 200 msg/s deliver every message they send, so the ratio
// to what was sent is 1 (the only figure before, hiding the unsent
// messages); the delivery rate against the offered schedule, the
// MQTT-bench spec's publishers × rate × duration, is under 1/2, and each
// publisher says what it achieved against what it was asked.
func TestDeliveryAgainstTheOfferedSchedule(t *testing.T) {
	cfg := quick(t, FanIn, 2, 0, 0)
	cfg.Payloads = []int{16}
	cfg.Duration = time.Second
	links := Links{Transport: slowTransport{delay: 5 * time.Millisecond}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	var sent, offered uint64
	for _, p := range r.Publishers {
		sent += p.Sent
		offered += p.Offered
		if p.Offered != p.Sent+p.Skipped || p.IntendedRate != 500 {
			t.Errorf("publisher %d: offered %d, sent %d, skipped %d, intended %g/s", p.Publisher, p.Offered, p.Sent, p.Skipped, p.IntendedRate)
		}
		// Sends of 5 ms: at most 200/s, whatever the machine.
		if p.SendRate > 201 || p.SendRate <= 0 {
			t.Errorf("publisher %d: achieved %.1f msg/s, want at most 200", p.Publisher, p.SendRate)
		}
		// 500/s for 1 s: 500 slots, give or take the one at each end.
		if p.Offered < 499 || p.Offered > 501 {
			t.Errorf("publisher %d: %d slots offered, want 500", p.Publisher, p.Offered)
		}
	}
	if r.Offered != offered || r.Expected != sent {
		t.Fatalf("offered %d (publishers %d), expected %d (sent %d)", r.Offered, offered, r.Expected, sent)
	}
	if r.DeliveryRatio() != 1 {
		t.Errorf("delivery ratio to what was sent %.3f, want 1: every message sent arrived", r.DeliveryRatio())
	}
	if got, want := r.DeliveryRate(), float64(r.Unique)/float64(r.Offered); got != want || got > 0.5 {
		t.Errorf("delivery rate %.3f, want %d/%d = %.3f, under 0.5", got, r.Unique, r.Offered, want)
	}
	sum := SummaryOf(&r, cfg)
	if sum.DeliveryRate != r.DeliveryRate() || sum.DeliveryRatio != 1 || sum.Offered != r.Offered {
		t.Errorf("summary: delivery_rate %g, delivery_ratio %g, expected_offered %d", sum.DeliveryRate, sum.DeliveryRatio, sum.Offered)
	}
	if notes := strings.Join(sum.Notes, "\n"); !strings.Contains(notes, "of the offered schedule (100.0% of what was sent): the publishers did not keep up") {
		t.Errorf("notes do not say the schedule was not kept:\n%s", notes)
	}
}

// TestClosingLine: a payload's closing line shows the delivery against
// the offered schedule (in total, and per publisher) first, and what was
// sent beside it; the latencies from the intended and the actual send
// time, each labelled, and the send delay; and the summary's notes.
func TestClosingLine(t *testing.T) {
	r := &PayloadResult{Payload: 16, Start: time.Unix(0, 0), End: time.Unix(3, 0), Expected: 1609, Offered: 1800, Unique: 1609,
		Counters:   CounterValues{MessagesSent: 1609, Skipped: 191},
		Publishers: []PublisherResult{{Sent: 809, Skipped: 91, Offered: 900}, {Sent: 800, Skipped: 100, Offered: 900}},
		Latency:    Stats{Count: 1609, P50Ns: 900_000, P99Ns: 2_000_000, MaxNs: 3_000_000},
		FromSend:   Stats{Count: 1609, P50Ns: 400_000, P99Ns: 1_500_000, MaxNs: 2_900_000},
		SendDelay:  Stats{Count: 1609, P50Ns: 500_000, P99Ns: 700_000}}
	var b bytes.Buffer
	p := &Progress{W: &b}
	p.Begin("intraprocess_reliable", 16, nil, nil, Config{Rate: 300, Duration: 3 * time.Second})
	p.End(r)
	for _, want := range []string{
		"sent 1,609 of 1,800 offered in total (300 msg/s per publisher × 2; 536 msg/s, 191 skipped)  received 1,609 (536 msg/s; 89.39% of 1,800 deliveries offered, 100.00% of 1,609 sent)",
		"latency from the intended send time p50 900 µs  p99 2.00 ms  max 3.00 ms;  from the actual send p50 400 µs  p99 1.50 ms  max 2.90 ms;  send delay p50 500 µs  p99 700 µs",
		"note: delivered 89.4% of the offered schedule (100.0% of what was sent): the publishers did not keep up",
		"note: send delay p50 500 µs is 56% of the latency p50 900 µs from the intended send time: the generator's own lateness (from the actual send: p50 400 µs)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("closing lines\n%s\nwant them to contain\n%s", b.String(), want)
		}
	}
}

// TestClosingLineNothingMeasured: a payload whose measured messages
// never came (a consumer still in the warm-up's backlog when the drain
// ended) says that no latency was measured, not 0 µs, calls the missing
// messages undelivered by the drain's end rather than lost, and on
// fan-out gives the ratio of the deliveries the sends make; a period that
// never began (End before Start) is 0 long, and nothing sent is no
// delivery at all.
func TestClosingLineNothingMeasured(t *testing.T) {
	r := &PayloadResult{Payload: 16, Start: time.Unix(0, 0), End: time.Unix(3, 0), Expected: 300, Offered: 300, Lost: 300,
		Counters:    CounterValues{MessagesSent: 100},
		Publishers:  []PublisherResult{{Sent: 100, Offered: 100}},
		Subscribers: make([]SubscriberResult, 3)}
	var b bytes.Buffer
	p := &Progress{W: &b}
	p.Begin("nats_reliable", 16, nil, nil, Config{Duration: 3 * time.Second})
	p.End(r)
	for _, want := range []string{
		"0.00% of 300 deliveries the sends make)",
		"not delivered by the drain's end 300",
		"latency: none measured (no message of the measured period was delivered)",
		"note: no latency measured",
		"note: the drain ended before every message came: the 300 counted lost may still be queued in the system",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("closing lines\n%s\nwant them to contain\n%s", b.String(), want)
		}
	}
	if strings.Contains(b.String(), "0 µs") {
		t.Errorf("closing lines give a latency of 0:\n%s", b.String())
	}
	broken := &PayloadResult{Start: time.Unix(3, 0), End: time.Unix(2, 0)}
	if broken.Measured() != 0 || broken.ReceivePeriod() != 0 || broken.DeliveryRatio() != 0 || broken.DeliveryRate() != 0 {
		t.Errorf("a period that never began: measured %v, receive period %v, delivery ratio %g, rate %g; want 0 each",
			broken.Measured(), broken.ReceivePeriod(), broken.DeliveryRatio(), broken.DeliveryRate())
	}
}

// TestPadding: each padding fills only what follows the header; random is
// the same for the same seed, publisher and size, and differs otherwise.
func TestPadding(t *testing.T) {
	const size = 64
	msg := func(p Padding, seed uint64, pub int) []byte {
		b := make([]byte, size)
		for i := range HeaderSize {
			b[i] = 0xAA
		}
		p.Fill(b, seed, pub)
		for i := range HeaderSize {
			if b[i] != 0xAA {
				t.Fatalf("%s padding wrote into the header at byte %d", p, i)
			}
		}
		return b[HeaderSize:]
	}
	if got := msg(PaddingZeros, 1, 0); !bytes.Equal(got, make([]byte, size-HeaderSize)) {
		t.Errorf("zeros: %x", got)
	}
	for i, c := range msg(PaddingPattern, 1, 0) {
		if want := byte((HeaderSize + i) % 251); c != want {
			t.Fatalf("pattern byte %d = %d, want %d", HeaderSize+i, c, want)
		}
	}
	a, b := msg(PaddingRandom, 7, 0), msg(PaddingRandom, 7, 0)
	if !bytes.Equal(a, b) {
		t.Error("random padding differs for the same seed and publisher")
	}
	if bytes.Equal(a, msg(PaddingRandom, 8, 0)) || bytes.Equal(a, msg(PaddingRandom, 7, 1)) {
		t.Error("random padding is the same for another seed or publisher")
	}
	if n := bytes.Count(a, []byte{0}); n > len(a)/8 {
		t.Errorf("random padding has %d zero bytes of %d", n, len(a))
	}
	for _, s := range []string{"random", "zeros", "pattern"} {
		if p, err := ParsePadding(s); err != nil || string(p) != s {
			t.Errorf("ParsePadding(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParsePadding("gzip"); err == nil || !strings.Contains(err.Error(), "expected random, zeros or pattern") {
		t.Errorf("ParsePadding(gzip): %v", err)
	}
	if c := (Config{}).WithDefaults(); c.Padding != PaddingRandom || c.PaddingSeed == 0 {
		t.Errorf("default padding %q seed %d, want random with a seed", c.Padding, c.PaddingSeed)
	}
}

// TestSummaryMicroseconds: the summary JSON repeats the latency statistics
// in µs under the MQTT-bench names.
func TestSummaryMicroseconds(t *testing.T) {
	r := &PayloadResult{Payload: 16, Latency: Stats{Count: 3, MinNs: 1500, MaxNs: 9000, MeanNs: 4250.5, P50Ns: 3000, P95Ns: 8000, P99Ns: 8500, P999Ns: 9000}}
	s := SummaryOf(r, Config{}.WithDefaults())
	fields := []*float64{s.LatencyMinUs, s.LatencyMaxUs, s.LatencyMeanUs, s.LatencyP50Us, s.LatencyP95Us, s.LatencyP99Us, s.LatencyP999Us}
	want := []float64{1.5, 9, 4.2505, 3, 8, 8.5, 9}
	for i := range want {
		if fields[i] == nil || *fields[i] != want[i] {
			t.Errorf("µs statistic %d: %v, want %g", i, fields[i], want[i])
		}
	}
	var b bytes.Buffer
	if err := loadsummary.Write(&b, Summary{Format: SummaryFormat, Payloads: []PayloadSummary{s}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"latency_p50_us": 3,`) || !strings.Contains(b.String(), `"p50_ns": 3000,`) {
		t.Errorf("summary JSON lacks latency_p50_us beside p50_ns:\n%s", b.String())
	}
	// No latency measured: null under the spec's names, not 0.
	none := SummaryOf(&PayloadResult{Payload: 16}, Config{}.WithDefaults())
	b.Reset()
	if err := loadsummary.Write(&b, Summary{Format: SummaryFormat, Payloads: []PayloadSummary{none}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"min", "max", "mean", "p50", "p95", "p99", "p999"} {
		if want := `"latency_` + name + `_us": null`; !strings.Contains(b.String(), want) {
			t.Errorf("no latency measured: summary JSON lacks %s:\n%s", want, b.String())
		}
	}
}
