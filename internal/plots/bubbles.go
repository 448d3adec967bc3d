package plots

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/mqgate/mqgate/internal/result"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bubble is one point of a Bubbles plot: category X, value Y, and the
// Value its size and colour show, written on it as Label.
type Bubble struct {
	X     int
	Y     float64
	Value float64
	Label string
}

// Ramp is the colour of the smallest value (Low) and of the largest (High)
// of a Bubbles plot; values between are interpolated.
type Ramp struct{ Low, High color.RGBA }

// Colour ramps of the burst scatter plots: blue to green for throughput
// (matplotlib's brg without its red end), white-red to dark red for lost
// samples (matplotlib's Reds).
var (
	RampThroughput = Ramp{Low: color.RGBA{0x00, 0x00, 0xff, 0xff}, High: color.RGBA{0x00, 0xa0, 0x00, 0xff}}
	RampLost       = Ramp{Low: color.RGBA{0xfc, 0xbb, 0xa1, 0xff}, High: color.RGBA{0x67, 0x00, 0x0d, 0xff}}
)

// Bubble areas, in square points, of the smallest and the largest value
// (seaborn's sizes=(10, 1000) of the Fast-RTPS scatter plots).
const (
	bubbleMinArea = 10
	bubbleMaxArea = 1000
)

// Bubbles is a scatter plot over categories on x (e.g. demands) and values
// on y (e.g. recovery times) whose circles grow and change colour with
// their Value, each labelled with it, translucent so that overlaps show.
func Bubbles(title, xLabel, yLabel string, categories []string, bubbles []Bubble, ramp Ramp) *plot.Plot {
	p := newPlot(title, xLabel, yLabel)
	addGrid(p, true)
	b := &bubbleSet{bubbles: bubbles, ramp: ramp, lo: math.Inf(1), hi: math.Inf(-1)}
	for _, x := range bubbles {
		b.lo, b.hi = min(b.lo, x.Value), max(b.hi, x.Value)
	}
	p.Add(b)
	p.X.Min, p.X.Max = -0.5, max(float64(len(categories))-0.5, 0.5)
	p.X.Tick.Marker = categoryTicks(categories)
	if len(bubbles) == 0 {
		p.Y.Min, p.Y.Max = 0, 1
	}
	return p
}

// bubbleSet draws the bubbles of a Bubbles plot.
type bubbleSet struct {
	bubbles []Bubble
	ramp    Ramp
	lo, hi  float64 // value range
}

// frac places v in the value range, 0 to 1.
func (b *bubbleSet) frac(v float64) float64 {
	if b.hi <= b.lo {
		return 1
	}
	return (v - b.lo) / (b.hi - b.lo)
}

// radius of the bubble of value v.
func (b *bubbleSet) radius(v float64) vg.Length {
	area := bubbleMinArea + b.frac(v)*(bubbleMaxArea-bubbleMinArea)
	return vg.Points(math.Sqrt(area / math.Pi))
}

// color of the bubble of value v, 65% opaque.
func (b *bubbleSet) color(v float64) color.NRGBA {
	c := mix(b.ramp.Low, b.ramp.High, b.frac(v))
	return color.NRGBA{c.R, c.G, c.B, 0xa6}
}

// DataRange implements plot.DataRanger.
func (b *bubbleSet) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, x := range b.bubbles {
		xmin, xmax = min(xmin, float64(x.X)), max(xmax, float64(x.X))
		ymin, ymax = min(ymin, x.Y), max(ymax, x.Y)
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer, so that no bubble is clipped.
func (b *bubbleSet) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	boxes := make([]plot.GlyphBox, len(b.bubbles))
	for i, x := range b.bubbles {
		r := b.radius(x.Value)
		boxes[i] = plot.GlyphBox{X: p.X.Norm(float64(x.X)), Y: p.Y.Norm(x.Y), Rectangle: vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}}
	}
	return boxes
}

// Plot implements plot.Plotter: the bubbles, then every label above them.
func (b *bubbleSet) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, x := range b.bubbles {
		c.DrawGlyph(draw.GlyphStyle{Color: b.color(x.Value), Radius: b.radius(x.Value), Shape: draw.CircleGlyph{}},
			vg.Point{X: trX(float64(x.X)), Y: trY(x.Y)})
	}
	sty := text.Style{Color: color.Black, Font: font.From(textFont, tickSize), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: p.Title.TextStyle.Handler}
	for _, x := range b.bubbles {
		c.FillText(sty, vg.Point{X: trX(float64(x.X)), Y: trY(x.Y)}, x.Label)
	}
}

// BurstScatterFileNames are the names of the two scatter plots of a
// payload of a burst measurements file, as the Fast-RTPS script names them.
func BurstScatterFileNames(payload int, f Format) (throughput, lost string) {
	return fmt.Sprintf("throughput_scatterplot_%d%s", payload, f.Ext()), fmt.Sprintf("lost_samples_scatterplot_%d%s", payload, f.Ext())
}

// WriteBurstScatters saves into dir, for each payload of rows, the
// throughput and the lost-samples scatter plots (demand × recovery time,
// formats §9).
func WriteBurstScatters(dir string, rows []result.BurstRow, f Format) error {
	var payloads []int
	for _, r := range rows {
		if !slices.Contains(payloads, r.Payload) {
			payloads = append(payloads, r.Payload)
		}
	}
	for _, p := range payloads {
		var demands []string
		var tput, lost []Bubble
		for _, r := range rows {
			if r.Payload != p {
				continue
			}
			d := strconv.Itoa(r.Demand)
			x := slices.Index(demands, d)
			if x < 0 {
				x, demands = len(demands), append(demands, d)
			}
			mbps, _ := strconv.ParseFloat(strconv.FormatFloat(r.SubMbps, 'f', 3, 64), 64)
			tput = append(tput, Bubble{X: x, Y: float64(r.RecoveryMs), Value: mbps, Label: strconv.FormatFloat(mbps, 'f', -1, 64)})
			lost = append(lost, Bubble{X: x, Y: float64(r.RecoveryMs), Value: float64(r.Lost), Label: strconv.Itoa(r.Lost)})
		}
		tn, ln := BurstScatterFileNames(p, f)
		if err := Save(Bubbles(fmt.Sprintf("Throughput Scatterplot %d Bytes", p), "Demand [sample/burst]", "Recovery time [ms]", demands, tput, RampThroughput),
			filepath.Join(dir, tn), f); err != nil {
			return err
		}
		if err := Save(Bubbles(fmt.Sprintf("Lost Samples Scatterplot %d Bytes", p), "Demand [sample/burst]", "Recovery time [ms]", demands, lost, RampLost),
			filepath.Join(dir, ln), f); err != nil {
			return err
		}
	}
	return nil
}
