// Package flagrange states and checks the valid range of a numeric
// setting: Range says it in words ("1 to 65535, or 0: off"), Check and
// Parse refuse a value outside it with a usage error (exit code 2) naming
// the setting and the range. It knows no command-line library: cliapp.Ranged
// attaches a Range to a urfave/cli flag.
package flagrange

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
)

type kind int

const (
	kindInt kind = iota
	kindFloat
	kindDuration
)

// Range is the set of values a numeric flag accepts: an interval, and
// optionally 0 with a meaning of its own.
type Range struct {
	kind           kind
	lo, hi         float64 // bounds; ns for durations
	loOpen, hiOpen bool
	zero           string // what 0 means, when 0 is accepted outside [lo, hi]
	anyUint64      bool   // every uint64: the parser refuses the rest
}

// Int accepts the whole numbers lo to hi.
func Int(lo, hi int64) Range { return Range{kind: kindInt, lo: float64(lo), hi: float64(hi)} }

// Uint64 accepts every value of a Uint64Flag, 0 to 18446744073709551615;
// the flag's parser refuses the rest.
func Uint64() Range { return Range{kind: kindInt, hi: math.MaxUint64, anyUint64: true} }

// Float accepts the numbers lo to hi (never NaN or an infinity).
func Float(lo, hi float64) Range { return Range{kind: kindFloat, lo: lo, hi: hi} }

// Duration accepts the durations lo to hi.
func Duration(lo, hi time.Duration) Range {
	return Range{kind: kindDuration, lo: float64(lo), hi: float64(hi)}
}

// Above excludes the lower bound (Float(0, 1).Above(): more than 0).
func (r Range) Above() Range { r.loOpen = true; return r }

// Below excludes the upper bound.
func (r Range) Below() Range { r.hiOpen = true; return r }

// OrZero also accepts 0, which means what (e.g. "off").
func (r Range) OrZero(what string) Range { r.zero = what; return r }

// Contains reports whether v (ns for a duration) is in r.
func (r Range) Contains(v float64) bool {
	if r.anyUint64 {
		return v >= 0 && v == math.Trunc(v) && !math.IsInf(v, 0)
	}
	if v == 0 && r.zero != "" {
		return true
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if r.kind != kindFloat && v != math.Trunc(v) {
		return false
	}
	okLo := v > r.lo || (!r.loOpen && v == r.lo)
	okHi := v < r.hi || (!r.hiOpen && v == r.hi)
	return okLo && okHi
}

// String says the range in words: "1 to 65535", "0 (off) or 1 to 65535",
// "1ms to 1h", "more than 0 and less than 1".
func (r Range) String() string {
	if r.anyUint64 {
		return "0 to " + strconv.FormatUint(math.MaxUint64, 10)
	}
	var s string
	lo, hi := r.format(r.lo), r.format(r.hi)
	switch {
	case r.loOpen && r.hiOpen:
		s = "more than " + lo + " and less than " + hi
	case r.loOpen:
		s = "more than " + lo + ", up to " + hi
	case r.hiOpen:
		s = lo + " or more, less than " + hi
	default:
		s = lo + " to " + hi
	}
	switch {
	case r.zero != "" && r.lo == 0 && r.loOpen && !r.hiOpen:
		s = "0 (" + r.zero + ") to " + hi
	case r.zero != "":
		s = "0 (" + r.zero + ") or " + s
	}
	return s
}

func (r Range) format(v float64) string {
	switch r.kind {
	case kindDuration:
		return FormatDuration(time.Duration(v))
	case kindInt:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// FormatDuration writes d without zero units: 1h, 1m30s, 500ms.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Outside returns values of the flag's kind, as typed on a command line,
// that r refuses: 0, -1, just past each bound, a huge number, and for a
// float NaN and the infinities. Tests feed them to every ranged flag.
func (r Range) Outside() []string {
	if r.anyUint64 {
		return []string{"-1", "18446744073709551616", "1e30", "NaN"}
	}
	var cands []float64
	step := 1.0
	if r.kind == kindDuration {
		step = float64(time.Nanosecond)
	}
	if r.kind == kindFloat {
		step = math.Max(math.Abs(r.lo), math.Abs(r.hi)) * 1e-6
	}
	cands = append(cands, 0, -1, r.lo-step, r.hi+step, r.hi*2+1e6)
	if r.loOpen {
		cands = append(cands, r.lo)
	}
	if r.hiOpen {
		cands = append(cands, r.hi)
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range cands {
		if r.Contains(v) {
			continue
		}
		var s string
		switch r.kind {
		case kindDuration:
			if v > math.MaxInt64 || v < math.MinInt64 {
				continue
			}
			s = time.Duration(v).String()
		case kindInt:
			s = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			s = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if r.kind == kindFloat {
		out = append(out, "NaN", "Inf", "-Inf", "1e308")
	}
	return out
}

// Check refuses v for the flag called name (without dashes) when r does
// not contain it: "--name V: expected RANGE".
func (r Range) Check(name string, v float64) error {
	if r.Contains(v) {
		return nil
	}
	return exit.Usagef("--%s %s: expected %s", name, r.formatValue(v), r)
}

// Parse reads s for the flag called name: a whole number (strconv.Atoi
// syntax) for an Int range, a number for a Float range, a duration
// (time.ParseDuration) for a Duration range. It refuses what does not
// parse, or lies outside r, naming the flag and the range (Check).
func (r Range) Parse(name, s string) (float64, error) {
	s = strings.TrimSpace(s)
	var v float64
	var err error
	want := "a number"
	switch {
	case r.kind == kindDuration:
		var d time.Duration
		d, err = time.ParseDuration(s)
		v, want = float64(d), "a duration such as 10s"
	case r.kind == kindInt && r.anyUint64:
		var n uint64
		n, err = strconv.ParseUint(s, 10, 64)
		v, want = float64(n), "a whole number"
	case r.kind == kindInt:
		var n int64
		n, err = strconv.ParseInt(s, 10, 64)
		v, want = float64(n), "a whole number"
	default:
		v, err = strconv.ParseFloat(s, 64)
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, exit.Usagef("--%s %s: expected %s", name, s, r)
	}
	if err != nil {
		return 0, exit.Usagef("--%s %q: expected %s, %s", name, s, want, r)
	}
	return v, r.Check(name, v)
}

func (r Range) formatValue(v float64) string {
	if r.kind == kindDuration && !math.IsNaN(v) {
		return FormatDuration(time.Duration(v))
	}
	return r.format(v)
}
