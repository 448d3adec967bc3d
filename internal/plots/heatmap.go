package plots

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatRow is one row of a HeatMap: a series (a sub-experiment) and its
// value in each column (payload).
type HeatRow struct {
	// Name is written above the row's cells.
	Name string
	// Values holds one value per column; NaN marks a missing value, drawn
	// as an empty grey cell.
	Values []float64
	// Marked, when Marked[i] is set, caps cell i with a black bar along its
	// top, e.g. the worst value of its column. It may be shorter than
	// Values.
	Marked []bool
}

// heatRamp is the colour scale of heat maps, from the lowest value to the
// highest: ColorBrewer's YlOrRd, sequential, ordered in lightness so that it
// reads in greyscale and for the common forms of colour blindness.
var heatRamp = []color.RGBA{
	{0xff, 0xff, 0xcc, 0xff},
	{0xfe, 0xd9, 0x76, 0xff},
	{0xfd, 0x8d, 0x3c, 0xff},
	{0xe3, 0x1a, 0x1c, 0xff},
	{0x80, 0x00, 0x26, 0xff},
}

// missingColor fills the cell of a missing value.
var missingColor = color.Gray{0xee}

// Layout of a heat map row, in points: the gap between neighbouring cells,
// the padding of a cell's text, and the bar that caps a marked cell (which
// takes no width from the cell's label, the room narrow cells lack).
const (
	heatGap = 1
	heatPad = 2
	heatCap = 3
)

// HeatMap draws rows × columns cells, one row per series with its name
// above it and one column per category (payload), each cell coloured by
// its value on one scale for the whole map and labelled with format(value)
// (on two lines, split at its first space, when one is too wide for the
// cell; not at all when two are). The colour scale is logarithmic when the
// values span more than LogRatio; the legend shows the colours of the
// lowest value, of the middle of the scale and of the highest, with those
// values. Unlike one line per series, ten series stay as easy to read as
// two, and each value can be read off exactly. The figure grows taller
// with the rows so that each keeps room for its name and its labels.
func HeatMap(title, xLabel string, categories []string, rows []HeatRow, format func(float64) string) *plot.Plot {
	p := newPlot(title, xLabel, "")
	h := &heatCells{rows: rows, k: len(categories), format: format, lo: math.Inf(1), hi: math.Inf(-1)}
	for _, r := range rows {
		h.k = max(h.k, len(r.Values))
		_, _, lo, hi := dataRange(r.Values, index, finite)
		h.lo, h.hi = min(h.lo, lo), max(h.hi, hi)
		h.marked = h.marked || slices.Contains(r.Marked, true)
	}
	h.log = UseLogScale(h.lo, h.hi)
	p.Add(h, legendSpace{})

	p.X.Min, p.X.Max = -0.5, max(float64(h.k)-0.5, 0.5)
	p.X.Tick.Marker = categoryTicks(categories)
	p.X.Tick.Label = categoryTickStyle(p.X.Tick.Label, categories)
	p.Y.Min, p.Y.Max = 0, max(float64(len(rows)), 1)
	p.Y.Tick.Marker = heatTicks{h}
	p.Y.Tick.Length = 0
	p.Y.LineStyle.Width = 0
	p.Y.Padding = 0

	if h.lo <= h.hi {
		p.Legend.Add(format(h.lo)+" (lowest)", heatSwatch{h.color(h.lo)})
		if h.hi > h.lo {
			mid := (h.lo + h.hi) / 2
			if h.log {
				mid = math.Sqrt(h.lo * h.hi)
			}
			p.Legend.Add(format(mid), heatSwatch{h.color(mid)})
			p.Legend.Add(format(h.hi)+" (highest)", heatSwatch{h.color(h.hi)})
		}
	}
	if h.missing() {
		p.Legend.Add("no value", heatSwatch{missingColor})
	}
	return p
}

// heatCells draws the rows of a HeatMap over the whole data area, first row
// on top.
type heatCells struct {
	rows   []HeatRow
	k      int // columns
	format func(float64) string
	lo, hi float64 // value range; lo > hi when there is no value
	log    bool
	marked bool // some cell is marked: every cell has room for the cap
}

// missing reports whether a cell has no value.
func (h *heatCells) missing() bool {
	return slices.ContainsFunc(h.rows, func(r HeatRow) bool {
		return len(r.Values) < h.k || slices.ContainsFunc(r.Values, func(v float64) bool { return !finite(v) })
	})
}

// color returns the colour of value v on the map's scale.
func (h *heatCells) color(v float64) color.Color {
	f := 0.5
	switch {
	case h.hi <= h.lo:
	case h.log:
		f = math.Log(v/h.lo) / math.Log(h.hi/h.lo)
	default:
		f = (v - h.lo) / (h.hi - h.lo)
	}
	f = min(max(f, 0), 1) * float64(len(heatRamp)-1)
	i := min(int(f), len(heatRamp)-2)
	return mix(heatRamp[i], heatRamp[i+1], f-float64(i))
}

// textStyle is the style of the row names and cell labels: the plot's tick
// labels (which the page layout enlarges), unturned.
func textStyle(p *plot.Plot) text.Style {
	return text.Style{Color: color.Black, Font: p.Y.Tick.Label.Font, Handler: p.Y.Tick.Label.Handler}
}

// nameHeight and lineHeight are the heights of a row's name line and of
// one line of a cell's label.
func nameHeight(sty text.Style) vg.Length { return sty.Height("Xg") + heatPad }
func lineHeight(sty text.Style) vg.Length { return sty.Height("Xg") }

// labelLines returns the lines of the label of value v in a cell of width
// w: one line, two (split at the first space), or none when even two do
// not fit.
func (h *heatCells) labelLines(sty text.Style, v float64, w vg.Length) []string {
	s := h.format(v)
	room := w - 2*heatGap - 1 // a hair of colour either side
	if sty.Width(s) <= room {
		return []string{s}
	}
	if a, b, ok := strings.Cut(s, " "); ok && sty.Width(a) <= room && sty.Width(b) <= room {
		return []string{a, b}
	}
	return nil
}

// rowHeight returns the height a row needs when its cells are w wide: its
// name, and its cells as high as their longest label.
func (h *heatCells) rowHeight(sty text.Style, w vg.Length) vg.Length {
	lines := 1
	for _, r := range h.rows {
		for _, v := range r.Values {
			if finite(v) {
				lines = max(lines, len(h.labelLines(sty, v, w)))
			}
		}
	}
	return nameHeight(sty) + vg.Length(lines)*lineHeight(sty) + 2*heatPad + 2*heatGap + h.capRoom()
}

// capRoom is the height at the top of each cell kept for the cap of a
// marked cell.
func (h *heatCells) capRoom() vg.Length {
	if h.marked {
		return heatCap
	}
	return 0
}

// Plot implements plot.Plotter.
func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	n := len(h.rows)
	if n == 0 || h.k == 0 {
		return
	}
	sty := textStyle(p)
	cw := (c.Max.X - c.Min.X) / vg.Length(h.k)
	rh := (c.Max.Y - c.Min.Y) / vg.Length(n)
	nh := nameHeight(sty)
	for i, r := range h.rows {
		top := c.Max.Y - vg.Length(i)*rh
		name := sty
		name.YAlign = draw.YTop
		c.FillText(name, vg.Point{X: c.Min.X + heatGap, Y: top}, r.Name)
		y0, y1 := top-rh+heatGap, top-nh-heatGap
		for j := 0; j < h.k; j++ {
			x0 := c.Min.X + vg.Length(j)*cw + heatGap
			x1 := x0 + cw - 2*heatGap
			rect := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}
			v := math.NaN()
			if j < len(r.Values) {
				v = r.Values[j]
			}
			if !finite(v) {
				c.SetColor(missingColor)
				c.Fill(rect.Path())
				continue
			}
			fill := h.color(v)
			c.SetColor(fill)
			c.Fill(rect.Path())
			label := sty
			label.XAlign, label.YAlign = draw.XCenter, draw.YCenter
			if dark(fill) {
				label.Color = color.White
			}
			lines := h.labelLines(sty, v, cw)
			lh := lineHeight(sty)
			mid := (y0 + y1 - h.capRoom()) / 2
			for l, s := range lines {
				y := mid + (vg.Length(len(lines)-1)/2-vg.Length(l))*lh
				c.FillText(label, vg.Point{X: (x0 + x1) / 2, Y: y}, s)
			}
			if j < len(r.Marked) && r.Marked[j] {
				drawCap(&c, rect)
			}
		}
	}
}

// dark reports whether black text would be hard to read on c.
func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return 0.299*float64(r>>8)+0.587*float64(g>>8)+0.114*float64(b>>8) < 140
}

// heatTicks is the y axis of a heat map: no ticks (the rows are named
// above their cells), and the rows' height needs (see heatHeight).
type heatTicks struct{ h *heatCells }

// Ticks implements plot.Ticker.
func (heatTicks) Ticks(float64, float64) []plot.Tick { return nil }

// heatAir is the most a heat map's row is stretched beyond the height it
// needs: a few rows get a shorter figure rather than tall cells.
const heatAir = 3

// heatHeight returns h, changed when p is a heat map whose rows, drawn
// w × h, would have too little room (then the figure grows until every
// row has room for its name and its labels) or more than heatAir times
// what they need (then it shrinks to that).
func heatHeight(p *plot.Plot, w, h vg.Length) vg.Length {
	t, ok := p.Y.Tick.Marker.(heatTicks)
	if !ok || len(t.h.rows) == 0 || t.h.k == 0 {
		return h
	}
	dc := p.DataCanvas(inMargin(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}))
	cw := (dc.Max.X - dc.Min.X) / vg.Length(t.h.k)
	need := vg.Length(len(t.h.rows)) * t.h.rowHeight(textStyle(p), cw)
	have := dc.Max.Y - dc.Min.Y
	return h + max(0, need-have) - max(0, have-heatAir*need)
}

// heatSwatch is the legend thumbnail of a colour of a heat map.
type heatSwatch struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s heatSwatch) Thumbnail(c *draw.Canvas) {
	c.SetColor(s.c)
	c.Fill(c.Rectangle.Path())
}

// MarkedCellThumbnail is the legend thumbnail of the marked cells of a
// heat map, for callers that explain them in the legend.
type MarkedCellThumbnail struct{}

// Thumbnail implements plot.Thumbnailer: a pale cell with its cap.
func (MarkedCellThumbnail) Thumbnail(c *draw.Canvas) {
	c.SetColor(heatRamp[0])
	c.Fill(c.Rectangle.Path())
	drawCap(c, c.Rectangle)
}

// drawCap caps cell r with a black bar along its top, lined below with
// white so that it stands out on the darkest cells too.
func drawCap(c *draw.Canvas, r vg.Rectangle) {
	bar := vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: r.Max.Y - heatCap}, Max: r.Max}
	c.SetColor(color.White)
	c.Fill(vg.Rectangle{Min: vg.Point{X: r.Min.X, Y: bar.Min.Y - 0.75}, Max: bar.Min.Add(vg.Point{X: r.Max.X - r.Min.X})}.Path())
	c.SetColor(color.Black)
	c.Fill(bar.Path())
}
