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

// PayloadResult is what one payload size of one sub-experiment measured.
type PayloadResult struct {
	// RTT holds the kept round trips in nanoseconds, in the order measured.
	RTT    []int64
	Counts meta.Payload
}

// pingLoop measures round trips over one pinger. Sequence numbers run on
// across payloads, so that a late echo of an earlier payload is recognised.
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
	tick func(payload, done, total int, rtt []int64)
}

func newPingLoop(cfg Config, p driver.Pinger, stop *atomic.Bool) *pingLoop {
	maxp := cfg.MaxPayload()
	return &pingLoop{
		cfg:  cfg,
		p:    p,
		base: time.Now(),
		msg:  make([]byte, maxp),
		// Room for one byte more than expected, so that an echo longer
		// than the message is noticed rather than truncated.
		buf:  make([]byte, maxp+1),
		stop: stop,
	}
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

// measure runs Warmup + Samples round trips of one payload size into
// res.RTT, which must have capacity Samples. On error, res holds what was
// measured before it and the error says at which round trip it happened.
func (l *pingLoop) measure(payload int, res *PayloadResult) (attempt int, err error) {
	cfg := &l.cfg
	msg := l.msg[:payload]
	clear(msg)
	if cfg.Fill == FillRandom {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(payload)))
		for i := HeaderSize; i < len(msg); i++ {
			msg[i] = byte(rng.Uint32())
		}
	}
	c := &res.Counts
	*c = meta.Payload{Bytes: payload}
	// The transport's counters are read when the warm-up ends, so that,
	// like every other count, they cover the measured round trips only.
	var before driver.Counters
	snapped := false
	cr, counting := l.p.(driver.CounterReader)
	defer func() {
		if counting && snapped {
			d := cr.Counters().Sub(before)
			c.Retransmitted, c.Dropped, c.Errors = d.Retransmitted, d.Dropped, c.Errors+d.Errors
		}
		c.Samples = len(res.RTT)
		c.Warmup = min(attempt, cfg.Warmup)
	}()

	total := cfg.Warmup + cfg.Samples
	first := l.seq + 1
	// echoed[i] is set when the echo of sequence first+i arrived (on time or
	// late), so that a second echo is recognised as a duplicate.
	echoed := make([]bool, total)
	rtt := res.RTT[:0]
	lostInRow := 0
	var lastTick int64
	for i := 0; i < total; i++ {
		if l.stop.Load() {
			res.RTT = rtt
			return i, errStopped
		}
		measured := i >= cfg.Warmup
		if counting && i == cfg.Warmup {
			before, snapped = cr.Counters(), true
		}
		l.seq++
		seq := l.seq
		t0 := l.now()
		binary.LittleEndian.PutUint64(msg[0:8], seq)
		binary.LittleEndian.PutUint64(msg[8:16], uint64(t0))
		if err := l.p.Send(msg); err != nil {
			res.RTT = rtt
			return i, fmt.Errorf("send: %w", err)
		}
		deadline := l.base.Add(time.Duration(t0) + cfg.Timeout)
		for {
			n, err := l.p.Receive(l.buf, deadline)
			t1 := l.now()
			if err != nil {
				if !errors.Is(err, driver.ErrTimeout) {
					res.RTT = rtt
					return i, fmt.Errorf("receive: %w", err)
				}
				if measured {
					c.Lost++
				}
				if lostInRow++; lostInRow >= cfg.MaxLostInRow {
					res.RTT = rtt
					return i, &lostInRowError{lostInRow, cfg.Timeout}
				}
				break
			}
			if n < HeaderSize {
				if measured {
					c.Errors++ // not one of ours
				}
				continue
			}
			got := binary.LittleEndian.Uint64(l.buf[0:8])
			if got == seq {
				if n != payload || binary.LittleEndian.Uint64(l.buf[8:16]) != uint64(t0) {
					if measured {
						c.Errors++ // corrupted echo: neither a sample nor a loss
					}
					continue
				}
				echoed[i] = true
				lostInRow = 0
				if measured {
					rtt = append(rtt, t1-t0)
				}
				if l.tick != nil && i&255 == 255 && t1-lastTick > int64(200*time.Millisecond) {
					lastTick = t1
					l.tick(payload, i+1, total, rtt)
				}
				break
			}
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
	}
	res.RTT = rtt
	c.Completed = true
	return total, nil
}
