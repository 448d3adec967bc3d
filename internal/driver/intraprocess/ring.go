package intraprocess

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// spinLimit is how many times a waiting side polls before parking. At a few
// nanoseconds per poll this is tens of microseconds: long enough to catch a
// closed-loop echo, short enough not to burn a core when the peer is idle.
const spinLimit = 20000

// yieldEvery makes a spinning goroutine yield now and then so that the peer
// runs even when both share one CPU or one P.
const yieldEvery = 64

// osYieldAfter is how many polls go by before the spinner also yields the
// CPU: a peer on another CPU answers well within it, so only ends that
// share a CPU pay for the system call.
const osYieldAfter = 512

// cacheLine separates fields written by different goroutines.
type cacheLine [64]byte

// ring is a bounded single-producer single-consumer queue of messages.
type ring struct {
	slots [][]byte
	lens  []int
	mask  uint64

	_    cacheLine
	head atomic.Uint64 // next slot to read; written by the consumer
	_    cacheLine
	tail atomic.Uint64 // next slot to write; written by the producer
	_    cacheLine

	readerParked atomic.Bool
	readable     chan struct{} // token: the ring may have become non-empty
	writerParked atomic.Bool
	writable     chan struct{} // token: the ring may have a free slot

	closed  atomic.Bool
	dropped atomic.Uint64

	// shareP is set when GOMAXPROCS is 1: the peer goroutine can only run
	// when the spinner yields its P.
	shareP bool
}

// yield lets the peer run when it waits for this CPU or this P. It yields
// the CPU to other threads (sched_yield), and the P only when there is a
// single one: runtime.Gosched from a goroutine locked to its thread (a
// pinned end) hands the thread over with two futex wake-ups, tens of
// microseconds.
func (r *ring) yield(spin int) {
	if r.shareP {
		runtime.Gosched()
	}
	if spin >= osYieldAfter {
		osYield()
	}
}

func newRing(depth, maxMsg int) *ring {
	n := 1
	for n < depth {
		n <<= 1
	}
	r := &ring{
		slots:    make([][]byte, n),
		lens:     make([]int, n),
		mask:     uint64(n - 1),
		readable: make(chan struct{}, 1),
		writable: make(chan struct{}, 1),
		shareP:   runtime.GOMAXPROCS(0) < 2,
	}
	for i := range r.slots {
		r.slots[i] = make([]byte, maxMsg)
	}
	return r
}

// close wakes both sides for good.
func (r *ring) close() {
	r.closed.Store(true)
	signal(r.readable)
	signal(r.writable)
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// push copies msg into the next slot. When the ring is full it drops the
// message (block false) or waits for a free slot (block true).
func (r *ring) push(msg []byte, block bool) error {
	if len(msg) > len(r.slots[0]) {
		return fmt.Errorf("intraprocess: message of %d bytes exceeds the maximum message size %d", len(msg), len(r.slots[0]))
	}
	t := r.tail.Load()
	if t-r.head.Load() > r.mask {
		if !block {
			r.dropped.Add(1)
			return nil
		}
		if err := r.waitWritable(t); err != nil {
			return err
		}
	}
	if r.closed.Load() {
		return driver.ErrClosed
	}
	i := t & r.mask
	r.lens[i] = copy(r.slots[i], msg)
	r.tail.Store(t + 1)
	// Store tail, then load the flag; the reader stores the flag, then
	// loads tail: one of the two sees the other, so no wake-up is lost.
	if r.readerParked.Load() {
		signal(r.readable)
	}
	return nil
}

func (r *ring) waitWritable(t uint64) error {
	for spin := 1; ; spin++ {
		if t-r.head.Load() <= r.mask {
			return nil
		}
		if r.closed.Load() {
			return driver.ErrClosed
		}
		if spin < spinLimit {
			if spin%yieldEvery == 0 {
				r.yield(spin)
			}
			continue
		}
		r.writerParked.Store(true)
		if t-r.head.Load() > r.mask && !r.closed.Load() {
			<-r.writable
		}
		r.writerParked.Store(false)
	}
}

// peek waits until a message is readable and returns it; the slot stays
// owned by the consumer until release. A zero deadline waits forever.
func (r *ring) peek(deadline time.Time, timer *time.Timer) ([]byte, error) {
	h := r.head.Load()
	for spin := 1; ; spin++ {
		if r.tail.Load() != h {
			i := h & r.mask
			return r.slots[i][:r.lens[i]], nil
		}
		if r.closed.Load() {
			return nil, driver.ErrClosed
		}
		if spin < spinLimit {
			if spin%yieldEvery == 0 {
				r.yield(spin)
			}
			continue
		}
		var expired <-chan time.Time
		if !deadline.IsZero() {
			d := time.Until(deadline)
			if d <= 0 {
				return nil, fmt.Errorf("intraprocess: %w", driver.ErrTimeout)
			}
			timer.Reset(d)
			expired = timer.C
		}
		r.readerParked.Store(true)
		if r.tail.Load() == h && !r.closed.Load() {
			select {
			case <-r.readable:
			case <-expired:
			}
		}
		r.readerParked.Store(false)
		if expired != nil {
			timer.Stop()
		}
		spin = spinLimit - 1 // after a wake-up poll once more, then park again
	}
}

// release frees the slot returned by the last peek.
func (r *ring) release() {
	r.head.Store(r.head.Load() + 1)
	if r.writerParked.Load() {
		signal(r.writable)
	}
}
