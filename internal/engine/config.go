package engine

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// Defaults of a run (issue 5).
const (
	DefaultSamples      = 10000
	DefaultWarmup       = 1000
	DefaultTimeout      = time.Second
	DefaultMaxLostInRow = 10
	HeaderSize          = 16 // sequence word u64 + send time u64
)

// A round-trip message's sequence word (its first 8 bytes, little-endian)
// holds the sequence number in its low seqBits bits and the run id above
// them, so that the smallest message, 16 bytes (Fast-RTPS's smallest
// payload), carries both beside the send time and no payload grows.
const (
	seqBits   = 40
	runIDBits = 64 - seqBits
	// maxRunID is the largest run id; 0 is no run's (run's echo probe,
	// and builds whose messages carried none).
	maxRunID = 1<<runIDBits - 1
	seqMask  = 1<<seqBits - 1
)

// seqWord returns the sequence word of sequence number seq of run runID.
func seqWord(runID uint32, seq uint64) uint64 { return uint64(runID)<<seqBits | seq&seqMask }

// splitSeqWord returns the run id and sequence number of a sequence word.
func splitSeqWord(w uint64) (runID uint32, seq uint64) { return uint32(w >> seqBits), w & seqMask }

// newRunID draws a run id at random, never 0.
func newRunID() uint32 { return uint32(rand.Uint64N(maxRunID)) + 1 }

// Fill values: what follows the 16-byte header of a message.
const (
	FillZero   = "zero"
	FillRandom = "random"
)

// DefaultPayloads returns 16, 32, …, 16384 bytes.
func DefaultPayloads() []int {
	var p []int
	for n := 16; n <= 16384; n *= 2 {
		p = append(p, n)
	}
	return p
}

// Config says what to measure for every sub-experiment.
type Config struct {
	Payloads []int
	Samples  int // kept per payload (minus the lost)
	Warmup   int // discarded per payload
	// Timeout is how long the pinger waits for an echo before counting
	// the message lost.
	Timeout time.Duration
	// MaxLostInRow consecutive losses stop the sub-experiment: the far end
	// is taken for dead. Zero means DefaultMaxLostInRow.
	MaxLostInRow int
	Fill         string // FillZero or FillRandom
	Seed         uint64 // seeds FillRandom
	Latency      string // meta.LatencyHalfRTT or meta.LatencyRTT
	// Workload is what each sub-experiment does; nil means RoundTrip.
	Workload Workload
	// Pacer paces the messages of a payload; nil means ClosedLoop.
	Pacer Pacer
	// RunID is written into every round-trip message (seqWord), so that
	// the pinger tells its own echoes from those of another run on the
	// same topic; 0 means one drawn at random by WithDefaults.
	RunID uint32
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Payloads == nil {
		c.Payloads = DefaultPayloads()
	}
	c.Samples = cmp.Or(c.Samples, DefaultSamples)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.MaxLostInRow = cmp.Or(c.MaxLostInRow, DefaultMaxLostInRow)
	c.Fill = cmp.Or(c.Fill, FillZero)
	c.Latency = cmp.Or(c.Latency, meta.LatencyHalfRTT)
	c.Workload = cmp.Or(c.Workload, Workload(RoundTrip{}))
	c.Pacer = cmp.Or(c.Pacer, Pacer(ClosedLoop{}))
	if c.RunID == 0 {
		c.RunID = newRunID()
	}
	return c
}

// Validate reports the first setting that cannot be measured.
func (c Config) Validate() error {
	if len(c.Payloads) == 0 {
		return fmt.Errorf("no payload sizes")
	}
	for _, p := range c.Payloads {
		if p < HeaderSize {
			return fmt.Errorf("payload %d B is smaller than the %d-byte message header", p, HeaderSize)
		}
	}
	switch {
	case c.Samples < 1:
		return fmt.Errorf("samples %d: expected at least 1", c.Samples)
	case c.Warmup < 0:
		return fmt.Errorf("warm-up %d: expected 0 or more", c.Warmup)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: expected a positive duration", c.Timeout)
	case c.MaxLostInRow < 1:
		return fmt.Errorf("max lost in a row %d: expected at least 1", c.MaxLostInRow)
	case c.Fill != FillZero && c.Fill != FillRandom:
		return fmt.Errorf("fill %q: expected %q or %q", c.Fill, FillZero, FillRandom)
	case c.RunID > maxRunID:
		return fmt.Errorf("run id %d: above the largest, %d (%d bits)", c.RunID, maxRunID, runIDBits)
	case uint64(c.Warmup)+uint64(c.Samples) > seqMask/uint64(len(c.Payloads)):
		// Sequence numbers run on across payloads and must not reach the
		// run id's bits.
		return fmt.Errorf("%d payloads of %d round trips: more than the %d a run numbers", len(c.Payloads), c.Warmup+c.Samples, uint64(seqMask))
	case c.Workload == nil || c.Pacer == nil || c.RunID == 0:
		return fmt.Errorf("no workload, pacer or run id: call WithDefaults first")
	}
	return c.Workload.Check(c)
}

// plan is what a self-measuring link needs of c.
func (c Config) plan() driver.Plan {
	return driver.Plan{Payloads: c.Payloads, Samples: c.Samples, Warmup: c.Warmup, Timeout: c.Timeout,
		MaxLostInRow: c.MaxLostInRow, Latency: c.Latency}
}

// MaxPayload is the largest payload of c.
func (c Config) MaxPayload() int {
	m := 0
	for _, p := range c.Payloads {
		m = max(m, p)
	}
	return m
}

// LargestPayload is the largest payload run measures (1 GiB): each end
// holds a message of it, and a larger range of doubled sizes would
// overflow before it ended.
const LargestPayload = 1 << 30

// ParsePayloads parses a comma-separated list of byte counts such as
// "16,64,1024", also accepting ranges "16..16384": LOW doubled until HIGH,
// which it must reach (powers of two, or LOW·2^k).
func ParsePayloads(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if lo, hi, ok := strings.Cut(f, ".."); ok {
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || a < 1 || b < a {
				return nil, fmt.Errorf("payload range %q: expected LOW..HIGH byte counts, e.g. 16..16384", f)
			}
			if b > LargestPayload {
				return nil, fmt.Errorf("payload range %q: %d bytes is above the largest payload, %d (1 GiB)", f, b, LargestPayload)
			}
			n := a
			for ; n <= b; n *= 2 {
				out = append(out, n)
			}
			if n/2 != b {
				// Silently, 20..100 measured 20, 40 and 80.
				return nil, fmt.Errorf("payload range %q: doubling %d does not reach %d (it stops at %d): give HIGH as LOW·2^k (powers of two, e.g. 16..1024), or list the payloads", f, a, b, n/2)
			}
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("payload %q: expected positive byte counts separated by commas (16,1024) or a range of powers of two (16..1024)", f)
		}
		if n > LargestPayload {
			return nil, fmt.Errorf("payload %q: above the largest payload, %d bytes (1 GiB)", f, LargestPayload)
		}
		out = append(out, n)
	}
	// A payload measured twice would restart its sample numbers within one
	// file (formats §2 numbers samples from 1 per payload).
	seen := map[int]bool{}
	for _, n := range out {
		if seen[n] {
			return nil, fmt.Errorf("payload %d is listed twice", n)
		}
		seen[n] = true
	}
	return out, nil
}
