package result

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Micros writes a latency given in microseconds for a person to read,
// scaled to ns, µs, ms or s with three significant digits: "850 ns",
// "12.5 µs", "22.4 ms", "1.25 s". Files keep their fixed units; this is
// for text on a terminal or in a log (formats §7).
func Micros(us float64) string {
	if math.IsNaN(us) || math.IsInf(us, 0) {
		return fmt.Sprint(us)
	}
	if us == 0 {
		return "0 µs"
	}
	// The unit is chosen after rounding, so that 999.96 µs is "1.00 ms",
	// not "1000 µs".
	for _, u := range []struct {
		name  string
		scale float64
	}{{"ns", 1e-3}, {"µs", 1}, {"ms", 1e3}} {
		s := sig3(us / u.scale)
		if v, _ := strconv.ParseFloat(s, 64); math.Abs(v) < 1000 {
			return s + " " + u.name
		}
	}
	return sig3(us/1e6) + " s"
}

// sig3 prints v with three significant digits (no exponent below 1000).
func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 99.95:
		return fmt.Sprintf("%.0f", v)
	case a >= 9.995:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// Nanos is Micros of a duration in nanoseconds.
func Nanos(ns int64) string { return Micros(float64(ns) / 1000) }

// Thousands writes v rounded to an integer with a comma between groups of
// three digits, "12,450": how counts and rates read in text (formats §7).
func Thousands(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	return group(fmt.Sprintf("%.0f", v))
}

// Count is Thousands of an integer count, exact at any size.
func Count[T ~int | ~int64 | ~uint64](n T) string {
	return group(fmt.Sprint(n))
}

// group puts commas into the integer digits of s.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if sign+b.String() == "-0" {
		return "0"
	}
	return sign + b.String()
}

// Remaining writes an estimated duration coarsely, as people read an ETA:
// "45 s", "4 min 10 s", "1 h 23 min".
func Remaining(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
}

// Elapsed writes how long something took: as Micros below a minute
// ("2.68 s", "850 ms"), as Remaining above ("4 min 10 s").
func Elapsed(d time.Duration) string {
	if d < time.Minute {
		return Nanos(d.Nanoseconds())
	}
	return Remaining(d)
}
