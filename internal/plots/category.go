package plots

import (
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is one series of a CategoryLines plot: one value per category.
type Line struct {
	// Name is the legend text; a Line without a name has no legend entry.
	Name string
	// Y holds one value per category; NaN marks a missing value, which
	// breaks the line.
	Y []float64
	// Dashed draws the line dashed, e.g. for a reference or a requirement.
	Dashed bool
	// Marked, when Marked[i] is set, highlights point i with a red cross,
	// e.g. a value over its requirement. It may be shorter than Y.
	Marked []bool
}

// Limits of the categorical x axis.
const (
	// maxTickLabels is the most category labels drawn; with more categories
	// every k-th is labelled.
	maxTickLabels = 20
	// maxMarkedCategories is the most categories for which every point gets
	// a marker; above it only lines are drawn.
	maxMarkedCategories = 60
)

// CategoryLines plots one line per series over evenly spaced categories
// (payloads, experiments, ...), in order. Up to twenty category labels are
// shown (every k-th beyond that), rotated when they would overlap. The
// legend stands to the right of the data area, never over it. Series take
// distinct colours and marker shapes, filled and hollow in turn; past twelve
// series they repeat with dash patterns. When the values span more than
// LogRatio (the largest over the smallest), the y axis is logarithmic, with
// the powers of ten labelled, and its label says so.
func CategoryLines(title, xLabel, yLabel string, categories []string, lines []Line) *plot.Plot {
	p := newPlot(title, xLabel, yLabel)
	addGrid(p, false)
	k, lo, hi := len(categories), math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		k = max(k, len(l.Y))
		_, _, ylo, yhi := dataRange(l.Y, index, finite)
		lo, hi = min(lo, ylo), max(hi, yhi)
	}
	cls := make([]*catLine, 0, len(lines))
	for i, l := range lines {
		col, shape, dash := seriesStyle(i)
		if l.Dashed {
			dash = dashedPattern
		}
		cl := &catLine{
			Line:      l,
			line:      draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: dash},
			glyph:     draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: shape},
			allGlyphs: k <= maxMarkedCategories,
		}
		cls = append(cls, cl)
		p.Add(cl)
		if l.Name != "" {
			p.Legend.Add(l.Name, cl)
		}
	}
	// Highlighted points go on top of every line.
	p.Add(&catMarks{lines: cls}, legendSpace{})

	p.X.Min, p.X.Max = -0.5, max(float64(k)-0.5, 0.5)
	p.X.Tick.Marker = categoryTicks(categories)
	p.X.Tick.Label = categoryTickStyle(p.X.Tick.Label, categories)
	if math.IsInf(p.Y.Min, 0) || math.IsInf(p.Y.Max, 0) {
		p.Y.Min, p.Y.Max = 0, 1
	}
	if UseLogScale(lo, hi) {
		p.Y.Scale = logScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Label.Text += ", log scale"
	}
	if k := len(categories); k > 0 && p.X.Tick.Label.Rotation != 0 {
		first := (k - 1) % labelStep(k) // the first labelled category
		// The label's tick stands right of the data area's left edge; the
		// data area is at least about 6 in wide (Size widens for the legend).
		offset := vg.Length((float64(first)+0.5)/float64(k)) * 6 * vg.Inch
		p.Y.Label.Padding += max(0, leftOverhang(p, categories[first])-offset)
	}
	return p
}

// labelStep is the step between labelled categories of k: 1 up to
// maxTickLabels, so that at most that many are labelled.
func labelStep(k int) int { return max((k+maxTickLabels-1)/maxTickLabels, 1) }

// categoryTicks returns a ticker with a labelled tick at every step-th
// category, counted back from the last so that the newest experiment of a
// history is always named, and a minor tick at every other category while
// they are few enough to tell apart.
func categoryTicks(categories []string) plot.ConstantTicks {
	k := len(categories)
	step := labelStep(k)
	var ticks plot.ConstantTicks
	for i, c := range categories {
		if (k-1-i)%step == 0 {
			if c == "" {
				c = " " // an empty label would make a minor tick
			}
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: c})
		} else if k <= 5*maxTickLabels {
			ticks = append(ticks, plot.Tick{Value: float64(i)})
		}
	}
	return ticks
}

// categoryTickStyle rotates the tick labels by 45° when, laid side by side,
// they would not fit the width the data area usually gets.
func categoryTickStyle(sty text.Style, categories []string) text.Style {
	k := len(categories)
	step := labelStep(k)
	shown := (k + step - 1) / step
	var widest vg.Length
	for i := (k - 1) % step; i < k; i += step {
		widest = max(widest, sty.Width(categories[i]))
	}
	// Typical data width: the figure minus the y axis.
	avail := DefaultWidth - vg.Inch
	if vg.Length(shown)*(widest+vg.Points(6)) <= avail {
		return sty
	}
	return turned(sty)
}

// turned returns sty turned by 45°, each label ending at its tick.
func turned(sty text.Style) text.Style {
	sty.Rotation = math.Pi / 4
	sty.XAlign, sty.YAlign = draw.XRight, draw.YCenter
	return sty
}

// leftOverhang returns how far the rotated label of the first category
// reaches left of the y axis's area. gonum pads the data area for the glyphs
// of plotters, not for tick labels, and the y axis is not moved by that
// padding anyway; widening the gap between the y label and its tick labels
// moves the axis, the data and the first label right together.
func leftOverhang(p *plot.Plot, first string) vg.Length {
	hang := -p.X.Tick.Label.Rectangle(first).Min.X
	yw, widest := yAxisWidth(p)
	return max(0, hang-yw-widest)
}

// catChunkPoints is the most points of a CategoryLines line stroked as one
// path (see strokeChunked). Lines of up to a hundred categories, wide
// apart, stay whole, so that every bend gets its line join; beyond, the
// points are a few pixels apart or less and a chunk boundary does not show.
const catChunkPoints = 100

// catLine draws one Line at x = 0, 1, ...
type catLine struct {
	Line
	line      draw.LineStyle
	glyph     draw.GlyphStyle
	allGlyphs bool // draw a marker at every point, not only isolated ones
}

// DataRange implements plot.DataRanger. Without data it leaves the plot's
// range untouched (xmin > xmax).
func (l *catLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return dataRange(l.Y, index, finite)
}

// index is the x of point i of a catLine.
func index(i int) float64 { return float64(i) }

// GlyphBoxes implements plot.GlyphBoxer so that markers at the edges of the
// data are not clipped. Only the extreme points matter for padding.
func (l *catLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	xmin, xmax, ymin, ymax := l.DataRange()
	if xmin > xmax {
		return nil
	}
	r := l.glyph.Rectangle()
	if slices.Contains(l.Marked, true) {
		r = markGlyph.Rectangle()
	}
	var boxes []plot.GlyphBox
	for _, x := range []float64{xmin, xmax} {
		boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(x), Y: 0.5, Rectangle: vg.Rectangle{Min: vg.Point{X: r.Min.X}, Max: vg.Point{X: r.Max.X}}})
	}
	for _, y := range []float64{ymin, ymax} {
		boxes = append(boxes, plot.GlyphBox{X: 0.5, Y: p.Y.Norm(y), Rectangle: vg.Rectangle{Min: vg.Point{Y: r.Min.Y}, Max: vg.Point{Y: r.Max.Y}}})
	}
	return boxes
}

// valid reports whether point i exists.
func (l *catLine) valid(i int) bool {
	return i >= 0 && i < len(l.Y) && finite(l.Y[i])
}

// Plot implements plot.Plotter.
func (l *catLine) Plot(c draw.Canvas, p *plot.Plot) {
	lines := segments(&c, p, l.Y, index, finite)
	if isRaster(c.Canvas) && len(l.line.Dashes) == 0 {
		// Long histories (a thousand experiments) rasterise far faster in
		// chunks. Vector output keeps one path; chunks would restart a
		// dash pattern, so dashed lines, short in practice, stay whole.
		strokeChunked(c, l.line, c.ClipLinesXY(lines...), catChunkPoints)
	} else {
		c.StrokeLines(l.line, c.ClipLinesXY(lines...)...)
	}
	for _, seg := range lines {
		if !l.allGlyphs && len(seg) > 1 {
			continue // an isolated point needs its marker to be seen
		}
		for _, pt := range seg {
			c.DrawGlyph(l.glyph, pt)
		}
	}
}

// Thumbnail implements plot.Thumbnailer: a short line with the marker.
func (l *catLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.line, c.Min.X, y, c.Max.X, y)
	if l.allGlyphs {
		c.DrawGlyph(l.glyph, c.Center())
	}
}

// markGlyph highlights a marked point.
var markGlyph = draw.GlyphStyle{Color: markColor, Radius: vg.Points(5), Shape: thickCross{}}

// thickCross is a red ×, drawn thicker than gonum's CrossGlyph so that it
// stands out from the lines.
type thickCross struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (thickCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(2)}
	r := sty.Radius * vg.Length(math.Cos(math.Pi/4))
	c.StrokeLine2(ls, pt.X-r, pt.Y-r, pt.X+r, pt.Y+r)
	c.StrokeLine2(ls, pt.X-r, pt.Y+r, pt.X+r, pt.Y-r)
}

// catMarks draws the marked points of all lines, above every line.
type catMarks struct {
	lines []*catLine
}

// Plot implements plot.Plotter.
func (m *catMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, l := range m.lines {
		for i, marked := range l.Marked {
			if marked && l.valid(i) {
				c.DrawGlyph(markGlyph, vg.Point{X: trX(float64(i)), Y: trY(l.Y[i])})
			}
		}
	}
}

// MarkThumbnail is the legend thumbnail of marked points, for callers that
// explain them in the legend:
//
//	p.Legend.Add("over requirement", plots.MarkThumbnail{})
type MarkThumbnail struct{}

// Thumbnail implements plot.Thumbnailer.
func (MarkThumbnail) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(markGlyph, c.Center())
}
