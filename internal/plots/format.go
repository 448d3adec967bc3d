package plots

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is an output image format.
type Format string

// Supported formats.
const (
	FormatPNG Format = "png"
	FormatSVG Format = "svg"
)

// Default figure size and raster resolution. 8×5 in at 100 dpi is 800×500
// pixels: readable on a screen and in an HTML report, cheap to rasterise.
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
	return "", fmt.Errorf("unknown plot format %q: expected %q or %q", s, FormatPNG, FormatSVG)
}

// Ext returns the file name extension of f, with the leading dot.
func (f Format) Ext() string { return "." + string(f) }

// Encode draws p at the default size and writes it to w in format f.
func Encode(w io.Writer, p *plot.Plot, f Format) error {
	switch f {
	case FormatPNG:
		c := vgimg.NewWith(vgimg.UseWH(DefaultWidth, DefaultHeight), vgimg.UseDPI(DefaultDPI))
		p.Draw(draw.New(c))
		// BestSpeed: plots are flat colours, so the size cost is small and
		// encoding is several times faster than the default level.
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, c.Image())
	case FormatSVG:
		c := vgsvg.New(DefaultWidth, DefaultHeight)
		p.Draw(draw.New(c))
		_, err := c.WriteTo(w)
		return err
	}
	return fmt.Errorf("unknown plot format %q: expected %q or %q", string(f), FormatPNG, FormatSVG)
}

// SVG renders p as an SVG document at the default size, e.g. to inline it in
// an HTML page.
func SVG(p *plot.Plot) ([]byte, error) {
	var b bytes.Buffer
	if err := Encode(&b, p, FormatSVG); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Save renders p in format f and writes it atomically to path: the image is
// written to a temporary file in the same directory, which is renamed over
// path only once complete. Parent directories are created as needed.
func Save(p *plot.Plot, path string, f Format) error {
	var b bytes.Buffer
	if err := Encode(&b, p, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFileAtomic(path, b.Bytes())
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// to path, so that readers never see a partial image.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
