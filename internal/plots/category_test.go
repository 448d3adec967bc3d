package plots

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func TestUseLogScale(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   bool
	}{
		{5, 5000, true},   // 1000×: intraprocess against TCP with security
		{5, 10, false},    // 2×
		{5, 150, false},   // 30×: not more than LogRatio
		{5, 150.01, true}, // just more
		{0, 5000, false},  // zero has no place on a log axis
		{-1, 5000, false}, // nor has a negative value
		{1, inf(), false}, // nor infinity
		{nan(), 5, false}, // no data
		{inf(), -inf(), false},
	} {
		if got := UseLogScale(tc.lo, tc.hi); got != tc.want {
			t.Errorf("UseLogScale(%g, %g) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// tickLabels returns the labels of the ticks of axis a.
func tickLabels(a plot.Axis) []string {
	var l []string
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if tk.Label != "" {
			l = append(l, tk.Label)
		}
	}
	return l
}

// TestCategoryLinesLogAxis: ten sub-experiments from 0.6 µs (intraprocess)
// to 22 ms (one maximum) get a log axis with decade labels; values within a
// factor two keep a linear one.
func TestCategoryLinesLogAxis(t *testing.T) {
	cats := payloadNames()
	wide := make([]Line, 10)
	for i := range wide {
		y := make([]float64, len(cats))
		for j := range y {
			y[j] = 0.6*float64(i*i+1) + float64(j)
		}
		wide[i] = Line{Name: fmt.Sprintf("sub_%d", i), Y: y}
	}
	wide[9].Y[4] = 22031
	p := CategoryLines("Maximum latency by payload", "Payload [Bytes]", "Latency [µs]", cats, wide)
	if _, ok := p.Y.Scale.(logScale); !ok {
		t.Fatalf("values from 0.6 to 22031: y scale %T, want logarithmic", p.Y.Scale)
	}
	if got := strings.Join(tickLabels(p.Y), " "); got != "1 10 100 1000 10000" {
		t.Errorf("y tick labels %q, want the powers of ten 1 to 10000", got)
	}
	if !strings.HasSuffix(p.Y.Label.Text, "log scale") {
		t.Errorf("y label %q does not say the scale is logarithmic", p.Y.Label.Text)
	}
	// The lowest line is no longer flattened: on the log axis the first
	// sub-experiment's values from 0.6 to 10.6 take a quarter of the height;
	// on a linear one they would take a two-thousandth.
	if span := p.Y.Norm(10.6) - p.Y.Norm(0.6); span < 0.25 {
		t.Errorf("the lowest line spans %.3f of the y axis, want at least 0.25", span)
	}

	narrow := []Line{{Name: "a", Y: []float64{10, 12, 15}}, {Name: "b", Y: []float64{11, 16, 20}}}
	p = CategoryLines("Median", "Payload [Bytes]", "Latency [µs]", cats[:3], narrow)
	if _, ok := p.Y.Scale.(logScale); ok {
		t.Errorf("values from 10 to 20: logarithmic y scale, want linear")
	}
	if p.Y.Label.Text != "Latency [µs]" {
		t.Errorf("linear y label %q, want it unchanged", p.Y.Label.Text)
	}
	// A value that is not positive keeps the axis linear.
	p = CategoryLines("Median", "Payload [Bytes]", "Latency [µs]", cats[:3],
		[]Line{{Name: "a", Y: []float64{0, 100, 1000}}})
	if _, ok := p.Y.Scale.(logScale); ok {
		t.Errorf("values from 0 to 1000: logarithmic y scale, want linear")
	}
	// A plotter added later with a value the log axis cannot show does not
	// break drawing.
	p = CategoryLines("Median", "Payload [Bytes]", "Latency [µs]", cats[:3],
		[]Line{{Name: "a", Y: []float64{1, 100, 1000}}})
	p.Add(&polyline{x: []float64{0, 1}, y: []float64{-5, 0}})
	if _, err := SVG(p); err != nil {
		t.Fatal(err)
	}
}

// TestSeriesStyles: ten series, as process compares, get ten distinct
// colours and ten distinct marker shapes, filled and hollow in turn, so that
// they stay apart for colour-blind readers and in greyscale; none takes the
// colour of marked points.
func TestSeriesStyles(t *testing.T) {
	type style struct {
		c color.RGBA
		m marker
	}
	var pairs []style
	for i := range 10 {
		c, m, dash := seriesStyle(i)
		if dash != nil {
			t.Errorf("series %d is dashed; the first twelve are solid", i)
		}
		pairs = append(pairs, style{c, m})
	}
	for i := range pairs {
		for j := range i {
			if pairs[i].c == pairs[j].c {
				t.Errorf("series %d and %d have the same colour %v", j, i, pairs[i].c)
			}
			if pairs[i].m == pairs[j].m {
				t.Errorf("series %d and %d have the same marker %v", j, i, pairs[i].m)
			}
		}
		if pairs[i].c == markColor {
			t.Errorf("series %d has the colour of marked points", i)
		}
	}
	for i := 1; i < 7; i++ { // the first shapes alternate filled and hollow
		if pairs[i].m.hollow == pairs[i-1].m.hollow {
			t.Errorf("series %d and %d are both hollow=%v", i-1, i, pairs[i].m.hollow)
		}
	}
	// Past the palette, the styles repeat with a dash pattern.
	c0, m0, _ := seriesStyle(0)
	c12, m12, d12 := seriesStyle(12)
	if c12 != c0 || m12 != m0 || d12 == nil {
		t.Errorf("series 12: %v %v %v; want series 0's colour and marker, dashed", c12, m12, d12)
	}
}

// TestMarkersDistinct draws every marker and compares their pixels: no two
// shapes may look the same in black and white.
func TestMarkersDistinct(t *testing.T) {
	const size = 24
	var images [][]bool
	for i, m := range markers {
		img := image.NewRGBA(image.Rect(0, 0, size, size))
		c := draw.New(newRasterCanvas(img)) // 100 dpi
		c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: m}, vg.Point{X: vg.Points(size * 0.36), Y: vg.Points(size * 0.36)})
		bits := make([]bool, 0, size*size)
		ink := 0
		for y := range size {
			for x := range size {
				r, _, _, a := img.At(x, y).RGBA()
				dark := a > 0x8000 && r < 0x8000 // transparent is the white paper
				bits = append(bits, dark)
				if dark {
					ink++
				}
			}
		}
		if ink < 10 {
			t.Errorf("marker %d (%v) draws %d dark pixels", i, m, ink)
		}
		for j, prev := range images {
			if slices.Equal(prev, bits) {
				t.Errorf("markers %d and %d look the same", j, i)
			}
		}
		images = append(images, bits)
	}
}

func inf() float64 { return math.Inf(1) }
func nan() float64 { return math.NaN() }
