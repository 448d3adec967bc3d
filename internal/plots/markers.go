package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Shapes of the markers.
const (
	shapeCircle = iota
	shapeSquare
	shapeTriangleUp
	shapeTriangleDown
	shapeDiamond
	shapePlus
	shapeAsterisk
)

// marker is a marker shape, filled with the series colour or hollow: a white
// inside, so that the line through it does not hide the shape, and a
// stroked outline. Filled and hollow markers alternate from series to series
// so that they differ in greyscale and for readers who do not tell the
// colours apart. Plus and asterisk are strokes only.
type marker struct {
	shape  int
	hollow bool
}

var _ draw.GlyphDrawer = marker{}

// markers are the marker of the first, second, ... series: twelve distinct
// shapes (the colours repeat with them, see seriesStyle).
var markers = []marker{
	{shapeCircle, false},
	{shapeSquare, true},
	{shapeTriangleUp, false},
	{shapeDiamond, true},
	{shapeSquare, false},
	{shapeCircle, true},
	{shapeTriangleDown, false},
	{shapePlus, false},
	{shapeDiamond, false},
	{shapeTriangleUp, true},
	{shapeTriangleDown, true},
	{shapeAsterisk, false},
}

// markerStroke is the outline width of hollow markers and the stroke of
// plus and asterisk.
const markerStroke = 1.2

// DrawGlyph implements draw.GlyphDrawer.
func (m marker) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(markerStroke)}
	switch m.shape {
	case shapePlus, shapeAsterisk:
		r *= 1.2
		c.StrokeLine2(ls, pt.X-r, pt.Y, pt.X+r, pt.Y)
		c.StrokeLine2(ls, pt.X, pt.Y-r, pt.X, pt.Y+r)
		if m.shape == shapeAsterisk {
			d := r * vg.Length(math.Sqrt2/2)
			c.StrokeLine2(ls, pt.X-d, pt.Y-d, pt.X+d, pt.Y+d)
			c.StrokeLine2(ls, pt.X-d, pt.Y+d, pt.X+d, pt.Y-d)
		}
		return
	}
	var p vg.Path
	switch m.shape {
	case shapeCircle:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
	case shapeSquare:
		s := r * 0.9
		p.Move(vg.Point{X: pt.X - s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y + s})
		p.Line(vg.Point{X: pt.X - s, Y: pt.Y + s})
	case shapeTriangleUp, shapeTriangleDown:
		s := r * 1.25
		dir := vg.Length(1)
		if m.shape == shapeTriangleDown {
			dir = -1
		}
		// The centroid on pt.
		p.Move(vg.Point{X: pt.X, Y: pt.Y + dir*s})
		p.Line(vg.Point{X: pt.X - s*0.866, Y: pt.Y - dir*s*0.5})
		p.Line(vg.Point{X: pt.X + s*0.866, Y: pt.Y - dir*s*0.5})
	case shapeDiamond:
		s := r * 1.25
		p.Move(vg.Point{X: pt.X, Y: pt.Y + s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y})
		p.Line(vg.Point{X: pt.X, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X - s, Y: pt.Y})
	}
	p.Close()
	if m.hollow {
		c.SetColor(color.White)
		c.Fill(p)
		c.SetLineStyle(ls)
		c.Stroke(p)
		return
	}
	c.SetColor(sty.Color)
	c.Fill(p)
}
