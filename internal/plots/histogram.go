package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bins is a histogram: Counts[i] samples fall in [Min+i·Width, Min+(i+1)·Width),
// the last bin also holding its right edge.
type Bins struct {
	Min, Width float64
	Counts     []int
}

// Max returns the right edge of the last bin.
func (b Bins) Max() float64 { return b.Min + b.Width*float64(len(b.Counts)) }

// Bin counts samples into bins equal-width bins spanning their range, as
// numpy.histogram does: when all samples are equal the range is
// [v−0.5, v+0.5]. NaN and infinite samples are not counted. With no finite
// samples the range is [0, 1] and every count is zero.
func Bin(samples []float64, bins int) Bins {
	if bins < 1 {
		bins = 1
	}
	lo, hi := finiteRange(samples)
	b := Bins{Min: lo, Width: (hi - lo) / float64(bins), Counts: make([]int, bins)}
	// Halving keeps the span finite when it exceeds the largest float64.
	half := math.IsInf(hi-lo, 0)
	span := hi - lo
	if half {
		span = hi/2 - lo/2
	}
	for _, v := range samples {
		if !(v >= lo && v <= hi) { // also false for NaN
			continue
		}
		var t float64 // position in [0, 1]
		if half {
			t = (v/2 - lo/2) / span
		} else {
			t = (v - lo) / span
		}
		i := int(t * float64(bins))
		if i >= bins {
			i = bins - 1 // the right edge belongs to the last bin
		}
		b.Counts[max(i, 0)]++
	}
	return b
}

// finiteRange returns the range of the finite samples, [v−0.5, v+0.5] when
// they are all equal to v, and [0, 1] when there are none.
func finiteRange(samples []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range samples {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// Histogram returns a latency histogram of samples (µs) with the given number
// of bins, x "Latency [us]" and y "Number of occurrences". Every non-empty bin
// is drawn at least a few pixels tall, so that a single outlier far to the
// right of the bulk stays visible next to bins holding thousands of samples.
func Histogram(samples []float64, bins int, title string) *plot.Plot {
	p := newPlot(title, "Latency [us]", "Number of occurrences")
	addGrid(p, false)
	h := &histBars{Bins: Bin(samples, bins)}
	p.Add(h)
	p.Y.Tick.Marker = niceTicks{Integer: true}
	// Headroom above the tallest bar.
	p.Y.Min, p.Y.Max = 0, p.Y.Max*1.05
	return p
}

// minBarHeight is the drawn height of a bin holding very few samples.
const minBarHeight = 2.5

// histBars draws Bins as adjacent bars.
type histBars struct {
	Bins
}

// DataRange implements plot.DataRanger.
func (h *histBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	maxCount := 0
	for _, c := range h.Counts {
		maxCount = max(maxCount, c)
	}
	if maxCount == 0 {
		maxCount = 1
	}
	return h.Min, h.Max(), 0, float64(maxCount)
}

// Plot implements plot.Plotter.
func (h *histBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	y0 := trY(0)
	c.SetColor(barColor)
	for i, n := range h.Counts {
		if n == 0 {
			continue
		}
		x0 := trX(h.Min + float64(i)*h.Width)
		x1 := trX(h.Min + float64(i+1)*h.Width)
		if x1-x0 < vg.Points(minBarHeight/2) {
			// Narrow bins (many bins on a small canvas) still show.
			x1 = x0 + vg.Points(minBarHeight/2)
		}
		y1 := trY(float64(n))
		if y1-y0 < vg.Points(minBarHeight) {
			y1 = y0 + vg.Points(minBarHeight)
		}
		var path vg.Path
		path.Move(vg.Point{X: x0, Y: y0})
		path.Line(vg.Point{X: x1, Y: y0})
		path.Line(vg.Point{X: x1, Y: y1})
		path.Line(vg.Point{X: x0, Y: y1})
		path.Close()
		c.Fill(path)
	}
}
