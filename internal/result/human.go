package result

import (
	"fmt"
	"math"
	"time"
)

// Micros writes a latency given in microseconds for a person to read,
// scaled to ns, µs, ms or s with three significant digits: "850 ns",
// "12.5 µs", "22.4 ms", "1.25 s". Files keep their fixed units; this is
// for text on a terminal or in a log.
func Micros(us float64) string {
	switch a := math.Abs(us); {
	case math.IsNaN(us) || math.IsInf(us, 0):
		return fmt.Sprint(us)
	case a == 0:
		return "0 µs"
	case a < 1:
		return sig3(us*1000) + " ns"
	case a < 1000:
		return sig3(us) + " µs"
	case a < 1e6:
		return sig3(us/1000) + " ms"
	default:
		return sig3(us/1e6) + " s"
	}
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
