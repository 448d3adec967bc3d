package pingpong

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// Main runs run on the command's arguments; an error goes to standard
// error after the command's name, with exit code 2.
func Main(name string, run func(args []string) error) {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
}

// Signals returns a channel that receives SIGINT and SIGTERM, on which
// an echo stops.
func Signals() <-chan os.Signal {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	return c
}

// Count returns args[i] as a count (an integer of at least 0), or def
// where args has no i-th element. Its error names the argument from 1.
func Count(args []string, i, def int) (int, error) {
	if i >= len(args) {
		return def, nil
	}
	v, err := strconv.Atoi(args[i])
	if err != nil || v < 0 {
		return 0, fmt.Errorf("argument %d: %q is not a count", i+1, args[i])
	}
	return v, nil
}

// Ping is what a pinger is asked for: N timed round trips of Size bytes
// after Warmup untimed ones, its measuring thread on CPU (-1: unpinned).
type Ping struct{ N, Size, Warmup, CPU int }

// ParsePing reads N [SIZE] [WARMUP] [CPU] from args, N at index at: SIZE
// defaults to 16 and must be at least minSize, WARMUP defaults to N/10.
func ParsePing(args []string, at, minSize int) (Ping, error) {
	var p Ping
	var err error
	if p.N, err = Count(args, at, 0); err != nil || p.N < 1 {
		return p, errors.New("N must be at least 1")
	}
	if p.Size, err = Count(args, at+1, 16); err != nil || p.Size < minSize {
		return p, fmt.Errorf("SIZE must be at least %d", minSize)
	}
	if p.Warmup, err = Count(args, at+2, p.N/10); err != nil {
		return p, err
	}
	p.CPU, err = Count(args, at+3, -1)
	return p, err
}

// Median runs trip for round trips 0 to Warmup+N-1, each returning the
// round trip it timed, and returns the median of the last N in
// nanoseconds as numpy computes it: the middle value, or the mean of the
// two middle ones (int64 of it is their integer mean). The first error of
// a trip ends the loop.
func (p Ping) Median(trip func(i int) (time.Duration, error)) (float64, error) {
	rtts := make([]time.Duration, 0, p.N)
	for i := range p.Warmup + p.N {
		rtt, err := trip(i)
		if err != nil {
			return 0, err
		}
		if i >= p.Warmup {
			rtts = append(rtts, rtt)
		}
	}
	slices.Sort(rtts)
	m := float64(rtts[p.N/2])
	if p.N%2 == 0 {
		m = float64(rtts[p.N/2-1]+rtts[p.N/2]) / 2
	}
	return m, nil
}
