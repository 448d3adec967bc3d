package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks places about targetTicks labelled ticks at round values (1, 2,
// 2.5 or 5 times a power of ten) with minor ticks between them, and labels
// them with as few decimals as the step needs. gonum's default ticker labels
// only three or four values and prints needless decimals.
type niceTicks struct {
	// Integer restricts ticks to integers, for counts and sample numbers.
	Integer bool
}

// targetTicks is the preferred number of labelled ticks on an axis.
const targetTicks = 6

// Ticks implements plot.Ticker.
func (nt niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 0)}}
	}
	step, minors, decimals := niceStep((hi - lo) / targetTicks)
	if nt.Integer && step < 10 {
		// Small steps: integer labels, minor ticks at integers only.
		switch {
		case step <= 1:
			step, minors = 1, 1
		case step < 5: // 2 and 2.5
			step, minors = 2, 2
		default:
			step, minors = 5, 5
		}
		decimals = 0
	}
	minor := step / float64(minors)
	first := math.Ceil(lo/minor - 1e-9)
	var ticks []plot.Tick
	for i := first; ; i++ {
		v := i * minor
		if v > hi+minor*1e-9 {
			break
		}
		t := plot.Tick{Value: v}
		if int64(math.Round(i))%int64(minors) == 0 {
			t.Label = formatTick(v, decimals)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep returns the round step nearest above raw, the number of minor
// intervals per step, and the decimals that its labels need.
func niceStep(raw float64) (step float64, minors, decimals int) {
	exp := math.Floor(math.Log10(raw))
	pow := math.Pow(10, exp)
	e := int(exp)
	switch f := raw / pow; {
	case f <= 1:
		return pow, 5, max(0, -e)
	case f <= 2:
		return 2 * pow, 4, max(0, -e)
	case f <= 2.5:
		return 2.5 * pow, 5, max(0, 1-e)
	case f <= 5:
		return 5 * pow, 5, max(0, -e)
	}
	return 10 * pow, 5, max(0, -e-1)
}

// formatTick prints v with the given decimals, without a negative zero.
func formatTick(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if f, _ := strconv.ParseFloat(s, 64); f == 0 {
		return strconv.FormatFloat(0, 'f', decimals, 64)
	}
	return s
}
