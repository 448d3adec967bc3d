package load

import "sync/atomic"

// sendTimes holds the actual send times (ns since the epoch) of one paced
// publisher's latest measured messages, by sequence number, for its
// subscribers to measure the latency from the actual send beside the one
// from the intended time the header carries. It is a ring: a message in
// flight while len more were sent has lost its entry (get says so). The
// publisher is its one writer; entries are read while it writes, each
// checked by its sequence number before and after the time is read.
type sendTimes struct {
	mask uint64
	e    []sendTime
}

// sendTime is one entry: seq is the message's sequence number + 1 (0:
// empty or being written).
type sendTime struct {
	seq, ns atomic.Uint64
}

// newSendTimes returns a ring of n entries, n a power of two.
func newSendTimes(n int) *sendTimes {
	return &sendTimes{mask: uint64(n - 1), e: make([]sendTime, n)}
}

// Bounds of sendTimesLen: every publisher keeps at least sendTimesMin
// entries and at most sendTimesMax, and all of them together no more than
// sendTimesTotal (16 bytes each) unless each is at its minimum.
const (
	sendTimesMin   = 64
	sendTimesMax   = 1 << 16
	sendTimesTotal = 1 << 22
)

// sendTimesLen is the entries of each publisher's ring at rate msg/s per
// publisher: one second of its sends, a power of two within the bounds.
func sendTimesLen(rate float64, publishers int) int {
	n := sendTimesMin
	for n < sendTimesMax && float64(n) < rate {
		n *= 2
	}
	for n > sendTimesMin && n*publishers > sendTimesTotal {
		n /= 2
	}
	return n
}

// put records that message seq was sent at ns.
func (t *sendTimes) put(seq uint64, ns int64) {
	e := &t.e[seq&t.mask]
	e.seq.Store(0) // a reader that sees the new time sees this first
	e.ns.Store(uint64(ns))
	e.seq.Store(seq + 1)
}

// get returns the send time of message seq, false when its entry holds
// another message (or is being written).
func (t *sendTimes) get(seq uint64) (int64, bool) {
	e := &t.e[seq&t.mask]
	if e.seq.Load() != seq+1 {
		return 0, false
	}
	ns := e.ns.Load()
	if e.seq.Load() != seq+1 {
		return 0, false
	}
	return int64(ns), true
}
