package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Duet measures two systems side by side in one run each: one pinger
// alternates blocks of round trips between side A's and side B's links,
// the order of each block pair drawn from a seeded coin. Whatever stays
// constant over a while (the CPUs the ends were placed on, their
// frequency, the neighbours, a scheduling mode) then weighs on both sides
// of every block pair alike (duet benchmarking: Bulej et al., ICPE 2020;
// randomized multiple interleaved trials: Abedi and Brecht, ICPE 2017).
//
// A round opens every sub-experiment's link of both sides afresh (which
// side first, drawn from the coin), warms each up, measures Pairs block
// pairs of every payload and closes them: each round is an independent
// replicate, so that what one instance of a link settles into (where its
// buffers fell, which side was opened first) is noise of the round rather
// than a bias of the whole run, and the rounds are the units of a paired
// comparison.
//
// Each side is written as an ordinary experiment folder, its Runner's Dir
// and Meta, whose raw files hold every measured round trip of its blocks
// in the order they were measured.
type Duet struct {
	// Config is what both sides measure: payloads, warm-up (per round,
	// link and payload), timeout, fill. Samples is unused: a side measures
	// Pairs blocks of Block round trips per round.
	Config Config
	// Block is the round trips of one block; Pairs the block pairs of
	// each sub-experiment and payload in a round.
	Block, Pairs int
	// Shapes, when given, holds each sub-experiment's own block and block
	// pairs (by index), in place of Block and Pairs: the block that
	// cancels most of the machine's drift is measured in round trips
	// where a round trip is long, and is longer where a round trip costs
	// less than a switch between the two sides.
	Shapes []DuetShape
	// Rounds is the most rounds.
	Rounds int
	// Seed seeds the coin that orders the openings and the block pairs.
	Seed uint64
	// A and B are the two sides' outputs: their Dir and Meta (the caller
	// fills Meta as for Runner.Run); their Config is ignored.
	A, B *Runner
	// Round is called after every round with its units, in the order
	// measured; it returns true to end the duet (a gate that decided).
	Round func(round int, units []DuetUnit) (stop bool, err error)
	// Notice, when set, is told what the person waiting for the first
	// round should know: once round 1's warm-up shows that a round will
	// take SlowRound or more, how long a round and the budget take; and
	// after round 1, a side's transport's advice on its round trips
	// (driver.Advice: an MQTT broker holding small packets for Nagle's
	// algorithm, 44 ms a round trip where a fraction of a millisecond was
	// expected). A round is silent until it ends, and such a round of an
	// interleaved gate ran for minutes saying nothing.
	Notice func(text string)
	// SlowRound is the projected length of a round from which Notice is
	// told it; 0 means DefaultSlowRound.
	SlowRound time.Duration
}

// DefaultSlowRound is Duet.SlowRound's default: a round projected to take
// longer is announced after round 1's warm-up. Rounds of the defaults take
// about a second over TCP and 3–9 s through a broker.
const DefaultSlowRound = 30 * time.Second

// DuetUnit is what one round measured of one sub-experiment's payload:
// Pairs blocks of round trips on each side.
type DuetUnit struct {
	Type    string
	Payload int
	// AFirst counts the block pairs whose A block came first.
	AFirst int
	// A and B are the round's round trips in nanoseconds, its blocks in
	// the order measured.
	A, B []int64
	// CPU is what the two echo ends spent on a CPU during the round's
	// blocks of this payload, when both sides' links read it (Link.CPU)
	// and every reading succeeded; nil otherwise.
	CPU *DuetCPU
}

// DuetShape is one sub-experiment's blocks in a round: Pairs block pairs
// of Block round trips per payload.
type DuetShape struct{ Block, Pairs int }

// DuetCPU is the on-CPU time of each side's echo process over a payload's
// measured block pairs (read right before the first and right after the
// last: not its start-up nor the warm-up), and the round trips its blocks
// completed.
type DuetCPU struct {
	A, B                 time.Duration
	AMessages, BMessages int
}

// duetCoin is the stream of the coin that orders the openings and the
// block pairs, so that the same seed gives the same order whatever else
// the seed drives.
const duetCoin = 0x6475657420636f69 // "duet coi"

// duetSide is what one side of the duet has measured.
type duetSide struct {
	r    *Runner
	subs []Sub
	recs []meta.SubExperiment
	// payloads[i][j] accumulates sub i's payload j: its samples and counts.
	payloads [][]driver.PayloadResult
}

// duetLink is one side's open link of a sub-experiment in a round.
type duetLink struct {
	link  *Link
	loop  *pingLoop
	close func() // closes the pinger once, from the watcher or at the end
}

// Run measures subsA against subsB, which must name the same
// sub-experiments in the same order, and writes both sides' folders. It
// returns nil when the rounds ran out or Round stopped the duet, an error
// wrapping ErrInterrupted when ctx was cancelled, or a *StopError when a
// link failed; in every case both sides' raw files of the rounds measured
// so far and their meta.json are written.
func (d *Duet) Run(ctx context.Context, subsA, subsB []Sub) (err error) {
	cfg := d.Config.WithDefaults()
	cfg.Samples = max(d.Block, 1) // each block sets its own
	if err := cfg.Validate(); err != nil {
		return err
	}
	if _, ok := cfg.Workload.(RoundTrip); !ok {
		return errors.New("a duet measures round trips")
	}
	if len(subsA) != len(subsB) {
		return fmt.Errorf("the sides measure %d and %d sub-experiments", len(subsA), len(subsB))
	}
	if d.Shapes != nil && len(d.Shapes) != len(subsA) {
		return fmt.Errorf("a duet of %d sub-experiments given the blocks of %d", len(subsA), len(d.Shapes))
	}
	shapes := make([]DuetShape, len(subsA))
	for i := range subsA {
		shapes[i] = d.shape(i)
		if sh := shapes[i]; sh.Block < 1 || sh.Pairs < 1 || d.Rounds < 1 {
			return fmt.Errorf("a duet needs blocks of at least one round trip, a block pair per round and a round (%s: block %d, pairs %d, rounds %d)", subsA[i].Type, sh.Block, sh.Pairs, d.Rounds)
		}
	}
	for i := range subsA {
		if subsA[i].Type != subsB[i].Type {
			return fmt.Errorf("sub-experiment %d is %s on one side and %s on the other", i+1, subsA[i].Type, subsB[i].Type)
		}
	}
	mode := fmt.Sprintf("round-trip closed-loop, interleaved: rounds of %s alternating between this side and %%s, "+
		"both sides' links opened afresh each round, the order of each opening and block pair drawn from seed %d", ShapesText(subsA, shapes), d.Seed)
	sides := []*duetSide{{r: d.A, subs: subsA}, {r: d.B, subs: subsB}}
	for i, s := range sides {
		other := sides[1-i].r.Dir
		rel, relErr := filepath.Rel(s.r.Dir, other)
		if relErr != nil {
			rel = other
		}
		if err := s.r.begin(cfg, fmt.Sprintf(mode, filepath.ToSlash(rel))); err != nil {
			return err
		}
		for _, sub := range s.subs {
			s.recs = append(s.recs, sub.record())
			ps := make([]driver.PayloadResult, len(cfg.Payloads))
			for j, p := range cfg.Payloads {
				ps[j].Counts = meta.Payload{Bytes: p, Completed: true}
			}
			s.payloads = append(s.payloads, ps)
		}
	}
	defer func() {
		for _, s := range sides {
			if werr := s.finish(err); werr != nil && err == nil {
				err = werr
			}
		}
	}()
	coin := rand.New(rand.NewPCG(d.Seed, duetCoin))
	for round := 1; round <= d.Rounds; round++ {
		units, err := d.round(ctx, cfg, sides, coin, round)
		if err != nil {
			// Which round: the rounds before it are whole on both sides.
			return fmt.Errorf("round %d: %w", round, err)
		}
		if d.Round != nil {
			stopped, err := d.Round(round, units)
			if err != nil || stopped {
				return err
			}
		}
	}
	return nil
}

// round opens every link of both sides, the side opened first drawn per
// sub-experiment, warms them up, measures the block pairs of every
// sub-experiment and payload and closes the links.
func (d *Duet) round(ctx context.Context, cfg Config, sides []*duetSide, coin *rand.Rand, round int) ([]DuetUnit, error) {
	n := len(sides[0].subs)
	rd := &duetRound{d: d, cfg: cfg, sides: sides, open: make([][2]*duetLink, n), done: make(chan struct{})}
	defer rd.close()
	if err := rd.openLinks(ctx, coin); err != nil {
		return nil, err
	}
	rd.watch(ctx)
	began := time.Now()
	warmed, err := rd.warm()
	if err != nil {
		return nil, err
	}
	if round == 1 && d.Notice != nil {
		if s := d.slowRound(cfg, warmed, time.Since(began)); s != "" {
			d.Notice(s)
		}
		defer func() {
			for _, s := range sides {
				for i, rec := range s.recs {
					if a := driver.Advice(rec, s.payloads[i]); a != "" {
						d.Notice(fmt.Sprintf("%s (%s)", strings.TrimSuffix(strings.TrimPrefix(a, "warning: "), "\n"), s.r.Dir))
					}
				}
			}
		}()
	}
	units := make([]DuetUnit, 0, n*len(cfg.Payloads))
	for i := range n {
		for j := range cfg.Payloads {
			u, err := rd.unit(i, j, coin)
			if err != nil {
				return nil, err
			}
			units = append(units, u)
		}
	}
	return units, nil
}

// duetRound is one round: both sides' open links of every sub-experiment
// (open[i][k], side k's of sub-experiment i), the flag that stops them
// all, and the watchers that set it.
type duetRound struct {
	d        *Duet
	cfg      Config
	sides    []*duetSide
	open     [][2]*duetLink
	stopper  // set by a watcher, which then closes every pinger
	done     chan struct{}
	watchers sync.WaitGroup
}

// openLinks opens both sides' links of every sub-experiment, the side
// opened first drawn from the coin.
func (rd *duetRound) openLinks(ctx context.Context, coin *rand.Rand) error {
	block := rd.cfg
	block.Warmup = 0
	for i := range rd.open {
		order := []int{0, 1}
		if coin.IntN(2) == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			sub := rd.sides[k].subs[i]
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w while connecting", sub.Type, ErrInterrupted)
			}
			link, err := sub.open(ctx)
			if err != nil {
				if errors.Is(err, ErrInterrupted) {
					return err
				}
				// Whose link: an echo that never starts is one side's.
				return fmt.Errorf("%w (opening the link of %s)", err, rd.sides[k].r.Dir)
			}
			rec := &rd.sides[k].recs[i]
			if rec.System == nil {
				rec.System = link.System
			}
			_, rec.Acknowledged = link.Pinger.(driver.AckSender)
			rd.open[i][k] = &duetLink{link: link, loop: newPingLoop(block, link.Pinger, &rd.stop), close: sync.OnceFunc(func() { link.Pinger.Close() })}
		}
	}
	return nil
}

// watch starts a watcher of every link, which halts the round when ctx is
// cancelled or the link's echoer dies. The watchers start once every link
// is open, so that halt never meets a link half made.
func (rd *duetRound) watch(ctx context.Context) {
	for _, pair := range rd.open {
		for k, l := range pair {
			rd.watchers.Add(1)
			go func() {
				defer rd.watchers.Done()
				cause := watchCause(ctx, rd.done, l.link.Failed)
				if cause != nil && !errors.Is(cause, ErrInterrupted) {
					// Whose echo: the round trip the round stops at may be
					// the other side's block.
					cause = fmt.Errorf("%w (the echo end of %s)", cause, rd.sides[k].r.Dir)
				}
				if cause != nil {
					rd.halt(cause)
				}
			}()
		}
	}
}

// halt stops the round for cause, the first time, and closes every
// pinger, which unblocks a Receive in progress.
func (rd *duetRound) halt(cause error) {
	if rd.stopper.halt(cause) {
		for _, pair := range rd.open {
			for _, l := range pair {
				l.close()
			}
		}
	}
}

// close stops the watchers and closes every link opened.
func (rd *duetRound) close() {
	close(rd.done)
	rd.watchers.Wait()
	for _, pair := range rd.open {
		for _, l := range pair {
			if l == nil {
				continue
			}
			l.close()
			if l.link.Close != nil {
				l.link.Close()
			}
		}
	}
}

// warm runs the warm-up of every sub-experiment and payload on both sides.
// It returns how long each sub-experiment's warm-up took on both sides
// together, by index.
func (rd *duetRound) warm() ([]time.Duration, error) {
	warm := rd.cfg
	warm.Samples, warm.Warmup = 0, rd.cfg.Warmup
	took := make([]time.Duration, len(rd.open))
	for i := range rd.open {
		began := time.Now()
		for j := range rd.cfg.Payloads {
			for k, s := range rd.sides {
				var res driver.PayloadResult
				if err := rd.measure(k, i, j, warm, &res); err != nil {
					return nil, err
				}
				s.payloads[i][j].Counts.Warmup += rd.cfg.Warmup
			}
		}
		took[i] = time.Since(began)
	}
	return took, nil
}

// slowRound says, when a round projected from its warm-up takes SlowRound
// or more, how long a round and the budget take; "" otherwise or without
// a warm-up. took is each sub-experiment's warm-up on both sides, all the
// warm-up round trips; the measured round trips are projected at the
// warm-up's pace.
func (d *Duet) slowRound(cfg Config, took []time.Duration, all time.Duration) string {
	if cfg.Warmup < 1 {
		return ""
	}
	warmTrips := 2 * cfg.Warmup * len(cfg.Payloads)
	var round time.Duration
	slowest := time.Duration(0)
	for i, t := range took {
		each := t / time.Duration(warmTrips)
		sh := d.shape(i)
		round += each * time.Duration(2*sh.Block*sh.Pairs*len(cfg.Payloads))
		slowest = max(slowest, each)
	}
	round += all
	if round < cmp.Or(d.SlowRound, DefaultSlowRound) {
		return ""
	}
	s := fmt.Sprintf("round 1's warm-up took %s per round trip: a round will take about %s, the budget of %d rounds up to %s",
		result.Micros(float64(slowest)/1e3), result.Remaining(round), d.Rounds, result.Remaining(round*time.Duration(d.Rounds)))
	if ms := slowest.Seconds() * 1e3; ms >= 15 && ms <= 90 {
		s += "; a round trip near 20 or 40 ms on a fast link is often the mark of Nagle's algorithm meeting delayed ACKs (an end or a broker that does not set TCP_NODELAY)"
	}
	return s
}

// unit measures the block pairs of payload j of sub-experiment i, the
// order of each pair drawn from the coin.
func (rd *duetRound) unit(i, j int, coin *rand.Rand) (DuetUnit, error) {
	shape := rd.d.shape(i)
	blk := rd.cfg
	blk.Warmup, blk.Samples = 0, shape.Block
	a, b := rd.open[i][0].link, rd.open[i][1].link
	u := DuetUnit{Type: rd.sides[0].subs[i].Type, Payload: rd.cfg.Payloads[j]}
	cpu := cpuTally{ok: a.CPU != nil && b.CPU != nil}
	cpu.a0, cpu.b0 = cpu.read(a), cpu.read(b) // before the payload's first block
	for range shape.Pairs {
		order := []int{0, 1}
		if coin.IntN(2) == 0 {
			u.AFirst++
		} else {
			order = []int{1, 0}
		}
		for _, k := range order {
			var res driver.PayloadResult
			err := rd.measure(k, i, j, blk, &res)
			rd.sides[k].add(i, j, res)
			if err != nil {
				// The round's blocks of this payload stop on both sides,
				// whichever side's block was cut (the other's may have
				// completed its own).
				for _, s := range rd.sides {
					s.payloads[i][j].Counts.Completed = false
				}
				return u, err
			}
			if k == 0 {
				u.A = append(u.A, res.Nanos...)
			} else {
				u.B = append(u.B, res.Nanos...)
			}
		}
	}
	cpu.end(a, b, len(u.A), len(u.B))
	if cpu.ok {
		u.CPU = &cpu.DuetCPU
	}
	return u, nil
}

// measure runs c.Samples round trips (c.Warmup discarded) of payload j on
// side k's link of sub-experiment i into res.
func (rd *duetRound) measure(k, i, j int, c Config, res *driver.PayloadResult) error {
	l := rd.open[i][k]
	l.loop.cfg = c
	res.Nanos = make([]int64, 0, c.Samples)
	attempt, err := l.loop.Measure(rd.cfg.Payloads[j], res)
	if err == nil {
		return nil
	}
	// Let the watcher explain a broken link: an echo process that died
	// usually shows first as a reset connection.
	if l.link.Failed != nil {
		for wait := time.Now().Add(min(rd.cfg.Timeout, 500*time.Millisecond)); !rd.stop.Load() && time.Now().Before(wait); {
			time.Sleep(time.Millisecond)
		}
	}
	err = rd.cause(err)
	sub := rd.sides[k].subs[i]
	if errors.Is(err, ErrInterrupted) {
		return fmt.Errorf("%s: %w at payload %d B", sub.Type, ErrInterrupted, rd.cfg.Payloads[j])
	}
	// Whose link: with a broker per side, a message of one side's broker
	// that went unacknowledged named neither the side nor the broker. A
	// failure after the block's last round trip (waiting for its
	// acknowledgements) is the last round trip's, not one past it.
	if dir := rd.sides[k].r.Dir; !strings.Contains(err.Error(), dir) {
		err = fmt.Errorf("%w (the link of %s)", err, dir)
	}
	total := c.Warmup + c.Samples
	return &StopError{Type: sub.Type, Payload: rd.cfg.Payloads[j], Attempt: min(attempt+1, total), Total: total, Err: err}
}

// shape is sub-experiment i's block and block pairs: Shapes[i] when
// given, else Block and Pairs.
func (d *Duet) shape(i int) DuetShape {
	if i < len(d.Shapes) {
		return d.Shapes[i]
	}
	return DuetShape{Block: d.Block, Pairs: d.Pairs}
}

// ShapesText says the blocks of a round of subs, shapes[i] being sub i's:
// "5 block pairs of 100 round trips", or per sub-experiment when they
// differ ("5 block pairs of 100 round trips (intraprocess_reliable), 250
// block pairs of 2 round trips (interprocess_reliable_tcp)").
func ShapesText(subs []Sub, shapes []DuetShape) string {
	text := func(sh DuetShape) string {
		pairs := fmt.Sprintf("%d block pairs", sh.Pairs)
		if sh.Pairs == 1 {
			pairs = "1 block pair"
		}
		if sh.Block == 1 {
			return pairs + " of 1 round trip"
		}
		return fmt.Sprintf("%s of %d round trips", pairs, sh.Block)
	}
	same := true
	for _, sh := range shapes {
		same = same && sh == shapes[0]
	}
	if same && len(shapes) > 0 {
		return text(shapes[0])
	}
	parts := make([]string, len(subs))
	for i, sub := range subs {
		parts[i] = fmt.Sprintf("%s (%s)", text(shapes[i]), sub.Type)
	}
	return strings.Join(parts, ", ")
}

// cpuTally reads the two echo processes' CPU time over a payload's block
// pairs: once before the first block and once after the last, so that a
// reading (tens of microseconds of /proc, longer than a block of a few
// round trips) weighs on no block. Over the payload each echo serves its
// own blocks and waits in a read during the other side's, which costs it
// nothing measurable. ok turns false at the first reading that fails or
// runs backwards (a thread of the echo exited, taking its time out of the
// sum).
type cpuTally struct {
	DuetCPU
	ok     bool
	a0, b0 time.Duration
}

func (c *cpuTally) read(l *Link) time.Duration {
	if !c.ok {
		return 0
	}
	t, err := l.CPU()
	if err != nil {
		c.ok = false
	}
	return t
}

// end takes the readings after the payload's last block, the sides
// having completed na and nb round trips.
func (c *cpuTally) end(a, b *Link, na, nb int) {
	a1, b1 := c.read(a), c.read(b)
	if !c.ok {
		return
	}
	if a1 < c.a0 || b1 < c.b0 {
		c.ok = false
		return
	}
	c.A, c.AMessages = a1-c.a0, na
	c.B, c.BMessages = b1-c.b0, nb
}

// add appends one block's round trips and counts to payload j of
// sub-experiment i.
func (s *duetSide) add(i, j int, res driver.PayloadResult) {
	acc := &s.payloads[i][j]
	acc.Nanos = append(acc.Nanos, res.Nanos...)
	c, b := &acc.Counts, res.Counts
	c.Lost += b.Lost
	c.Retransmitted += b.Retransmitted
	c.Duplicates += b.Duplicates
	c.OutOfOrder += b.OutOfOrder
	c.Dropped += b.Dropped
	c.Errors += b.Errors
	c.OtherRuns += b.OtherRuns
	c.MessagesAcked += b.MessagesAcked
	c.MessagesRefused += b.MessagesRefused
	c.Completed = c.Completed && b.Completed
}

// finish writes the side's raw files and its completed meta.json, err
// being how the duet ended.
func (s *duetSide) finish(err error) error {
	m := s.r.Meta
	var werr error
	for i, rec := range s.recs {
		rec.End = time.Now().UTC()
		for j := range s.payloads[i] {
			p := &s.payloads[i][j]
			p.Counts.Samples = len(p.Nanos)
			rec.Payloads = append(rec.Payloads, p.Counts)
		}
		rec.Completed = err == nil
		if err != nil {
			var se *StopError
			if errors.As(err, &se) && se.Type == rec.Type {
				rec.Error = err.Error()
			}
		}
		m.SubExperiments = append(m.SubExperiments, rec)
		if kept(s.payloads[i]) > 0 && werr == nil {
			werr = s.r.sink().Write(s.r.Dir, s.subs[i], m.Latency, s.payloads[i])
		}
	}
	// meta.json records how the duet ended, else the write's error.
	if e := s.r.end(cmp.Or(err, werr)); werr == nil {
		werr = e
	}
	return werr
}
