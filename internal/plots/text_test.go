package plots

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// vgimgCanvas returns a plain vgimg canvas on a new image of Encode's
// default size: the reference rasterCanvas must match.
func vgimgCanvas(w, h vg.Length) (*vgimg.Canvas, *image.RGBA) {
	img := getImage(w, h)
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	return vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(DefaultDPI)), img
}

// diffImages returns how many pixels of a and b differ, and by how much at
// most in any channel.
func diffImages(a, b *image.RGBA) (n, maxDiff int) {
	for i := 0; i < len(a.Pix); i += 4 {
		differs := false
		for j := range 4 {
			d := int(a.Pix[i+j]) - int(b.Pix[i+j])
			if d != 0 {
				differs = true
				maxDiff = max(maxDiff, d, -d)
			}
		}
		if differs {
			n++
		}
	}
	return n, maxDiff
}

// writeDiffPNGs writes both images under t's temporary directory when they
// differ, to look at.
func writeDiffPNGs(t *testing.T, name string, want, got *image.RGBA) {
	t.Helper()
	dir := t.TempDir()
	for suffix, m := range map[string]*image.RGBA{"want": want, "got": got} {
		f, err := os.Create(filepath.Join(dir, name+"-"+suffix+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, m); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	t.Logf("images in %s", dir)
}

// TestTextMatchesVgimg draws labels at sub-pixel positions, rotations and
// colours on both canvases: rasterCanvas must paint the same pixels as
// vgimg, whose text path it replaces.
func TestTextMatchesVgimg(t *testing.T) {
	fonts := []font.Font{font.From(textFont, tickSize), font.From(textFont, titleSize), font.From(font.Font{Typeface: "Liberation", Variant: "Serif"}, 17)}
	rotations := []float64{0, math.Pi / 4, math.Pi / 2, -math.Pi / 6, math.Pi, 2.9}
	colours := []color.Color{color.Black, palette[3], color.NRGBA{0x20, 0x80, 0xff, 0x80}, nil}
	for ri, rot := range rotations {
		t.Run(fmt.Sprintf("rotation%d", ri), func(t *testing.T) {
			draw := func(c vg.Canvas) {
				for i := range 24 {
					sty := text.Style{
						Color:    colours[i%len(colours)],
						Font:     fonts[i%len(fonts)],
						Rotation: rot,
						XAlign:   draw.XAlignment(-float64(i%3) / 2),
						YAlign:   draw.YAlignment(-float64(i%3) / 2),
						Handler:  plot.DefaultTextHandler,
					}
					if sty.Color == nil {
						c.SetColor(nil)
					}
					// Sub-pixel positions all over the image, a few off its edges.
					pt := vg.Point{X: vg.Length(-20 + 31.37*float64(i)), Y: vg.Length(-10 + 17.83*float64(i))}
					label := "Latency 12.5 µs AVWy %" + strconv.Itoa(i)
					if i%5 == 4 {
						c.Push()
						c.Translate(vg.Point{X: vg.Length(i) / 3, Y: 7})
						sty.Handler.Draw(c, label, sty, pt)
						c.Pop()
						continue
					}
					sty.Handler.Draw(c, label, sty, pt)
				}
			}
			ref, want := vgimgCanvas(DefaultWidth, DefaultHeight)
			draw(ref)
			img := getImage(DefaultWidth, DefaultHeight)
			draw(newRasterCanvas(img))
			if n, d := diffImages(want, img); n > 0 {
				writeDiffPNGs(t, t.Name(), want, img)
				t.Errorf("%d pixels differ from vgimg's, by up to %d", n, d)
			}
		})
	}
}

// TestPlotsMatchVgimg renders whole figures on both canvases.
func TestPlotsMatchVgimg(t *testing.T) {
	x := latencies(5000, 7)
	var lines []Line
	for i := range 3 {
		lines = append(lines, Line{Name: "payload " + strconv.Itoa(i), Y: latencies(40, uint64(i))})
	}
	for name, p := range map[string]*plot.Plot{
		"histogram": Histogram(x, 100, "Latency histogram - 1024 Bytes"),
		"series":    Series(x, SeriesPoints, "Latency time series - 1024 Bytes"),
		"history":   CategoryLines("Median latency history", "Experiment", "Latency [µs]", experimentNames(40), lines),
	} {
		t.Run(name, func(t *testing.T) {
			w, h := Size(p)
			ref, want := vgimgCanvas(w, h)
			p.Draw(inMargin(draw.New(ref)))
			img := getImage(w, h)
			p.Draw(inMargin(draw.New(newRasterCanvas(img))))
			if n, d := diffImages(want, img); n > 0 {
				writeDiffPNGs(t, name, want, img)
				t.Errorf("%d pixels differ from vgimg's, by up to %d", n, d)
			}
		})
	}
}

// BenchmarkText draws the labels of a history plot: ten horizontal and ten
// rotated tick labels, on a rasterCanvas and, for reference, on vgimg's.
func BenchmarkText(b *testing.B) {
	labels := experimentNames(10)
	for _, rot := range []float64{0, math.Pi / 4} {
		sty := text.Style{Font: font.From(textFont, tickSize), Rotation: rot, Handler: plot.DefaultTextHandler}
		for _, canvas := range []string{"raster", "vgimg"} {
			b.Run(fmt.Sprintf("%s/rotation=%.2f", canvas, rot), func(b *testing.B) {
				var c vg.Canvas
				if canvas == "raster" {
					c = newRasterCanvas(getImage(DefaultWidth, DefaultHeight))
				} else {
					c, _ = vgimgCanvas(DefaultWidth, DefaultHeight)
				}
				b.ReportAllocs()
				for b.Loop() {
					for i, l := range labels {
						sty.Handler.Draw(c, l, sty, vg.Point{X: vg.Length(40 + 53.3*float64(i)), Y: 60})
					}
				}
			})
		}
	}
}
