package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// pingLoop measures round trips over one pinger. Sequence numbers run on
// across payloads, so that a late echo of an earlier payload is recognised;
// each message's sequence word also carries the run id (seqWord), so that
// an echo of another run's message on the same topic is recognised too.
type pingLoop struct {
	cfg  Config
	p    driver.Pinger
	base time.Time // the monotonic origin of all timestamps
	seq  uint64    // last sequence number sent
	msg  []byte
	buf  []byte
	stop *atomic.Bool // set from another goroutine to end the loop
	// tick, when non-nil, is called now and then between round trips with
	// the round trips kept so far.
	tick driver.TickFunc
	// ack is the pinger as an AckSender, nil when its system does not
	// acknowledge; acked and refused count its acknowledgements.
	ack            driver.AckSender
	acked, refused atomic.Uint64
}

func newPingLoop(cfg Config, p driver.Pinger, stop *atomic.Bool) *pingLoop {
	maxp := cfg.MaxPayload()
	l := &pingLoop{
		cfg:  cfg,
		p:    p,
		base: time.Now(),
		msg:  make([]byte, maxp),
		// Room for one byte more than expected, so that an echo longer
		// than the message is noticed rather than truncated.
		buf:  make([]byte, maxp+1),
		stop: stop,
	}
	if as, ok := p.(driver.AckSender); ok {
		l.ack = as
		as.OnAck(func(err error) {
			if err == nil {
				l.acked.Add(1)
			} else {
				l.refused.Add(1)
			}
		})
	}
	return l
}

// waitAcks waits until every message sent so far was acknowledged or
// refused, for at most the timeout.
func (l *pingLoop) waitAcks() error {
	if err := l.ack.WaitAcks(time.Now().Add(l.cfg.Timeout)); err != nil {
		return fmt.Errorf("messages not acknowledged within %v: %w", l.cfg.Timeout, err)
	}
	return nil
}

// now returns nanoseconds on the monotonic clock since l.base.
func (l *pingLoop) now() int64 { return int64(time.Since(l.base)) }

// errStopped is returned by measure when l.stop was set.
var errStopped = errors.New("stopped")

// lostInRowError says the far end stopped answering.
type lostInRowError struct {
	n       int
	timeout time.Duration
}

func (e *lostInRowError) Error() string {
	return fmt.Sprintf("no echo for %d consecutive messages (timeout %v each): the echoer is not answering", e.n, e.timeout)
}

// Measure runs Warmup + Samples round trips of one payload size into
// res.Nanos, which must have capacity Samples. On error, res holds what was
// measured before it and the error says at which round trip it happened.
func (l *pingLoop) Measure(payload int, res *driver.PayloadResult) (attempt int, err error) {
	cfg := &l.cfg
	msg := l.message(payload)
	c := &res.Counts
	*c = meta.Payload{Bytes: payload}
	var before countsBefore
	defer func() { err = l.settle(res, &before, attempt, err) }()
	total := cfg.Warmup + cfg.Samples
	first := l.seq + 1
	// echoed[i] is set when the echo of sequence first+i arrived (on time or
	// late), so that a second echo is recognised as a duplicate.
	echoed := make([]bool, total)
	rtt := res.Nanos[:0]
	lostInRow := 0
	var lastTick int64
	for i := 0; i < total; i++ {
		if l.stop.Load() {
			res.Nanos = rtt
			return i, errStopped
		}
		measured := i >= cfg.Warmup
		if i == cfg.Warmup {
			if err := l.countFrom(&before); err != nil {
				res.Nanos = rtt
				return i, err
			}
		}
		l.seq++
		seq := l.seq
		t0 := l.now()
		binary.LittleEndian.PutUint64(msg[0:8], seqWord(cfg.RunID, seq))
		binary.LittleEndian.PutUint64(msg[8:16], uint64(t0))
		if err := l.p.Send(msg); err != nil {
			res.Nanos = rtt
			return i, fmt.Errorf("send: %w", err)
		}
		deadline := l.base.Add(time.Duration(t0) + cfg.Timeout)
		for {
			n, at, err := l.p.Receive(l.buf, deadline)
			if err != nil {
				if lostInRow, err = l.missed(err, measured, lostInRow, c); err != nil {
					res.Nanos = rtt
					return i, err
				}
				break
			}
			if n < HeaderSize {
				if measured {
					c.Errors++ // not one of ours
				}
				continue
			}
			run, got := splitSeqWord(binary.LittleEndian.Uint64(l.buf[0:8]))
			if run != cfg.RunID {
				// Another run on the same topic: its echo, of its
				// message, is none of ours whatever its sequence number.
				if measured {
					c.OtherRuns++
				}
				continue
			}
			if got != seq {
				countStray(got, first, seq, echoed, measured, c)
				continue
			}
			t1 := int64(at.Sub(l.base)) // arrival, on the monotonic clock
			if n != payload || binary.LittleEndian.Uint64(l.buf[8:16]) != uint64(t0) {
				if measured {
					c.Errors++ // corrupted echo: neither a sample nor a loss
				}
				continue
			}
			echoed[i] = true
			if t1-t0 > int64(cfg.Timeout) {
				// Later than its deadline, which a driver may see late
				// (fdsock's raw read by up to RawWait): lost, then late,
				// as if the wait had ended on time.
				if measured {
					c.OutOfOrder++
				}
				if lostInRow, err = l.missed(driver.ErrTimeout, measured, lostInRow, c); err != nil {
					res.Nanos = rtt
					return i, err
				}
				break
			}
			lostInRow = 0
			if measured {
				rtt = append(rtt, t1-t0)
			}
			if l.tick != nil && t1-lastTick > int64(liveEvery) {
				lastTick = t1
				l.tick(payload, i+1, total, rtt)
			}
			break
		}
	}
	res.Nanos = rtt
	c.Completed = true
	return total, nil
}

// message is l's message of payload bytes, its header yet to be written:
// zeros, or with FillRandom bytes drawn from the seed and the payload.
func (l *pingLoop) message(payload int) []byte {
	msg := l.msg[:payload]
	clear(msg)
	if l.cfg.Fill == FillRandom {
		rng := rand.New(rand.NewPCG(l.cfg.Seed, uint64(payload)))
		for i := HeaderSize; i < len(msg); i++ {
			msg[i] = byte(rng.Uint32())
		}
	}
	return msg
}

// countsBefore is what the transport's counters and the acknowledgements
// stood at when a payload's warm-up ended. Like every other count, a
// payload's transport counts and acknowledgements cover its measured round
// trips only: the acknowledgements of the warm-up are awaited before the
// first measured message (countFrom), and those of the measured messages
// at the end (settle), so that nothing is left unconfirmed and the counts
// are exact.
type countsBefore struct {
	taken          bool
	cr             driver.CounterReader // nil when the transport counts nothing
	counters       driver.Counters
	acked, refused uint64
}

// countFrom takes the counts at the end of the warm-up, once its
// acknowledgements have come.
func (l *pingLoop) countFrom(b *countsBefore) error {
	if l.ack != nil {
		if err := l.waitAcks(); err != nil {
			return err
		}
		b.acked, b.refused = l.acked.Load(), l.refused.Load()
	}
	if cr, ok := l.p.(driver.CounterReader); ok {
		b.cr, b.counters = cr, cr.Counters()
	}
	b.taken = true
	return nil
}

// settle completes res's counts when Measure ends after attempt round
// trips with err: the transport's and the acknowledgements' since b was
// taken, the latter once every measured message is confirmed. It returns
// err, or the error of that wait when Measure had none.
func (l *pingLoop) settle(res *driver.PayloadResult, b *countsBefore, attempt int, err error) error {
	c := &res.Counts
	if b.taken && b.cr != nil {
		d := b.cr.Counters().Sub(b.counters)
		c.Retransmitted, c.Dropped, c.Errors = d.Retransmitted, d.Dropped, c.Errors+d.Errors
	}
	if b.taken && l.ack != nil {
		if err == nil {
			if err = l.waitAcks(); err != nil {
				c.Completed = false
			}
		}
		c.MessagesAcked = l.acked.Load() - b.acked
		c.MessagesRefused = l.refused.Load() - b.refused
	}
	c.Samples = len(res.Nanos)
	c.Warmup = min(attempt, l.cfg.Warmup)
	return err
}

// missed handles a Receive that failed with err while lostInRow echoes
// in a row were missing before: a timeout is a lost message (counted when
// measured), and ends the payload once MaxLostInRow are lost in a row;
// any other error ends it at once. It returns the echoes missing in a row
// and the error that ends the payload, nil to go on.
func (l *pingLoop) missed(err error, measured bool, lostInRow int, c *meta.Payload) (int, error) {
	if !errors.Is(err, driver.ErrTimeout) {
		return lostInRow, fmt.Errorf("receive: %w", err)
	}
	if measured {
		c.Lost++
	}
	if lostInRow++; lostInRow >= l.cfg.MaxLostInRow {
		return lostInRow, &lostInRowError{lostInRow, l.cfg.Timeout}
	}
	return lostInRow, nil
}

// countStray counts an echo of sequence got while seq is awaited, the
// payload's first being first: an earlier one of the payload arrived again
// (a duplicate) or late (out of order), one of an earlier payload is late,
// and one never sent an error. echoed[i] says that sequence first+i was
// echoed; only the measured round trips count.
func countStray(got, first, seq uint64, echoed []bool, measured bool, c *meta.Payload) {
	switch {
	case got >= first && got < seq:
		dup := echoed[got-first]
		echoed[got-first] = true
		switch {
		case !measured:
		case dup:
			c.Duplicates++
		default:
			c.OutOfOrder++
		}
	case got < first:
		// A late or repeated echo from an earlier payload: which of
		// the two is unknown here, so it counts as late.
		if measured {
			c.OutOfOrder++
		}
	default:
		if measured {
			c.Errors++ // a sequence number never sent
		}
	}
}
