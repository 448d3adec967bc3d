package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/loadsummary"
	"github.com/mqgate/mqgate/internal/meta"
)

// Defaults of a load run (issue 12).
const (
	DefaultWarmup   = 5 * time.Second
	DefaultDrain    = 5 * time.Second
	DefaultDuration = 10 * time.Second
	DefaultInterval = time.Second
	// DefaultMaxRaw bounds the per-message latencies kept for the raw
	// file per payload (16 bytes each); the histogram holds every one.
	DefaultMaxRaw = 2_000_000
	// MaxEnds bounds the publishers, subscribers and topics of a run: each
	// is a link of its own (publisher ids are 16 bits in the header).
	MaxEnds = 4096
	// MaxRate bounds Rate, messages per second per publisher: a period of
	// 1 ns.
	MaxRate = 1e9
)

// ErrInterrupted is wrapped by the error of a measurement whose context
// was cancelled; what was measured is returned with it.
var ErrInterrupted = errors.New("interrupted")

// Config says what to measure for each payload of a sub-experiment.
type Config struct {
	Topology Topology
	Payloads []int
	// Rate is messages per second per publisher; 0 sends as fast as each
	// publisher can (unpaced).
	Rate float64
	// Duration is the measured period of each payload; Warmup precedes it
	// (its messages are flagged and discarded); Drain bounds the wait for
	// the last messages after it.
	Duration, Warmup, Drain time.Duration
	// Interval is the period of the snapshots (default 1 s).
	Interval time.Duration
	// RunID is written into every message of 24 bytes or more; messages
	// of another run are counted as errors and ignored.
	RunID uint32
	// MaxRaw bounds the latencies kept for the raw file per payload
	// (default DefaultMaxRaw; negative keeps none).
	MaxRaw int
	// Padding fills each message after its header (default PaddingRandom,
	// with PaddingSeed: a random one when 0, recorded in the summary).
	Padding     Padding
	PaddingSeed uint64
	// Clock converts times to ns since the epoch (default: a new one).
	Clock *Clock
	// Observers see each payload begin, every interval, and its end.
	Observers []Observer
}

// WithDefaults fills the zero durations.
func (c Config) WithDefaults() Config {
	c.Duration = cmp.Or(c.Duration, DefaultDuration)
	c.Interval = cmp.Or(c.Interval, DefaultInterval)
	c.MaxRaw = cmp.Or(c.MaxRaw, DefaultMaxRaw)
	c.Padding = cmp.Or(c.Padding, PaddingRandom)
	if c.Clock == nil {
		c.Clock = NewClock()
	}
	if c.RunID == 0 {
		c.RunID = rand.Uint32() | 1
	}
	if c.Padding == PaddingRandom && c.PaddingSeed == 0 {
		c.PaddingSeed = rand.Uint64() | 1
	}
	return c
}

// MinRateWindows is the number of snapshot intervals per payload below
// which the rate statistics (the median, mean and stdev of the per-interval
// receive rates in throughput_<type>.csv) rest on too few windows to say
// much; RateWarning names it.
const MinRateWindows = 10

// RateWindows is the number of whole snapshot intervals in the measured
// period, or 1 when it is shorter than one: the rate samples a payload
// gives (throughput.LoadRows).
func (c Config) RateWindows() int { return max(int(c.Duration/c.Interval), 1) }

// RateWarning is a sentence saying that the measured period holds fewer
// than MinRateWindows intervals, or "" when it holds enough (c with its
// defaults).
func (c Config) RateWarning() string {
	n := c.RateWindows()
	if n >= MinRateWindows {
		return ""
	}
	return fmt.Sprintf("a measured period of %v in intervals of %v gives %d rate sample(s) per payload: the median, mean and stdev of the receive rate rest on too few windows (give at least %d × the interval)",
		c.Duration, c.Interval, n, MinRateWindows)
}

// Validate reports the first setting that cannot be measured.
func (c Config) Validate() error {
	switch {
	case len(c.Payloads) == 0:
		return errors.New("no payload sizes")
	case !(c.Rate >= 0 && c.Rate <= MaxRate):
		return fmt.Errorf("rate %g: expected messages per second from 0 (as fast as possible) to %g", c.Rate, float64(MaxRate))
	case c.Duration <= 0:
		return fmt.Errorf("duration %v: expected a positive duration", c.Duration)
	case c.Warmup < 0 || c.Drain < 0:
		return fmt.Errorf("warm-up %v, drain %v: expected durations ≥ 0", c.Warmup, c.Drain)
	case c.Interval <= 0:
		return fmt.Errorf("interval %v: expected a positive duration", c.Interval)
	case c.Topology.Publishers == 0:
		return errors.New("no topology: call NewTopology")
	}
	return checkSizes(c.Payloads)
}

// checkSizes refuses a payload smaller than the message header.
func checkSizes(payloads []int) error {
	for _, p := range payloads {
		if p < MinMessage {
			return fmt.Errorf("payload %d B is smaller than the %d-byte message header", p, MinMessage)
		}
	}
	return nil
}

// Observer follows a measurement as it runs (progress line, Prometheus).
// Its methods are called from one goroutine.
type Observer interface {
	Begin(sub string, payload int, c *Counters, r *Recorder, cfg Config)
	Tick(t Tick)
	End(res *PayloadResult)
}

// Tick is one interval of a payload.
type Tick struct {
	Sub     string
	Payload int
	// Elapsed is the end of the interval since the measured period began;
	// Drain is true for intervals after it ended.
	Elapsed time.Duration
	Drain   bool
	Period  time.Duration // length of this interval
	Values  CounterValues // since the measured period began
	Delta   CounterValues // during this interval
	// Latency holds the latencies recorded during this interval.
	Latency *hdrhistogram.Histogram
}

// SubscriberResult and PublisherResult are one subscriber's and one
// publisher's counts, as the summary JSON holds them.
type (
	SubscriberResult = loadsummary.SubscriberResult
	PublisherResult  = loadsummary.PublisherResult
)

// RawSample is one message's arrival (ns since the epoch) and latency (ns).
type RawSample struct{ At, Latency int64 }

// PayloadResult is the measurement of one payload.
type PayloadResult struct {
	Payload int
	// Start and End bound the measured period; LastArrival is the last
	// measured message's arrival (possibly during the drain).
	Start, End, LastArrival time.Time
	Counters                CounterValues
	// Expected is the deliveries the messages sent should make; Offered
	// those the offered schedule should make (publishers × rate × duration
	// × the subscribers of each topic, the MQTT-bench expected_messages),
	// equal to Expected when unpaced. Unique is the deliveries made.
	Expected, Offered, Unique uint64
	Lost                      uint64
	Duplicates, OutOfOrder    uint64
	// Latency is from each message's intended send time (its slot when
	// paced: coordinated omission; the send call unpaced), FromSend from
	// the time it was actually handed to Send, SendDelay actual − intended.
	// Unpaced, FromSend is Latency. Unpaired is the deliveries whose actual
	// send time was no longer held (in flight longer than the publisher's
	// record of its latest sends covers): in Latency only.
	Latency, FromSend, SendDelay Stats
	Unpaired                     uint64
	// Histogram holds every measured latency (ns).
	Histogram  *hdrhistogram.Histogram
	Ticks      []Tick
	Raw        []RawSample // by arrival
	RawDropped uint64      // latencies beyond MaxRaw, in the histogram only
	Publishers []PublisherResult
	// Subscribers are the measured messages each subscriber got.
	Subscribers []SubscriberResult
	// Drained is false when the drain timed out with messages missing;
	// true when no drain ran (an interrupted run, a broken link).
	Drained bool
	// TransportDropped is what the links counted as dropped themselves
	// from the start of the measured period to the drain's end (a full
	// best-effort queue, an AMQP message returned unroutable); nil when
	// they count nothing (the system's losses are then known only as
	// deliveries missing). The drain ends once deliveries and these drops
	// account for every expected delivery and nothing came for 50 ms.
	TransportDropped *uint64
	// Acknowledged is true when the publishers' links acknowledge each
	// message (driver.AckSender); System is what they reached, when the
	// transport says (driver.InfoReporter), read after the drain so that
	// its counts (AMQP transactions committed) are the whole payload's.
	Acknowledged bool
	System       *meta.SystemInfo
}

// DroppedByTransport reports whether the links' own drop counts account
// for every delivery lost (a best-effort queue that was full).
func (r *PayloadResult) DroppedByTransport() bool {
	return r.Lost > 0 && r.TransportDropped != nil && *r.TransportDropped >= r.Lost
}

// Measured is the length of the measured period: 0 when it never began
// (a link broke in the warm-up).
func (r *PayloadResult) Measured() time.Duration { return max(0, r.End.Sub(r.Start)) }

// ReceivePeriod is from the start of the measured period to the later of
// its end and the last measured arrival: the receive rate of a system that
// fell behind is spread over the time it took to deliver.
func (r *PayloadResult) ReceivePeriod() time.Duration {
	return max(0, r.End.Sub(r.Start), r.LastArrival.Sub(r.Start))
}

// SendRate is the measured messages sent per second over the measured
// period.
func (r *PayloadResult) SendRate() float64 {
	return rate(r.Counters.MessagesSent, r.Measured())
}

// ReceiveRate is unique deliveries per second over the measured period,
// the MQTT-bench spec's receive_rate (messages received / duration), as
// SendRate is: deliveries during the drain count, the drain's time does
// not.
func (r *PayloadResult) ReceiveRate() float64 { return rate(r.Unique, r.Measured()) }

// ReceiveRateToLastDelivery is unique deliveries per second over
// ReceivePeriod: the rate of a system that fell behind spread over the
// time it took to deliver.
func (r *PayloadResult) ReceiveRateToLastDelivery() float64 { return rate(r.Unique, r.ReceivePeriod()) }

// OfferedSends is the slots every publisher's schedule offered in the
// measured period, in total (messages sent when unpaced).
func (r *PayloadResult) OfferedSends() uint64 {
	var n uint64
	for _, p := range r.Publishers {
		n += p.Offered
	}
	return n
}

// DeliveryRatio is unique deliveries over those the messages sent should
// make (0 when none were sent: nothing was delivered): loss in the system
// alone.
func (r *PayloadResult) DeliveryRatio() float64 { return ratio(r.Unique, r.Expected) }

// DeliveryRate is unique deliveries over those the offered schedule should
// make (MQTT-bench's delivery_rate): a publisher that fell behind and
// skipped slots lowers it as loss does, where DeliveryRatio hides it.
func (r *PayloadResult) DeliveryRate() float64 { return ratio(r.Unique, r.Offered) }

// ratio is n/of, 0 when of is 0.
func ratio(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func rate(n uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Measure runs every payload of cfg over links for sub-experiment sub and
// returns their results, in order. On error (a link that broke, ctx
// cancelled: ErrInterrupted) the results hold what was measured, the
// payload in progress included.
func Measure(ctx context.Context, sub string, links Links, cfg Config) ([]PayloadResult, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var out []PayloadResult
	for _, p := range cfg.Payloads {
		res, err := measurePayload(ctx, sub, links, cfg, p)
		if res != nil {
			out = append(out, *res)
		}
		if err != nil {
			return out, fmt.Errorf("payload %d B: %w", p, err)
		}
	}
	return out, nil
}

// receiver is one subscriber link's goroutine state.
type receiver struct {
	link     SubLink
	shard    *Shard
	fromSend *Shard // paced runs: latencies from the actual send time
	trackers map[uint16]*Tracker
	raw      rawSamples
	last     int64 // latest arrival, ns since the epoch
	// The tracker of the last message's publisher, most often the next's.
	lastPub uint16
	lastTr  *Tracker
}

// sender is one publisher's goroutine state.
type sender struct {
	end  PubEnd
	sent uint64 // measured
	// warm is the warm-up messages sent (per sender link), warmUnknown
	// until the first measured message: an acknowledgement counted beyond
	// it is a measured message's (they arrive in order).
	warm atomic.Uint64
	// measured is sent as the end marker goes (every link sends each
	// message), unbounded before: an acknowledgement beyond warm+measured
	// is the end marker's, counted in neither.
	measured   atomic.Uint64
	skipped    uint64
	acked      []atomic.Uint64 // per sender link: every acknowledgement
	refused    []atomic.Uint64
	delayShard *Shard
	times      *sendTimes // paced: the actual send times of the latest messages
}

// warmUnknown is sender.warm before the publisher's measured period.
const warmUnknown = ^uint64(0)

// onAck counts one acknowledgement of sender link x: in the run's counters
// as it comes when it is of a measured message, so that snapshots and
// Prometheus see them live (result makes the final count exact).
func (r *run) onAck(s *sender, x int, err error) {
	if err != nil {
		s.refused[x].Add(1)
		r.c.MessagesRefused.Add(1)
		return
	}
	n := s.acked[x].Add(1)
	if w := s.warm.Load(); w != warmUnknown && n > w && n-w <= s.measured.Load() {
		r.c.MessagesAcked.Add(1)
	}
}

type run struct {
	sub     string
	cfg     Config
	payload int
	tp      Topology
	clock   *Clock
	c       Counters
	rec     *Recorder
	delays  *Recorder
	// fromSend records the latencies from the actual send time (paced
	// runs), looked up in times by publisher id; unpaired counts the
	// deliveries whose send time was no longer held.
	fromSend *Recorder
	times    []*sendTimes
	unpaired atomic.Uint64
	t0, t1   time.Time
	drops    *dropCounts   // nil when no link counts its drops
	stop     atomic.Bool   // receivers end
	halt     atomic.Bool   // publishers end early
	_        [64]byte      // the flags, read at every message, apart from the counts
	dups     atomic.Uint64 // measured messages received again: unique deliveries are MessagesReceived − dups
	// rawLeft is the raw samples not yet claimed: receivers claim them a
	// chunk at a time, so that keeping a sample costs no atomic operation.
	rawLeft atomic.Int64

	errOnce sync.Once
	err     error
}

func (r *run) fail(err error) {
	r.errOnce.Do(func() { r.err = err })
	r.halt.Store(true)
}

// measurePayload measures one payload over links: it opens the ends,
// starts the receivers and publishers, ticks through the measured period,
// drains, and returns what was measured.
func measurePayload(ctx context.Context, sub string, links Links, cfg Config, payload int) (*PayloadResult, error) {
	e, err := links.Open(ctx, cfg.Topology, payload)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w while connecting", ErrInterrupted)
		}
		return nil, fmt.Errorf("cannot connect: %w", err)
	}
	r := newRun(sub, cfg, payload)
	r.drops = newDropCounts(e)
	acknowledged, reporter := senderKinds(e)
	closeEnds := sync.OnceFunc(e.Close)
	defer closeEnds()

	// A short lead lets every goroutine start before the first slot.
	start := time.Now().Add(20 * time.Millisecond)
	r.t0 = start.Add(cfg.Warmup)
	r.t1 = r.t0.Add(cfg.Duration)
	recvs, rwg := r.startReceivers(e)
	sends, swg := r.startPublishers(e, start)
	for _, o := range cfg.Observers {
		o.Begin(sub, payload, &r.c, r.rec, cfg)
	}

	tk := &ticker{r: r, prevAt: r.t0}
	w := &waiter{ctx: ctx, r: r}
	ok := r.measurePeriod(w, tk)
	end := time.Now()
	if end.After(r.t1) {
		end = r.t1
	}
	swg.Wait() // publishers stop at t1, or on halt
	sent := make([]uint64, cfg.Topology.Publishers)
	for _, s := range sends {
		sent[s.end.Pub] = s.sent
	}
	expected := cfg.Topology.Expected(sent)
	drained := true
	if ok {
		drained = r.drain(w, tk, sends, expected)
	}
	r.stop.Store(true)
	var system *meta.SystemInfo
	if reporter != nil {
		info := reporter.SystemInfo()
		system = &info
	}
	closeEnds() // unblocks receivers
	rwg.Wait()
	if ok {
		tk.last()
	}

	res := r.result(recvs, sends, sent, expected, end, tk.ticks)
	res.Acknowledged, res.System = acknowledged, system
	if r.drops != nil {
		d := r.drops.since()
		res.TransportDropped = &d
	}
	// An interrupted or broken run has no drain: what was still on the
	// way then is lost, and no drain ended too soon.
	res.Drained = !ok || (drained && res.Unique >= expected)
	for _, o := range cfg.Observers {
		o.End(res)
	}
	switch {
	case w.interrupted:
		return res, fmt.Errorf("%w after %v of the measured period", ErrInterrupted, max(0, end.Sub(r.t0)).Round(time.Millisecond))
	case r.err != nil:
		return res, fmt.Errorf("%w: %w", errBroken, r.err)
	}
	return res, nil
}

// newRun returns the state of one payload's measurement, its send times
// held when paced.
func newRun(sub string, cfg Config, payload int) *run {
	r := &run{sub: sub, cfg: cfg, payload: payload, tp: cfg.Topology, clock: cfg.Clock, rec: NewRecorder(), delays: NewRecorder(), fromSend: NewRecorder()}
	if cfg.Rate > 0 {
		r.times = make([]*sendTimes, cfg.Topology.Publishers)
		n := sendTimesLen(cfg.Rate, cfg.Topology.Publishers)
		for i := range r.times {
			r.times[i] = newSendTimes(n)
		}
	}
	r.c.ReceivedSize = uint64(payload)
	r.rawLeft.Store(int64(max(cfg.MaxRaw, 0)))
	return r
}

// senderKinds reports whether the publishers of e are acknowledged, and
// the reporter: the first publisher that says what it reached; it is read
// after the drain, so that what it counts during the run (AMQP
// transactions committed) is the whole measurement's.
func senderKinds(e *Ends) (acknowledged bool, reporter driver.InfoReporter) {
	for _, pe := range e.Pubs {
		for _, p := range pe.Senders {
			_, acknowledged = p.(driver.AckSender)
			if ir, ok := p.(driver.InfoReporter); ok && reporter == nil {
				reporter = ir
			}
		}
	}
	return acknowledged, reporter
}

// startReceivers starts a receiver per subscriber link of e; the
// WaitGroup ends when they do.
func (r *run) startReceivers(e *Ends) ([]*receiver, *sync.WaitGroup) {
	recvs := make([]*receiver, len(e.Subs))
	var rwg sync.WaitGroup
	for k, l := range e.Subs {
		rv := r.newReceiver(l, len(e.Subs))
		recvs[k] = rv
		rwg.Go(func() { r.receive(rv, r.payload) })
	}
	return recvs, &rwg
}

// startPublishers starts a publisher per publisher end of e from start,
// counting acknowledgements; the WaitGroup ends when they do.
func (r *run) startPublishers(e *Ends, start time.Time) ([]*sender, *sync.WaitGroup) {
	sends := make([]*sender, len(e.Pubs))
	var swg sync.WaitGroup
	for k, pe := range e.Pubs {
		s := &sender{end: pe, acked: make([]atomic.Uint64, len(pe.Senders)), refused: make([]atomic.Uint64, len(pe.Senders)), delayShard: r.delays.Shard()}
		s.warm.Store(warmUnknown)
		s.measured.Store(^uint64(0))
		if r.times != nil {
			s.times = r.times[pe.Pub]
		}
		for x, p := range pe.Senders {
			if as, ok := p.(driver.AckSender); ok {
				as.OnAck(func(err error) { r.onAck(s, x, err) })
			}
		}
		sends[k] = s
		// Publishers are staggered over one period so that their slots
		// do not coincide.
		offset := time.Duration(0)
		if r.cfg.Rate > 0 {
			offset = time.Duration(float64(k) / float64(len(e.Pubs)) * 1e9 / r.cfg.Rate)
		}
		swg.Go(func() { r.publish(s, r.payload, start.Add(offset)) })
	}
	return sends, &swg
}

// ticker makes the ticks of a run from t0: the measured period, then the
// drain, each handed to the observers.
type ticker struct {
	r      *run
	ticks  []Tick
	prev   CounterValues
	prevAt time.Time
}

// tick records the counters and latencies since the previous tick.
func (tk *ticker) tick(now time.Time, drain bool) {
	tk.emit(now, drain, tk.r.c.Load(), tk.r.rec.Interval())
}

// last records what arrived after the last tick, if anything did: a
// latency, or only a count (a tick reads the counters, then the interval's
// latencies, so a message that came between the two is counted in the
// next tick and its latency in this one).
func (tk *ticker) last() {
	v := tk.r.c.Load()
	iv := tk.r.rec.Interval()
	if iv.TotalCount() == 0 && v == tk.prev {
		return
	}
	tk.emit(time.Now(), true, v, iv)
}

// emit hands the tick of counters v and interval iv, at now, to the
// observers and keeps it.
func (tk *ticker) emit(now time.Time, drain bool, v CounterValues, iv *hdrhistogram.Histogram) {
	r := tk.r
	t := Tick{Sub: r.sub, Payload: r.payload, Elapsed: now.Sub(r.t0), Drain: drain, Period: now.Sub(tk.prevAt),
		Values: v, Delta: v.Sub(tk.prev), Latency: iv}
	tk.prev, tk.prevAt = v, now
	tk.ticks = append(tk.ticks, t)
	for _, o := range r.cfg.Observers {
		o.Tick(t)
	}
}

// waiter waits for a time while watching for an interruption (ctx) and
// a run that halts.
type waiter struct {
	ctx         context.Context
	r           *run
	interrupted bool
}

// wait waits until until; false when interrupted or failed.
func (w *waiter) wait(until time.Time) bool {
	r := w.r
	d := time.Until(until)
	if d <= 0 {
		return !r.halt.Load()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-w.ctx.Done():
			w.interrupted = true
			r.halt.Store(true)
			return false
		case <-tm.C:
			return !r.halt.Load()
		case <-poll.C:
			if r.halt.Load() {
				return false
			}
		}
	}
}

// measurePeriod ticks every interval from t0 to t1; false when
// interrupted or failed.
func (r *run) measurePeriod(w *waiter, tk *ticker) bool {
	if !w.wait(r.t0) {
		return false
	}
	for next := r.t0; next.Before(r.t1); {
		next = next.Add(r.cfg.Interval)
		if next.After(r.t1) {
			next = r.t1
		}
		if !w.wait(next) {
			return false
		}
		tk.tick(time.Now(), false)
	}
	return true
}

// drain waits until every expected delivery arrived and every
// acknowledgement came, or the drain timeout, ticking on; it reports
// whether all came.
func (r *run) drain(w *waiter, tk *ticker, sends []*sender, expected uint64) bool {
	drained := true
	deadline := r.t1.Add(r.cfg.Drain)
	if d := time.Now(); d.After(r.t1) {
		deadline = d.Add(r.cfg.Drain)
	}
	for _, s := range sends {
		for _, p := range s.end.Senders {
			if as, ok := p.(driver.AckSender); ok && as.WaitAcks(deadline) != nil {
				drained = false
			}
		}
	}
	nextTick := time.Now().Add(r.cfg.Interval)
	dw := drainWatch{drops: r.drops}
	for r.unique() < expected && !r.halt.Load() {
		now := time.Now()
		if !now.Before(deadline) || dw.accounted(now, r.unique(), expected) {
			drained = false
			break
		}
		if !now.Before(nextTick) {
			tk.tick(now, true)
			nextTick = nextTick.Add(r.cfg.Interval)
		}
		step := now.Add(5 * time.Millisecond)
		if step.After(deadline) {
			step = deadline
		}
		if !w.wait(step) && (w.interrupted || r.err != nil) {
			break
		}
	}
	return drained
}

// newReceiver returns the state of subscriber link l, one of links, with
// its first chunk of raw samples when they are kept.
func (r *run) newReceiver(l SubLink, links int) *receiver {
	rv := &receiver{link: l, shard: r.rec.Shard(), trackers: map[uint16]*Tracker{}}
	if r.times != nil {
		rv.fromSend = r.fromSend.Shard()
	}
	if r.cfg.MaxRaw > 0 {
		// Claims of an eighth of a fair share, so that the room
		// left unused in the receivers' last chunks is small.
		rv.raw.left, rv.raw.size = &r.rawLeft, min(rawChunk, max(r.cfg.MaxRaw/(8*max(links, 1)), 1))
		rv.raw.claim()
	}
	return rv
}

// rawChunk is the most raw samples a receiver claims and allocates at a
// time: filling chunks of a fixed size never copies a sample kept, where a
// slice grown by append copies every one at each doubling (at a million
// messages a second, half of the recording's cost), and one claim of the
// shared budget per chunk leaves the message's path free of atomic
// operations on it.
const rawChunk = 1 << 14

// rawSamples are one receiver's raw samples, in arrival order, in chunks
// claimed from the run's budget (left). With several receivers, one may
// drop samples while another still holds room in its last chunk (at most
// size), which the count dropped says.
type rawSamples struct {
	left    *atomic.Int64 // the run's budget not yet claimed; nil keeps none
	size    int           // of a claim
	full    [][]RawSample
	cur     []RawSample
	dropped uint64 // beyond the budget
}

// add keeps v, or counts it dropped once the budget is spent.
func (s *rawSamples) add(v RawSample) {
	if len(s.cur) == cap(s.cur) && !s.claim() {
		s.dropped++
		return
	}
	s.cur = append(s.cur, v)
}

// claim takes a new chunk of the budget, reporting whether any was left.
func (s *rawSamples) claim() bool {
	if s.left == nil {
		return false
	}
	for {
		left := s.left.Load()
		n := min(left, int64(s.size))
		if n <= 0 {
			s.left = nil
			return false
		}
		if s.left.CompareAndSwap(left, left-n) {
			if len(s.cur) > 0 {
				s.full = append(s.full, s.cur)
			}
			s.cur = make([]RawSample, 0, n)
			return true
		}
	}
}

// receive is a subscriber link's loop. A subscriber whose library delivers
// to a callback (driver.Consumer) is accounted for on that callback's
// goroutine, as the libraries' own benchmarks consume: a hand-over to this
// goroutine per message costs a fast link a large share of its rate. Its
// arrival times are monotonic readings (driver.Mono), converted without a
// time.Time.
func (r *run) receive(rv *receiver, payload int) {
	if c, ok := rv.link.R.(driver.Consumer); ok {
		err := c.Consume(func(msg []byte, at int64) {
			if !r.stop.Load() {
				r.deliver(rv, msg, r.clock.Mono(at))
			}
		})
		if err != nil && !r.stop.Load() {
			r.c.Errors.Add(1)
			r.fail(fmt.Errorf("subscriber %d: %w", rv.link.Sub, err))
		}
		return
	}
	buf := make([]byte, max(payload, 64)+64)
	// The deadline is renewed only when it passed: reading the clock
	// once more per message costs a fast link a measurable share.
	deadline := time.Now().Add(50 * time.Millisecond)
	for !r.stop.Load() {
		n, at, err := rv.link.R.Receive(buf, deadline)
		if err != nil {
			if errors.Is(err, driver.ErrTimeout) {
				deadline = time.Now().Add(50 * time.Millisecond)
				continue
			}
			if r.stop.Load() {
				return
			}
			r.c.Errors.Add(1)
			r.fail(fmt.Errorf("subscriber %d: %w", rv.link.Sub, err))
			return
		}
		r.deliver(rv, buf[:n], r.clock.Ns(at))
	}
}

// unique is the unique deliveries of measured messages so far (or fewer,
// never more: the received are read before the duplicates among them).
func (r *run) unique() uint64 {
	n := r.c.MessagesReceived.Load()
	return n - r.dups.Load()
}

// deliver accounts for one message. Its atomic operations are as few as
// the counts allow (one, for a unique delivery, besides the histogram's
// and the raw budget's): on a fast link each costs the subscriber a share
// of its rate. atNs is its arrival in ns since the epoch (the run's clock).
func (r *run) deliver(rv *receiver, msg []byte, atNs int64) {
	h, full, err := Parse(msg)
	if err != nil || (full && h.RunID != r.cfg.RunID) || len(msg) != r.payload {
		r.c.Errors.Add(1) // malformed, of another run, or of another payload
		return
	}
	switch {
	case h.Flags&(FlagProbe|FlagEndPayload) != 0:
		return
	case h.Flags&FlagWarmup != 0:
		r.c.Warmup.Add(1)
		return
	}
	r.c.MessagesReceived.Add(1) // and its bytes, the payload (Counters.ReceivedSize)
	tr := rv.lastTr
	if tr == nil || h.Publisher != rv.lastPub {
		if tr = rv.trackers[h.Publisher]; tr == nil {
			tr = &Tracker{}
			rv.trackers[h.Publisher] = tr
		}
		rv.lastPub, rv.lastTr = h.Publisher, tr
	}
	if !tr.Observe(h.Seq) {
		r.dups.Add(1)
		return // a duplicate: no second sample
	}
	lat, clamped := Clamp(atNs - int64(h.SendNs))
	if clamped {
		r.c.Clamped.Add(1)
	}
	rv.shard.Record(lat)
	if rv.fromSend != nil {
		r.recordFromSend(rv, h, atNs)
	}
	rv.last = max(rv.last, atNs)
	if r.cfg.MaxRaw > 0 {
		rv.raw.add(RawSample{At: atNs, Latency: lat})
	}
}

// recordFromSend records a paced message's latency from the time its
// publisher actually sent it, when its record still holds that time.
func (r *run) recordFromSend(rv *receiver, h Header, atNs int64) {
	if int(h.Publisher) < len(r.times) {
		if sentNs, ok := r.times[h.Publisher].get(h.Seq); ok {
			lat, _ := Clamp(atNs - sentNs)
			rv.fromSend.Record(lat)
			return
		}
	}
	r.unpaired.Add(1)
}

// A loop keeps its counts in variables of its own and adds them to the
// shared counters (Counters) once countBatch messages wait, once the first
// of them is countAge old (by the clock reading each message has anyway),
// when the loop is about to wait, and at its end: a snapshot leaves out at
// most the last millisecond's messages, while a fast link pays one atomic
// addition per batch instead of several per message.
const (
	countBatch = 256
	countAge   = int64(time.Millisecond)
)

// publish is a publisher's loop: warm-up from start, measured from t0 to
// t1, then an end-of-payload marker (endPublish). It stays one function
// over 80 lines: its per-message loop alone is about 80, and its state
// (the schedule, the counts not yet published, the sequence numbers) stays
// in locals; split into methods of a state struct (next slot, stamp, send,
// count) it cost some 13 % more CPU per message in BenchmarkPublish. What
// runs once is outside it: the message (message), a failed send
// (sendFailed) and the end (endPublish).
func (r *run) publish(s *sender, payload int, start time.Time) {
	msg, h := r.message(s, payload)
	sched := NewSchedule(r.cfg.Rate, start)
	paced := sched.Period() > 0
	senders := s.end.Senders
	one := senders[0] // the broker, or the one subscriber of a point-to-point link
	// Sent messages not yet in r.c, and the send time after which they
	// must be.
	var unsent uint64
	var countBy int64
	count := func() {
		r.c.MessagesSent.Add(unsent)
		r.c.BytesSent.Add(unsent * uint64(len(msg)*len(senders)))
		unsent = 0
	}
	Wait(start, r.halt.Load)
	var warmSeq, seq uint64
	measuring := false
	// Unpaced, the schedule's times are read from the monotonic clock
	// alone (Clock.Now), and compared in ns since the epoch.
	t0Ns, t1Ns := r.clock.Ns(r.t0), r.clock.Ns(r.t1)
	for !r.halt.Load() {
		var skipped uint64
		var nowNs int64
		if paced {
			now := time.Now()
			var due time.Time
			due, skipped = sched.Next(now)
			if !due.Before(r.t1) {
				break
			}
			if unsent > 0 && due.After(now) {
				count()
			}
			sched.Wait(due, r.halt.Load)
			if r.halt.Load() {
				break
			}
			now = time.Now()
			nowNs = r.clock.Ns(now)
			h.SendNs = uint64(r.clock.Ns(due))
			if !measuring && !due.Before(r.t0) {
				s.warm.Store(warmSeq)
				r.drops.start()
				measuring = true
			}
			if measuring {
				d, _ := Clamp(int64(now.Sub(due)))
				s.delayShard.Record(d)
			}
		} else {
			nowNs = r.clock.Now()
			if nowNs >= t1Ns {
				break
			}
			h.SendNs = uint64(nowNs)
			if !measuring && nowNs >= t0Ns {
				// Every acknowledgement counted from here on is of a
				// measured message once the warm-up's are subtracted.
				s.warm.Store(warmSeq)
				r.drops.start()
				measuring = true
			}
		}
		if measuring {
			h.Seq, h.Flags = seq, 0
			if s.times != nil {
				s.times.put(seq, nowNs)
			}
			if skipped > 0 { // an atomic add of 0 costs as much as any
				s.skipped += skipped
				r.c.Skipped.Add(skipped)
			}
		} else {
			h.Seq, h.Flags = warmSeq, FlagWarmup
		}
		if unsent > 0 && nowNs >= countBy {
			count()
		}
		PutTime(msg, h.SendNs)
		h.PutSeq(msg)
		err := one.Send(msg)
		for _, p := range senders[1:] {
			if err != nil {
				break
			}
			err = p.Send(msg)
		}
		if err != nil {
			count()
			r.sendFailed(s, seq, err)
			return
		}
		if !measuring {
			warmSeq++
			continue
		}
		seq++
		if unsent++; unsent == 1 {
			countBy = nowNs + countAge
		} else if unsent == countBatch {
			count()
		}
	}
	count()
	s.sent = seq
	if !measuring {
		s.warm.Store(warmSeq)
	}
	r.endPublish(s, sched.Period(), start, msg, h)
}

// message is publisher s's message of payload bytes, padded, its header h
// written but for the send time and sequence number each send sets.
func (r *run) message(s *sender, payload int) ([]byte, Header) {
	msg := make([]byte, payload)
	h := Header{Publisher: uint16(s.end.Pub), Topic: uint16(r.tp.PubTopic[s.end.Pub]), RunID: r.cfg.RunID}
	r.cfg.Padding.Fill(msg, r.cfg.PaddingSeed, s.end.Pub)
	h.Put(msg)
	return msg, h
}

// sendFailed ends the run after publisher s, having sent seq measured
// messages, failed to send with err.
func (r *run) sendFailed(s *sender, seq uint64, err error) {
	s.sent = seq
	r.c.Errors.Add(1)
	r.fail(fmt.Errorf("publisher %d: %w", s.end.Pub, err))
}

// endPublish ends the publisher s, whose schedule from start had period
// (0 unpaced), once it sent s.sent measured messages: it counts the slots
// skipped and sends the end marker, msg with header h.
func (r *run) endPublish(s *sender, period time.Duration, start time.Time, msg []byte, h Header) {
	seq := s.sent
	if p := period; p > 0 && !r.halt.Load() {
		// Every slot due in the measured period was sent or skipped: this
		// also counts slots skipped across its start and its end.
		slots := uint64(slotsBefore(r.t1, start, p) - slotsBefore(r.t0, start, p))
		if want := slots - min(slots, seq); want != s.skipped {
			r.c.Skipped.Add(want - s.skipped) // wraps to a subtraction when fewer
			s.skipped = want
		}
	}
	// The end marker tells a subscriber elsewhere how many were sent.
	s.measured.Store(seq)
	h.Seq, h.Flags = seq, FlagEndPayload
	h.SendNs = uint64(r.clock.Now())
	PutTime(msg, h.SendNs)
	h.PutSeq(msg)
	for _, p := range s.end.Senders {
		p.Send(msg) // best effort: the counts here come from the publisher itself
	}
}

// result gathers the counts of a payload.
func (r *run) result(recvs []*receiver, sends []*sender, sent []uint64, expected uint64, end time.Time, ticks []Tick) *PayloadResult {
	hist, above := r.rec.Snapshot()
	dh, dabove := r.delays.Snapshot()
	res := &PayloadResult{Payload: r.payload, Start: r.t0, End: end, Expected: expected, Histogram: hist,
		Latency: StatsOf(hist, above), SendDelay: StatsOf(dh, dabove), Ticks: ticks}
	res.FromSend = res.Latency
	if r.times != nil {
		fh, fabove := r.fromSend.Snapshot()
		res.FromSend, res.Unpaired = StatsOf(fh, fabove), r.unpaired.Load()
	}
	r.countAcks(res, sends)
	pubs := r.publisherResults(res, sends, sent)
	got, last := mergeTrackers(recvs)
	r.countDeliveries(res, pubs, got, sent)
	res.Publishers = pubs
	for j := range res.Subscribers {
		res.Subscribers[j].Subscriber, res.Subscribers[j].Topic = j, r.tp.SubTopic[j]
	}
	if last > 0 {
		res.LastArrival = r.t0.Add(time.Duration(last - r.clock.Ns(r.t0)))
	}
	res.Raw, res.RawDropped = rawOf(recvs)
	return res
}

// countAcks sets the acknowledgements of measured messages in res and
// the run's counters: every one counted minus those of the warm-up (they
// arrive in order), the end marker aside; then res.Counters.
func (r *run) countAcks(res *PayloadResult, sends []*sender) {
	for _, s := range sends {
		for x := range s.end.Senders {
			a := s.acked[x].Load()
			a -= min(a, s.warm.Load())
			res.Counters.MessagesAcked += min(a, s.sent)
			f := s.refused[x].Load()
			res.Counters.MessagesRefused += min(f, s.sent)
		}
	}
	r.c.MessagesAcked.Store(res.Counters.MessagesAcked)
	r.c.MessagesRefused.Store(res.Counters.MessagesRefused)
	res.Counters = r.c.Load()
}

// publisherResults returns what each publisher sent and offered, adding
// the offered deliveries to res.
func (r *run) publisherResults(res *PayloadResult, sends []*sender, sent []uint64) []PublisherResult {
	pubs := make([]PublisherResult, r.tp.Publishers)
	for _, s := range sends {
		pubs[s.end.Pub].Skipped = s.skipped
		pubs[s.end.Pub].SentBytes = s.sent * uint64(r.payload*len(s.end.Senders))
	}
	for i := range pubs {
		p := &pubs[i]
		p.Publisher, p.Topic, p.Sent, p.Expected = i, r.tp.PubTopic[i], sent[i], sent[i]*r.tp.Reach(r.tp.PubTopic[i])
		p.Offered, p.IntendedRate, p.SendRate = p.Sent+p.Skipped, r.cfg.Rate, rate(p.Sent, res.Measured())
		res.Offered += p.Offered * r.tp.Reach(p.Topic)
	}
	return pubs
}

// mergeTrackers returns the trackers of recvs by subscriber and publisher,
// those of the per-pair links of one subscriber summed, and the latest
// arrival.
func mergeTrackers(recvs []*receiver) (got map[[2]int]*Tracker, last int64) {
	got = map[[2]int]*Tracker{}
	for _, rv := range recvs {
		last = max(last, rv.last)
		for p, tr := range rv.trackers {
			k := [2]int{rv.link.Sub, int(p)}
			if o := got[k]; o != nil {
				o.add(tr) // per-pair links of one subscriber: sum
				continue
			}
			c := *tr
			got[k] = &c
		}
	}
	return got, last
}

// countDeliveries sets what each publisher's messages met and what each
// subscriber received, and their totals in res. Each subscriber of a
// publisher's topic should have every message; one that got none has no
// tracker and lost them all. Subscribers that compete (Shared) should have
// every message between them: more than were sent are duplicates across
// them.
func (r *run) countDeliveries(res *PayloadResult, pubs []PublisherResult, got map[[2]int]*Tracker, sent []uint64) {
	res.Subscribers = make([]SubscriberResult, r.tp.Subscribers)
	for i := range pubs {
		var group Tracker
		for _, j := range r.tp.SubscribersOf(pubs[i].Topic) {
			tr := got[[2]int{j, i}]
			if tr == nil {
				tr = &Tracker{}
			}
			res.Subscribers[j].Received += tr.Unique
			if r.tp.Shared() {
				group.add(tr)
				continue
			}
			pubs[i].Received += tr.Unique
			pubs[i].Lost += tr.Lost(sent[i])
			pubs[i].Duplicates += tr.Duplicates
			pubs[i].OutOfOrder += tr.OutOfOrder
		}
		if r.tp.Shared() {
			extra := group.Unique - min(group.Unique, sent[i])
			pubs[i].Received += group.Unique - extra
			pubs[i].Lost += group.Lost(sent[i])
			pubs[i].Duplicates += group.Duplicates + extra
			pubs[i].OutOfOrder += group.OutOfOrder
		}
		res.Unique += pubs[i].Received
		res.Lost += pubs[i].Lost
		res.Duplicates += pubs[i].Duplicates
		res.OutOfOrder += pubs[i].OutOfOrder
	}
}

// rawOf returns the raw samples of recvs by arrival, nil for none, and
// how many they dropped beyond the budget.
func rawOf(recvs []*receiver) (raw []RawSample, dropped uint64) {
	var chunks [][]RawSample
	for _, rv := range recvs {
		chunks = append(append(chunks, rv.raw.full...), rv.raw.cur)
		dropped += rv.raw.dropped
	}
	raw = slices.Concat(chunks...) // nil when every chunk is empty
	slices.SortFunc(raw, func(a, b RawSample) int { return cmp.Compare(a.At, b.At) })
	return raw, dropped
}

// slotsBefore counts the slots start + k·period (k ≥ 0) before t.
func slotsBefore(t, start time.Time, period time.Duration) int64 {
	d := t.Sub(start)
	if d <= 0 {
		return 0
	}
	return int64((d + period - 1) / period)
}
