package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// Duet measures two systems side by side in one run: one pinger
// alternates blocks of round trips between side A's and side B's links,
// the order of each block pair drawn from a seeded coin. Whatever stays
// constant over the run (the CPUs the ends were placed on, their
// frequency, the neighbours, the mode a process settled in) then weighs on
// both sides of every block pair alike, and each block pair is a unit of a
// paired comparison (duet benchmarking: Bulej et al., ICPE 2020;
// randomized multiple interleaved trials: Abedi and Brecht, ICPE 2017).
//
// Each side is written as an ordinary experiment folder, its Runner's Dir
// and Meta, whose raw files hold every measured round trip of its blocks
// in the order they were measured.
type Duet struct {
	// Config is what both sides measure: payloads, warm-up (per link and
	// payload, once, before the first round), timeout, fill. Samples is
	// unused: a side measures Block round trips per round.
	Config Config
	// Block is the number of round trips of one block.
	Block int
	// Rounds is the most rounds: each measures one block pair of every
	// sub-experiment and payload.
	Rounds int
	// Seed seeds the coin that orders each block pair.
	Seed uint64
	// A and B are the two sides' outputs: their Dir and Meta (the caller
	// fills Meta as for Runner.Run); their Config is ignored.
	A, B *Runner
	// Round is called after every round with its block pairs, in the order
	// measured; it returns true to end the duet (a gate that decided).
	Round func(round int, blocks []DuetBlock) (stop bool, err error)
}

// DuetBlock is one block pair: a sub-experiment's payload measured Block
// round trips on each side, AFirst when side A's block came first.
type DuetBlock struct {
	Type    string
	Payload int
	AFirst  bool
	// A and B are the blocks' round trips in nanoseconds.
	A, B []int64
}

// duetCoin is the stream of the coin that orders the block pairs, so that
// the same seed gives the same order whatever else the seed drives.
const duetCoin = 0x6475657420636f69 // "duet coi"

// duetSide is what one side of the duet has open and has measured.
type duetSide struct {
	r     *Runner
	links []*Link
	// closers close each link's pinger once, from the watcher or at the end.
	closers []func()
	loops   []*pingLoop
	subs    []Sub
	recs    []meta.SubExperiment
	// payloads[i][j] accumulates sub i's payload j: its samples and counts.
	payloads [][]driver.PayloadResult
}

// Run measures subsA against subsB, which must name the same
// sub-experiments in the same order, and writes both sides' folders. It
// returns nil when the rounds ran out or Round stopped the duet, an error
// wrapping ErrInterrupted when ctx was cancelled, or a *StopError when a
// link failed; in every case both sides' raw files of the rounds measured
// so far and their meta.json are written.
func (d *Duet) Run(ctx context.Context, subsA, subsB []Sub) (err error) {
	cfg := d.Config.WithDefaults()
	cfg.Samples = d.Block
	if err := cfg.Validate(); err != nil {
		return err
	}
	if _, ok := cfg.Workload.(RoundTrip); !ok {
		return errors.New("a duet measures round trips")
	}
	if d.Block < 1 || d.Rounds < 1 {
		return fmt.Errorf("a duet needs blocks of at least one round trip and at least one round (block %d, rounds %d)", d.Block, d.Rounds)
	}
	if len(subsA) != len(subsB) {
		return fmt.Errorf("the sides measure %d and %d sub-experiments", len(subsA), len(subsB))
	}
	for i := range subsA {
		if subsA[i].Type != subsB[i].Type {
			return fmt.Errorf("sub-experiment %d is %s on one side and %s on the other", i+1, subsA[i].Type, subsB[i].Type)
		}
	}
	mode := fmt.Sprintf("round-trip closed-loop, interleaved: blocks of %d round trips alternating between this side and %%s, the order of each block pair drawn from seed %d", d.Block, d.Seed)
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
	}
	defer func() {
		for _, s := range sides {
			if werr := s.finish(cfg, err); werr != nil && err == nil {
				err = werr
			}
		}
	}()

	// A watcher turns cancellation and a dying echoer into the stop flag
	// and closes the pingers, which unblocks a Receive in progress.
	var stop atomic.Bool
	var why atomic.Pointer[error]
	done := make(chan struct{})
	var watchers sync.WaitGroup
	defer func() {
		close(done)
		watchers.Wait()
		for _, s := range sides {
			s.close()
		}
	}()
	halt := func(cause error) {
		if why.CompareAndSwap(nil, &cause) {
			stop.Store(true)
			for _, s := range sides {
				for _, c := range s.closers {
					c()
				}
			}
		}
	}
	warm := cfg
	warm.Samples, warm.Warmup = max(cfg.Warmup, 1), 0
	block := cfg
	block.Warmup = 0
	for i := range subsA {
		for _, s := range sides {
			sub := s.subs[i]
			rec := meta.SubExperiment{Type: sub.Type, Transport: sub.Transport, Reliable: sub.Reliable, Echo: sub.Echo,
				Topic: sub.Topic, Params: sub.Params, Start: time.Now().UTC(), Payloads: []meta.Payload{}}
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w before it started", sub.Type, ErrInterrupted)
			}
			link, err := sub.Open(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("%s: %w while connecting", sub.Type, ErrInterrupted)
				}
				return &StopError{Type: sub.Type, Err: fmt.Errorf("cannot connect: %w", err)}
			}
			rec.System = link.System
			_, rec.Acknowledged = link.Pinger.(driver.AckSender)
			s.links = append(s.links, link)
			s.closers = append(s.closers, sync.OnceFunc(func() { link.Pinger.Close() }))
			s.recs = append(s.recs, rec)
			s.loops = append(s.loops, newPingLoop(block, link.Pinger, &stop))
			s.payloads = append(s.payloads, make([]driver.PayloadResult, len(cfg.Payloads)))
		}
	}
	// The watchers start once every link is open, so that the lists they
	// close from no longer grow.
	for _, s := range sides {
		for _, link := range s.links {
			watchers.Add(1)
			go func() {
				defer watchers.Done()
				select {
				case <-done:
				case <-ctx.Done():
					halt(ErrInterrupted)
				case e := <-link.Failed:
					halt(fmt.Errorf("the echoer died: %w", e))
				}
			}()
		}
	}
	// measure runs n round trips of payload j on side s's link of
	// sub-experiment i, with loop configuration c, into res.
	measure := func(s *duetSide, i, j int, c Config, res *driver.PayloadResult) error {
		l := s.loops[i]
		l.cfg = c
		res.Nanos = make([]int64, 0, c.Samples)
		attempt, err := l.Measure(cfg.Payloads[j], res)
		if err == nil {
			return nil
		}
		if p := why.Load(); p != nil && stop.Load() {
			err = *p
		}
		sub := s.subs[i]
		if errors.Is(err, ErrInterrupted) {
			return fmt.Errorf("%s: %w at payload %d B", sub.Type, ErrInterrupted, cfg.Payloads[j])
		}
		return &StopError{Type: sub.Type, Payload: cfg.Payloads[j], Attempt: attempt + 1, Total: c.Samples, Err: err}
	}
	for i := range subsA {
		for j := range cfg.Payloads {
			for _, s := range sides {
				var res driver.PayloadResult
				if err := measure(s, i, j, warm, &res); err != nil {
					return err
				}
				s.payloads[i][j].Counts = meta.Payload{Bytes: cfg.Payloads[j], Warmup: cfg.Warmup, Completed: true}
			}
		}
	}
	coin := rand.New(rand.NewPCG(d.Seed, duetCoin))
	for round := 1; round <= d.Rounds; round++ {
		blocks := make([]DuetBlock, 0, len(subsA)*len(cfg.Payloads))
		for i, sub := range subsA {
			for j, p := range cfg.Payloads {
				b := DuetBlock{Type: sub.Type, Payload: p, AFirst: coin.IntN(2) == 0}
				order := sides
				if !b.AFirst {
					order = []*duetSide{sides[1], sides[0]}
				}
				for _, s := range order {
					var res driver.PayloadResult
					err := measure(s, i, j, block, &res)
					s.add(i, j, res)
					if err != nil {
						return err
					}
					if s == sides[0] {
						b.A = res.Nanos
					} else {
						b.B = res.Nanos
					}
				}
				blocks = append(blocks, b)
			}
		}
		if d.Round != nil {
			stopped, err := d.Round(round, blocks)
			if err != nil || stopped {
				return err
			}
		}
	}
	return nil
}

// begin starts r's meta.json, marked incomplete, with the duet's mode.
func (r *Runner) begin(cfg Config, mode string) error {
	m := r.Meta
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	m.Latency = cfg.Workload.Latency(cfg)
	m.Mode = mode
	m.Clock = "monotonic (Go runtime, ns)"
	m.Completed, m.Interrupted, m.Error = false, false, ""
	m.SubExperiments = []meta.SubExperiment{}
	m.End = m.Start
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	return meta.Write(filepath.Join(r.Dir, meta.FileName), m)
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
	c.MessagesAcked += b.MessagesAcked
	c.MessagesRefused += b.MessagesRefused
	c.Completed = c.Completed && b.Completed
}

// close closes the side's pingers and what their links started.
func (s *duetSide) close() {
	for k, l := range s.links {
		s.closers[k]()
		if l.Close != nil {
			l.Close()
		}
	}
	s.links = nil
}

// finish writes the side's raw files and its completed meta.json, err
// being how the duet ended.
func (s *duetSide) finish(cfg Config, err error) error {
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
	m.End = time.Now().UTC()
	m.Completed = err == nil && werr == nil
	m.Interrupted = errors.Is(err, ErrInterrupted)
	switch {
	case err != nil:
		m.Error = err.Error()
	case werr != nil:
		m.Error = werr.Error()
	}
	if e := meta.Write(filepath.Join(s.r.Dir, meta.FileName), m); e != nil && werr == nil {
		werr = e
	}
	return werr
}
