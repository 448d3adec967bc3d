package plots

import (
	"image/color"
	"math"

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
// markColor: the Okabe–Ito colours that read for the common forms of colour
// blindness (without yellow, too pale for lines, and vermilion, too near the
// red of marked points), then darker ones from Paul Tol's schemes. Colour
// alone cannot keep ten series apart for every reader, nor in greyscale: each
// series also has its own marker shape, filled or hollow (see markers).
// Series beyond the twelfth reuse both with a dash pattern.
var palette = []color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0x88, 0x22, 0x55, 0xff}, // wine
	{0x99, 0x99, 0x33, 0xff}, // olive
	{0x33, 0x22, 0x88, 0xff}, // indigo
	{0x77, 0x77, 0x77, 0xff}, // grey
	{0x44, 0xaa, 0x99, 0xff}, // teal
	{0x8c, 0x56, 0x4b, 0xff}, // brown
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

// seriesStyle returns the colour, marker and dash pattern of the i-th
// series: twelve distinct colour and marker pairs, then the same with a dash
// pattern, and so on.
func seriesStyle(i int) (color.RGBA, marker, []vg.Length) {
	return palette[i%len(palette)], markers[i%len(markers)], dashes[(i/len(palette))%len(dashes)]
}

// mix returns the opaque colour a fraction t of the way from a to b.
func mix(a, b color.RGBA, t float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xff}
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
	g.Horizontal.Color, g.Horizontal.Width = gridColor, vg.Points(0.5)
	g.Vertical = g.Horizontal
	if !vertical {
		g.Vertical.Color = nil // not drawn
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
	w := legendRoom(p)
	if w == 0 {
		return nil
	}
	return []plot.GlyphBox{{X: 1, Y: 0.5, Rectangle: vg.Rectangle{Max: vg.Point{X: w}}}}
}

// legendRoom is the width of p's legend and the gap before it, 0 without
// a legend.
func legendRoom(p *plot.Plot) vg.Length {
	r := p.Legend.Rectangle(draw.Canvas{})
	if w := r.Max.X - r.Min.X; w > 0 {
		return w + vg.Points(legendGap)
	}
	return 0
}
