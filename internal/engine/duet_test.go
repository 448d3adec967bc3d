package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/meta"
)

// delayed is a pinger whose far end answers every message exactly d after
// it was sent, on a clock it keeps itself: no sleeping, so that the round
// trips are d plus the loop's own microseconds. Every Send is logged as
// the pinger's name and the message's size.
type delayed struct {
	name string
	d    time.Duration
	log  *sendLog
	last []byte
	sent time.Time
}

type sendLog struct {
	mu    sync.Mutex
	sends []string
}

func (s *sendLog) add(what string) {
	s.mu.Lock()
	s.sends = append(s.sends, what)
	s.mu.Unlock()
}

func (p *delayed) Send(msg []byte) error {
	p.last, p.sent = append(p.last[:0], msg...), time.Now()
	p.log.add(p.name)
	return nil
}

func (p *delayed) Receive(buf []byte, _ time.Time) (int, time.Time, error) {
	return copy(buf, p.last), p.sent.Add(p.d), nil
}

func (p *delayed) Close() error { return nil }

func delayedSub(typ string, p *delayed) Sub {
	return Sub{Type: typ, Echo: EchoInProcess, Open: func(context.Context) (*Link, error) { return &Link{Pinger: p}, nil }}
}

// duetOf is a duet of two sides whose round trips take 1 s (A) and 2 s (B)
// on the far ends' clocks, over two sub-experiments.
func duetOf(t *testing.T, rounds int, seed uint64) (*Duet, []Sub, []Sub, *sendLog) {
	log := &sendLog{}
	dir := t.TempDir()
	d := &Duet{Config: Config{Payloads: []int{16, 32}, Warmup: 3, Latency: meta.LatencyRTT, Timeout: time.Minute}, Block: 7, Pairs: 2, Rounds: rounds, Seed: seed,
		A: &Runner{Dir: filepath.Join(dir, "reference", "x"), Meta: &meta.Meta{Experiment: "x"}},
		B: &Runner{Dir: filepath.Join(dir, "candidate", "x"), Meta: &meta.Meta{Experiment: "x"}}}
	a := []Sub{delayedSub("one_reliable", &delayed{name: "A", d: time.Second, log: log}), delayedSub("two_reliable", &delayed{name: "A", d: time.Second, log: log})}
	b := []Sub{delayedSub("one_reliable", &delayed{name: "B", d: 2 * time.Second, log: log}), delayedSub("two_reliable", &delayed{name: "B", d: 2 * time.Second, log: log})}
	return d, a, b, log
}

func TestDuetAlternatesBlocks(t *testing.T) {
	d, a, b, log := duetOf(t, 5, 42)
	opened := map[string]int{}
	for _, subs := range [][]Sub{a, b} {
		for i := range subs {
			open, typ := subs[i].Open, subs[i].Type
			subs[i].Open = func(ctx context.Context) (*Link, error) {
				l, err := open(ctx)
				opened[typ+"/"+l.Pinger.(*delayed).name]++
				log.add("open")
				return l, err
			}
		}
	}
	var rounds [][]DuetUnit
	d.Round = func(round int, us []DuetUnit) (bool, error) {
		if round != len(rounds)+1 {
			t.Errorf("round %d after %d", round, len(rounds))
		}
		rounds = append(rounds, us)
		return false, nil
	}
	if err := d.Run(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 5 {
		t.Fatalf("%d rounds, want 5", len(rounds))
	}
	// Every round opens all four links afresh.
	for k, n := range opened {
		if n != 5 {
			t.Errorf("%s opened %d times, want once per round", k, n)
		}
	}
	// A round: 4 openings, the warm-up (3 round trips per side,
	// sub-experiment and payload), then for each sub-experiment and
	// payload 2 block pairs, each 7 sends of one side then 7 of the
	// other; AFirst counts those that began with A.
	sends := log.sends
	aFirst, pairs := 0, 0
	for r, us := range rounds {
		if len(us) != 4 {
			t.Fatalf("round %d: %d units, want 4", r+1, len(us))
		}
		if got := strings.Join(sends[:4], ","); got != "open,open,open,open" {
			t.Fatalf("round %d begins with %s", r+1, got)
		}
		sends = sends[4+3*2*2*2:]
		for _, u := range us {
			first := 0
			for range 2 {
				chunk := strings.Join(sends[:14], "")
				switch chunk {
				case strings.Repeat("A", 7) + strings.Repeat("B", 7):
					first++
				case strings.Repeat("B", 7) + strings.Repeat("A", 7):
				default:
					t.Fatalf("round %d %s %d B: block pair %s", r+1, u.Type, u.Payload, chunk)
				}
				sends = sends[14:]
			}
			if first != u.AFirst {
				t.Errorf("round %d %s %d B: A first in %d block pairs, unit says %d", r+1, u.Type, u.Payload, first, u.AFirst)
			}
			aFirst += first
			pairs += 2
			if len(u.A) != 14 || len(u.B) != 14 {
				t.Fatalf("unit: %d and %d round trips, want 14", len(u.A), len(u.B))
			}
			for i := range 14 {
				if a, b := time.Duration(u.A[i]), time.Duration(u.B[i]); a < time.Second || a > 1500*time.Millisecond || b < 2*time.Second || b > 2500*time.Millisecond {
					t.Fatalf("round trips %v and %v, want about 1 s and 2 s", a, b)
				}
			}
		}
	}
	if len(sends) != 0 {
		t.Errorf("%d sends after the last round", len(sends))
	}
	if aFirst == 0 || aFirst == pairs {
		t.Errorf("A first in %d of %d block pairs: the coin should give both orders", aFirst, pairs)
	}
	// Each side is an ordinary experiment: every block's round trips in
	// its raw files, its meta.json complete and naming the other side.
	for i, r := range []*Runner{d.A, d.B} {
		m, err := meta.ReadFile(filepath.Join(r.Dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		other := []string{"../../candidate/x", "../../reference/x"}[i]
		if !m.Completed || len(m.SubExperiments) != 2 || !strings.Contains(m.Mode, "rounds of 2 block pairs of 7 round trips") || !strings.Contains(m.Mode, other) {
			t.Errorf("side %d: meta completed %v, %d sub-experiments, mode %q", i, m.Completed, len(m.SubExperiments), m.Mode)
		}
		for _, s := range m.SubExperiments {
			raw, order := readRaw(t, r.Dir, s.Type)
			if len(order) != 2 || len(raw[16]) != 70 || len(raw[32]) != 70 {
				t.Errorf("side %d %s: payloads %v, %d and %d rows, want 70 each", i, s.Type, order, len(raw[16]), len(raw[32]))
			}
			for _, p := range s.Payloads {
				if p.Samples != 70 || p.Warmup != 15 || !p.Completed {
					t.Errorf("side %d %s: payload record %+v", i, s.Type, p)
				}
			}
		}
	}
}

func TestDuetOrderRepeatsWithSeed(t *testing.T) {
	orders := func(seed uint64) string {
		d, a, b, _ := duetOf(t, 4, seed)
		var s strings.Builder
		d.Round = func(_ int, bs []DuetUnit) (bool, error) {
			for _, u := range bs {
				fmt.Fprint(&s, u.AFirst)
			}
			return false, nil
		}
		if err := d.Run(context.Background(), a, b); err != nil {
			t.Fatal(err)
		}
		return s.String()
	}
	if x, y := orders(9), orders(9); x != y {
		t.Errorf("seed 9 gave orders %s and %s", x, y)
	}
	if x, y := orders(9), orders(10); x == y {
		t.Errorf("seeds 9 and 10 gave the same orders %s", x)
	}
}

func TestDuetStopsWhenRoundSays(t *testing.T) {
	d, a, b, _ := duetOf(t, 50, 1)
	d.Round = func(round int, _ []DuetUnit) (bool, error) { return round == 2, nil }
	if err := d.Run(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	raw, _ := readRaw(t, d.B.Dir, "two_reliable")
	if len(raw[32]) != 28 || !d.B.Meta.Completed {
		t.Errorf("%d rows after 2 rounds of 2 blocks of 7, completed %v", len(raw[32]), d.B.Meta.Completed)
	}
	// An error of Round stops the duet with it.
	d, a, b, _ = duetOf(t, 50, 1)
	d.Round = func(int, []DuetUnit) (bool, error) { return false, errors.New("full disk") }
	if err := d.Run(context.Background(), a, b); err == nil || err.Error() != "full disk" || d.A.Meta.Completed {
		t.Errorf("err %v, completed %v", err, d.A.Meta.Completed)
	}
}

func TestDuetEchoerDied(t *testing.T) {
	d, a, _, _ := duetOf(t, 1000, 1)
	failed := make(chan error, 1)
	p := &blocking{count: 60, closed: make(chan struct{}), onStop: func() { failed <- errors.New("exit status 9") }}
	b := []Sub{{Type: "one_reliable", Echo: EchoSubprocess, Open: func(context.Context) (*Link, error) { return &Link{Pinger: p, Failed: failed}, nil }},
		a[1]}
	d.Config.Timeout = time.Hour
	err := d.Run(context.Background(), a, b)
	var se *StopError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the echoer died: exit status 9") || se.Type != "one_reliable" {
		t.Fatalf("err = %v, want the echoer's death", err)
	}
	// The message says the round and whose echo died: the block the round
	// stopped at may be the other side's.
	if want := "round 2: one_reliable: "; !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(the echo end of "+d.B.Dir+")") {
		t.Errorf("err = %v, want it to begin %q and name %s", err, want, d.B.Dir)
	}
	for _, r := range []*Runner{d.A, d.B} {
		m, rerr := meta.ReadFile(filepath.Join(r.Dir, meta.FileName))
		if rerr != nil {
			t.Fatal(rerr)
		}
		if m.Completed || m.Error == "" || len(m.SubExperiments) != 2 {
			t.Errorf("%s: meta completed %v, error %q, %d sub-experiments", r.Dir, m.Completed, m.Error, len(m.SubExperiments))
		}
		// B's pinger stops at its 61st send: round 2 (34 sends a round),
		// in the blocks of 32 B. That payload was cut on both sides, the
		// one before it was not, whichever side's block came first.
		if ps := m.SubExperiments[0].Payloads; len(ps) != 2 || !ps[0].Completed || ps[1].Completed {
			t.Errorf("%s: one_reliable payloads %+v, want 16 B completed and 32 B not", r.Dir, ps)
		}
	}
}

func TestDuetInterrupted(t *testing.T) {
	d, a, b, _ := duetOf(t, 1000000, 1)
	ctx, cancel := context.WithCancel(context.Background())
	d.Round = func(round int, _ []DuetUnit) (bool, error) {
		if round == 3 {
			cancel()
		}
		return false, nil
	}
	err := d.Run(ctx, a, b)
	if !errors.Is(err, ErrInterrupted) || !d.A.Meta.Interrupted || !d.B.Meta.Interrupted {
		t.Fatalf("err = %v, interrupted %v %v", err, d.A.Meta.Interrupted, d.B.Meta.Interrupted)
	}
}

// TestDuetShapes gives each sub-experiment its own blocks: the first 3
// block pairs of 4 round trips, the second 1 pair of 9, every unit and raw
// file holding what its shape says, the mode naming both; a shape of no
// round trips is refused before anything is written.
func TestDuetShapes(t *testing.T) {
	d, a, b, log := duetOf(t, 2, 3)
	d.Block, d.Pairs = 0, 0
	d.Shapes = []DuetShape{{Block: 4, Pairs: 3}, {Block: 9, Pairs: 1}}
	var units [][]DuetUnit
	d.Round = func(_ int, us []DuetUnit) (bool, error) { units = append(units, us); return false, nil }
	if err := d.Run(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"one_reliable": 12, "two_reliable": 9}
	for r, us := range units {
		for _, u := range us {
			if len(u.A) != want[u.Type] || len(u.B) != want[u.Type] {
				t.Errorf("round %d %s %d B: %d and %d round trips, want %d", r+1, u.Type, u.Payload, len(u.A), len(u.B), want[u.Type])
			}
		}
	}
	// The sends of the first round after its warm-up: 48 of the first
	// sub-experiment (2 payloads, 2 sides, 3 blocks of 4), in runs of
	// whole blocks of one side (A B then B A makes a run of two blocks),
	// then 36 of the second in blocks of 9.
	runs := func(sends []string) []int {
		var out []int
		for i := 0; i < len(sends); {
			j := i
			for j < len(sends) && sends[j] == sends[i] {
				j++
			}
			out = append(out, j-i)
			i = j
		}
		return out
	}
	warm := 3 * 2 * 2 * 2 // 3 round trips per side, sub-experiment and payload
	for _, part := range []struct {
		sends []string
		block int
	}{{log.sends[warm : warm+48], 4}, {log.sends[warm+48 : warm+84], 9}} {
		for _, n := range runs(part.sends) {
			if n%part.block != 0 {
				t.Errorf("blocks of %d: a run of %d sends of one side in %v", part.block, n, part.sends)
			}
		}
	}
	if len(log.sends) != 2*(warm+84) {
		t.Errorf("%d sends in two rounds, want %d", len(log.sends), 2*(warm+84))
	}
	m, err := meta.ReadFile(filepath.Join(d.A.Dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Mode, "3 block pairs of 4 round trips (one_reliable), 1 block pair of 9 round trips (two_reliable)") {
		t.Errorf("mode %q", m.Mode)
	}
	d, a, b, _ = duetOf(t, 1, 3)
	d.Shapes = []DuetShape{{Block: 4, Pairs: 3}, {Block: 0, Pairs: 1}}
	if err := d.Run(context.Background(), a, b); err == nil || !strings.Contains(err.Error(), "two_reliable: block 0") {
		t.Errorf("a shape of no round trips: err = %v", err)
	}
	if _, err := meta.ReadFile(filepath.Join(d.A.Dir, meta.FileName)); err == nil {
		t.Error("meta.json written for a duet refused")
	}
}

func TestDuetRefusesUnlikeSides(t *testing.T) {
	d, a, b, _ := duetOf(t, 1, 1)
	b[1].Type = "three_reliable"
	if err := d.Run(context.Background(), a, b); err == nil || !strings.Contains(err.Error(), "two_reliable on one side and three_reliable") {
		t.Errorf("err = %v", err)
	}
	if _, err := meta.ReadFile(filepath.Join(d.A.Dir, meta.FileName)); err == nil {
		t.Error("meta.json written for a duet refused")
	}
}

// TestDuetEchoCPU reads each side's echo CPU time right before the first
// and right after the last block pair of each payload, and never between
// blocks, where a reading of /proc would weigh on a block of a few round
// trips: a side whose clock advances 5 µs per read has spent 5 µs over
// the payload's round trips, whatever the other side's reads. A
// sub-experiment one of whose sides has no CPU reader, or whose reading
// runs backwards during a block (a thread gone with its time), has none.
func TestDuetEchoCPU(t *testing.T) {
	d, a, b, _ := duetOf(t, 2, 7)
	type clock struct{ now time.Duration }
	var clocks []*clock
	withCPU := func(s *Sub, step time.Duration, backwards bool) {
		open := s.Open
		c := &clock{}
		clocks = append(clocks, c)
		s.Open = func(ctx context.Context) (*Link, error) {
			l, err := open(ctx)
			reads := 0
			l.CPU = func() (time.Duration, error) {
				reads++
				if backwards && reads == 2 {
					c.now -= time.Millisecond
				}
				c.now += step
				return c.now, nil
			}
			return l, err
		}
	}
	withCPU(&a[0], 5*time.Microsecond, false)
	withCPU(&b[0], 5*time.Microsecond, false)
	withCPU(&a[1], 5*time.Microsecond, false) // b[1] reads none
	var units [][]DuetUnit
	d.Round = func(_ int, us []DuetUnit) (bool, error) { units = append(units, us); return false, nil }
	if err := d.Run(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	for r, us := range units {
		for _, u := range us {
			switch {
			case u.Type == "two_reliable" && u.CPU != nil:
				t.Errorf("round %d %s %d B: CPU %+v with one side unread", r+1, u.Type, u.Payload, u.CPU)
			case u.Type == "one_reliable" && u.CPU == nil:
				t.Errorf("round %d %s %d B: no CPU", r+1, u.Type, u.Payload)
			case u.Type == "one_reliable":
				// One reading before the payload's blocks and one after:
				// one step per side, over its 2 blocks of 7.
				want := DuetCPU{A: 5 * time.Microsecond, B: 5 * time.Microsecond, AMessages: 2 * 7, BMessages: 2 * 7}
				if *u.CPU != want {
					t.Errorf("round %d %s %d B: CPU %+v, want %+v", r+1, u.Type, u.Payload, *u.CPU, want)
				}
			}
		}
	}
	d, a, b, _ = duetOf(t, 1, 7)
	withCPU(&a[0], 5*time.Microsecond, true)
	withCPU(&b[0], 5*time.Microsecond, false)
	units = nil
	d.Round = func(_ int, us []DuetUnit) (bool, error) { units = append(units, us); return false, nil }
	if err := d.Run(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	if u := units[0][0]; u.CPU != nil {
		t.Errorf("%s %d B: a reading that ran backwards gave CPU %+v", u.Type, u.Payload, *u.CPU)
	}
}

// TestDuetOpenFails: a side whose link cannot be opened (an echo program
// that never starts) stops the duet with an error naming the round and
// the side; it named neither ("interprocess_reliable_tcp: cannot connect:
// echo process did not print its address: exit status 127").
func TestDuetOpenFails(t *testing.T) {
	d, a, b, _ := duetOf(t, 3, 1)
	b[1].Open = func(context.Context) (*Link, error) {
		return nil, errors.New("echo process did not print its address: exit status 127")
	}
	err := d.Run(context.Background(), a, b)
	if err == nil || !strings.HasPrefix(err.Error(), "round 1: ") || !strings.Contains(err.Error(), "exit status 127") ||
		!strings.HasSuffix(err.Error(), "(opening the link of "+d.B.Dir+")") {
		t.Fatalf("err = %v, want the round and %s named", err, d.B.Dir)
	}
}

// sleepy is a pinger whose far end answers every message d after it was
// sent, in real time: a link as slow as a broker that holds small packets
// for Nagle's algorithm.
type sleepy struct {
	d    time.Duration
	last []byte
}

func (p *sleepy) Send(msg []byte) error {
	p.last = append(p.last[:0], msg...)
	return nil
}

func (p *sleepy) Receive(buf []byte, _ time.Time) (int, time.Time, error) {
	time.Sleep(p.d)
	return copy(buf, p.last), time.Now(), nil
}

func (p *sleepy) Close() error { return nil }

// TestDuetSaysASlowRound: a round of an interleaved gate is silent until
// it ends, and through a Mosquitto that holds small packets for Nagle's
// algorithm (44 ms a QoS 1 round trip) the first round of run ab's
// defaults ran five minutes saying nothing, where run says why in a
// warning. Round 1's warm-up now projects the round and the budget, and
// the end of round 1 gives each side's transport's advice.
func TestDuetSaysASlowRound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     time.Duration
		slow  bool
		nagle bool
	}{
		{"nagle", 20 * time.Millisecond, true, true},
		{"fast", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d := &Duet{Config: Config{Payloads: []int{16}, Warmup: 2, Latency: meta.LatencyRTT, Timeout: time.Minute}, Block: 1, Pairs: 3, Rounds: 3,
				A:         &Runner{Dir: filepath.Join(dir, "reference", "x"), Meta: &meta.Meta{Experiment: "x"}},
				B:         &Runner{Dir: filepath.Join(dir, "candidate", "x"), Meta: &meta.Meta{Experiment: "x"}},
				SlowRound: 100 * time.Millisecond}
			var notices []string
			rounds := 0
			d.Notice = func(s string) { notices = append(notices, fmt.Sprintf("%d: %s", rounds, s)) }
			d.Round = func(round int, _ []DuetUnit) (bool, error) { rounds = round; return false, nil }
			side := func() []Sub {
				return []Sub{{Type: "mqtt_reliable", Transport: "mqtt", Echo: EchoSubprocess, Params: map[string]string{mqtt.ParamQoS: "1"},
					Open: func(context.Context) (*Link, error) {
						return &Link{Pinger: &sleepy{d: tc.d}, System: &meta.SystemInfo{Product: "mosquitto", Version: "2.0.11"}}, nil
					}}}
			}
			if err := d.Run(context.Background(), side(), side()); err != nil {
				t.Fatal(err)
			}
			all := strings.Join(notices, "\n")
			if !tc.slow {
				if len(notices) > 0 {
					t.Fatalf("a fast duet was noticed:\n%s", all)
				}
				return
			}
			// Said during round 1 (before its Round call): the projection
			// after the warm-up, each side's advice as it ends.
			if len(notices) != 3 || !strings.HasPrefix(notices[0], "0: round 1's warm-up took") ||
				!strings.Contains(notices[0], "the budget of 3 rounds") || !strings.Contains(notices[0], "Nagle") {
				t.Fatalf("want the projection then the advice of both sides, in round 1; got:\n%s", all)
			}
			for i, side := range []string{"reference", "candidate"} {
				n := notices[1+i]
				if !strings.HasPrefix(n, "0: mqtt_reliable: median round trip") || !strings.Contains(n, "set_tcp_nodelay true") ||
					!strings.Contains(n, filepath.Join(side, "x")) {
					t.Errorf("advice %d: %s", i, n)
				}
			}
		})
	}
}

// unacked is a delayed pinger whose system acknowledges nothing from its
// nth message on: a broker that stopped answering (nats-server stopped).
type unacked struct {
	delayed
	n, sent int
}

func (p *unacked) OnAck(func(error)) {}

func (p *unacked) Send(msg []byte) error {
	p.sent++
	return p.delayed.Send(msg)
}

func (p *unacked) WaitAcks(time.Time) error {
	if p.sent >= p.n {
		return fmt.Errorf("1 messages not acknowledged before the deadline: %w", driver.ErrTimeout)
	}
	return nil
}

// TestDuetNamesTheSideThatStopped: a side's broker that stopped
// acknowledging (one nats-server per side, the candidate's stopped)
// stopped the gate with "payload 8192 B, round trip 2 of 1: messages not
// acknowledged within 1s", naming neither the side nor a round trip of
// the block. The error now names the side's run, and the round trip is
// the block's last.
func TestDuetNamesTheSideThatStopped(t *testing.T) {
	d, a, _, log := duetOf(t, 1000, 1)
	p := &unacked{delayed: delayed{name: "B", d: 2 * time.Second, log: log}, n: 40}
	b := []Sub{{Type: "one_reliable", Echo: EchoSubprocess, Open: func(context.Context) (*Link, error) { return &Link{Pinger: p}, nil }}, a[1]}
	err := d.Run(context.Background(), a, b)
	var se *StopError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "messages not acknowledged") {
		t.Fatalf("err = %v, want the acknowledgements' timeout", err)
	}
	if !strings.Contains(err.Error(), "(the link of "+d.B.Dir+")") {
		t.Errorf("err = %v, want it to name %s", err, d.B.Dir)
	}
	if se.Attempt > se.Total {
		t.Errorf("err = %v: round trip %d of %d", err, se.Attempt, se.Total)
	}
}
