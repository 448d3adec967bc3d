package history

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/stats"
)

// Colours of change points: magenta for a slowdown (apart from the red of
// requirements and of the marks over them), green for a speed-up; segment
// medians in grey.
var (
	slowerColor  = color.RGBA{0xc0, 0x00, 0xa0, 0xff}
	fasterColor  = color.RGBA{0x1a, 0x98, 0x50, 0xff}
	segmentColor = color.RGBA{0x55, 0x55, 0x55, 0xff}
	windowColor  = color.RGBA{0x99, 0x99, 0x99, 0xff}
)

func changeColor(slower bool) color.RGBA {
	if slower {
		return slowerColor
	}
	return fasterColor
}

// vLine draws a vertical line across the data area between experiment
// at−1 and experiment at: at a change point, dashed, between the last
// experiment of the old segment and the first of the new one; or where
// change-point detection starts when it does not look at every experiment.
type vLine struct {
	at    int
	style draw.LineStyle
}

var changeDashes = []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}

var windowStyle = draw.LineStyle{Color: windowColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1), vg.Points(3)}}

func changeStyle(slower bool) draw.LineStyle {
	return draw.LineStyle{Color: changeColor(slower), Width: vg.Points(1.5), Dashes: changeDashes}
}

// Plot implements plot.Plotter.
func (l vLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	if x := trX(float64(l.at) - 0.5); x >= c.Min.X && x <= c.Max.X {
		c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
	}
}

// shiftText is a ratio as a signed percentage: 1.231 → "+23.1 %".
func shiftText(r float64) string {
	if math.IsInf(r, 1) {
		return "from 0"
	}
	return fmt.Sprintf("%+.1f %%", (r-1)*100)
}

// segmentMedians draws each segment's median as a horizontal line over the
// segment's experiments.
type segmentMedians struct {
	segs  [][3]float64 // from, to (experiment indices, inclusive), median
	style draw.LineStyle
}

func newSegmentMedians(y []float64, from int, cps []changepoint.ChangePoint) *segmentMedians {
	bounds := []int{from}
	for _, c := range cps {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, len(y))
	s := &segmentMedians{style: draw.LineStyle{Color: segmentColor, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(1.5), vg.Points(1.5)}}}
	for i := 0; i+1 < len(bounds); i++ {
		if v := finite(y[bounds[i]:bounds[i+1]]); len(v) > 0 {
			s.segs = append(s.segs, [3]float64{float64(bounds[i]), float64(bounds[i+1] - 1), stats.Median(v)})
		}
	}
	return s
}

// Plot implements plot.Plotter.
func (s *segmentMedians) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, g := range s.segs {
		y := trY(g[2])
		c.StrokeLines(s.style, c.ClipLinesXY([]vg.Point{{X: trX(g[0] - 0.4), Y: y}, {X: trX(g[1] + 0.4), Y: y}})...)
	}
}

// changeMarks draws a triangle at each change point of several series (a
// magnitude plot's payloads): pointing up, red, for a slowdown; down, green,
// for a speed-up.
type changeMarks struct {
	magnitude string
	points    []markPoint
}

type markPoint struct {
	x, y   float64
	slower bool
	// up: the values rose at the change (a slower latency, a faster
	// throughput); the triangle points the way they went.
	up bool
}

func newChangeMarks(magnitude string, values [][]float64, changes []SeriesChanges) *changeMarks {
	m := &changeMarks{magnitude: magnitude}
	for p, sc := range changes {
		for _, c := range sc.ChangePoints {
			y := values[p][c.Index]
			if math.IsNaN(y) {
				continue
			}
			m.points = append(m.points, markPoint{x: float64(c.Index), y: y, slower: regressed(magnitude, c.Ratio), up: c.Ratio > 1})
		}
	}
	return m
}

// Plot implements plot.Plotter.
func (m *changeMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, pt := range m.points {
		c.DrawGlyph(changeGlyph(pt.slower, pt.up), vg.Point{X: trX(pt.x), Y: trY(pt.y)})
	}
}

func changeGlyph(slower, up bool) draw.GlyphStyle {
	return draw.GlyphStyle{Color: changeColor(slower), Radius: vg.Points(5), Shape: triangle{up: up}}
}

// triangle is an outlined triangle, pointing up or down, around the point:
// outlined so that the series' own marker stays visible inside.
type triangle struct{ up bool }

// DrawGlyph implements draw.GlyphDrawer.
func (t triangle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.4
	d := vg.Length(1)
	if !t.up {
		d = -1
	}
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + d*r})
	p.Line(vg.Point{X: pt.X - r*0.866, Y: pt.Y - d*r*0.5})
	p.Line(vg.Point{X: pt.X + r*0.866, Y: pt.Y - d*r*0.5})
	p.Close()
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.6)})
	c.Stroke(p)
}

// maxChangeEntries is the most change points a payload plot's legend
// names one by one; beyond, it counts them.
const maxChangeEntries = 4

// addChanges marks the change points of one series on a payload plot: the
// segment medians, a line at each change point, named in the legend with
// its shift and first experiment, and, when detection did not look at every
// experiment, where it started.
func addChanges(p *plot.Plot, magnitude string, y []float64, labels []string, sc *SeriesChanges) {
	if sc == nil {
		return
	}
	if sc.From > 0 {
		addWindow(p, sc.From, len(y))
	}
	if sc.Reason != "" {
		return
	}
	med := newSegmentMedians(y, sc.From, sc.ChangePoints)
	p.Add(med)
	p.Legend.Add("segment median", &plotter.Line{LineStyle: med.style})
	for _, c := range sc.ChangePoints {
		p.Add(vLine{at: c.Index, style: changeStyle(regressed(magnitude, c.Ratio))})
	}
	if len(sc.ChangePoints) <= maxChangeEntries {
		for _, c := range sc.ChangePoints {
			ch := Change{Magnitude: magnitude, ChangePoint: c}
			p.Legend.Add(fmt.Sprintf("%s %s from %s", ch.Direction(), shiftText(c.Ratio), labels[c.Index]),
				&plotter.Line{LineStyle: changeStyle(ch.Slower())})
		}
		return
	}
	slower := countFunc(sc.ChangePoints, func(c changepoint.ChangePoint) bool { return regressed(magnitude, c.Ratio) })
	addCounts(p, slower, len(sc.ChangePoints)-slower, func(s bool) plot.Thumbnailer { return &plotter.Line{LineStyle: changeStyle(s)} })
}

// addChangeMarks marks the change points of every payload on a magnitude
// plot.
func addChangeMarks(p *plot.Plot, magnitude string, values [][]float64, changes []SeriesChanges, from int) {
	if changes == nil {
		return
	}
	if from > 0 && len(values) > 0 {
		addWindow(p, from, len(values[0]))
	}
	m := newChangeMarks(magnitude, values, changes)
	if len(m.points) == 0 {
		return
	}
	p.Add(m)
	slower := countFunc(m.points, func(pt markPoint) bool { return pt.slower })
	// A slowdown's triangle points the way a slower value goes.
	addCounts(p, slower, len(m.points)-slower, func(s bool) plot.Thumbnailer {
		return &plotter.Scatter{GlyphStyle: changeGlyph(s, regressed(magnitude, 2) == s)}
	})
}

// addWindow marks on p where change-point detection started, at
// experiment from of n, and says so in the legend.
func addWindow(p *plot.Plot, from, n int) {
	p.Add(vLine{at: from, style: windowStyle})
	p.Legend.Add(fmt.Sprintf("change points looked for from here (newest %d)", n-from), &plotter.Line{LineStyle: windowStyle})
}

// addCounts names in p's legend how many of the change points marked are
// slowdowns and how many speed-ups, each with the thumbnail thumb gives.
func addCounts(p *plot.Plot, slower, faster int, thumb func(slower bool) plot.Thumbnailer) {
	if slower > 0 {
		p.Legend.Add(fmt.Sprintf("change point: slower (%d)", slower), thumb(true))
	}
	if faster > 0 {
		p.Legend.Add(fmt.Sprintf("change point: faster (%d)", faster), thumb(false))
	}
}
