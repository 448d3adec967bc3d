package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SeriesPoints is a good maxPoints for Series: enough to show every peak at
// the default figure width (800 pixels), few enough to draw quickly.
const SeriesPoints = 2000

// SpikeRatio is how far above the body a sample must reach for Series to
// clip the latency axis: the samples' range more than SpikeRatio times the
// range of their smallest ⌊BodyQuantile·n⌋.
const SpikeRatio = 4

// Series returns a latency time series: sample number (1..n) on x, latency
// [µs] on y. Above maxPoints samples the series is downsampled with LTTB,
// which keeps its peaks; maxPoints ≤ 0 draws every sample. When a few
// samples reach far above the rest (SpikeRatio), the latency axis ends a
// little above the body, so that one spike does not flatten the series;
// the samples above are drawn as markers on the top edge, and the title
// says how many there are and how high the largest went.
func Series(samples []float64, maxPoints int, title string) *plot.Plot {
	top, above, highest := spikeClip(samples)
	if above > 0 {
		title += fmt.Sprintf("\naxis clipped at %s µs: %d samples above (▲), up to %s µs", FormatLatency(top), above, FormatLatency(highest))
	}
	p := newPlot(title, "Sample number", "Latency [µs]")
	addGrid(p, true)
	p.X.Tick.Marker = niceTicks{Integer: true}
	x := make([]float64, len(samples))
	for i := range x {
		x[i] = float64(i + 1)
	}
	xs, ys := LTTB(x, samples, maxPoints)
	p.Add(&polyline{x: xs, y: ys, style: draw.LineStyle{Color: palette[0], Width: vg.Points(0.6)}})
	if above > 0 {
		var pts plotter.XYs
		for i, v := range samples {
			if v > top {
				pts = append(pts, plotter.XY{X: x[i], Y: top})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err == nil {
			sc.GlyphStyle = draw.GlyphStyle{Color: palette[1], Radius: vg.Points(3.5), Shape: marker{shape: shapeTriangleUp}}
			p.Add(sc)
		}
		p.Y.Max = top
	}
	if len(samples) == 0 {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 2, 0, 1
	}
	return p
}

// spikeClip returns where Series clips the latency axis, how many samples
// lie above it and the largest; above is 0 when nothing is clipped.
func spikeClip(samples []float64) (top float64, above int, highest float64) {
	sorted := finiteValues(samples)
	n := len(sorted)
	k := int(BodyQuantile * float64(n))
	if k < minBody {
		return 0, 0, 0
	}
	slices.Sort(sorted)
	lo, cut, hi := sorted[0], sorted[k-1], sorted[n-1]
	if !(hi-lo > SpikeRatio*(cut-lo)) || cut == lo {
		return 0, 0, 0
	}
	top = cut + 0.25*(cut-lo)
	m, _ := slices.BinarySearch(sorted, math.Nextafter(top, math.Inf(1))) // the first sample above top
	return top, n - m, hi
}

// polyline draws y over x as one line, broken at NaN values of y.
type polyline struct {
	x, y  []float64
	style draw.LineStyle
}

// DataRange implements plot.DataRanger: a unit range without a point.
func (l *polyline) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = dataRange(l.y, l.xAt, notNaN)
	if xmin > xmax {
		return 0, 1, 0, 1
	}
	return xmin, xmax, ymin, ymax
}

func (l *polyline) xAt(i int) float64 { return l.x[i] }

// Plot implements plot.Plotter.
func (l *polyline) Plot(c draw.Canvas, p *plot.Plot) {
	strokeChunked(c, l.style, c.ClipLinesXY(segments(&c, p, l.y, l.xAt, notNaN)...), chunkPoints)
}

// Thumbnail implements plot.Thumbnailer.
func (l *polyline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// segments returns the points (x(i), y[i]) on c, split into lines where
// ok(y[i]) is false: a missing value breaks the line.
func segments(c *draw.Canvas, p *plot.Plot, y []float64, x func(int) float64, ok func(float64) bool) [][]vg.Point {
	trX, trY := p.Transforms(c)
	pts := make([]vg.Point, 0, len(y))
	var lines [][]vg.Point
	for i, v := range y {
		if !ok(v) {
			if len(pts) > 0 {
				lines = append(lines, pts)
				pts = pts[len(pts):]
			}
			continue
		}
		pts = append(pts, vg.Point{X: trX(x(i)), Y: trY(v)})
	}
	if len(pts) > 0 {
		lines = append(lines, pts)
	}
	return lines
}

// dataRange returns the range of the points (x(i), y[i]) with ok(y[i]);
// xmin > xmax when there is none.
func dataRange(y []float64, x func(int) float64, ok func(float64) bool) (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, v := range y {
		if ok(v) {
			xmin, xmax = min(xmin, x(i)), max(xmax, x(i))
			ymin, ymax = min(ymin, v), max(ymax, v)
		}
	}
	return xmin, xmax, ymin, ymax
}

// chunkPoints is the most points stroked as one path. The raster backend
// looks cells up in per-row lists, so stroking a long jagged path costs
// time quadratic in its length; short overlapping chunks look the same and
// draw several times faster.
const chunkPoints = 32

// strokeChunked strokes lines in chunks of at most n points, each chunk
// starting at the previous one's last point.
func strokeChunked(c draw.Canvas, sty draw.LineStyle, lines [][]vg.Point, n int) {
	var chunks [][]vg.Point
	for _, l := range lines {
		for len(l) > n {
			chunks = append(chunks, l[:n])
			l = l[n-1:]
		}
		chunks = append(chunks, l)
	}
	c.StrokeLines(sty, chunks...)
}

func notNaN(v float64) bool { return !math.IsNaN(v) }

// finite reports whether v is a value: neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// finiteValues returns a copy of the finite values of samples.
func finiteValues(samples []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(samples), func(v float64) bool { return !finite(v) })
}
