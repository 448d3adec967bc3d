package paired

import (
	"cmp"
	"errors"
	"fmt"
	"math"
)

// Design says how the runs of a check form units.
type Design int

const (
	// Pairs: unit i is A[i] and B[i].
	Pairs Design = iota
	// ABBA: unit j is the block A[2j], B[2j], B[2j+1], A[2j+1] (run order
	// A B B A); its log ratio is the mean of the B logs minus the mean of
	// the A logs, which cancels a drift linear over the block.
	ABBA
)

// Check is one metric's runs of an interleaved comparison, in run order.
type Check struct {
	Name string
	// A and B are the baseline's and the candidate's values, one per run,
	// positive and finite; equally long (two per unit with ABBA).
	A, B []float64
	// HigherIsBetter marks a metric such as throughput: B worse means B
	// lower.
	HigherIsBetter bool
}

// ErrNotPositive is returned for a value ≤ 0, NaN or infinite: it has no
// log ratio.
var ErrNotPositive = errors.New("values must be positive and finite to form a ratio")

// Badness returns the check's log ratios, one per unit, signed so that a
// regression is positive: log(B/A) for a lower-is-better metric, log(A/B)
// for a higher-is-better one.
func Badness(c Check, d Design) ([]float64, error) {
	if len(c.A) != len(c.B) {
		return nil, fmt.Errorf("%s: %d A runs but %d B runs", c.Name, len(c.A), len(c.B))
	}
	per := 1
	if d == ABBA {
		per = 2
		if len(c.A)%2 != 0 {
			return nil, fmt.Errorf("%s: ABBA blocks need an even number of runs per side, not %d", c.Name, len(c.A))
		}
	}
	out := make([]float64, len(c.A)/per)
	for i := range out {
		var s float64
		for j := i * per; j < (i+1)*per; j++ {
			r, err := LogRatio(c.A[j], c.B[j], c.HigherIsBetter)
			if err != nil {
				return nil, fmt.Errorf("%s, run %d: %w", c.Name, j+1, err)
			}
			s += r
		}
		out[i] = s / float64(per)
	}
	return out, nil
}

// LogRatio is the badness of one pair of values: log(b/a), negated when
// higher is better; ErrNotPositive when a value has no log.
func LogRatio(a, b float64, higherIsBetter bool) (float64, error) {
	if !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return 0, ErrNotPositive
	}
	if higherIsBetter {
		return math.Log(a) - math.Log(b), nil
	}
	return math.Log(b) - math.Log(a), nil
}

// Ratio turns a badness back into the ratio B/A of the check.
func Ratio(bad float64, higherIsBetter bool) float64 {
	if higherIsBetter {
		return math.Exp(-bad)
	}
	return math.Exp(bad)
}

// RatioBounds turns bounds on the badness into bounds on the ratio B/A.
func RatioBounds(lowBad, highBad float64, higherIsBetter bool) (low, high float64) {
	if higherIsBetter {
		return math.Exp(-highBad), math.Exp(-lowBad)
	}
	return math.Exp(lowBad), math.Exp(highBad)
}

// Margins are the relative changes the verdict is about.
type Margins struct {
	// Pass is δ_pass: the gate passes when every check is shown to be
	// worse by less than this fraction (0.05: less than 5 % slower).
	Pass float64
	// Fail is δ_fail: the gate fails when some check is shown to be worse
	// by more than this fraction.
	Fail float64
}

// DefaultMargins are 5 % both ways: a change below 5 % is within what
// run-to-run noise and unrelated commits move a messaging benchmark by and
// is not worth a red build, one above it is; with a single threshold the
// zones cannot overlap. A 10 % regression lies clearly in the fail zone, so
// enough units detect it; a margin of 10 % could never fail it.
var DefaultMargins = Margins{Pass: 0.05, Fail: 0.05}

// Worse returns the badness (log scale) of being worse by fraction m.
func Worse(m float64) float64 { return math.Log1p(m) }

// Config sets the level and resampling of an analysis. Zero fields take the
// defaults.
type Config struct {
	// Tail is the level of each decision: the probability, at most, that a
	// family with no check's median ratio worse than δ_fail fails (family-
	// wise, Bonferroni over the checks), and that a family with some
	// check's median ratio worse than δ_pass passes (intersection–union).
	// Default 0.01.
	Tail float64
	// Margins of the verdict; default DefaultMargins, which the zero value
	// stands for (the tools refuse a pass margin of 0).
	Margins Margins
	// Flips is the number of random orders of the units drawn by the
	// serial-dependence test (SerialDependence). Default 999.
	Flips int
	// Seed seeds the random orders, so an analysis is reproducible.
	Seed uint64
	// DependenceLevel is the level of the serial-dependence test; default
	// DefaultFixedDependenceLevel.
	DependenceLevel float64
	// MinBlock, when above 1, makes the verdict start from blocks of that
	// many consecutive units whatever the dependence test finds (a caller
	// that has already found the units dependent, as a held sequential
	// gate has, sets it from their autocorrelation with BlockFor).
	MinBlock int
	// Clipped makes the dependence test see each check's units clipped to
	// two spreads either side of the fail margin and, when it differs, of
	// the pass margin (ClipAbout), as the sequential gate's test does: a
	// check far beyond a margin whose size wanders with the machine moves
	// no sign test's count, so it must neither block nor refuse a
	// verdict. The sign tests still see the units themselves.
	Clipped bool
}

func (c Config) withDefaults() Config {
	c.Tail = cmp.Or(c.Tail, 0.01)
	c.Margins = cmp.Or(c.Margins, DefaultMargins)
	c.Flips = cmp.Or(c.Flips, 999)
	c.DependenceLevel = cmp.Or(c.DependenceLevel, DefaultFixedDependenceLevel)
	return c
}

func (c Config) validate() error {
	if !(c.Tail > 0 && c.Tail < 0.5) {
		return fmt.Errorf("tail %v: it must lie in (0, ½)", c.Tail)
	}
	if !(c.Margins.Pass >= 0) || !(c.Margins.Fail >= 0) {
		return fmt.Errorf("margins %+v: they must be ≥ 0", c.Margins)
	}
	if c.Flips < 2 {
		return fmt.Errorf("%d flips: at least 2 are needed", c.Flips)
	}
	if !(c.DependenceLevel > 0 && c.DependenceLevel < 1) {
		return fmt.Errorf("dependence level %v: it must lie in (0, 1)", c.DependenceLevel)
	}
	return nil
}
