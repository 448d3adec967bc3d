package engine

import (
	"fmt"
	"math"
	"math/bits"
)

// MemoryNeeded is what one sub-experiment allocates for its samples before
// the first message: Samples × len(Payloads) × 8 bytes (one int64 per
// round trip), plus one byte per round trip of the payload being measured
// (which echoes arrived) and two message buffers. It saturates at
// math.MaxUint64 instead of overflowing.
func (c Config) MemoryNeeded() uint64 {
	mul := func(a, b uint64) uint64 {
		hi, lo := bits.Mul64(a, b)
		if hi != 0 {
			return math.MaxUint64
		}
		return lo
	}
	add := func(a, b uint64) uint64 {
		s, carry := bits.Add64(a, b, 0)
		if carry != 0 {
			return math.MaxUint64
		}
		return s
	}
	if c.Samples < 0 || c.Warmup < 0 {
		return 0
	}
	n := mul(mul(uint64(c.Samples), uint64(len(c.Payloads))), 8)
	n = add(n, add(uint64(c.Samples), uint64(c.Warmup)))
	return add(n, mul(uint64(c.MaxPayload()), 2))
}

// memoryShare is the part of the available memory a run may take for its
// samples: the rest is left to the transports, the echo process and the
// system.
const memoryShare = 0.8

// CheckMemory refuses a configuration whose samples would not fit in the
// memory available (MemAvailable of /proc/meminfo on Linux, a fixed cap
// elsewhere), so that a run fails at once with the numbers instead of
// running out of memory.
func CheckMemory(c Config) error {
	need := c.MemoryNeeded()
	avail, source := AvailableMemory()
	if float64(need) <= memoryShare*float64(avail) {
		return nil
	}
	return fmt.Errorf("%d samples × %d payloads need %s of memory per sub-experiment (8 B per sample), more than %.0f%% of the %s available (%s); choose fewer --samples or --payloads",
		c.Samples, len(c.Payloads), humanBytes(need), memoryShare*100, humanBytes(avail), source)
}

// humanBytes prints n with a binary unit.
func humanBytes(n uint64) string {
	if n == math.MaxUint64 {
		return "more than 16 EiB"
	}
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"} {
		f /= unit
		if f < unit {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return fmt.Sprintf("%.1f EiB", f)
}

// fallbackMemory is the memory assumed available where the system does not
// say (4 GiB).
const (
	fallbackMemory = 4 << 30
	fallbackSource = "a fixed cap of 4 GiB on this system"
)

// DuetMemoryNeeded is what a duet of rounds rounds keeps for its samples
// until it writes them at its end: both sides' round trips of every
// sub-experiment (shapes[i] its blocks) and payload, 8 bytes each. It
// saturates at math.MaxUint64.
func DuetMemoryNeeded(shapes []DuetShape, rounds, payloads int) uint64 {
	var need float64
	for _, sh := range shapes {
		need += 2 * float64(rounds) * float64(sh.Pairs) * float64(sh.Block) * float64(payloads) * 8
	}
	if need >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(need)
}

// CheckDuetMemory refuses a duet whose samples, kept for all its rounds,
// would not fit in the memory available, so that a gate fails before its
// first round with the numbers instead of running out of memory rounds
// later, having written nothing (the raw files are written at the end).
func CheckDuetMemory(shapes []DuetShape, rounds, payloads int) error {
	need := DuetMemoryNeeded(shapes, rounds, payloads)
	avail, source := AvailableMemory()
	if float64(need) <= memoryShare*float64(avail) {
		return nil
	}
	return fmt.Errorf("%d rounds of both sides' blocks of %d payloads need %s of memory for their round trips (8 B each, kept until the end), more than %.0f%% of the %s available (%s)",
		rounds, payloads, humanBytes(need), memoryShare*100, humanBytes(avail), source)
}
