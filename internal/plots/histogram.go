package plots

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bins is a histogram: Counts[i] samples fall in [Edge(i), Edge(i+1)), the
// last bin also holding its right edge. The bins are Width wide, or, when
// Ratio is set, logarithmic: each Ratio times as wide as the one before.
// Over samples, all larger than Max(), are counted apart in an overflow bin
// (see BodyBins); OverMax is the largest of them.
type Bins struct {
	Min, Width float64
	Counts     []int
	Ratio      float64
	Over       int
	OverMax    float64
}

// Edge returns the left edge of bin i; Edge(len(Counts)) is the right edge
// of the last bin.
func (b Bins) Edge(i int) float64 {
	if b.Ratio != 0 {
		return b.Min * math.Pow(b.Ratio, float64(i))
	}
	return b.Min + b.Width*float64(i)
}

// Max returns the right edge of the last bin.
func (b Bins) Max() float64 { return b.Edge(len(b.Counts)) }

// Bin counts samples into bins equal-width bins spanning their range, as
// numpy.histogram does: when all samples are equal the range is
// [v−0.5, v+0.5]. NaN and infinite samples are not counted. With no finite
// samples the range is [0, 1] and every count is zero.
func Bin(samples []float64, bins int) Bins {
	lo, hi := finiteRange(samples)
	return binRange(samples, bins, lo, hi)
}

// binRange counts the finite samples of [lo, hi] into bins equal-width bins.
func binRange(samples []float64, bins int, lo, hi float64) Bins {
	bins = max(bins, 1)
	b := Bins{Min: lo, Width: (hi - lo) / float64(bins), Counts: make([]int, bins)}
	// Halving keeps the span finite when it exceeds the largest float64.
	scale := 1.0
	if math.IsInf(hi-lo, 0) {
		scale = 0.5
	}
	span := hi*scale - lo*scale
	for _, v := range samples {
		if !(v >= lo && v <= hi) { // also false for NaN
			continue
		}
		t := (v*scale - lo*scale) / span // position in [0, 1]
		i := int(t * float64(bins))
		b.Counts[min(max(i, 0), bins-1)]++ // the right edge belongs to the last bin
	}
	return b
}

// finiteRange returns the range of the finite samples, [v−0.5, v+0.5] when
// they are all equal to v, and [0, 1] when there are none.
func finiteRange(samples []float64) (lo, hi float64) {
	_, _, lo, hi = dataRange(samples, index, finite)
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// Where BodyBins cuts the tail, and when it bins logarithmically.
const (
	// BodyQuantile is the share of the samples that the bins of a histogram
	// hold when the tail is far: the k-th smallest of n finite samples, with
	// k = ⌊BodyQuantile·n⌋, ends the body.
	BodyQuantile = 0.999
	// FarTail is how much wider than the body the whole range must be for
	// the samples above the body to go to an overflow bin: above it, binning
	// the whole range would squeeze the body into the left of the axis.
	FarTail = 1.5
	// Squashed is the share of a linear axis below which 90% of the body
	// must lie for the bins to be logarithmic instead (when that spreads
	// them at least twice as wide): a tight bulk with a long tail.
	Squashed = 0.1
	// minBody is the fewest samples a body is made of: below, a histogram
	// shows every sample on one linear scale.
	minBody = 10
)

// BodyBins bins the body of a latency distribution so that its shape shows.
//
// When the range of the finite samples is more than FarTail times that of
// their smallest ⌊BodyQuantile·n⌋, the bins span only those (the body) and
// the larger samples are counted in Over: one outlier a hundred times the
// median thus leaves the body spread over the bins instead of crowding it
// into the first one or two.
//
// When 90% of the body would still lie in the first Squashed of a linear
// axis, and logarithmic bins spread it at least twice as far, the bins are
// logarithmic (Ratio is set): a bulk at 0.3 µs with a tail to 30 µs.
//
// With fewer than ten samples in the body it is Bin.
func BodyBins(samples []float64, bins int) Bins {
	bins = max(bins, 1)
	sorted := finiteValues(samples)
	n := len(sorted)
	if int(BodyQuantile*float64(n)) < minBody {
		return Bin(samples, bins)
	}
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[n-1]
	body := sorted
	if cut := sorted[int(BodyQuantile*float64(n))-1]; hi-lo > FarTail*(cut-lo) {
		// The body is every sample up to the cut, ties included.
		m, _ := slices.BinarySearch(sorted, math.Nextafter(cut, math.Inf(1)))
		body = sorted[:m]
	}
	end := body[len(body)-1]
	var b Bins
	switch {
	case end == lo: // one value
		b = binRange(body, bins, lo-0.5, lo+0.5)
	case squashed(body):
		b = logBins(body, bins)
	default:
		b = binRange(body, bins, lo, end)
	}
	if len(body) < n {
		b.Over, b.OverMax = n-len(body), hi
	}
	return b
}

// squashed reports whether 90% of the sorted samples lie in the first
// Squashed of their linear range, and logarithmic bins would spread them at
// least twice as far.
func squashed(sorted []float64) bool {
	lo, hi := sorted[0], sorted[len(sorted)-1]
	p90 := sorted[(9*len(sorted)+9)/10-1] // nearest rank
	lin := (p90 - lo) / (hi - lo)
	if !(lo > 0) || lin >= Squashed {
		return false
	}
	return math.Log(p90/lo)/math.Log(hi/lo) >= 2*lin
}

// logBins counts the sorted samples, all positive, into bins logarithmic
// bins from the first to the last.
func logBins(sorted []float64, bins int) Bins {
	lo, hi := sorted[0], sorted[len(sorted)-1]
	b := Bins{Min: lo, Ratio: math.Pow(hi/lo, 1/float64(bins)), Counts: make([]int, bins)}
	span := math.Log(hi / lo)
	for _, v := range sorted {
		i := int(math.Log(v/lo) / span * float64(bins))
		b.Counts[min(max(i, 0), bins-1)]++
	}
	return b
}

// Histogram returns a latency histogram of samples (µs) with the given number
// of bins, x "Latency [µs]" and y "Number of occurrences". The bins span the
// body of the distribution (BodyBins): when a few samples lie far beyond it,
// they are drawn as one overflow bar at the right, past an axis break,
// labelled with its threshold, count and maximum; when the body is a tight
// bulk with a long tail, the latency axis is logarithmic. The title says
// which of these was done. Every non-empty bin is drawn at least a few
// pixels tall, so that a single sample stays visible next to bins holding
// thousands.
func Histogram(samples []float64, bins int, title string) *plot.Plot {
	h := &histBars{Bins: BodyBins(samples, bins)}
	if note := h.note(samples); note != "" {
		title += "\n" + note
	}
	p := newPlot(title, "Latency [µs]", "Number of occurrences")
	addGrid(p, false)
	p.Add(h)
	p.Y.Tick.Marker = niceTicks{Integer: true}
	if h.Ratio != 0 {
		p.X.Scale = logScale{}
		p.X.Tick.Marker = logTicks{}
		p.X.Label.Text = "Latency [µs], log scale"
	}
	if h.Over > 0 {
		p.X.Tick.Marker = ticksUpTo{Ticker: p.X.Tick.Marker, Max: h.Max()}
	}
	// Headroom above the tallest bar.
	p.Y.Min, p.Y.Max = 0, p.Y.Max*1.05
	return p
}

// note is the title line saying how the bins were chosen, or "".
func (h *histBars) note(samples []float64) string {
	log := ""
	if h.Ratio != 0 {
		log = "logarithmic "
	}
	if h.Over == 0 {
		if log == "" {
			return ""
		}
		return log + "bins"
	}
	n := len(finiteValues(samples))
	// At most two decimals, without trailing zeros: 99.9, 99.89.
	pct := strconv.FormatFloat(100*float64(n-h.Over)/float64(n), 'f', 2, 64)
	pct = strings.TrimSuffix(strings.TrimRight(pct, "0"), ".")
	return log + "bins up to the " + pct + "th percentile, larger samples in the last bar"
}

// FormatLatency prints a latency in µs with four significant digits, at
// most three decimals (nanoseconds) and none from 1,000 µs: 8.153, 145.2,
// 1899.
func FormatLatency(v float64) string {
	d := 3
	if a := math.Abs(v); a > 0 && !math.IsInf(a, 0) {
		d = min(3, max(0, 3-int(math.Floor(math.Log10(a)))))
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// ticksUpTo keeps the ticks of Ticker up to Max: the axis beyond holds the
// overflow bar, whose position is not a latency.
type ticksUpTo struct {
	plot.Ticker
	Max float64
}

// Ticks implements plot.Ticker.
func (t ticksUpTo) Ticks(lo, hi float64) []plot.Tick {
	all := t.Ticker.Ticks(lo, hi)
	out := all[:0:0]
	for _, tk := range all {
		if tk.Value <= t.Max+1e-9*math.Abs(t.Max) {
			out = append(out, tk)
		}
	}
	return out
}

// minBarHeight is the drawn height of a bin holding very few samples.
const minBarHeight = 2.5

// The overflow bar stands overGap past the last bin and is overWidth wide,
// both as fractions of the body's range.
const (
	overGap   = 0.05
	overWidth = 0.05
)

// overColor fills the overflow bar: darker than the body, so that it does
// not read as one more bin of the same scale.
var overColor = color.RGBA{0x44, 0x44, 0x44, 0xff}

// histBars draws Bins as adjacent bars, and the overflow bar.
type histBars struct {
	Bins
}

// past returns the x value a fraction f of the body's span (linear or
// logarithmic) beyond its end.
func (h *histBars) past(f float64) float64 {
	if h.Ratio != 0 {
		return h.Max() * math.Pow(h.Max()/h.Min, f)
	}
	return h.Max() + f*(h.Max()-h.Min)
}

// overRange returns the x range of the overflow bar.
func (h *histBars) overRange() (x0, x1 float64) {
	return h.past(overGap), h.past(overGap + overWidth)
}

// DataRange implements plot.DataRanger.
func (h *histBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	maxCount := max(h.Over, slices.Max(h.Counts), 1)
	xmax = h.Max()
	if h.Over > 0 {
		_, xmax = h.overRange()
	}
	return h.Min, xmax, 0, float64(maxCount)
}

// Plot implements plot.Plotter.
func (h *histBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	y0 := trY(0)
	c.SetColor(barColor)
	bar := func(x0, x1 vg.Length, n int) vg.Rectangle {
		if x1-x0 < vg.Points(minBarHeight/2) {
			// Narrow bins (many bins on a small canvas) still show.
			x1 = x0 + vg.Points(minBarHeight/2)
		}
		y1 := trY(float64(n))
		if y1-y0 < vg.Points(minBarHeight) {
			y1 = y0 + vg.Points(minBarHeight)
		}
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
		c.Fill(r.Path())
		return r
	}
	tops := make([]vg.Rectangle, 0, len(h.Counts))
	for i, n := range h.Counts {
		if n == 0 {
			continue
		}
		tops = append(tops, bar(trX(h.Edge(i)), trX(h.Edge(i+1)), n))
	}
	if h.Over == 0 {
		return
	}
	// The overflow bar, and its label above it, right-aligned with it and
	// above every body bar it would cover.
	ox0, ox1 := h.overRange()
	c.SetColor(overColor)
	ob := bar(trX(ox0), trX(ox1), h.Over)
	sty := p.Legend.TextStyle
	sty.Color = color.Black
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	lbl := h.overLabel()
	r := sty.Rectangle(lbl)
	w := r.Max.X - r.Min.X
	y := ob.Max.Y + vg.Points(3)
	for _, t := range tops {
		if t.Max.X > ob.Max.X-w && t.Max.Y+vg.Points(3) > y {
			y = t.Max.Y + vg.Points(3)
		}
	}
	y = min(y, c.Max.Y-(r.Max.Y-r.Min.Y))
	c.FillText(sty, vg.Point{X: ob.Max.X, Y: y}, lbl)

	// An axis break between the body and the overflow bar: a gap in the
	// x axis line between two slanted strokes.
	bx := trX(h.past(overGap / 2))
	ay := c.Min.Y - p.X.Padding - p.X.LineStyle.Width/2
	gap, rise := vg.Points(2.5), vg.Points(4)
	c.SetColor(color.White)
	c.Fill(vg.Rectangle{Min: vg.Point{X: bx - gap, Y: ay - rise}, Max: vg.Point{X: bx + gap, Y: ay + rise}}.Path())
	ls := draw.LineStyle{Color: color.Black, Width: p.X.LineStyle.Width}
	for _, dx := range []vg.Length{-gap, gap} {
		c.StrokeLine2(ls, bx+dx-rise/2, ay-rise, bx+dx+rise/2, ay+rise)
	}
}

// overLabel describes the overflow bar: "> 145.2 µs: 3 samples" and, on a
// second line, the largest of them.
func (h *histBars) overLabel() string {
	noun := " samples"
	if h.Over == 1 {
		noun = " sample"
	}
	return "> " + FormatLatency(h.Max()) + " µs: " + strconv.Itoa(h.Over) + noun +
		"\nmax " + FormatLatency(h.OverMax) + " µs"
}
