package throughput

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// Defaults of the method.
const (
	DefaultMinWindow = 10 * time.Millisecond
	DefaultWindows   = 100
	DefaultMaxF      = 100_000
	DefaultTimeout   = time.Second
	DefaultPrecision = 0.01 // the bracket's width relative to its mean
)

// Config says how to measure each window size.
type Config struct {
	MinWindow time.Duration // shortest window (default 10 ms)
	Windows   int           // windows per measurement (default 100)
	// MaxF bounds the exponential scale (default 100000).
	MaxF int
	// Timeout frees the place of a message not delivered within it
	// (counted lost), and bounds the wait for the first delivery.
	Timeout time.Duration
	// Precision ends the bisection when the bracket is narrower than this
	// fraction of its mean (default 0.01).
	Precision float64
	// RunID is written into every message of 24 bytes or more.
	RunID uint32
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	if c.MinWindow == 0 {
		c.MinWindow = DefaultMinWindow
	}
	if c.Windows == 0 {
		c.Windows = DefaultWindows
	}
	if c.MaxF == 0 {
		c.MaxF = DefaultMaxF
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Precision == 0 {
		c.Precision = DefaultPrecision
	}
	if c.RunID == 0 {
		c.RunID = 0x7470 // "tp"
	}
	return c
}

// Validate reports the first setting that cannot be measured.
func (c Config) Validate() error {
	switch {
	case c.MinWindow <= 0:
		return fmt.Errorf("window %v: expected a positive duration", c.MinWindow)
	case c.Windows < 2:
		return fmt.Errorf("windows %d: expected at least 2", c.Windows)
	case c.MaxF < 1:
		return fmt.Errorf("max in flight %d: expected at least 1", c.MaxF)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: expected a positive duration", c.Timeout)
	case c.Precision <= 0 || c.Precision >= 1:
		return fmt.Errorf("precision %g: expected a fraction between 0 and 1", c.Precision)
	}
	return nil
}

// Point is the throughput measured at one setting.
type Point struct {
	Payload int
	// F is the number of messages in flight (0 for an open-loop rate).
	F int
	// Rate is the offered rate per publisher for an open-loop measurement
	// (0 for a window).
	Rate float64
	// Samples are the windows' throughputs, msg/s.
	Samples []float64
	Median  float64 // msg/s
	Mean    float64
	Stdev   float64
	Lost    uint64 // places freed by Timeout
}

// RowOf turns a point into a throughput summary row.
func RowOf(p Point) result.ThroughputRow {
	r := result.ThroughputRow{Payload: p.Payload, Mode: result.ModeWindow, Offered: float64(p.F), Samples: len(p.Samples), Median: p.Median, Mean: p.Mean, Stdev: p.Stdev}
	if p.F == 0 {
		r.Mode, r.Offered = result.ModeRate, p.Rate
	}
	return r
}

// Summarise fills Median, Mean and Stdev (numpy's: population standard
// deviation) from Samples.
func (p *Point) Summarise() {
	if len(p.Samples) == 0 {
		p.Median, p.Mean, p.Stdev = 0, 0, 0
		return
	}
	p.Median, p.Mean, p.Stdev = stats.Median(p.Samples), stats.Mean(p.Samples), stats.Std(p.Samples)
}

// Measure measures the throughput of one window size f over ends opened by
// open (one publisher, one subscriber).
func Measure(ctx context.Context, ends *load.Ends, payload, f int, cfg Config) (Point, error) {
	pt := Point{Payload: payload, F: f}
	pub, sub, err := ends.Pair("throughput")
	if err != nil {
		return pt, err
	}
	batch, _ := pub.(driver.BatchSender)
	var stop atomic.Bool
	stopped := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { stop.Store(true); close(stopped) }) }
	tokens := make(chan struct{}, f)
	for range f {
		tokens <- struct{}{}
	}
	samples := make([]float64, 0, cfg.Windows)
	var lost atomic.Uint64
	var pubErr, subErr error
	var wg sync.WaitGroup
	wg.Add(2)
	pubDone := make(chan struct{})
	go func() { // publisher
		defer wg.Done()
		defer close(pubDone)
		msg, h := load.NewMessage(payload, cfg.RunID)
		clock := load.NewClock()
		timer := time.NewTimer(cfg.Timeout)
		defer timer.Stop()
		for seq := uint64(0); !stop.Load(); seq++ {
			select {
			case <-tokens:
			default:
				// Nothing may stay held back while waiting for
				// deliveries (a transaction larger than F).
				if batch != nil {
					if err := batch.FlushBatch(); err != nil {
						pubErr = err
						halt()
						return
					}
				}
				timer.Reset(cfg.Timeout)
				select {
				case <-tokens:
				case <-timer.C:
					if stop.Load() {
						return
					}
					lost.Add(1) // the oldest message in flight is taken for lost
				case <-stopped:
					return
				case <-ctx.Done():
					return
				}
			}
			if stop.Load() {
				return
			}
			h.Seq, h.SendNs = seq, uint64(clock.Now())
			load.PutTime(msg, h.SendNs)
			h.PutSeq(msg)
			if err := pub.Send(msg); err != nil {
				pubErr = err
				halt()
				return
			}
		}
	}()
	go func() { // subscriber
		defer wg.Done()
		// Once measured, keep receiving (and discarding) until the
		// publisher stopped: a publisher blocked on a full reliable link
		// is released that way.
		buf := make([]byte, payload+64)
		defer func() {
			halt()
			for {
				select {
				case <-pubDone:
					return
				default:
				}
				if _, _, err := sub.Receive(buf, time.Now().Add(10*time.Millisecond)); err != nil && !errors.Is(err, driver.ErrTimeout) {
					return
				}
			}
		}()
		var tr load.Tracker
		received, count := 0, 0
		var windowStart time.Time
		for !stop.Load() {
			n, at, err := sub.Receive(buf, time.Now().Add(cfg.Timeout))
			if err != nil {
				if errors.Is(err, driver.ErrTimeout) {
					if ctx.Err() != nil {
						return
					}
					if received == 0 {
						subErr = fmt.Errorf("nothing received within %v: %w", cfg.Timeout, err)
						return
					}
					continue
				}
				subErr = err
				return
			}
			h, full, err := load.Parse(buf[:n])
			if err != nil || n != payload || (full && h.RunID != cfg.RunID) || !tr.Observe(h.Seq) {
				continue
			}
			select {
			case tokens <- struct{}{}:
			default:
			}
			received++
			switch {
			case received < 2*f:
				continue
			case received == 2*f:
				windowStart = at
				continue
			}
			count++
			if d := at.Sub(windowStart); d >= cfg.MinWindow {
				samples = append(samples, float64(count)/d.Seconds())
				windowStart, count = at, 0
				if len(samples) == cfg.Windows {
					return
				}
			}
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		halt()
		ends.Close() // unblocks a Send or Receive in progress
		<-done
	}
	pt.Samples, pt.Lost = samples, lost.Load()
	pt.Summarise()
	switch {
	case ctx.Err() != nil:
		return pt, fmt.Errorf("%w", load.ErrInterrupted)
	case pubErr != nil:
		return pt, fmt.Errorf("publisher: %w", pubErr)
	case subErr != nil:
		return pt, fmt.Errorf("subscriber: %w", subErr)
	}
	return pt, nil
}

// Step is one measurement of a search.
type Step struct {
	Phase string // "exponential", "bisection" or "confirmation"
	Point
}

// MeasureFunc measures one window size.
type MeasureFunc func(f int) (Point, error)

// Outcome is what a search found. The medians of its steps are noisy, and
// the largest of some twenty noisy medians overstates the throughput at
// its F (the winner's curse): the figure to report is Confirmed, F
// measured again after the search, independently of the measurements that
// chose it.
type Outcome struct {
	// F is the window chosen: the mean of the final bracket [Lo, Hi] (the
	// method's optimal F), rounded.
	F, Lo, Hi int
	// Confirmed is F measured again; Low and High bound its median with
	// about 95 % confidence (ConfidenceLevel, from the order statistics of
	// its windows, which assumes them independent).
	Confirmed Point
	Low, High float64
	// Neighbours are the bracket's ends, Lo and Hi, measured again (one
	// point when they are F itself).
	Neighbours []Point
	// SearchBest is the step of greatest median during the search: the
	// biased figure, kept to show how far luck carried it.
	SearchBest Point
}

// ConfidenceLevel is the confidence of Outcome's interval.
const ConfidenceLevel = 0.95

// Search finds the window size of greatest median throughput (see the
// package documentation), then measures the chosen window and the ends of
// its bracket again (phase "confirmation"). report, when non-nil, is called
// after each step.
func Search(measure MeasureFunc, cfg Config, report func(Step)) (out Outcome, steps []Step, err error) {
	cfg = cfg.WithDefaults()
	at := map[int]Point{}
	step := func(phase string, f int) (Point, error) {
		p, err := measure(f)
		if err != nil {
			return p, fmt.Errorf("F = %d: %w", f, err)
		}
		s := Step{Phase: phase, Point: p}
		steps = append(steps, s)
		if report != nil {
			report(s)
		}
		return p, nil
	}
	run := func(phase string, f int) (Point, error) {
		if p, ok := at[f]; ok {
			return p, nil
		}
		p, err := step(phase, f)
		if err == nil {
			at[f] = p
		}
		return p, err
	}
	// Exponential scale: 1, 10, 100, … until the median falls.
	var scale []int
	for f := 1; f <= cfg.MaxF; f *= 10 {
		p, err := run("exponential", f)
		if err != nil {
			return out, steps, err
		}
		scale = append(scale, f)
		if len(scale) > 1 && p.Median < at[scale[len(scale)-2]].Median {
			break
		}
		if f > cfg.MaxF/10 {
			break
		}
	}
	// The bracket (lo, b, hi) around the best of the scale.
	bi := 0
	for i, f := range scale {
		if at[f].Median > at[scale[bi]].Median {
			bi = i
		}
	}
	b := scale[bi]
	lo, hi := b, b
	if bi > 0 {
		lo = scale[bi-1]
	}
	if bi < len(scale)-1 {
		hi = scale[bi+1]
	}
	for float64(hi-lo) >= cfg.Precision*float64(hi+lo)/2 && hi-lo > 2 {
		// Halve the larger side.
		var m int
		if b-lo >= hi-b {
			m = lo + (b-lo)/2
		} else {
			m = b + (hi-b)/2
		}
		if m == lo || m == b || m == hi {
			break
		}
		p, err := run("bisection", m)
		if err != nil {
			return out, steps, err
		}
		switch {
		case p.Median > at[b].Median && m < b:
			hi, b = b, m
		case p.Median > at[b].Median:
			lo, b = b, m
		case m < b:
			lo = m
		default:
			hi = m
		}
	}
	out.SearchBest = at[b]
	out.Lo, out.Hi, out.F = lo, hi, int(math.Round(float64(lo+hi)/2))
	// Confirmation: fresh measurements, never the search's own.
	if out.Confirmed, err = step("confirmation", out.F); err != nil {
		return out, steps, err
	}
	out.Low, out.High = MedianInterval(out.Confirmed.Samples, ConfidenceLevel)
	for _, f := range []int{lo, hi} {
		if f == out.F || (f == hi && hi == lo) {
			continue
		}
		p, err := step("confirmation", f)
		if err != nil {
			return out, steps, err
		}
		out.Neighbours = append(out.Neighbours, p)
	}
	return out, steps, nil
}

// Summary is the closing line of a search: the chosen window, its
// confirmed median with its interval, the neighbours', and the search's own
// best median beside it.
func (o Outcome) Summary(payload int) string {
	var b strings.Builder
	c := o.Confirmed
	fmt.Fprintf(&b, "F = %d (bracket %d–%d): confirmed median %s msg/s, %.3f Mb/s (%g%% interval %s–%s)",
		o.F, o.Lo, o.Hi, result.Thousands(c.Median), result.Mbps(c.Median, payload), 100*ConfidenceLevel, result.Thousands(o.Low), result.Thousands(o.High))
	for _, n := range o.Neighbours {
		fmt.Fprintf(&b, "; F = %d: %s", n.F, result.Thousands(n.Median))
	}
	fmt.Fprintf(&b, "; the search's best, F = %d: %s", o.SearchBest.F, result.Thousands(o.SearchBest.Median))
	return b.String()
}

// MedianInterval returns the distribution-free interval of the median of
// samples at confidence level: the order statistics x(k) and x(n+1−k)
// (1-based) with k the largest for which P(B ≤ k−1) ≤ (1−level)/2, B
// binomial(n, ½). Fewer than 6 samples cannot reach 95 %: the interval is
// then their range.
func MedianInterval(samples []float64, level float64) (lo, hi float64) {
	n := len(samples)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	x := slices.Clone(samples)
	slices.Sort(x)
	alpha := (1 - level) / 2
	// P(B ≤ k−1) for B ~ binomial(n, ½), accumulated in logs.
	k, cdf := 0, 0.0
	for j := 0; j < n; j++ {
		lg, _ := math.Lgamma(float64(n + 1))
		la, _ := math.Lgamma(float64(j + 1))
		lb, _ := math.Lgamma(float64(n - j + 1))
		cdf += math.Exp(lg - la - lb - float64(n)*math.Ln2)
		if cdf > alpha {
			break
		}
		k = j + 1
	}
	if k == 0 {
		return x[0], x[n-1]
	}
	return x[k-1], x[n-k]
}
