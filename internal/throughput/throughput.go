package throughput

import (
	"cmp"
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
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// Defaults of the method.
const (
	DefaultMinWindow = 10 * time.Millisecond
	DefaultWindows   = 100
	DefaultMaxF      = 100_000
	DefaultTimeout   = time.Second
	DefaultPrecision = 0.01 // the bracket's width relative to its mean
	DefaultPeriods   = 5    // confirmation periods, and measurements of the noise
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
	// Periods is how many times the chosen F is measured for the reported
	// figure, and the best F of the exponential scale for the noise that
	// ends the bisection (default 5, at least 2).
	Periods int
	// RunID is written into every message of 24 bytes or more.
	RunID uint32
	// Padding fills each message after its header, as run load's
	// --padding does (default load.PaddingPattern); PaddingSeed seeds
	// load.PaddingRandom (0: Runner draws one and records it).
	Padding     load.Padding
	PaddingSeed uint64
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	c.MinWindow = cmp.Or(c.MinWindow, DefaultMinWindow)
	c.Windows = cmp.Or(c.Windows, DefaultWindows)
	c.MaxF = cmp.Or(c.MaxF, DefaultMaxF)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.Precision = cmp.Or(c.Precision, DefaultPrecision)
	c.Periods = cmp.Or(c.Periods, DefaultPeriods)
	c.RunID = cmp.Or(c.RunID, 0x7470) // "tp"
	c.Padding = cmp.Or(c.Padding, load.PaddingPattern)
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
	case c.Periods < 2:
		return fmt.Errorf("periods %d: expected at least 2", c.Periods)
	case !slices.Contains(load.Paddings, c.Padding):
		return fmt.Errorf("padding %q: expected random, zeros or pattern", c.Padding)
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
	// Delivered is the messages counted in the windows, and Period the
	// measured duration, the windows end to end: DeliveredRate is their
	// ratio.
	Delivered int
	Period    time.Duration
	// Acked and Refused are the acknowledgements the publisher's link
	// received over the measurement (every message it sent, warm-up and
	// the messages in flight at the end included, awaited within Timeout
	// once it stopped): the system's confirmations, and its refusals. 0 on
	// a link that acknowledges nothing (not a driver.AckSender).
	Acked, Refused uint64
}

// DeliveredRate is the delivered rate over the measured period, Delivered /
// Period in msg/s (0 when nothing was measured): what the link carried,
// which the median of the windows is not when deliveries come in bursts.
func (p Point) DeliveredRate() float64 {
	if p.Period <= 0 {
		return 0
	}
	return float64(p.Delivered) / p.Period.Seconds()
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
	var acks driver.AckCount
	pub, sub, err := ends.Pair("throughput", &acks)
	if err != nil {
		return pt, err
	}
	m := &window{ctx: ctx, pub: pub, sub: sub, payload: payload, f: f, cfg: cfg,
		stopped: make(chan struct{}), tokens: make(chan struct{}, f), pubDone: make(chan struct{}),
		samples: make([]float64, 0, cfg.Windows)}
	m.batch, _ = pub.(driver.BatchSender)
	for range f {
		m.tokens <- struct{}{}
	}
	ends.Run(ctx, m.halt, m.publish, m.subscribe)
	if as, ok := pub.(driver.AckSender); ok && ctx.Err() == nil && m.pubErr == nil {
		// The acknowledgements of the messages still in flight when the
		// publisher stopped: counted as they come within Timeout, a link
		// that does not confirm them all is recorded as such, not failed.
		_ = as.WaitAcks(time.Now().Add(cfg.Timeout))
	}
	pt.Samples, pt.Lost, pt.Delivered, pt.Period = m.samples, m.lost.Load(), m.delivered, m.period
	pt.Acked, pt.Refused = acks.Counts()
	pt.Summarise()
	switch {
	case ctx.Err() != nil:
		return pt, fmt.Errorf("%w", load.ErrInterrupted)
	case m.pubErr != nil:
		return pt, fmt.Errorf("publisher: %w", m.pubErr)
	case m.subErr != nil:
		return pt, fmt.Errorf("subscriber: %w", m.subErr)
	}
	return pt, nil
}

// window is one measurement of Measure: a publisher that keeps at most f
// messages in flight (tokens) and a subscriber that returns a token per
// delivery and times windows of deliveries.
type window struct {
	ctx        context.Context
	pub        driver.Publisher
	batch      driver.BatchSender // pub, when it batches
	sub        driver.Subscriber
	payload, f int
	cfg        Config

	stop     atomic.Bool
	stopped  chan struct{} // closed by halt
	stopOnce sync.Once
	tokens   chan struct{}
	lost     atomic.Uint64
	pubDone  chan struct{} // closed when the publisher returns
	pubErr   error

	// The subscriber's: the rate of each window, and the deliveries and
	// time they add up to.
	samples   []float64
	delivered int
	period    time.Duration
	subErr    error
}

// halt stops the publisher and the subscriber.
func (m *window) halt() { m.stopOnce.Do(func() { m.stop.Store(true); close(m.stopped) }) }

// publish sends messages while it holds a token, until halted.
func (m *window) publish() {
	defer close(m.pubDone)
	msg, h := load.NewMessage(m.payload, m.cfg.RunID)
	m.cfg.Padding.Fill(msg, m.cfg.PaddingSeed, 0)
	clock := load.NewClock()
	timer := time.NewTimer(m.cfg.Timeout)
	defer timer.Stop()
	for seq := uint64(0); !m.stop.Load(); seq++ {
		if !m.takeToken(timer) {
			return
		}
		if m.stop.Load() {
			return
		}
		h.Seq, h.SendNs = seq, uint64(clock.Now())
		load.PutTime(msg, h.SendNs)
		h.PutSeq(msg)
		if err := m.pub.Send(msg); err != nil {
			m.pubErr = err
			m.halt()
			return
		}
	}
}

// takeToken takes a token, waiting at most the timeout for one, after
// which the oldest message in flight is taken for lost; false when the
// publisher is to return.
func (m *window) takeToken(timer *time.Timer) bool {
	select {
	case <-m.tokens:
		return true
	default:
	}
	// Nothing may stay held back while waiting for deliveries (a
	// transaction larger than F).
	if m.batch != nil {
		if err := m.batch.FlushBatch(); err != nil {
			m.pubErr = err
			m.halt()
			return false
		}
	}
	timer.Reset(m.cfg.Timeout)
	select {
	case <-m.tokens:
	case <-timer.C:
		if m.stop.Load() {
			return false
		}
		m.lost.Add(1) // the oldest message in flight is taken for lost
	case <-m.stopped:
		return false
	case <-m.ctx.Done():
		return false
	}
	return true
}

// subscribe receives until cfg.Windows windows are timed, returning a
// token per delivery; windows start after the first 2F deliveries.
func (m *window) subscribe() {
	buf := make([]byte, m.payload+64)
	defer m.release(buf)
	var tr load.Tracker
	received, count := 0, 0
	var windowStart time.Time
	for !m.stop.Load() {
		n, at, err := m.sub.Receive(buf, time.Now().Add(m.cfg.Timeout))
		if err != nil {
			if errors.Is(err, driver.ErrTimeout) {
				if m.ctx.Err() != nil {
					return
				}
				if received == 0 {
					m.subErr = fmt.Errorf("nothing received within %v: %w", m.cfg.Timeout, err)
					return
				}
				continue
			}
			m.subErr = err
			return
		}
		h, full, err := load.Parse(buf[:n])
		if err != nil || n != m.payload || (full && h.RunID != m.cfg.RunID) || !tr.Observe(h.Seq) {
			continue
		}
		select {
		case m.tokens <- struct{}{}:
		default:
		}
		received++
		switch {
		case received < 2*m.f:
			continue
		case received == 2*m.f:
			windowStart = at
			continue
		}
		count++
		if d := at.Sub(windowStart); d >= m.cfg.MinWindow {
			m.samples = append(m.samples, float64(count)/d.Seconds())
			m.delivered, m.period = m.delivered+count, m.period+d
			windowStart, count = at, 0
			if len(m.samples) == m.cfg.Windows {
				return
			}
		}
	}
}

// release halts, then, once measured, keeps receiving (and discarding)
// until the publisher stopped: a publisher blocked on a full reliable link
// is released that way.
func (m *window) release(buf []byte) {
	m.halt()
	for {
		select {
		case <-m.pubDone:
			return
		default:
		}
		if _, _, err := m.sub.Receive(buf, time.Now().Add(10*time.Millisecond)); err != nil && !errors.Is(err, driver.ErrTimeout) {
			return
		}
	}
}

// Step is one measurement of a search.
type Step struct {
	Phase string // "exponential", "noise", "bisection" or "confirmation"
	Point
}

// MeasureFunc measures one window size.
type MeasureFunc func(f int) (Point, error)

// Outcome is what a search found. The rates of its steps are noisy, and
// the largest of some twenty noisy rates overstates the throughput at its
// F (the winner's curse): the figure to report is Rate, F measured again
// after the search over Periods independent periods, independently of the
// measurements that chose it.
type Outcome struct {
	// F is the window chosen: the mean of the final bracket [Lo, Hi] (the
	// method's optimal F), rounded; its best point when the bisection
	// stopped within the noise. Choice says which.
	F, Lo, Hi int
	Choice    Choice
	// Periods are F's confirmation periods, each measured on links of its
	// own.
	Periods []Point
	// Rate is the headline: the messages delivered in all of Periods over
	// their measured time, msg/s.
	Rate float64
	// Low and High are the 95 % prediction interval (ConfidenceLevel) of
	// one more period's delivered rate, from the variation between
	// Periods: where an independent re-measurement of F is expected (Low
	// no less than 0).
	Low, High float64
	// Windows pools the windows of Periods: their median, mean and
	// standard deviation, the method's statistics, reported beside Rate;
	// their losses and acknowledgements added up.
	Windows Point
	// Neighbours are the bracket's ends, Lo and Hi, measured again (one
	// point when they are F itself).
	Neighbours []Point
	// SearchBest is the step of greatest delivered rate during the
	// search: the biased figure, kept to show how far luck carried it.
	SearchBest Point
	// Noise is the standard deviation of the delivered rate between
	// measurements of the scale's best F (NoiseF), measured Periods times;
	// the bisection stops once the bracket's ends differ from its best by
	// no more than NoiseMargin·Noise, and WithinNoise then says so.
	Noise       float64
	NoiseF      int
	WithinNoise bool
}

// Choice is which point of the final bracket a search measured again for
// its figure: its text says so (run throughput records it in meta.json's
// mode).
type Choice string

// The choices of Search.
const (
	// ChoiceMean is the bracket's mean, the method's optimal F.
	ChoiceMean Choice = "the bracket's mean"
	// ChoiceBest is the bracket's best point, when the bisection stopped
	// within the noise: the mean of a wide bracket was never measured.
	ChoiceBest Choice = "the bracket's best point (the bisection stopped within the noise)"
)

// ConfidenceLevel is the level of Outcome's interval.
const ConfidenceLevel = 0.95

// NoiseMargin is z·√2 with z the normal quantile of 97.5 %: two single
// measurements of the same F, each with the between-period standard
// deviation, differ by less than NoiseMargin times it 95 % of the time.
var NoiseMargin = dist.NormalQuantile(0.975) * math.Sqrt2

// Search finds the window size of greatest delivered rate (see the package
// documentation), then measures the chosen window Periods times and the
// ends of its bracket again (phase "confirmation"). report, when non-nil,
// is called after each step.
func Search(measure MeasureFunc, cfg Config, report func(Step)) (out Outcome, steps []Step, err error) {
	s := &searcher{measure: measure, cfg: cfg.WithDefaults(), report: report, at: map[int]Point{}}
	scale, err := s.exponential()
	if err != nil {
		return out, s.steps, err
	}
	lo, b, hi := s.bracket(scale)
	if s.narrow(lo, hi) {
		if out.Noise, err = s.noise(b); err != nil {
			return out, s.steps, err
		}
		out.NoiseF = b
	}
	if lo, b, hi, out.WithinNoise, err = s.bisect(lo, b, hi, out.Noise); err != nil {
		return out, s.steps, err
	}
	out.SearchBest = s.at[b]
	out.Lo, out.Hi, out.F, out.Choice = lo, hi, int(math.Round(float64(lo+hi)/2)), ChoiceMean
	if out.WithinNoise {
		// A bracket flat within the noise may still be wide: its mean
		// was never measured, its best was.
		out.F, out.Choice = b, ChoiceBest
	}
	// Confirmation: fresh measurements, never the search's own.
	if err := out.confirm(s.cfg.Periods, s.step); err != nil {
		return out, s.steps, err
	}
	for _, f := range []int{lo, hi} {
		if f == out.F || (f == hi && hi == lo) {
			continue
		}
		p, err := s.step("confirmation", f)
		if err != nil {
			return out, s.steps, err
		}
		out.Neighbours = append(out.Neighbours, p)
	}
	return out, s.steps, nil
}

// searcher is one Search: the steps taken, and the point of each window
// size measured by the search proper (not the noise or confirmation).
type searcher struct {
	measure MeasureFunc
	cfg     Config
	report  func(Step)
	at      map[int]Point
	steps   []Step
}

// step measures window size f afresh, as a step of phase.
func (s *searcher) step(phase string, f int) (Point, error) {
	p, err := s.measure(f)
	if err != nil {
		return p, fmt.Errorf("F = %d: %w", f, err)
	}
	st := Step{Phase: phase, Point: p}
	s.steps = append(s.steps, st)
	if s.report != nil {
		s.report(st)
	}
	return p, nil
}

// run measures f as a step of phase unless the search has measured it.
func (s *searcher) run(phase string, f int) (Point, error) {
	if p, ok := s.at[f]; ok {
		return p, nil
	}
	p, err := s.step(phase, f)
	if err == nil {
		s.at[f] = p
	}
	return p, err
}

// rate is the delivered rate the search measured at f.
func (s *searcher) rate(f int) float64 { return s.at[f].DeliveredRate() }

// exponential measures the scale 1, 10, 100, … until the rate falls.
func (s *searcher) exponential() ([]int, error) {
	var scale []int
	for f := 1; f <= s.cfg.MaxF; f *= 10 {
		if _, err := s.run("exponential", f); err != nil {
			return nil, err
		}
		scale = append(scale, f)
		if len(scale) > 1 && s.rate(f) < s.rate(scale[len(scale)-2]) {
			break
		}
		if f > s.cfg.MaxF/10 {
			break
		}
	}
	return scale, nil
}

// bracket returns the bracket (lo, b, hi) around the best b of the scale.
func (s *searcher) bracket(scale []int) (lo, b, hi int) {
	b = slices.MaxFunc(scale, func(x, y int) int { return cmp.Compare(s.rate(x), s.rate(y)) }) // the first best
	bi := slices.Index(scale, b)
	lo, hi = b, b
	if bi > 0 {
		lo = scale[bi-1]
	}
	if bi < len(scale)-1 {
		hi = scale[bi+1]
	}
	return lo, b, hi
}

// narrow reports whether the bracket (lo, hi) is still to be bisected.
func (s *searcher) narrow(lo, hi int) bool {
	return float64(hi-lo) >= s.cfg.Precision*float64(hi+lo)/2 && hi-lo > 2
}

// noise measures b again, Periods times in all, on links of its own each
// time, and returns the sample standard deviation of its rates.
func (s *searcher) noise(b int) (float64, error) {
	rates := []float64{s.rate(b)}
	for range s.cfg.Periods - 1 {
		p, err := s.step("noise", b)
		if err != nil {
			return 0, err
		}
		rates = append(rates, p.DeliveredRate())
	}
	return sampleStd(rates), nil
}

// bisect halves the larger side of the bracket (lo, b, hi) until it is
// narrow enough or no side is better than the noise tells (withinNoise).
func (s *searcher) bisect(lo, b, hi int, noise float64) (_, _, _ int, withinNoise bool, err error) {
	rate := s.rate
	for s.narrow(lo, hi) {
		if max(math.Abs(rate(b)-rate(lo)), math.Abs(rate(b)-rate(hi))) <= NoiseMargin*noise {
			withinNoise = true // no side is better than the noise tells
			break
		}
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
		if _, err := s.run("bisection", m); err != nil {
			return lo, b, hi, withinNoise, err
		}
		switch {
		case rate(m) > rate(b) && m < b:
			hi, b = b, m
		case rate(m) > rate(b):
			lo, b = b, m
		case m < b:
			lo = m
		default:
			hi = m
		}
	}
	return lo, b, hi, withinNoise, nil
}

// confirm measures out.F n times and fills the figures reported.
func (out *Outcome) confirm(n int, step func(string, int) (Point, error)) error {
	var delivered int
	var period time.Duration
	rates := make([]float64, 0, n)
	out.Windows = Point{F: out.F}
	for range n {
		p, err := step("confirmation", out.F)
		if err != nil {
			return err
		}
		out.Periods = append(out.Periods, p)
		delivered, period = delivered+p.Delivered, period+p.Period
		rates = append(rates, p.DeliveredRate())
		out.Windows.Payload, out.Windows.Lost = p.Payload, out.Windows.Lost+p.Lost
		out.Windows.Acked, out.Windows.Refused = out.Windows.Acked+p.Acked, out.Windows.Refused+p.Refused
		out.Windows.Samples = append(out.Windows.Samples, p.Samples...)
	}
	out.Windows.Delivered, out.Windows.Period = delivered, period
	out.Windows.Summarise()
	out.Rate = out.Windows.DeliveredRate()
	out.Low, out.High = PredictionInterval(rates, ConfidenceLevel)
	out.Low = max(out.Low, 0) // no rate is negative
	return nil
}

// Row is the throughput row of the outcome, throughput_<type>.csv's: the
// confirmation periods are its samples, Median holds the headline Rate
// (what was delivered over them all), Mean and Stdev the periods' rates'
// (numpy: population standard deviation).
func (o Outcome) Row() result.ThroughputRow {
	rates := make([]float64, len(o.Periods))
	for i, p := range o.Periods {
		rates[i] = p.DeliveredRate()
	}
	p := Point{Payload: o.Windows.Payload, F: o.F, Samples: rates}
	p.Summarise()
	p.Median = o.Rate
	return RowOf(p)
}

// Summary is the closing line of a search: the chosen window, the rate
// delivered over its confirmation periods with their interval, the
// windows' statistics beside it, the neighbours', the search's own best,
// and whether the bisection stopped in the noise.
func (o Outcome) Summary(payload int) string {
	var b strings.Builder
	w := o.Windows
	fmt.Fprintf(&b, "F = %d (bracket %d–%d): delivered %s msg/s, %.3f Mb/s over %d periods (%g %% prediction interval of one more period %s–%s); its %s windows: median %s, mean %s, stdev %s",
		o.F, o.Lo, o.Hi, result.Thousands(o.Rate), result.Mbps(o.Rate, payload), len(o.Periods), 100*ConfidenceLevel, OrDash(result.Thousands, o.Low), OrDash(result.Thousands, o.High),
		result.Count(len(w.Samples)), result.Thousands(w.Median), result.Thousands(w.Mean), result.Thousands(w.Stdev))
	for _, n := range o.Neighbours {
		fmt.Fprintf(&b, "; F = %d: %s", n.F, result.Thousands(n.DeliveredRate()))
	}
	fmt.Fprintf(&b, "; the search's best, F = %d: %s", o.SearchBest.F, result.Thousands(o.SearchBest.DeliveredRate()))
	if o.WithinNoise {
		fmt.Fprintf(&b, "; bisection stopped within the noise: the bracket's ends differ from its best by at most %s msg/s, %.2f × the between-period standard deviation %s of F = %d measured %d times",
			result.Thousands(NoiseMargin*o.Noise), NoiseMargin, result.Thousands(o.Noise), o.NoiseF, len(o.Periods))
	}
	return b.String()
}

// OrDash formats v, or gives "—" for a missing value (NaN or infinite).
func OrDash(f func(float64) string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return f(v)
}

// PredictionInterval returns the interval in which one more value drawn
// like x falls with probability level, assuming them normal: mean ±
// t(level, n−1) · s · √(1 + 1/n), s the sample standard deviation. NaN
// with fewer than 2 values.
func PredictionInterval(x []float64, level float64) (lo, hi float64) {
	n := len(x)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	m := stats.Mean(x)
	h := dist.TQuantile(n-1, (1+level)/2) * sampleStd(x) * math.Sqrt(1+1/float64(n))
	return m - h, m + h
}

// sampleStd is the sample standard deviation (n − 1), 0 for fewer than 2
// values.
func sampleStd(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	n := float64(len(x))
	return stats.Std(x) * math.Sqrt(n/(n-1))
}
