package clockoffset

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Exchange is one ping-pong: t1 and t4 on the client's clock, t2 and t3 on
// the server's, in nanoseconds since the Unix epoch.
type Exchange struct {
	T1, T2, T3, T4 int64
}

// Offset is the server's clock minus the client's, by this exchange.
func (e Exchange) Offset() int64 { return ((e.T2 - e.T1) + (e.T3 - e.T4)) / 2 }

// Delay is the exchange's round trip without the server's turnaround.
func (e Exchange) Delay() int64 { return (e.T4 - e.T1) - (e.T3 - e.T2) }

// Estimate is what an estimation found; meta.json records it.
type Estimate struct {
	// Disabled is true when no estimation was made: latencies are as
	// measured.
	Disabled bool `json:"disabled"`
	// Peer names the other end (a role and host).
	Peer string `json:"peer,omitempty"`
	// OffsetNs is the peer's clock minus this host's, in nanoseconds.
	OffsetNs int64 `json:"offset_ns"`
	// ErrorBoundNs bounds |true offset − OffsetNs| when the fastest
	// exchange was symmetric at worst: half its delay.
	ErrorBoundNs int64 `json:"error_bound_ns"`
	// MinDelayNs and MedianDelayNs describe the exchanges' round trips.
	MinDelayNs    int64 `json:"min_delay_ns"`
	MedianDelayNs int64 `json:"median_delay_ns"`
	// Exchanges were made, Kept passed the minimum-delay filter.
	Exchanges int `json:"exchanges"`
	Kept      int `json:"kept"`
	// Method is "ntp-min-delay" (four stamps) or "half-rtt" (one stamp).
	Method string `json:"method"`
}

// Method names.
const (
	MethodNTP     = "ntp-min-delay"
	MethodHalfRTT = "half-rtt"
)

// KeepFraction is the share of the exchanges, those with the smallest
// delays, whose offsets the estimate takes the median of.
const KeepFraction = 0.25

// ErrNoExchange is returned when there is nothing to estimate from.
var ErrNoExchange = errors.New("clock offset: no exchange completed")

// FromExchanges filters exs (see the package documentation) and estimates
// the offset. Exchanges with a negative delay (clocks that jumped) are
// dropped.
func FromExchanges(exs []Exchange) (Estimate, error) {
	var ok []Exchange
	halfRTT := true
	for _, e := range exs {
		if e.Delay() >= 0 && e.T4 >= e.T1 {
			ok = append(ok, e)
			if e.T2 != e.T3 {
				halfRTT = false
			}
		}
	}
	if len(ok) == 0 {
		return Estimate{Exchanges: len(exs)}, ErrNoExchange
	}
	slices.SortStableFunc(ok, func(a, b Exchange) int { return cmp.Compare(a.Delay(), b.Delay()) })
	keep := max(1, int(math.Ceil(float64(len(ok))*KeepFraction)))
	// Each kept exchange puts the true offset within delay/2 of its own
	// offset; all of them together, within the intersection of those
	// intervals. Its middle is the estimate and half its width the bound,
	// which is then a bound indeed (a median of the offsets can be off by
	// more than half the smallest delay: by up to half the largest kept).
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	for _, e := range ok[:keep] {
		o, h := e.Offset(), e.Delay()/2
		lo, hi = max(lo, o-h), min(hi, o+h)
	}
	offset, bound := lo+(hi-lo)/2, (hi-lo)/2
	if lo > hi {
		// Exchanges that contradict each other (a clock stepped between
		// them): NTP's choice, the exchange of the smallest delay.
		offset, bound = ok[0].Offset(), ok[0].Delay()/2
	}
	method := MethodNTP
	if halfRTT {
		method = MethodHalfRTT
	}
	return Estimate{OffsetNs: offset, MinDelayNs: ok[0].Delay(), MedianDelayNs: ok[len(ok)/2].Delay(),
		ErrorBoundNs: bound, Exchanges: len(exs), Kept: keep, Method: method}, nil
}

// Correct returns a one-way latency measured as (receive on this host) −
// (send on the peer) corrected for the offset: the peer's send time on this
// host's clock is send − offset.
func (e Estimate) Correct(latencyNs int64) int64 {
	if e.Disabled {
		return latencyNs
	}
	return latencyNs + e.OffsetNs
}

// Exchanger performs one exchange with the server.
type Exchanger interface {
	Exchange(ctx context.Context) (Exchange, error)
}

// Measure makes n exchanges through ex, spaced by gap, and estimates the
// offset. Failed exchanges are skipped; it fails only when none completed.
func Measure(ctx context.Context, ex Exchanger, n int, gap time.Duration) (Estimate, error) {
	var exs []Exchange
	var last error
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		if e, err := ex.Exchange(ctx); err != nil {
			last = err
		} else {
			exs = append(exs, e)
		}
		if gap > 0 && i < n-1 {
			select {
			case <-ctx.Done():
			case <-time.After(gap):
			}
		}
	}
	est, err := FromExchanges(exs)
	est.Exchanges = n
	if err != nil && last != nil {
		err = fmt.Errorf("%w (last error: %v)", err, last)
	}
	return est, err
}

// Request and reply wire format: a request is RequestSize bytes, t1 as a
// little-endian u64; the reply is ReplySize bytes, t1, t2, t3.
const (
	RequestSize = 8
	ReplySize   = 24
)

// EncodeRequest returns a request sent at t1.
func EncodeRequest(t1 int64) []byte {
	b := make([]byte, RequestSize)
	binary.LittleEndian.PutUint64(b, uint64(t1))
	return b
}

// Reply is the server's side: it answers req received at t2 with the reply
// it sends at t3 (now, read just before sending).
func Reply(req []byte, t2 int64, now func() int64) ([]byte, error) {
	if len(req) != RequestSize {
		return nil, fmt.Errorf("clock request of %d bytes, expected %d", len(req), RequestSize)
	}
	b := make([]byte, ReplySize)
	copy(b, req)
	binary.LittleEndian.PutUint64(b[8:], uint64(t2))
	binary.LittleEndian.PutUint64(b[16:], uint64(now()))
	return b, nil
}

// DecodeReply completes an exchange from a reply received at t4.
func DecodeReply(rep []byte, t4 int64) (Exchange, error) {
	if len(rep) != ReplySize {
		return Exchange{}, fmt.Errorf("clock reply of %d bytes, expected %d", len(rep), ReplySize)
	}
	u := func(i int) int64 { return int64(binary.LittleEndian.Uint64(rep[i:])) }
	return Exchange{T1: u(0), T2: u(8), T3: u(16), T4: t4}, nil
}
