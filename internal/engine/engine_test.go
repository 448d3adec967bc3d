package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/stats"
	"sync/atomic"
)

// intraSub is an in-process sub-experiment whose pinger is wrapped by wrap.
func intraSub(typ string, reliable bool, wrap func(driver.Pinger) driver.Pinger) Sub {
	return Sub{
		Type: typ, Transport: driver.Intraprocess, Reliable: reliable, Echo: EchoInProcess,
		Open: func(ctx context.Context) (*Link, error) {
			opts := driver.Options{Reliable: reliable, LargestMessage: 4096}
			e, err := intraprocess.Transport{}.Listen(ctx, "", opts)
			if err != nil {
				return nil, err
			}
			p, err := intraprocess.Transport{}.Dial(ctx, e.Addr(), opts)
			if err != nil {
				return nil, err
			}
			sctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); e.Serve(sctx) }()
			if wrap != nil {
				p = wrap(p)
			}
			return &Link{Pinger: p, Close: func() error { cancel(); wg.Wait(); return e.Close() }}, nil
		},
	}
}

func newRunner(t *testing.T, cfg Config) *Runner {
	return &Runner{Config: cfg, Dir: filepath.Join(t.TempDir(), "exp"), Meta: &meta.Meta{Experiment: "exp"}}
}

// readRaw parses a raw file back into latencies per payload, in file order.
func readRaw(t *testing.T, dir, typ string) (map[int][]float64, []int) {
	t.Helper()
	path := filepath.Join(dir, experiment.RawFileName(typ))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[int][]float64{}
	var order []int
	r := measurements.NewReader(f, path)
	for r.Next() {
		s := r.Sample()
		if _, ok := got[s.Payload]; !ok {
			order = append(order, s.Payload)
		}
		if s.Sample != len(got[s.Payload])+1 {
			t.Fatalf("payload %d: sample %d follows %d", s.Payload, s.Sample, len(got[s.Payload]))
		}
		got[s.Payload] = append(got[s.Payload], s.Latency)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return got, order
}

func TestIntraprocessEndToEnd(t *testing.T) {
	cfg := Config{Payloads: []int{16, 100, 4096}, Samples: 300, Warmup: 20, Fill: FillRandom, Seed: 7}
	r := newRunner(t, cfg)
	subs := []Sub{intraSub("intraprocess_best_effort", false, nil), intraSub("intraprocess_reliable", true, nil)}
	if err := r.Run(context.Background(), subs); err != nil {
		t.Fatal(err)
	}
	m, err := meta.ReadFile(filepath.Join(r.Dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Completed || m.Interrupted || m.Error != "" || m.Latency != meta.LatencyHalfRTT || !m.End.After(m.Start) {
		t.Errorf("meta: completed %v interrupted %v error %q latency %q", m.Completed, m.Interrupted, m.Error, m.Latency)
	}
	if len(m.SubExperiments) != 2 {
		t.Fatalf("%d sub-experiments in meta.json", len(m.SubExperiments))
	}
	for _, s := range m.SubExperiments {
		raw, order := readRaw(t, r.Dir, s.Type)
		if fmt.Sprint(order) != "[16 100 4096]" {
			t.Errorf("%s: payload order %v", s.Type, order)
		}
		for i, p := range s.Payloads {
			if p.Bytes != cfg.Payloads[i] || p.Samples != 300 || p.Warmup != 20 || p.Lost != 0 || !p.Completed {
				t.Errorf("%s: payload record %+v", s.Type, p)
			}
			x := raw[p.Bytes]
			if len(x) != p.Samples {
				t.Errorf("%s/%d: %d rows, meta says %d", s.Type, p.Bytes, len(x), p.Samples)
			}
			sum := stats.Summarize(x, nil)
			if !(sum.Min > 0 && sum.Min <= sum.Median && sum.Median <= sum.P99 && sum.P99 <= sum.Max) {
				t.Errorf("%s/%d: implausible summary %+v", s.Type, p.Bytes, sum)
			}
		}
		if !s.Completed || s.Echo != EchoInProcess {
			t.Errorf("%s: %+v", s.Type, s)
		}
	}
}

// dropEvery is a pinger that silently does not send every nth message; the
// Receive that waits for that message's echo times out at once instead of
// after the (generous) timeout.
type dropEvery struct {
	driver.Pinger
	n, sent int
	dropped bool
}

func (d *dropEvery) Send(msg []byte) error {
	d.sent++
	if d.dropped = d.sent%d.n == 0; d.dropped {
		return nil
	}
	return d.Pinger.Send(msg)
}

func (d *dropEvery) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := d.receive(buf, deadline)
	return n, time.Now(), err
}

func (d *dropEvery) receive(buf []byte, deadline time.Time) (int, error) {
	if d.dropped {
		return 0, fmt.Errorf("dropEvery: %w", driver.ErrTimeout)
	}
	n, _, err := d.Pinger.Receive(buf, deadline)
	return n, err
}

func TestLossCounted(t *testing.T) {
	cfg := Config{Payloads: []int{16, 64}, Samples: 100, Warmup: 10, Timeout: time.Minute}
	r := newRunner(t, cfg)
	sub := intraSub("intraprocess_reliable", true, func(p driver.Pinger) driver.Pinger { return &dropEvery{Pinger: p, n: 10} })
	if err := r.Run(context.Background(), []Sub{sub}); err != nil {
		t.Fatal(err)
	}
	raw, _ := readRaw(t, r.Dir, sub.Type)
	for _, p := range r.Meta.SubExperiments[0].Payloads {
		if p.Lost != 10 || p.Samples != 90 || len(raw[p.Bytes]) != 90 {
			t.Errorf("payload %d: lost %d, samples %d, rows %d; want 10, 90, 90", p.Bytes, p.Lost, p.Samples, len(raw[p.Bytes]))
		}
	}
}

// scripted is a pinger whose echoes follow a script, for exact counting
// tests without timing: an empty queue times out at once.
type scripted struct {
	queue  [][]byte
	sent   int
	dupAt  map[int]bool // echo message k twice
	lateAt map[int]bool // hold message k back until the next send
	junkAt map[int]bool // echo message k with a sequence never sent
	// otherAt: before message k's echo, echo a message of run id
	// otherAt[k] with the same sequence number and send time
	otherAt map[int]uint32
	// stampLate: report the echo of sequence k an hour after it came, as a
	// driver that sees its deadline late would deliver it
	stampLate map[uint64]bool
	held      [][]byte
	closed    bool
}

func (s *scripted) Send(msg []byte) error {
	s.sent++
	m := append([]byte(nil), msg...)
	s.queue = append(s.queue, s.held...)
	s.held = nil
	switch k := s.sent; {
	case s.lateAt[k]:
		s.held = append(s.held, m)
	case s.dupAt[k]:
		s.queue = append(s.queue, m, m)
	case s.junkAt[k]:
		j := append([]byte(nil), m...)
		binary.LittleEndian.PutUint64(j, binary.LittleEndian.Uint64(m)|1<<39) // this run's id, a sequence never sent
		s.queue = append(s.queue, j, m)
	case s.hasOther(k):
		o := append([]byte(nil), m...)
		_, seq := splitSeqWord(binary.LittleEndian.Uint64(m))
		binary.LittleEndian.PutUint64(o, seqWord(s.otherAt[k], seq))
		s.queue = append(s.queue, o, m)
	default:
		s.queue = append(s.queue, m)
	}
	return nil
}

func (s *scripted) hasOther(k int) bool { _, ok := s.otherAt[k]; return ok }

func (s *scripted) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := s.receive(buf, deadline)
	if err == nil && n >= 8 {
		if _, seq := splitSeqWord(binary.LittleEndian.Uint64(buf)); s.stampLate[seq] {
			return n, time.Now().Add(time.Hour), nil
		}
	}
	return n, time.Now(), err
}

func (s *scripted) receive(buf []byte, _ time.Time) (int, error) {
	if s.closed {
		return 0, driver.ErrClosed
	}
	if len(s.queue) == 0 {
		return 0, fmt.Errorf("scripted: %w", driver.ErrTimeout)
	}
	m := s.queue[0]
	s.queue = s.queue[1:]
	return copy(buf, m), nil
}

func (s *scripted) Close() error { s.closed = true; return nil }

func scriptedSub(p driver.Pinger) Sub {
	return Sub{Type: "scripted_best_effort", Transport: "scripted", Echo: EchoInProcess,
		Open: func(context.Context) (*Link, error) { return &Link{Pinger: p}, nil }}
}

func TestDuplicatesAndOutOfOrder(t *testing.T) {
	// Messages 1-5 are warm-up, 6-25 measured (payload 16), 26-30 warm-up
	// and 31-50 measured (payload 32). Counts cover measured round trips
	// only: the duplicate of 3 and the late echo of 25, which arrives while
	// 26 (warm-up) is awaited, are not counted.
	s := &scripted{
		dupAt:  map[int]bool{3: true, 8: true, 9: true, 30: true},
		lateAt: map[int]bool{12: true, 25: true}, // 25's echo arrives during payload 32
		junkAt: map[int]bool{40: true},
	}
	r := newRunner(t, Config{Payloads: []int{16, 32}, Samples: 20, Warmup: 5})
	if err := r.Run(context.Background(), []Sub{scriptedSub(s)}); err != nil {
		t.Fatal(err)
	}
	got := r.Meta.SubExperiments[0].Payloads
	want := []meta.Payload{
		{Bytes: 16, Samples: 18, Warmup: 5, Lost: 2, Duplicates: 2, OutOfOrder: 1, Completed: true},
		{Bytes: 32, Samples: 20, Warmup: 5, Duplicates: 1, OutOfOrder: 0, Errors: 1, Completed: true},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("payload %d:\n got %+v\nwant %+v", want[i].Bytes, got[i], want[i])
		}
	}
}

// TestOtherRunIgnored: an echo of another run's message (another run on
// the same topic) is counted as of another run and ignored, even one with
// the very sequence number and send time awaited, and whatever its run id
// (0 is the echo probe's, and that of builds whose messages carried none);
// this run's own echo is then the sample.
func TestOtherRunIgnored(t *testing.T) {
	// Messages 1-5 are warm-up, 6-25 measured (payload 16), 26-30 warm-up
	// and 31-50 measured (payload 32).
	s := &scripted{otherAt: map[int]uint32{2: 7, 6: 0, 7: 0x5a5a5b, 30: 1, 40: maxRunID}}
	r := newRunner(t, Config{Payloads: []int{16, 32}, Samples: 20, Warmup: 5, RunID: 0x5a5a5a})
	if err := r.Run(context.Background(), []Sub{scriptedSub(s)}); err != nil {
		t.Fatal(err)
	}
	got := r.Meta.SubExperiments[0].Payloads
	want := []meta.Payload{
		{Bytes: 16, Samples: 20, Warmup: 5, OtherRuns: 2, Completed: true},
		{Bytes: 32, Samples: 20, Warmup: 5, OtherRuns: 1, Completed: true},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("payload %d:\n got %+v\nwant %+v", want[i].Bytes, got[i], want[i])
		}
	}
	if r.Meta.Config.RunID != 0x5a5a5a {
		t.Errorf("meta.json's run id %#x, want 0x5a5a5a", r.Meta.Config.RunID)
	}
}

// TestSeqWord: the run id sits above the sequence number, each read back
// whole, and no sequence number reaches the run id's bits.
func TestSeqWord(t *testing.T) {
	for _, tt := range []struct {
		run uint32
		seq uint64
	}{{1, 1}, {maxRunID, seqMask}, {0x5a5a5a, 12345}} {
		w := seqWord(tt.run, tt.seq)
		if run, seq := splitSeqWord(w); run != tt.run || seq != tt.seq {
			t.Errorf("seqWord(%#x, %d) = %#x, read back as %#x, %d", tt.run, tt.seq, w, run, seq)
		}
	}
	if run, _ := splitSeqWord(seqWord(3, seqMask+1)); run != 3 {
		t.Errorf("a sequence number past its bits changed the run id to %#x", run)
	}
	for range 1000 {
		if id := newRunID(); id == 0 || id > maxRunID {
			t.Fatalf("newRunID() = %#x", id)
		}
	}
}

// TestEchoAfterTimeoutIsLost: an echo that arrives after its timeout (a
// driver's read may return it, seeing its deadline late) is lost and late,
// as it is when the wait ends on time and the echo comes later.
func TestEchoAfterTimeoutIsLost(t *testing.T) {
	s := &scripted{stampLate: map[uint64]bool{2: true, 7: true, 8: true}}
	r := newRunner(t, Config{Payloads: []int{16}, Samples: 10, Warmup: 3, Timeout: time.Second})
	if err := r.Run(context.Background(), []Sub{scriptedSub(s)}); err != nil {
		t.Fatal(err)
	}
	// 2 is a warm-up round trip; 7 and 8 are measured.
	want := meta.Payload{Bytes: 16, Samples: 8, Warmup: 3, Lost: 2, OutOfOrder: 2, Completed: true}
	if got := r.Meta.SubExperiments[0].Payloads[0]; got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestLostInRowStops(t *testing.T) {
	never := &silent{}
	r := newRunner(t, Config{Payloads: []int{16}, Samples: 50, Warmup: 2, MaxLostInRow: 5})
	err := r.Run(context.Background(), []Sub{scriptedSub(never)})
	var se *StopError
	if !errors.As(err, &se) || se.Attempt != 5 || se.Payload != 16 || !strings.Contains(err.Error(), "5 consecutive") {
		t.Fatalf("err = %v, want a stop after 5 losses at round trip 5", err)
	}
	if r.Meta.Completed || r.Meta.SubExperiments[0].Completed || !strings.Contains(r.Meta.Error, "consecutive") {
		t.Errorf("meta not marked incomplete: %+v", r.Meta)
	}
}

// silent never echoes.
type silent struct{ closed bool }

func (s *silent) Send([]byte) error { return nil }
func (s *silent) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := s.receive(buf, deadline)
	return n, time.Now(), err
}

func (s *silent) receive([]byte, time.Time) (int, error) {
	if s.closed {
		return 0, driver.ErrClosed
	}
	return 0, driver.ErrTimeout
}
func (s *silent) Close() error { s.closed = true; return nil }

// blocking echoes count messages, then blocks in Receive until closed.
type blocking struct {
	count  int
	sent   int
	last   []byte
	closed chan struct{}
	once   sync.Once
	onStop func()
}

func (b *blocking) Send(msg []byte) error {
	b.sent++
	b.last = append(b.last[:0], msg...)
	if b.sent == b.count+1 && b.onStop != nil {
		b.onStop()
	}
	return nil
}

func (b *blocking) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := b.receive(buf, deadline)
	return n, time.Now(), err
}

func (b *blocking) receive(buf []byte, _ time.Time) (int, error) {
	if b.sent <= b.count {
		return copy(buf, b.last), nil
	}
	<-b.closed
	return 0, driver.ErrClosed
}

func (b *blocking) Close() error { b.once.Do(func() { close(b.closed) }); return nil }

func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &blocking{count: 130, closed: make(chan struct{}), onStop: cancel}
	r := newRunner(t, Config{Payloads: []int{16, 32}, Samples: 100, Warmup: 10, Timeout: time.Hour})
	err := r.Run(ctx, []Sub{scriptedSub(p), scriptedSub(&silent{})})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	m, err := meta.ReadFile(filepath.Join(r.Dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Completed || !m.Interrupted || len(m.SubExperiments) != 1 {
		t.Fatalf("meta: completed %v interrupted %v, %d sub-experiments", m.Completed, m.Interrupted, len(m.SubExperiments))
	}
	ps := m.SubExperiments[0].Payloads
	if len(ps) != 2 || ps[0].Samples != 100 || !ps[0].Completed || ps[1].Samples != 10 || ps[1].Warmup != 10 || ps[1].Completed {
		t.Errorf("payload records %+v, want 100 then 10 samples", ps)
	}
	raw, _ := readRaw(t, r.Dir, "scripted_best_effort")
	if len(raw[16]) != 100 || len(raw[32]) != 10 {
		t.Errorf("raw rows: %d and %d, want 100 and 10", len(raw[16]), len(raw[32]))
	}
}

func TestEchoerDied(t *testing.T) {
	failed := make(chan error, 1)
	p := &blocking{count: 50, closed: make(chan struct{}), onStop: func() { failed <- errors.New("exit status 9") }}
	sub := Sub{Type: "interprocess_reliable_tcp", Echo: EchoSubprocess,
		Open: func(context.Context) (*Link, error) { return &Link{Pinger: p, Failed: failed}, nil }}
	r := newRunner(t, Config{Payloads: []int{16}, Samples: 100, Warmup: 10, Timeout: time.Hour})
	err := r.Run(context.Background(), []Sub{sub})
	var se *StopError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a StopError", err)
	}
	want := "interprocess_reliable_tcp: payload 16 B, round trip 51 of 110: the echoer died: exit status 9"
	if err.Error() != want {
		t.Errorf("error\n %q\nwant\n %q", err, want)
	}
	if r.Meta.Completed || r.Meta.Interrupted {
		t.Errorf("meta completed %v interrupted %v", r.Meta.Completed, r.Meta.Interrupted)
	}
	if got := r.Meta.SubExperiments[0].Payloads[0].Samples; got != 40 {
		t.Errorf("samples = %d, want 40", got)
	}
}

func TestLatencyDefinition(t *testing.T) {
	// A pinger that answers after a fixed sleep: the RTT file holds twice
	// the half-RTT values in distribution, and both exceed the sleep.
	for _, def := range []string{meta.LatencyHalfRTT, meta.LatencyRTT} {
		r := newRunner(t, Config{Payloads: []int{16}, Samples: 5, Latency: def})
		if err := r.Run(context.Background(), []Sub{scriptedSub(&sleeper{d: 2 * time.Millisecond})}); err != nil {
			t.Fatal(err)
		}
		raw, _ := readRaw(t, r.Dir, "scripted_best_effort")
		min := 1000.0 // µs: half of 2 ms
		if def == meta.LatencyRTT {
			min = 2000
		}
		for _, x := range raw[16] {
			if x < min {
				t.Errorf("%s: latency %.3f µs below %v µs", def, x, min)
			}
		}
		if r.Meta.Latency != def {
			t.Errorf("meta latency %q", r.Meta.Latency)
		}
	}
}

type sleeper struct {
	d    time.Duration
	last []byte
}

func (s *sleeper) Send(msg []byte) error { s.last = append(s.last[:0], msg...); return nil }
func (s *sleeper) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := s.receive(buf, deadline)
	return n, time.Now(), err
}

func (s *sleeper) receive(buf []byte, _ time.Time) (int, error) {
	time.Sleep(s.d)
	return copy(buf, s.last), nil
}
func (s *sleeper) Close() error { return nil }

func TestOpenFails(t *testing.T) {
	sub := Sub{Type: "interprocess_best_effort", Open: func(context.Context) (*Link, error) { return nil, errors.New("connection refused") }}
	r := newRunner(t, Config{Payloads: []int{16}, Samples: 5})
	err := r.Run(context.Background(), []Sub{sub})
	if err == nil || err.Error() != "interprocess_best_effort: cannot connect: connection refused" {
		t.Errorf("err = %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"small payload", func(c *Config) { c.Payloads = []int{8} }, "smaller than the 16-byte"},
		{"no payloads", func(c *Config) { c.Payloads = []int{} }, "no payload"},
		{"samples", func(c *Config) { c.Samples = -1 }, "samples"},
		{"warmup", func(c *Config) { c.Warmup = -1 }, "warm-up"},
		{"timeout", func(c *Config) { c.Timeout = -1 }, "timeout"},
		{"fill", func(c *Config) { c.Fill = "ones" }, "fill"},
		{"latency", func(c *Config) { c.Latency = "one-way" }, "latency"},
		{"run id", func(c *Config) { c.RunID = 1 << 24 }, "run id 16777216: above the largest"},
		{"round trips", func(c *Config) { c.Payloads, c.Samples = []int{16, 32}, 1<<39 }, "more than the 1099511627775 a run numbers"},
	}
	for _, tt := range tests {
		c := ok
		tt.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error about %q", tt.name, err, tt.want)
		}
	}
}

func TestParsePayloads(t *testing.T) {
	tests := []struct{ in, want string }{
		{"16", "[16]"},
		{"16, 64,1024", "[16 64 1024]"},
		{"16..128", "[16 32 64 128]"},
		{"20..80", "[20 40 80]"},
		// A range that doubling does not reach was cut short without a
		// word (16, 32, 64), and one past 2^62 overflowed, appending 0
		// until memory ran out.
		{"16..100,1000", "error"},
		{"16..4611686018427387904", "error"},
		{"16..2147483648", "error"},
		{"1073741824", "[1073741824]"},
		{"1073741825", "error"},
		{"x", "error"},
		{"0", "error"},
		{"64..16", "error"},
		{"", "error"},
		{"16,16", "error"},
		{"16..64,32", "error"},
	}
	for _, tt := range tests {
		p, err := ParsePayloads(tt.in)
		got := fmt.Sprint(p)
		if err != nil {
			got = "error"
		}
		if got != tt.want {
			t.Errorf("ParsePayloads(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	// A dash is the commonest guess at a range: the error shows both forms.
	if _, err := ParsePayloads("16-1024"); err == nil || !strings.Contains(err.Error(), "(16,1024) or a range of powers of two (16..1024)") {
		t.Errorf("ParsePayloads(16-1024): %v, want the accepted forms", err)
	}
	if fmt.Sprint(DefaultPayloads()) != "[16 32 64 128 256 512 1024 2048 4096 8192 16384]" {
		t.Errorf("DefaultPayloads = %v", DefaultPayloads())
	}
}

func FuzzParsePayloads(f *testing.F) {
	for _, s := range []string{"16", "16..16384", "1,2,3", "9..8", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePayloads(s)
		if err != nil {
			return
		}
		if len(p) == 0 || len(p) > 64*len(s) {
			t.Fatalf("ParsePayloads(%q) = %d sizes", s, len(p))
		}
		for _, n := range p {
			if n < 1 {
				t.Fatalf("ParsePayloads(%q) gave %d", s, n)
			}
		}
	})
}

// BenchmarkPingLoop measures the engine's own cost per round trip over the
// in-process transport (ns/op is a full round trip).
func BenchmarkPingLoop(b *testing.B) {
	ctx := context.Background()
	opts := driver.Options{Reliable: true, LargestMessage: 16}
	e, _ := intraprocess.Transport{}.Listen(ctx, "", opts)
	p, _ := intraprocess.Transport{}.Dial(ctx, e.Addr(), opts)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.Serve(sctx)
	var stop atomic.Bool
	l := newPingLoop(Config{Payloads: []int{16}, Samples: b.N, Timeout: time.Second, MaxLostInRow: 1, Fill: FillZero}, p, &stop)
	res := driver.PayloadResult{Nanos: make([]int64, 0, b.N)}
	b.ResetTimer()
	if _, err := l.Measure(16, &res); err != nil {
		b.Fatal(err)
	}
}

func TestMemoryNeeded(t *testing.T) {
	c := Config{Payloads: []int{16, 32}, Samples: 1000, Warmup: 100}
	if got, want := c.MemoryNeeded(), uint64(1000*2*8+1100+2*32); got != want {
		t.Errorf("MemoryNeeded = %d, want %d", got, want)
	}
	huge := Config{Payloads: DefaultPayloads(), Samples: 1 << 62}
	if got := huge.MemoryNeeded(); got != math.MaxUint64 {
		t.Errorf("MemoryNeeded does not saturate: %d", got)
	}
	if err := CheckMemory(huge); err == nil || !strings.Contains(err.Error(), "more than 16 EiB") {
		t.Errorf("CheckMemory(huge) = %v", err)
	}
	if err := CheckMemory(c); err != nil {
		t.Errorf("CheckMemory(small) = %v", err)
	}
	if avail, src := AvailableMemory(); avail == 0 || src == "" {
		t.Errorf("AvailableMemory = %d, %q", avail, src)
	}
}
