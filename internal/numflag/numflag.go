// Package numflag parses and range-checks the numeric flags of the gates
// (check, compare, requirements, history): relative values written as a
// fraction or a percentage, and whole numbers with a stated range.
//
// A relative value is a fraction ("0.25") or a percentage with its sign
// ("25%"), the same value. A bare number above 1 is refused with the
// percentage it probably meant ("--margin 25: did you mean 25%?"): read as
// a fraction it would be 2,500 %, a gate that lets a 2× regression pass.
// A bare 1 is the fraction 1 (100 %), outside every range below, so it is
// refused too, suggesting 1%. NaN and infinities are refused everywhere.
//
// The ranges (formats §4):
//
//   - Tolerance (check and requirements --margin and --margins, compare
//     --fail-threshold, --threshold and --thresholds, history
//     --gate-threshold): 0 % ≤ t < 100 %. 0 is no slack (the Fast-RTPS
//     rule); negative values would tighten the limit and are refused; 100 %
//     and above are refused because a throughput limit (reference ×
//     (1 − t)) would reach 0 and pass everything, and a latency limit of
//     2× the reference or more is no gate.
//   - Level (probabilities: requirements --false-fail and
//     --normality-level, history --significance): 0 < p < 100 %. compare
//     --false-fail uses CompareLevel, 0 < p < 50 %.
package numflag

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/flagrange"
)

// Fraction is the valid interval of a relative value, as fractions.
type Fraction struct {
	Min, Max float64
	// MinOpen and MaxOpen exclude the bound itself.
	MinOpen, MaxOpen bool
}

var (
	// Tolerance is the range of margins and thresholds: 0 % ≤ t < 100 %.
	Tolerance = Fraction{Min: 0, Max: 1, MaxOpen: true}
	// Level is the range of probabilities: 0 < p < 100 %.
	Level = Fraction{Min: 0, Max: 1, MinOpen: true, MaxOpen: true}
	// CompareLevel is compare --false-fail's range: 0 < p < 50 %.
	CompareLevel = Fraction{Min: 0, Max: 0.5, MinOpen: true, MaxOpen: true}
)

// Contains reports whether x is in r (NaN never is).
func (r Fraction) Contains(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return false
	}
	lo := x > r.Min || (!r.MinOpen && x == r.Min)
	hi := x < r.Max || (!r.MaxOpen && x == r.Max)
	return lo && hi
}

// Text states r for help and errors: "at least 0% and below 100%".
func (r Fraction) Text() string {
	lo, hi := "at least", "at most"
	if r.MinOpen {
		lo = "above"
	}
	if r.MaxOpen {
		hi = "below"
	}
	return fmt.Sprintf("%s %s and %s %s", lo, Percent(r.Min), hi, Percent(r.Max))
}

// Percent writes fraction x as a percentage: 0.25 → "25%".
func Percent(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 6, 64) + "%"
}

// form is what every relative value may look like, for error messages.
const form = "written as a fraction (0.1) or a percentage (10%)"

// Parse parses s, a fraction ("0.25") or a percentage ("25%"), and checks
// it against r. Errors say what was expected; the caller adds the flag.
func (r Fraction) Parse(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, pct := strings.CutSuffix(s, "%")
	num = strings.TrimSpace(num)
	x, err := strconv.ParseFloat(num, 64)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0) {
		err = nil // refused below as not finite
	}
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a number: expected a value %s, %s", s, r.Text(), form)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a finite number: expected a value %s, %s", s, r.Text(), form)
	}
	if pct {
		// "99.9%" is 0.999, correctly rounded, not 99.9/100.
		if y, err := strconv.ParseFloat(num+"e-2", 64); err == nil {
			x = y
		} else {
			x /= 100
		}
	} else if x > 1 || (x == 1 && !r.Contains(1)) {
		return 0, fmt.Errorf("%s read as a fraction is %s: did you mean %s%%? Expected a value %s, %s", s, Percent(x), num, r.Text(), form)
	}
	if !r.Contains(x) {
		if !pct {
			s += " (" + Percent(x) + ")"
		}
		return 0, fmt.Errorf("%s is out of range: expected a value %s, %s", s, r.Text(), form)
	}
	return x, nil
}

// ParseList parses a comma-separated list of values (Parse), as
// --thresholds and --margins take; nil for an empty s.
func (r Fraction) ParseList(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := r.Parse(f)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// Int is the valid range of a whole-number flag: Min ≤ n ≤ Max, or 0 when
// Zero says what 0 means ("half the pool"). It is a flagrange range
// (Range), which states and checks it; Check words the error as the gates
// do ("is out of range").
type Int struct {
	Min, Max int
	// Zero, when set, admits 0 with this meaning, outside [Min, Max].
	Zero string
}

// Range is r as a flagrange range.
func (r Int) Range() flagrange.Range {
	fr := flagrange.Int(int64(r.Min), int64(r.Max))
	if r.Zero != "" {
		fr = fr.OrZero(r.Zero)
	}
	return fr
}

// Text states r for help and errors: "0 (half the pool) or 2 to 10000".
func (r Int) Text() string { return r.Range().String() }

// Check returns an error naming flag (with its dashes) when n is outside r.
func (r Int) Check(flag string, n int) error {
	if r.Range().Contains(float64(n)) {
		return nil
	}
	return fmt.Errorf("%s %d is out of range: expected %s", flag, n, r.Text())
}
