package permessage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/throughput"
)

// Config configures the per-message method (ZeroMQ's
// "measuring messaging performance").
type Config struct {
	Count int // messages per payload
	// Window is M of ST_n and RT_n (default 100).
	Window int
	// Rate paces the sender at this many messages per second (0: back to
	// back). Below the link's capacity a run is steady: the median of the
	// window rates then agrees with the overall rates.
	Rate float64
	// CPUEvery is k: CPU time is sampled every k-th message (default 1000).
	CPUEvery int
	// Timeout ends the wait for deliveries once nothing arrived for that
	// long (the missing ones are lost).
	Timeout time.Duration
	// Broker, when set, reads the CPU time of the broker's process.
	Broker *CPUSource
	RunID  uint32
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	c.Count = cmp.Or(c.Count, 10000)
	c.Window = cmp.Or(c.Window, 100)
	c.CPUEvery = cmp.Or(c.CPUEvery, 1000)
	c.Timeout = cmp.Or(c.Timeout, throughput.DefaultTimeout)
	c.RunID = cmp.Or(c.RunID, 0x706d) // "pm"
	return c
}

// Validate reports the first setting that cannot be measured.
func (c Config) Validate() error {
	switch {
	case c.Count < 2:
		return fmt.Errorf("count %d: expected at least 2 messages", c.Count)
	case c.Window < 1 || c.Window >= c.Count:
		return fmt.Errorf("window %d: expected 1 ≤ M < count (%d)", c.Window, c.Count)
	case c.CPUEvery < 1:
		return fmt.Errorf("CPU sampling every %d: expected at least 1", c.CPUEvery)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: expected a positive duration", c.Timeout)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("rate %g: expected a finite number of messages per second, 0 for back to back", c.Rate)
	}
	return nil
}

// Record is the measurement of one payload: O_n and I_n in ns since a
// common origin (Never: never arrived) and the CPU time of sender, receiver
// and broker every CPUEvery-th message, in memory allocated before the
// first message.
type Record struct {
	Payload int
	M       int
	O, I    []int64
	// CPUEvery is k; Sender.R[j] is read when the (j·k)-th message was
	// sent, Receiver.R[j] and Broker.R[j] when the (j·k)-th arrived (R[0]
	// before the first message).
	CPUEvery int
	// Sender and Receiver are the CPU time of the two measuring threads;
	// Client is this whole process, all threads (the client libraries'
	// own goroutines, the Go runtime and an embedded broker too), read
	// with Receiver; Broker is the broker's process (BrokerWhat says
	// which), or this process less the sender and receiver threads when
	// the broker runs here.
	Sender, Receiver, Client, Broker CPUSeries
	// BrokerWhat says whose CPU Broker is; BrokerInProcess is true when
	// it is this process's less the measuring threads; NoBroker when the
	// link has no broker, Broker then being the rest of this process
	// (named RestOfProcessLabel, not a broker).
	BrokerWhat      string
	BrokerInProcess bool
	NoBroker        bool
	Lost            int
	// Negative counts the messages delivered before they were sent
	// (I_n < O_n): an error of the run, never a latency sample.
	Negative int
	// Acked and Refused are the acknowledgements the publisher's link
	// received for the messages sent (awaited within Timeout at the end):
	// the system's confirmations, and its refusals. 0 on a link that
	// acknowledges nothing (not a driver.AckSender).
	Acked, Refused uint64
}

// ErrNegativeLatency is the error of a run in which a message was
// delivered before it was sent: O_n is taken before the message is handed
// over, so only an arrival stamp from another clock can do that.
var ErrNegativeLatency = errors.New("negative latency")

// Never is I_n of a message that never arrived (any other value, negative
// included, is a time since the origin).
const Never = math.MinInt64

// L returns L_n = I_n − O_n in ns (NaN for a lost message). A negative
// L_n is kept here, as measured, and left out of the aggregates.
func (p *Record) L() []float64 {
	out := make([]float64, len(p.O))
	for n := range out {
		if p.I[n] == Never {
			out[n] = math.NaN()
			continue
		}
		out[n] = float64(p.I[n] - p.O[n])
	}
	return out
}

// SO returns SO_n = (O_n − O_{n−M}) / M in ns for n ≥ M (NaN before).
func (p *Record) SO() []float64 { return windowOverhead(p.O, p.M) }

// RO returns RO_n = (I_n − I_{n−M}) / M in ns (NaN before M and where
// either end was lost).
func (p *Record) RO() []float64 { return windowOverhead(p.I, p.M) }

// ST returns ST_n = 1 / SO_n in msg/s.
func (p *Record) ST() []float64 { return inverse(p.SO()) }

// RT returns RT_n = 1 / RO_n in msg/s.
func (p *Record) RT() []float64 { return inverse(p.RO()) }

func windowOverhead(t []int64, m int) []float64 {
	out := make([]float64, len(t))
	for n := range out {
		if n < m || t[n] == Never || t[n-m] == Never || t[n] <= t[n-m] {
			out[n] = math.NaN()
			continue
		}
		out[n] = float64(t[n]-t[n-m]) / float64(m)
	}
	return out
}

// inverse turns overheads in ns into rates in msg/s.
func inverse(o []float64) []float64 {
	for n, v := range o {
		o[n] = 1e9 / v
	}
	return o
}

// OverallSend is the send rate over the whole run, (N − 1) / (O_N − O_1)
// in msg/s.
func (p *Record) OverallSend() float64 { return overallRate(p.O) }

// OverallReceive is the receive rate over the whole run, (messages
// delivered − 1) / (last I − first I) in msg/s.
func (p *Record) OverallReceive() float64 { return overallRate(p.I) }

func overallRate(t []int64) float64 {
	first, last, got := int64(math.MaxInt64), int64(math.MinInt64), 0
	for _, v := range t {
		if v != Never {
			first, last, got = min(first, v), max(last, v), got+1
		}
	}
	if got < 2 || last <= first {
		return math.NaN()
	}
	return float64(got-1) / (float64(last-first) / 1e9)
}

// Measure sends cfg.Count messages of payload bytes from the
// publisher to the subscriber of ends, back to back or paced at cfg.Rate,
// and records when each was sent (O_n, just before it is handed to Send)
// and delivered (I_n, the driver's arrival time). A message delivered
// before it was sent is counted in Negative and fails the run
// (ErrNegativeLatency), after the rest was measured. Sender and receiver run on
// goroutines locked to their threads, so that their CPU time is the
// threads'.
//
// No stamp taken in this process is finer than the socket reads of the
// client library: back to back, a broker's messages come a thousand or so
// to a read (NATS, 16 B: 20,000 messages in some 22 reads), so a window of
// fewer messages is a burst wherever I_n is read. Paced below the link's
// capacity, messages come one or a few to a read, and the window rates
// are the link's.
func Measure(ctx context.Context, ends *load.Ends, payload int, cfg Config) (*Record, error) {
	var acks driver.AckCount
	pub, sub, err := ends.Pair("per-message", &acks)
	if err != nil {
		return nil, err
	}
	m := newPerMessageRun(ctx, pub, sub, payload, cfg)
	// The sender checks ctx itself: there is nothing to halt.
	interrupted := ends.Run(ctx, func() {}, m.send, m.receive)
	if as, ok := pub.(driver.AckSender); ok && !interrupted && m.pubErr == nil {
		// The acknowledgements still to come: counted as they come within
		// Timeout; a link that does not confirm every message is recorded
		// as such (fewer acknowledged than sent), not failed.
		_ = as.WaitAcks(time.Now().Add(cfg.Timeout))
	}
	m.pm.Acked, m.pm.Refused = acks.Counts()
	switch {
	case interrupted:
		// What was measured is kept: the messages up to the last one
		// delivered (those after it were in flight when the run was
		// stopped, neither delivered nor lost).
		m.pm.truncate(m.pm.lastDelivered() + 1)
		err = load.ErrInterrupted
	case m.pubErr != nil:
		// The messages sent before the link broke are kept, those
		// not delivered lost.
		m.pm.truncate(m.sent)
		err = fmt.Errorf("publisher: %w", m.pubErr)
	case m.subErr != nil:
		m.pm.truncate(m.sent)
		err = fmt.Errorf("subscriber: %w", m.subErr)
	}
	// The messages are counted in every case; an interruption or a broken
	// link is the error rather than a negative latency.
	return m.pm, cmp.Or(err, m.tally())
}

// truncate keeps the first n messages of the record and the CPU readings
// of their windows (the j-th at the (j·k)-th message, j·k ≤ n).
func (p *Record) truncate(n int) {
	n = max(0, min(n, len(p.O)))
	p.O, p.I = p.O[:n], p.I[:n]
	for _, s := range []*CPUSeries{&p.Sender, &p.Receiver, &p.Client, &p.Broker} {
		if k := n/max(p.CPUEvery, 1) + 1; k < len(s.R) {
			s.R = s.R[:k]
		}
	}
}

// lastDelivered is the index of the last message delivered, -1 when none
// was.
func (p *Record) lastDelivered() int {
	for n := len(p.I) - 1; n >= 0; n-- {
		if p.I[n] != Never {
			return n
		}
	}
	return -1
}

// perMessageRun is one measurement of Measure: a sender and a
// receiver goroutine, each locked to its thread, filling in pm.
type perMessageRun struct {
	ctx     context.Context
	pub     driver.Publisher
	sub     driver.Subscriber
	payload int
	cfg     Config
	n, nCPU int // messages, and CPU readings after the first
	broker  CPUSource
	pm      *Record
	origin  time.Time
	ready   chan struct{} // closed once the receiver took its first reading
	sent    int           // messages handed to Send, set when send returns
	pubErr  error
	subErr  error

	// The receiver reads the sender thread's clock too, to take both
	// measuring threads out of an in-process broker's figure. When the
	// sender is done its last reading stands (its thread then ends).
	senderTid  chan int
	senderLast atomic.Int64
	senderCPU  func() int64
	// clock stamps the CPU readings: the time since the origin in ns.
	clock func() int64
}

// newPerMessageRun prepares the arrays and CPU series of a measurement of
// cfg.Count messages.
func newPerMessageRun(ctx context.Context, pub driver.Publisher, sub driver.Subscriber, payload int, cfg Config) *perMessageRun {
	n := cfg.Count
	pm := &Record{Payload: payload, M: cfg.Window, CPUEvery: cfg.CPUEvery,
		O: make([]int64, n), I: slices.Repeat([]int64{Never}, n)}
	nCPU := n / cfg.CPUEvery
	broker := CPUSource{Read: func() int64 { return -1 }, Resolution: 1}
	if cfg.Broker != nil {
		broker = *cfg.Broker
		pm.BrokerWhat, pm.BrokerInProcess, pm.NoBroker = broker.What, broker.InProcess, broker.NoBroker
	}
	// The measuring threads read their own clocks, exact to the ns; the
	// process's clock is exact only to a scheduler tick (processTick).
	pm.Sender, pm.Receiver, pm.Client = newCPUSeries(nCPU, 1), newCPUSeries(nCPU, 1), newCPUSeries(nCPU, processTick())
	pm.Broker = newCPUSeries(nCPU, broker.Resolution)
	m := &perMessageRun{ctx: ctx, pub: pub, sub: sub, payload: payload, cfg: cfg, n: n, nCPU: nCPU, broker: broker, pm: pm,
		ready: make(chan struct{}), senderTid: make(chan int, 1)}
	m.senderLast.Store(-1)
	m.origin = time.Now()
	m.clock = m.since
	return m
}

// since is the time since the run's origin, in ns.
func (m *perMessageRun) since() int64 { return int64(time.Since(m.origin)) }

// readAt takes CPU reading k on the receiver's thread: its own thread's
// clock, the process's, and the broker's (for a broker in this process,
// the process's less the sender and receiver threads), stamped with the
// time in the middle of the reading. A reading whose clocks are further
// apart than readSpan was preempted in between: the process's clock then
// holds the other threads' CPU time of the pause, which the stamp does not
// cover (a client at 389 % of a core on two CPUs, an in-process broker
// below zero), so it is taken again, and left unread after readTries.
func (m *perMessageRun) readAt(k int) {
	var r, s, c, b int64
	read, t := stamped(m.clock, func() int64 {
		r, s, c = threadCPU(), m.senderNow(), processCPU()
		b = c
		if !m.broker.InProcess {
			b = m.broker.Read()
		}
		return 0
	})
	switch {
	case read < 0: // preempted at every try
		r, c, b = -1, -1, -1
	case m.broker.InProcess && (c < 0 || r < 0 || s < 0):
		b = -1
	case m.broker.InProcess:
		b = c - r - s
	}
	m.pm.Receiver.read(k, r, t)
	m.pm.Client.read(k, c, t)
	m.pm.Broker.read(k, b, t)
}

// readSpan is the longest a CPU reading may take from its first clock to
// its last; readTries the readings tried before one is left unread.
const (
	readSpan  = 50 * time.Microsecond
	readTries = 5
)

// stamped reads clock read between two readings of the time, and returns
// it with the time in the middle; read again when the two lie further apart
// than readSpan (the thread preempted in between, which would shift the
// stamp off the reading), -1 after readTries.
func stamped(now func() int64, read func() int64) (u, t int64) {
	for range readTries {
		t0 := now()
		u = read()
		t1 := now()
		if t1-t0 <= int64(readSpan) {
			return u, t0 + (t1-t0)/2
		}
	}
	return -1, now()
}

// senderNow is the sender thread's CPU time: its clock while it runs, its
// last reading once it is done (its thread then ends).
func (m *perMessageRun) senderNow() int64 {
	s := m.senderLast.Load()
	if s < 0 && m.senderCPU != nil {
		if s = m.senderCPU(); s < 0 { // the thread ended meanwhile
			s = m.senderLast.Load()
		}
	}
	return s
}

// receive stamps the arrival I_n of every message, until all came or none
// for cfg.Timeout.
func (m *perMessageRun) receive() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pm, n, cfg := m.pm, m.n, m.cfg
	buf := make([]byte, m.payload+64)
	m.senderCPU = tidCPU(<-m.senderTid)
	m.readAt(0)
	close(m.ready)
	got := 0
	for got < n {
		k, at, err := m.sub.Receive(buf, time.Now().Add(cfg.Timeout))
		if err != nil {
			if !errors.Is(err, driver.ErrTimeout) {
				m.subErr = err
			}
			return // nothing for Timeout: the rest is lost
		}
		h, full, err := load.Parse(buf[:k])
		if err != nil || k != m.payload || (full && h.RunID != cfg.RunID) || h.Seq >= uint64(n) || pm.I[h.Seq] != Never {
			continue
		}
		pm.I[h.Seq] = int64(at.Sub(m.origin))
		got++
		if got%cfg.CPUEvery == 0 && got/cfg.CPUEvery <= m.nCPU {
			m.readAt(got / cfg.CPUEvery)
		}
	}
}

// send sends the messages, stamping O_n, paced at cfg.Rate if given.
func (m *perMessageRun) send() {
	// The thread stays locked, so that it ends with this goroutine
	// and its clock counts nothing of other goroutines.
	runtime.LockOSThread()
	m.senderTid <- threadID()
	defer func() { m.senderLast.Store(threadCPU()) }()
	<-m.ready
	pm, cfg, since := m.pm, m.cfg, m.since
	msg, h := load.NewMessage(m.payload, cfg.RunID)
	clock := load.NewClock()
	pm.Sender.read(0, threadCPU(), since())
	pace := pacer{interval: 1e9 / cfg.Rate, next: float64(since())}
	m.sent = m.n
	for i := 0; i < m.n; i++ {
		if m.ctx.Err() != nil {
			m.sent = i
			return
		}
		if cfg.Rate > 0 {
			pace.wait(since)
		}
		h.Seq, h.SendNs = uint64(i), uint64(clock.Now())
		load.PutTime(msg, h.SendNs)
		h.PutSeq(msg)
		// O_n is the moment the message is handed to the client
		// library (the method's definition): a Send that blocks
		// afterwards must not move it past the delivery.
		pm.O[i] = since()
		if err := m.pub.Send(msg); err != nil {
			m.pubErr, m.sent = err, i
			return
		}
		if (i+1)%cfg.CPUEvery == 0 {
			// Stamped around the clock's reading, after Send: O_n came
			// before Send, and a window stamped with it would lack the
			// time a blocking Send took (a thread above 100 % of a core).
			u, t := stamped(since, threadCPU)
			pm.Sender.read((i+1)/cfg.CPUEvery, u, t)
		}
	}
	// The last messages may be held back (an open transaction).
	if b, ok := m.pub.(driver.BatchSender); ok {
		if err := b.FlushBatch(); err != nil {
			m.pubErr = err
		}
	}
}

// tally counts the messages lost and those delivered before they were
// sent, refusing the latter: the stamps are then not on one clock.
func (m *perMessageRun) tally() error {
	pm := m.pm
	worst := int64(0)
	for n, t := range pm.I {
		switch {
		case t == Never:
			pm.Lost++
		case t < pm.O[n]:
			pm.Negative++
			worst = min(worst, t-pm.O[n])
		}
	}
	if pm.Negative > 0 {
		return fmt.Errorf("%w: %d of %d messages delivered before they were sent (L down to %s): the arrival stamps are not on the sender's clock",
			ErrNegativeLatency, pm.Negative, len(pm.O)-pm.Lost, result.Micros(float64(worst)/1e3))
	}
	return nil
}

// pacer spaces sends interval ns apart on a fixed schedule (open loop, as
// run load's --rate). It sleeps rather than spins, so that waiting stays
// out of the sender's CPU time; the messages of a late wake-up go at once,
// so that the run offers the rate asked for (a stalled sender then sends
// in bursts, and its ST median says so).
type pacer struct{ interval, next float64 }

func (p *pacer) wait(since func() int64) {
	if d := p.next - float64(since()); d > 0 {
		driver.Sleep(time.Duration(d))
	}
	p.next += p.interval
}

// BimodalityThreshold is 5/9, the bimodality coefficient of a uniform
// distribution.
const BimodalityThreshold = 5.0 / 9

// Aggregated summarises the finite values of x.
func Aggregated(x []float64) permessagefile.Aggregate {
	v := make([]float64, 0, len(x))
	for _, f := range x {
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			v = append(v, f)
		}
	}
	if len(v) == 0 {
		nan := math.NaN()
		return permessagefile.Aggregate{Mean: nan, Median: nan, LowerMedian: nan, RobustDev: nan, Min: nan, Max: nan, P50: nan, P90: nan, P99: nan, Bimodality: nan}
	}
	a := permessagefile.Aggregate{Count: len(v)}
	slices.Sort(v)
	a.Mean, a.Median = stats.Mean(v), stats.MedianSorted(v)
	a.LowerMedian = v[(len(v)-1)/2]
	a.Min, a.Max = v[0], v[len(v)-1]
	a.P50, a.P90, a.P99 = stats.Percentile(v, 50), stats.Percentile(v, 90), stats.Percentile(v, 99)
	var dev float64
	for _, f := range v {
		dev += math.Abs(f - a.Median)
	}
	a.RobustDev = dev / float64(len(v))
	a.Bimodality = bimodality(v, a.Mean)
	a.Multimodal = a.Bimodality > BimodalityThreshold
	return a
}

// bimodality is Sarle's coefficient with the bias-corrected sample
// skewness G1 and excess kurtosis G2 (as scipy.stats skew/kurtosis with
// bias=False).
func bimodality(v []float64, mean float64) float64 {
	n := float64(len(v))
	if n < 4 {
		return math.NaN()
	}
	var m2, m3, m4 float64
	for _, f := range v {
		d := f - mean
		m2 += d * d
		m3 += d * d * d
		m4 += d * d * d * d
	}
	m2, m3, m4 = m2/n, m3/n, m4/n
	if m2 == 0 {
		return math.NaN()
	}
	g1 := m3 / math.Pow(m2, 1.5)
	G1 := g1 * math.Sqrt(n*(n-1)) / (n - 2)
	g2 := m4/(m2*m2) - 3
	G2 := (n - 1) / ((n - 2) * (n - 3)) * ((n+1)*g2 + 6)
	return (G1*G1 + 1) / (G2 + 3*(n-1)*(n-1)/((n-2)*(n-3)))
}
