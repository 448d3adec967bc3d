package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// textFont is the typeface of every label. Sans serif reads better than
// gonum's default serif at small sizes.
var textFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Font sizes in points.
const (
	titleSize  = 13
	labelSize  = 11
	tickSize   = 9
	legendSize = 10
)

// palette holds twelve colours that stay distinct from each other and from
// markColor. Series beyond the twelfth reuse them with a dash pattern.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x00, 0x00, 0x00, 0xff}, // black
	{0x39, 0x3b, 0x79, 0xff}, // navy
	{0x7b, 0x41, 0x73, 0xff}, // plum
}

// dashes are the dash patterns used for the first, second, ... round through
// the palette; the first round is solid.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
}

// dashedPattern is the pattern of a Line with Dashed set.
var dashedPattern = []vg.Length{vg.Points(5), vg.Points(3)}

// markColor is the colour of highlighted points: pure red, absent from the
// palette.
var markColor = color.RGBA{0xe0, 0x00, 0x00, 0xff}

// barColor fills histogram bars.
var barColor = color.RGBA{0x1f, 0x77, 0xb4, 0xff}

// gridColor draws the light grid behind the data.
var gridColor = color.Gray{0xdd}

// seriesStyle returns the colour and dash pattern of the i-th series.
func seriesStyle(i int) (color.RGBA, []vg.Length) {
	return palette[i%len(palette)], dashes[(i/len(palette))%len(dashes)]
}

// glyphShapes vary the marker shape from series to series so that lines stay
// distinguishable in greyscale too.
var glyphShapes = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.PyramidGlyph{},
	draw.RingGlyph{},
	draw.BoxGlyph{},
}

// newPlot returns a plot with the house style: fonts, title, axis labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	// Encode paints the whole image white first; filling the plot's area
	// again would cost a tenth of the rendering time of a PNG.
	p.BackgroundColor = nil
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(textFont, titleSize)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(textFont, labelSize)
		a.Tick.Label.Font = font.From(textFont, tickSize)
		a.Label.Padding = vg.Points(4)
		a.Tick.Marker = niceTicks{}
	}
	p.Legend.TextStyle.Font = font.From(textFont, legendSize)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.Padding = vg.Points(3)
	return p
}

// addGrid adds a light grid behind the data; vertical lines only when
// vertical is set.
func addGrid(p *plot.Plot, vertical bool) {
	g := plotter.NewGrid()
	g.Horizontal.Color = gridColor
	g.Horizontal.Width = vg.Points(0.5)
	if vertical {
		g.Vertical.Color = gridColor
		g.Vertical.Width = vg.Points(0.5)
	} else {
		g.Vertical.Color = nil
	}
	p.Add(g)
}

// legendSpace reserves room at the right of the data area for the legend, so
// that the legend is drawn beside the data and never over it. It draws
// nothing; it only reports a glyph box as wide as the legend, which makes the
// plot shrink its data area (and the x axis with it).
type legendSpace struct{}

// legendGap separates the data area from the legend.
const legendGap = 10

// Plot implements plot.Plotter.
func (legendSpace) Plot(draw.Canvas, *plot.Plot) {}

// GlyphBoxes implements plot.GlyphBoxer.
func (legendSpace) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	r := p.Legend.Rectangle(draw.Canvas{})
	w := r.Max.X - r.Min.X
	if w <= 0 {
		return nil
	}
	return []plot.GlyphBox{{
		X:         1,
		Y:         0.5,
		Rectangle: vg.Rectangle{Max: vg.Point{X: w + vg.Points(legendGap)}},
	}}
}
