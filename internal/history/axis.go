package history

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mqgate/mqgate/internal/plots"
)

// MaxLabels is the most experiment labels on an x axis. Experiment labels
// are long (a timestamp and a version or commit), so they are drawn at 45°;
// ten of them leave more than two line heights between neighbours on the
// default figure, whatever the number of experiments. Each label costs: the
// rotated text is a quarter of the time to draw a payload plot.
const MaxLabels = 10

// LabelledIndices returns the indices of the n categories that get a label:
// every step-th counted back from the newest (last), so that the newest
// experiment is always named, and at most MaxLabels of them, ascending.
func LabelledIndices(n int) []int {
	if n <= 0 {
		return nil
	}
	step := (n + MaxLabels - 1) / MaxLabels
	var idx []int
	for i := (n - 1) % step; i < n; i += step {
		idx = append(idx, i)
	}
	return idx
}

// experimentAxis replaces the x ticks of a plots.CategoryLines plot with
// thinned experiment labels: LabelledIndices get a label, every category a
// minor tick while they stay apart. Labels that would not fit side by side
// are drawn at 45° from their tick, and room is reserved at the left so the
// first one is not clipped by the figure's edge.
func experimentAxis(p *plot.Plot, labels []string) {
	n := len(labels)
	idx := LabelledIndices(n)
	ticks := make(plot.ConstantTicks, 0, n)
	next := 0
	for i := 0; i < n; i++ {
		if next < len(idx) && idx[next] == i {
			l := labels[i]
			if l == "" {
				l = " " // an empty label would make a minor tick
			}
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
			next++
		} else if n <= 100 {
			ticks = append(ticks, plot.Tick{Value: float64(i)})
		}
	}
	p.X.Tick.Marker = ticks

	sty := p.X.Tick.Label
	sty.Rotation = 0
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	var widest vg.Length
	for _, i := range idx {
		widest = max(widest, sty.Width(labels[i]))
	}
	// The data area is the figure less the y axis and the legend column.
	avail := plots.DefaultWidth - 3*vg.Inch
	if vg.Length(len(idx))*(widest+vg.Points(8)) > avail {
		sty.Rotation = math.Pi / 4
		sty.XAlign, sty.YAlign = draw.XRight, draw.YCenter
		if len(idx) > 0 {
			w := sty.Width(labels[idx[0]])
			// How far the first label reaches left of its tick, less what the
			// y axis (tick labels and title, about 40 pt) already spans.
			reach := w*vg.Length(math.Cos(math.Pi/4)) - vg.Points(40)
			// The tick's distance from the data area's left edge.
			frac := (float64(idx[0]) + 0.5) / float64(n)
			if reach > 0 {
				p.Add(leftRoom{reach: reach, frac: frac})
			}
		}
	}
	p.X.Tick.Label = sty
}

// leftRoom reserves room at the left of the data area for a rotated tick
// label that reaches reach left of the tick at fraction frac of the x axis.
// It draws nothing.
type leftRoom struct {
	reach vg.Length
	frac  float64
}

// Plot implements plot.Plotter.
func (leftRoom) Plot(draw.Canvas, *plot.Plot) {}

// GlyphBoxes implements plot.GlyphBoxer.
func (l leftRoom) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	return []plot.GlyphBox{{
		X:         l.frac,
		Y:         0.5,
		Rectangle: vg.Rectangle{Min: vg.Point{X: -l.reach}, Max: vg.Point{X: -l.reach + 1}},
	}}
}

// requirementColor draws requirement lines: red, like the Fast-RTPS plots,
// and like the marks of the points over them.
var requirementColor = color.RGBA{0xd6, 0x27, 0x28, 0xff}

// hLine is a horizontal dashed line across the data area at Y, e.g. a
// requirement. Unlike a plots.Line it has no marker at every category.
type hLine struct {
	Y     float64
	Style draw.LineStyle
}

func newRequirementLine(y float64) *hLine {
	return &hLine{Y: y, Style: draw.LineStyle{
		Color:  requirementColor,
		Width:  vg.Points(1.5),
		Dashes: []vg.Length{vg.Points(6), vg.Points(3)},
	}}
}

// Plot implements plot.Plotter.
func (h *hLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.Y)
	c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: the line's y must be in view, its x
// span is that of the categories.
func (h *hLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.Y, h.Y
}

// Thumbnail implements plot.Thumbnailer.
func (h *hLine) Thumbnail(c *draw.Canvas) { (&plotter.Line{LineStyle: h.Style}).Thumbnail(c) }
