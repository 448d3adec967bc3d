package plots

import (
	"image"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of a figure in an HTML page (SVG), before the legend, which goes
// below it. A page shows a plot as wide as a phone's screen (about 360 CSS
// pixels of a 400-pixel screen) or a third of a laptop's (about 400): at
// 4 in, that is 1.25 to 1.4 pixels per point, so that the page's fonts
// (pageTickSize and up) are 12 pixels or more on both.
const (
	PageWidth  = 4 * vg.Inch
	PageHeight = 3.4 * vg.Inch
)

// Font sizes of page figures, in points.
const (
	pageTitleSize  = 12
	pageLabelSize  = 11
	pageTickSize   = 10
	pageLegendSize = 10
)

// Legend of page figures: columns of entries below the data.
const (
	legendColumnGap = 14
	legendRowGap    = 2
)

// SVG renders p for an HTML page, as an SVG document. A page figure is laid
// out for the page rather than for a file: PageWidth wide, with larger
// fonts, the title wrapped to the width, category labels turned when they
// no longer fit side by side, and the legend in columns below the data
// area instead of beside it. p itself is not changed; Encode and Save draw
// it as before.
func SVG(p *plot.Plot) ([]byte, error) {
	f := newPageFigure(p)
	return svgDocument(f.w, f.h+f.lh, f.draw)
}

// pageFigure is a plot laid out for a page: the plot, drawn in the upper
// part, and its legend, in cols columns of rows rows below it.
type pageFigure struct {
	q            *plot.Plot
	leg          plot.Legend
	w, h, lh     vg.Length // width, height of the plot, height of the legend
	cols, rows   int
	entryW, step vg.Length // width of a legend entry, height of a row
}

func newPageFigure(p *plot.Plot) *pageFigure {
	f := &pageFigure{w: PageWidth}
	f.q, f.leg = pageLayout(p)
	f.h = pageHeight(f.q)
	f.cols, f.rows, f.entryW, f.step = legendGrid(&f.leg, f.w-2*vg.Points(margin))
	if f.rows > 0 {
		f.lh = vg.Length(f.rows)*f.step - vg.Points(legendRowGap) + vg.Points(margin)
	}
	return f
}

// draw draws the figure on c, which is f.w × (f.h + f.lh) large.
func (f *pageFigure) draw(c vg.Canvas) {
	dc := whiteCanvas(c, f.w, f.h+f.lh)
	drawPlot(f.q, inMargin(draw.Crop(dc, 0, 0, f.lh, 0)))
	if f.rows == 0 {
		return
	}
	// Centred below the data.
	gap := vg.Points(legendColumnGap)
	left := (f.w - vg.Length(f.cols)*(f.entryW+gap) + gap) / 2
	top := f.lh - vg.Points(margin)/2
	lc := draw.Canvas{
		Canvas: &legendColumns{Canvas: c, top: top - f.leg.TextStyle.FontExtents().Descent,
			step: f.step, rows: f.rows, colW: f.entryW + gap},
		Rectangle: vg.Rectangle{Min: vg.Point{X: left}, Max: vg.Point{X: left + f.entryW, Y: top}},
	}
	f.leg.Draw(lc)
}

// pageLayout returns a copy of p laid out for a page figure, and p's legend
// in page fonts, to be drawn below it. The copy shares p's plotters (which
// must not change) and has an empty legend, so that legendSpace reserves no
// room beside the data.
func pageLayout(p *plot.Plot) (*plot.Plot, plot.Legend) {
	q := *p
	resize := func(s *text.Style, size vg.Length) { s.Font = font.From(s.Font, size) }
	resize(&q.Title.TextStyle, pageTitleSize)
	for _, a := range []*plot.Axis{&q.X, &q.Y} {
		resize(&a.Label.TextStyle, pageLabelSize)
		resize(&a.Tick.Label, pageTickSize)
	}
	leg := p.Legend
	resize(&leg.TextStyle, pageLegendSize)
	leg.Left, leg.Top = true, true
	leg.XOffs, leg.YOffs = 0, 0
	leg.Padding = vg.Points(legendRowGap)
	q.Legend = plot.Legend{TextStyle: leg.TextStyle, Top: p.Legend.Top, Left: p.Legend.Left,
		ThumbnailWidth: p.Legend.ThumbnailWidth, YPosition: p.Legend.YPosition, Padding: p.Legend.Padding}

	inner := PageWidth - 2*vg.Points(margin)
	q.Title.Text = wrapText(q.Title.TextStyle, q.Title.Text, inner)
	yw, widest := yAxisWidth(&q)
	pageCategoryAxis(&q, inner-(yw+widest))
	return &q, leg
}

// pageCategoryAxis lays out the category labels of q (a plot.ConstantTicks
// x axis, as CategoryLines and the history plots draw) for the data width w
// of a page figure: turned by 45° when they do not fit side by side, every
// k-th kept (counted back from the last, the newest experiment of a
// history) when even turned they would overlap, and room made at the left
// for the first one.
func pageCategoryAxis(q *plot.Plot, w vg.Length) {
	ticks, ok := q.X.Tick.Marker.(plot.ConstantTicks)
	if !ok || len(ticks) == 0 || !(q.X.Max > q.X.Min) {
		return
	}
	var labelled []int
	var widest vg.Length
	for i, t := range ticks {
		if t.Label != "" {
			labelled = append(labelled, i)
			widest = max(widest, q.X.Tick.Label.Width(t.Label))
		}
	}
	if len(labelled) == 0 {
		return
	}
	n := vg.Length(len(labelled))
	if q.X.Tick.Label.Rotation == 0 {
		if n*(widest+vg.Points(6)) <= w {
			return
		}
		q.X.Tick.Label = turned(q.X.Tick.Label)
	}
	// Turned labels are a line height times √2 apart at least, and a
	// little more.
	room := q.X.Tick.Label.Height("X")*math.Sqrt2 + vg.Points(2)
	if k := int(math.Ceil(float64(n * room / w))); k > 1 {
		thinned := slices.Clone(ticks)
		for j, i := range labelled {
			if (len(labelled)-1-j)%k != 0 {
				thinned[i].Label = ""
			}
		}
		ticks = thinned
		q.X.Tick.Marker = thinned
	}
	for _, t := range ticks {
		if t.Label != "" {
			offset := vg.Length((t.Value-q.X.Min)/(q.X.Max-q.X.Min)) * w
			q.Y.Label.Padding = vg.Points(4) + max(0, leftOverhang(q, t.Label)-offset)
			return
		}
	}
}

// yAxisWidth returns the width of q's y axis, w + widest: label, padding,
// tick and padding (w), and the widest tick label.
func yAxisWidth(q *plot.Plot) (w, widest vg.Length) {
	w = q.Y.Label.TextStyle.Height(q.Y.Label.Text) + q.Y.Label.Padding + q.Y.Tick.Length + q.Y.Padding
	for _, t := range q.Y.Tick.Marker.Ticks(q.Y.Min, q.Y.Max) {
		widest = max(widest, q.Y.Tick.Label.Width(t.Label))
	}
	return w, widest
}

// pageHeight returns the height of the page figure of q, legend aside: the
// page height, and more when turned category labels need it, so that the
// data area keeps its height, or when the rows of a HeatMap need it.
func pageHeight(q *plot.Plot) vg.Length {
	h := PageHeight
	if q.X.Tick.Label.Rotation == 0 {
		return heatHeight(q, PageWidth, h)
	}
	flat := q.X.Tick.Label
	flat.Rotation = 0
	var extra vg.Length
	for _, t := range q.X.Tick.Marker.Ticks(q.X.Min, q.X.Max) {
		if t.Label == "" {
			continue
		}
		r := q.X.Tick.Label.Rectangle(t.Label)
		extra = max(extra, r.Max.Y-r.Min.Y-flat.Height(t.Label))
	}
	return heatHeight(q, PageWidth, h+min(extra, 1.5*vg.Inch))
}

// wrapText breaks the lines of s at spaces so that each fits in width w in
// style sty; a word wider than w stands on a line of its own.
func wrapText(sty text.Style, s string, w vg.Length) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if sty.Width(line) <= w {
			out = append(out, line)
			continue
		}
		cur := ""
		for _, word := range strings.Fields(line) {
			switch {
			case cur == "":
				cur = word
			case sty.Width(cur+" "+word) > w:
				out, cur = append(out, cur), word
			default:
				cur += " " + word
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// legendGrid returns the layout of the entries of leg in columns within
// width w: the number of columns and rows (rows is 0 for an empty legend),
// the width of an entry and the height of a row.
func legendGrid(leg *plot.Legend, w vg.Length) (cols, rows int, entryW, step vg.Length) {
	r := leg.Rectangle(draw.Canvas{})
	entryW, height := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	if entryW <= 0 || height <= 0 {
		return 0, 0, 0, 0
	}
	// Legend.Rectangle is n entries high, each as high as one line of
	// text, with Padding between them.
	step = leg.TextStyle.Rectangle("X").Max.Y + leg.Padding
	n := int(math.Round(float64((height + leg.Padding) / step)))
	gap := vg.Points(legendColumnGap)
	cols = max(1, min(n, int((w+gap)/(entryW+gap))))
	rows = (n + cols - 1) / cols
	cols = (n + rows - 1) / rows // as few columns as the rows need
	return cols, rows, entryW, step
}

// legendColumns is the canvas a one-column legend is drawn on to lay its
// entries out in columns: each drawing of entry i (found from its height
// below top, one row per step; Legend.Draw puts the entries one step apart
// from its top less the font's descent) is moved to column i/rows, row
// i%rows.
type legendColumns struct {
	vg.Canvas
	top, step, colW vg.Length
	rows            int
}

// offset returns how far to move what is drawn at height y.
func (l *legendColumns) offset(y vg.Length) vg.Point {
	i := max(0, int(math.Floor(float64((l.top-y)/l.step))))
	col := i / l.rows
	return vg.Point{X: vg.Length(col) * l.colW, Y: vg.Length(col*l.rows) * l.step}
}

func (l *legendColumns) movePath(p vg.Path) vg.Path {
	var y vg.Length
	var k int
	for _, c := range p {
		if c.Type != vg.CloseComp {
			y += c.Pos.Y
			k++
		}
	}
	if k == 0 {
		return p
	}
	off := l.offset(y / vg.Length(k))
	out := make(vg.Path, len(p))
	for i, c := range p {
		c.Pos = c.Pos.Add(off)
		c.Control = slices.Clone(c.Control)
		for j := range c.Control {
			c.Control[j] = c.Control[j].Add(off)
		}
		out[i] = c
	}
	return out
}

// Stroke implements vg.Canvas.
func (l *legendColumns) Stroke(p vg.Path) { l.Canvas.Stroke(l.movePath(p)) }

// Fill implements vg.Canvas.
func (l *legendColumns) Fill(p vg.Path) { l.Canvas.Fill(l.movePath(p)) }

// FillString implements vg.Canvas.
func (l *legendColumns) FillString(f font.Face, pt vg.Point, s string) {
	l.Canvas.FillString(f, pt.Add(l.offset(pt.Y)), s)
}

// DrawImage implements vg.Canvas.
func (l *legendColumns) DrawImage(r vg.Rectangle, img image.Image) {
	off := l.offset((r.Min.Y + r.Max.Y) / 2)
	l.Canvas.DrawImage(vg.Rectangle{Min: r.Min.Add(off), Max: r.Max.Add(off)}, img)
}
