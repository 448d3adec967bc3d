package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"strings"
	"sync"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is an output image format.
type Format string

// Supported formats.
const (
	FormatPNG Format = "png"
	FormatSVG Format = "svg"
)

// Default figure size (before the legend, see Size) and raster resolution.
// 8×5 in at 100 dpi is 800×500 pixels: readable on a screen and in an HTML
// report, cheap to rasterise.
const (
	DefaultWidth  = 8 * vg.Inch
	DefaultHeight = 5 * vg.Inch
	DefaultDPI    = 100
)

// ParseFormat returns the Format named by s ("png" or "svg", any case, with or
// without a leading dot).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.TrimPrefix(strings.ToLower(s), ".")); f {
	case FormatPNG, FormatSVG:
		return f, nil
	}
	return "", errFormat(s)
}

// Ext returns the file name extension of f, with the leading dot.
func (f Format) Ext() string { return "." + string(f) }

// Size returns the size p is drawn at: DefaultWidth × DefaultHeight, widened
// by the legend, if any, so that the data area keeps its size however long
// the series names are (CategoryLines puts the legend beside the data), and
// a HeatMap heightened so that each of its rows has room.
func Size(p *plot.Plot) (w, h vg.Length) {
	w = DefaultWidth + legendRoom(p)
	return w, heatHeight(p, w, DefaultHeight)
}

// Encode draws p at its Size and writes it to w in format f.
func Encode(w io.Writer, p *plot.Plot, f Format) error {
	width, height := Size(p)
	switch f {
	case FormatPNG:
		img := getImage(width, height)
		defer imagePool.Put(img)
		// vgimg paints the image white: no background fill needed after.
		drawPlot(p, inMargin(draw.New(newRasterCanvas(img))))
		return encodePNG(w, img)
	case FormatSVG:
		b, err := svgDocument(width, height, func(c vg.Canvas) { drawPlot(p, inMargin(whiteCanvas(c, width, height))) })
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return errFormat(string(f))
}

func errFormat(s string) error {
	return fmt.Errorf("unknown plot format %q: expected %q or %q", s, FormatPNG, FormatSVG)
}

// svgFont and svgFontFallback: SVG text names the font the layout was
// measured with; browsers without Liberation Sans fall back to Arial, which
// has the same metrics, so that labels keep their size and place.
var (
	svgFont         = []byte("font-family:Liberation Sans;")
	svgFontFallback = []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
)

// svgDocument returns the SVG document of what drawOn draws on a w × h
// canvas.
func svgDocument(w, h vg.Length, drawOn func(vg.Canvas)) ([]byte, error) {
	c := vgsvg.New(w, h)
	drawOn(c)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(b.Bytes(), svgFont, svgFontFallback), nil
}

// whiteCanvas returns the whole of c, w × h, painted white.
func whiteCanvas(c vg.Canvas, w, h vg.Length) draw.Canvas {
	dc := draw.NewCanvas(c, w, h)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	return dc
}

// margin keeps the labels off the image border.
const margin = 8

// imagePool recycles raster images: at 1.6 MB each, allocating one per plot
// would make the garbage collector a large part of the rendering time.
var imagePool sync.Pool

// getImage returns an image of the given size at DefaultDPI, from the pool
// when one of that size is there. Its content is undefined.
func getImage(w, h vg.Length) *image.RGBA {
	px := func(l vg.Length) int { return int(l.Dots(DefaultDPI) + 0.5) }
	r := image.Rect(0, 0, px(w), px(h))
	if m, ok := imagePool.Get().(*image.RGBA); ok && m.Rect == r {
		return m
	}
	return image.NewRGBA(r)
}

// inMargin returns the drawing area of c inside the margin.
func inMargin(c draw.Canvas) draw.Canvas {
	m := vg.Points(margin)
	return draw.Crop(c, m, -m, m, -m)
}

// Save renders p in format f and writes it atomically to path (a temporary
// file beside path, renamed once complete), creating parent directories as
// needed. It is safe to call from several goroutines at once, for different
// plots.
func Save(p *plot.Plot, path string, f Format) error {
	if f != FormatPNG && f != FormatSVG {
		return fmt.Errorf("%s: %w", path, errFormat(string(f)))
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := Encode(w, p, f); err != nil {
			return fmt.Errorf("cannot render %s: %w", path, err)
		}
		return nil
	})
}
