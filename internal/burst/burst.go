package burst

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/result"
)

// Defaults of the Fast-RTPS throughput pipeline, and the wait for messages
// in flight after the last burst.
var (
	DefaultDemands    = []int{100, 1000, 10000, 30000, 50000}
	DefaultRecoveries = []int{0, 20, 40, 60, 80, 100} // ms
)

const (
	DefaultTestTime = time.Second
	DefaultTimeout  = time.Second
)

// MaxRecoveryMs is the longest recovery time, 24 h as the longest --time:
// a longer one (from 2^63 ns, about 292 years) would overflow the pause
// between bursts into none at all.
const MaxRecoveryMs = int(24 * time.Hour / time.Millisecond)

// Config says which test cases to measure and how long.
type Config struct {
	// Demands are the burst sizes of every payload, unless Payload
	// Demands names the payload.
	Demands []int
	// PayloadDemands, when it holds a payload, are that payload's burst
	// sizes (a Fast-RTPS demands file).
	PayloadDemands map[int][]int
	// Recoveries are the recovery times, in ms.
	Recoveries []int
	// TestTime is how long bursts go on.
	TestTime time.Duration
	// Timeout is how long the subscriber waits for messages in flight
	// after the last burst.
	Timeout time.Duration
	// RunID is written into every message of 24 bytes or more.
	RunID uint32
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	if len(c.Demands) == 0 {
		c.Demands = DefaultDemands
	}
	if len(c.Recoveries) == 0 {
		c.Recoveries = DefaultRecoveries
	}
	c.TestTime = cmp.Or(c.TestTime, DefaultTestTime)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.RunID = cmp.Or(c.RunID, 0x6272) // "br"
	return c
}

// Validate reports the first setting that cannot be measured.
func (c Config) Validate() error {
	for _, d := range c.Demands {
		if d < 1 {
			return fmt.Errorf("demand %d: expected at least 1 sample per burst", d)
		}
	}
	for p, ds := range c.PayloadDemands {
		if i := slices.IndexFunc(ds, func(d int) bool { return d < 1 }); i >= 0 || len(ds) == 0 {
			return fmt.Errorf("payload %d B: expected demands of at least 1 sample per burst", p)
		}
	}
	for _, r := range c.Recoveries {
		if r < 0 || r > MaxRecoveryMs {
			return fmt.Errorf("recovery time %d ms: expected 0 to %d (24 h)", r, MaxRecoveryMs)
		}
	}
	switch {
	case c.TestTime <= 0:
		return fmt.Errorf("test time %v: expected a positive duration", c.TestTime)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: expected a positive duration", c.Timeout)
	}
	return nil
}

// DemandsOf returns the burst sizes of payload.
func (c Config) DemandsOf(payload int) []int {
	if ds, ok := c.PayloadDemands[payload]; ok {
		return ds
	}
	return c.Demands
}

// Measure measures one test case over ends (one publisher, one
// subscriber) and returns its row.
func Measure(ctx context.Context, ends *load.Ends, payload, demand, recoveryMs int, cfg Config) (result.BurstRow, error) {
	pub, sub, err := ends.Pair("burst", nil)
	if err != nil {
		return result.BurstRow{}, err
	}
	c := &testCase{ctx: ctx, pub: pub, payload: payload, demand: demand,
		recovery: time.Duration(recoveryMs) * time.Millisecond, cfg: cfg, pubDone: make(chan struct{})}
	c.start = time.Now()
	go c.publish()
	tr, last, subErr := c.receive(sub)
	if ctx.Err() != nil {
		ends.Close() // unblocks a Send in progress
	}
	<-c.pubDone
	switch {
	case ctx.Err() != nil:
		return result.BurstRow{}, load.ErrInterrupted
	case c.pubErr != nil:
		return result.BurstRow{}, fmt.Errorf("publisher: %w", c.pubErr)
	case subErr != nil:
		return result.BurstRow{}, fmt.Errorf("subscriber: %w", subErr)
	}
	us := func(t time.Time) float64 { return float64(t.Sub(c.start)) / 1e3 }
	return result.NewBurstRow(payload, demand, recoveryMs, int(c.sent.Load()), us(c.pubEnd), int(tr.Unique), max(us(c.pubEnd), us(last))), nil
}

// testCase is one test case of Measure: a publisher of bursts of demand
// messages, recovery apart, for cfg.TestTime.
type testCase struct {
	ctx             context.Context
	pub             driver.Publisher
	payload, demand int
	recovery        time.Duration
	cfg             Config
	start, pubEnd   time.Time // pubEnd: when the last burst was published
	sent            atomic.Int64
	pubDone         chan struct{} // closed when publish returns
	pubErr          error
}

// publish sends the bursts, each followed by the rest of its recovery
// time.
func (c *testCase) publish() {
	defer close(c.pubDone)
	msg, h := load.NewMessage(c.payload, c.cfg.RunID)
	clock := load.NewClock()
	end := c.start
	for seq := uint64(0); end.Sub(c.start) < c.cfg.TestTime && c.ctx.Err() == nil; {
		burstStart := time.Now()
		for range c.demand {
			h.Seq = seq
			load.PutTime(msg, uint64(clock.Now()))
			h.PutSeq(msg)
			if err := c.pub.Send(msg); err != nil {
				c.pubErr = err
				return
			}
			seq++
		}
		// A burst ends with its messages deliverable (an open
		// transaction commits): publishing the burst includes it.
		if b, ok := c.pub.(driver.BatchSender); ok {
			if err := b.FlushBatch(); err != nil {
				c.pubErr = err
				return
			}
		}
		end = time.Now()
		c.pubEnd = end
		c.sent.Add(int64(c.demand))
		if rest := c.recovery - end.Sub(burstStart); rest > 0 {
			select {
			case <-time.After(rest):
			case <-c.ctx.Done():
			}
		}
	}
}

// receive counts the first arrival of each message on sub until every
// message sent arrived, or Timeout passed after the publication without a
// delivery; last is the latest such arrival.
func (c *testCase) receive(sub driver.Subscriber) (tr load.Tracker, last time.Time, subErr error) {
	buf := make([]byte, c.payload+64)
	published := false
	var quietSince time.Time
	for c.ctx.Err() == nil {
		if !published {
			select {
			case <-c.pubDone:
				published, quietSince = true, time.Now()
			default:
			}
		}
		if published && (c.pubErr != nil || tr.Unique >= uint64(c.sent.Load()) || time.Since(quietSince) > c.cfg.Timeout) {
			break
		}
		n, at, err := sub.Receive(buf, time.Now().Add(10*time.Millisecond))
		if errors.Is(err, driver.ErrTimeout) {
			continue
		}
		if err != nil {
			subErr = err
			break
		}
		h, full, err := load.Parse(buf[:n])
		if err != nil || n != c.payload || (full && h.RunID != c.cfg.RunID) || !tr.Observe(h.Seq) {
			continue
		}
		last, quietSince = at, time.Now()
	}
	return tr, last, subErr
}
