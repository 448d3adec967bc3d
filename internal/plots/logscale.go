package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LogRatio is the range beyond which CategoryLines draws its y axis on a log
// scale: when the largest value is more than LogRatio times the smallest.
// Latencies of sub-experiments that differ in kind (intraprocess against
// TCP with security) span two or three decades; on a linear axis the
// smaller ones would be flattened into the bottom few pixels.
const LogRatio = 30

// UseLogScale reports whether values from lo to hi are drawn on a log axis:
// both positive and hi more than LogRatio times lo.
func UseLogScale(lo, hi float64) bool {
	return lo > 0 && hi > LogRatio*lo && !math.IsInf(hi, 0)
}

// logScale is plot.LogScale without its panic: a value that is not
// positive (a plotter added after the scale was chosen, say) is drawn
// below the axis, where the canvas clips it.
type logScale struct{}

// Normalize implements plot.Normalizer.
func (logScale) Normalize(min, max, x float64) float64 {
	if !(min > 0) || !(max > min) {
		return 0.5
	}
	if !(x > 0) {
		return -1
	}
	lo := math.Log(min)
	return (math.Log(x) - lo) / (math.Log(max) - lo)
}

// logTicks places ticks at 1, 2, ... 9 times the powers of ten in range.
// It labels the powers of ten (1, 10, 100 µs) over more than two and a half
// decades, also their doubles and fives over more than one, and every tick
// over less; and more ticks whenever that makes fewer than three labels.
// A range too narrow for two of its ticks gets linear ticks.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > 0) || math.IsInf(hi, 0) {
		return nil
	}
	if !(lo > 0) || lo >= hi {
		lo = hi / 1000
	}
	first := int(math.Floor(math.Log10(lo)))
	last := int(math.Ceil(math.Log10(hi)))
	const eps = 1e-9
	in := func(v float64) bool { return v >= lo*(1-eps) && v <= hi*(1+eps) }
	var ticks []plot.Tick
	for d := first; d <= last; d++ {
		for m := 1; m <= 9; m++ {
			if v := float64(m) * math.Pow10(d); in(v) {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	sets := []func(m int) bool{
		func(m int) bool { return m == 1 },
		func(m int) bool { return m == 1 || m == 2 || m == 5 },
		func(int) bool { return true },
	}
	switch decades := math.Log10(hi / lo); {
	case decades <= 1.2:
		sets = sets[2:]
	case decades <= 2.5:
		sets = sets[1:]
	}
	for _, labelled := range sets {
		n := 0
		for i, t := range ticks {
			ticks[i].Label = ""
			if m, d := mantissa(t.Value); labelled(m) {
				ticks[i].Label = strconv.FormatFloat(t.Value, 'f', max(0, -d), 64)
				n++
			}
		}
		if n >= 3 {
			return ticks
		}
	}
	if len(ticks) < 2 {
		// Within one step of the powers of ten: the linear ticks.
		return niceTicks{}.Ticks(lo, hi)
	}
	return ticks
}

// mantissa returns m and d with v = m·10^d, for v a tick of logTicks.
func mantissa(v float64) (m, d int) {
	d = int(math.Floor(math.Log10(v) + 1e-9))
	return int(math.Round(v / math.Pow10(d))), d
}

// drawPlot draws p on c. gonum places the glyph box of an axis label at the
// value halfway between the axis' ends, which on a log axis lies near its
// far end, and then shrinks the data area so that the misplaced box fits:
// a log y axis lost a third of its height. On a log axis, drawPlot has
// gonum reserve the label's room with a blank label (as high as the real
// one) and draws the label itself where gonum draws it, at the middle of
// the data area.
func drawPlot(p *plot.Plot, c draw.Canvas) {
	_, xlog := p.X.Scale.(logScale)
	_, ylog := p.Y.Scale.(logScale)
	xlog = xlog && p.X.Label.Text != "" && !strings.Contains(p.X.Label.Text, "\n")
	ylog = ylog && p.Y.Label.Text != "" && !strings.Contains(p.Y.Label.Text, "\n")
	if !xlog && !ylog {
		p.Draw(c)
		return
	}
	q := *p
	if xlog {
		q.X.Label.Text = " "
	}
	if ylog {
		q.Y.Label.Text = " "
	}
	q.Draw(c)
	data := q.DataCanvas(c)
	if xlog {
		sty := p.X.Label.TextStyle
		c.FillText(sty, vg.Point{X: data.Center().X, Y: c.Min.Y + sty.FontExtents().Descent}, p.X.Label.Text)
	}
	if ylog {
		sty := p.Y.Label.TextStyle
		x := c.Min.X + sty.Height(p.Y.Label.Text) - sty.FontExtents().Descent
		sty.Rotation += math.Pi / 2
		c.FillText(sty, vg.Point{X: x, Y: data.Center().Y}, p.Y.Label.Text)
	}
}
