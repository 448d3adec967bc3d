package plots

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"
	"sync/atomic"

	"git.sr.ht/~sbinet/gg"
	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/f64"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// rasterCanvas is the vgimg canvas Encode draws PNGs on, with a faster
// FillString. vgimg hands text to gg, which composites every glyph through
// x/image/draw's generic bilinear Transform: one interface call and a few
// allocations per pixel, a third of the time of a whole plot. rasterCanvas
// follows the transformation matrix itself and composites the glyphs with
// the same arithmetic on the pixel arrays directly, so that the image is
// the same to the bit; it also caches the rasterised glyphs.
type rasterCanvas struct {
	*vgimg.Canvas
	img   *image.RGBA
	dpi   float64
	h     float64 // canvas height in dots, as vgimg computes it
	state textState
	stack []textState
}

// textState is the part of the drawing state that text depends on.
type textState struct {
	m   gg.Matrix // gg's current matrix
	col color.Color
}

// newRasterCanvas returns a canvas drawing on img at DefaultDPI, painted
// white, with the drawing state vgimg gives a new canvas.
func newRasterCanvas(img *image.RGBA) *rasterCanvas {
	ctx := gg.NewContextForRGBA(img)
	// What vgimg does to a context it makes itself.
	ctx.SetLineCapButt()
	ctx.InvertY()
	vc := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(DefaultDPI))
	_, h := vc.Size()
	return &rasterCanvas{
		Canvas: vc,
		img:    img,
		dpi:    vc.DPI(),
		h:      h.Dots(vc.DPI()),
		state: textState{
			m:   gg.Identity().Translate(0, float64(img.Rect.Dy())).Scale(1, -1), // ctx.InvertY
			col: color.Black,
		},
	}
}

// isRaster reports whether c draws on a rasterCanvas, under any number of
// draw.Canvas layers (plot.Draw nests them).
func isRaster(c vg.Canvas) bool {
	for {
		switch cc := c.(type) {
		case *rasterCanvas:
			return true
		case vgdraw.Canvas:
			c = cc.Canvas
		case *vgdraw.Canvas:
			c = cc.Canvas
		default:
			return false
		}
	}
}

// SetColor implements vg.Canvas.
func (c *rasterCanvas) SetColor(col color.Color) {
	c.Canvas.SetColor(col)
	if col == nil {
		col = color.Black
	}
	c.state.col = col
}

// Rotate implements vg.Canvas.
func (c *rasterCanvas) Rotate(rad float64) {
	c.Canvas.Rotate(rad)
	c.state.m = c.state.m.Rotate(rad)
}

// Translate implements vg.Canvas.
func (c *rasterCanvas) Translate(pt vg.Point) {
	c.Canvas.Translate(pt)
	c.state.m = c.state.m.Translate(pt.X.Dots(c.dpi), pt.Y.Dots(c.dpi))
}

// Scale implements vg.Canvas.
func (c *rasterCanvas) Scale(x, y float64) {
	c.Canvas.Scale(x, y)
	c.state.m = c.state.m.Scale(x, y)
}

// Push implements vg.Canvas.
func (c *rasterCanvas) Push() {
	c.Canvas.Push()
	c.stack = append(c.stack, c.state)
}

// Pop implements vg.Canvas.
func (c *rasterCanvas) Pop() {
	c.Canvas.Pop()
	c.state = c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
}

// FillString implements vg.Canvas. It draws what vgimg's FillString draws:
// gg places the dot at pt (y flipped back for text), rasterises each glyph
// there at its sub-pixel position, and maps the glyph's mask through the
// current matrix with a bilinear filter.
func (c *rasterCanvas) FillString(fnt font.Face, pt vg.Point, str string) {
	if fnt.Font.Size == 0 {
		return
	}
	m := c.state.m.Translate(0, float64(c.img.Rect.Dy())).Scale(1, -1) // vgimg's ctx.InvertY
	if !unitKernel(m) {
		c.Canvas.FillString(fnt, pt, str)
		return
	}
	x, y := pt.X.Dots(c.dpi), c.h-pt.Y.Dots(c.dpi)
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}
	r, g, b, a := c.state.col.RGBA()
	col := [4]uint32{r, g, b, a}
	gf := glyphFont{
		font:  fnt.Face,
		scale: fixed.Int26_6(0.5 + (fnt.Font.Size.Points() * c.dpi * 64 / 72)), // as opentype.NewFace
	}
	var face glyphFace // made on the first cache miss
	prev := rune(-1)
	for _, r := range str {
		if prev >= 0 {
			dot.X += gf.kern(&face, fnt, c.dpi, prev, r)
		}
		gl := gf.glyph(&face, fnt, c.dpi, dot, r)
		if !gl.ok {
			continue
		}
		if gl.mask != nil {
			min := image.Point{X: dot.X.Floor() + gl.off.X, Y: dot.Y.Floor() + gl.off.Y}
			t := m.Translate(float64(min.X), float64(min.Y))
			s2d := f64.Aff3{t.XX, t.XY, t.X0, t.YX, t.YY, t.Y0}
			drawGlyph(c.img, &s2d, gl.mask, col)
		}
		dot.X += gl.advance
		prev = r
	}
}

// unitKernel reports whether the bilinear filter maps m's glyphs with its
// kernel unscaled (no shrinking: translations, rotations), the only case
// drawGlyph implements.
func unitKernel(m gg.Matrix) bool {
	s2d := f64.Aff3{m.XX, m.XY, m.X0, m.YX, m.YY, m.Y0}
	d2s := invert(&s2d)
	return max(math.Abs(d2s[0]), math.Abs(d2s[1])) <= 1 && max(math.Abs(d2s[3]), math.Abs(d2s[4])) <= 1
}

// drawGlyph composites mask, whose bounds start at (0, 0), in the colour
// col (alpha-premultiplied, 16 bits per channel) onto dst, mapping mask
// pixels to dst through s2d. The arithmetic is that of
// x/image/draw.BiLinear.Transform with an image.Uniform source, the mask as
// source mask and the Over operator (which gg uses for text), for an s2d
// that does not shrink (see unitKernel). A whole-pixel translation, the
// case of horizontal text, copies each mask pixel to one dst pixel.
func drawGlyph(dst *image.RGBA, s2d *f64.Aff3, mask *image.Alpha, col [4]uint32) {
	if s2d[0] == 1 && s2d[1] == 0 && s2d[3] == 0 && s2d[4] == 1 &&
		s2d[2] == math.Trunc(s2d[2]) && s2d[5] == math.Trunc(s2d[5]) &&
		math.Abs(s2d[2]) < 1<<30 && math.Abs(s2d[5]) < 1<<30 {
		drawGlyphAt(dst, image.Point{X: int(s2d[2]), Y: int(s2d[5])}, mask, col)
		return
	}
	sr := mask.Rect
	dr := transformRect(s2d, &sr)
	adr := dst.Rect.Intersect(dr)
	if adr.Empty() || sr.Empty() {
		return
	}
	d2s := invert(s2d)
	// Shift source coordinates to be non-negative, so that int() floors.
	bias := transformRect(&d2s, &adr).Min
	bias.X--
	bias.Y--
	d2s[2] -= float64(bias.X)
	d2s[5] -= float64(bias.Y)
	adr = adr.Sub(dr.Min)

	var xWeights, yWeights [3]float64
	for dy := int32(adr.Min.Y); dy < int32(adr.Max.Y); dy++ {
		dyf := float64(dr.Min.Y+int(dy)) + 0.5
		for dx := int32(adr.Min.X); dx < int32(adr.Max.X); dx++ {
			dxf := float64(dr.Min.X+int(dx)) + 0.5
			sx := float64(d2s[0]*dxf) + float64(d2s[1]*dyf) + d2s[2]
			sy := float64(d2s[3]*dxf) + float64(d2s[4]*dyf) + d2s[5]
			if !(image.Point{int(sx) + bias.X, int(sy) + bias.Y}).In(sr) {
				continue
			}

			ix, jx := tentWeights(xWeights[:], sx+float64(bias.X)-0.5, sr.Min.X, sr.Max.X)
			iy, jy := tentWeights(yWeights[:], sy+float64(bias.Y)-0.5, sr.Min.Y, sr.Max.Y)

			var pr, pg, pb, pa float64
			for ky := iy; ky < jy; ky++ {
				yWeight := yWeights[ky-iy]
				if yWeight == 0 {
					continue
				}
				row := mask.Pix[ky*mask.Stride:]
				for kx := ix; kx < jx; kx++ {
					w := xWeights[kx-ix] * yWeight
					if w == 0 {
						continue
					}
					ma := uint32(row[kx]) * 0x101
					pr += float64(float64(col[0]*ma/0xffff) * w)
					pg += float64(float64(col[1]*ma/0xffff) * w)
					pb += float64(float64(col[2]*ma/0xffff) * w)
					pa += float64(float64(col[3]*ma/0xffff) * w)
				}
			}
			pr, pg, pb = min(pr, pa), min(pg, pa), min(pb, pa)
			pa1 := 0xffff - uint32(fffftou(pa))
			d := dst.PixOffset(dr.Min.X+int(dx), dr.Min.Y+int(dy))
			p := dst.Pix[d : d+4 : d+4]
			p[0] = uint8((uint32(p[0])*0x101*pa1/0xffff + uint32(fffftou(pr))) >> 8)
			p[1] = uint8((uint32(p[1])*0x101*pa1/0xffff + uint32(fffftou(pg))) >> 8)
			p[2] = uint8((uint32(p[2])*0x101*pa1/0xffff + uint32(fffftou(pb))) >> 8)
			p[3] = uint8((uint32(p[3])*0x101*pa1/0xffff + uint32(fffftou(pa))) >> 8)
		}
	}
}

// drawGlyphAt composites mask with its origin at dst pixel at: drawGlyph for
// a whole-pixel translation, where the filter weighs one source pixel by 1.
func drawGlyphAt(dst *image.RGBA, at image.Point, mask *image.Alpha, col [4]uint32) {
	dr := mask.Rect.Add(at)
	adr := dst.Rect.Intersect(dr)
	if adr.Empty() {
		return
	}
	for y := adr.Min.Y; y < adr.Max.Y; y++ {
		src := mask.Pix[(y-at.Y)*mask.Stride+adr.Min.X-at.X : (y-at.Y)*mask.Stride+adr.Max.X-at.X]
		d := dst.PixOffset(adr.Min.X, y)
		pix := dst.Pix[d : d+4*len(src)]
		for i, a := range src {
			if a == 0 {
				continue // leaves the pixel as it is
			}
			ma := uint32(a) * 0x101
			pa := col[3] * ma / 0xffff
			pa1 := 0xffff - pa
			p := pix[4*i : 4*i+4 : 4*i+4]
			p[0] = uint8((uint32(p[0])*0x101*pa1/0xffff + col[0]*ma/0xffff) >> 8)
			p[1] = uint8((uint32(p[1])*0x101*pa1/0xffff + col[1]*ma/0xffff) >> 8)
			p[2] = uint8((uint32(p[2])*0x101*pa1/0xffff + col[2]*ma/0xffff) >> 8)
			p[3] = uint8((uint32(p[3])*0x101*pa1/0xffff + pa) >> 8)
		}
	}
}

// fffftou converts [0, 65535] to a 16-bit value, rounding, as x/image/draw.
func fffftou(f float64) uint16 {
	return uint16(min(max(int32(f+0.5), 0), 0xffff))
}

// invert returns the inverse of m, as x/image/draw computes it.
func invert(m *f64.Aff3) f64.Aff3 {
	m00 := +m[3*1+1]
	m01 := -m[3*0+1]
	m02 := +float64(m[3*1+2]*m[3*0+1]) - float64(m[3*1+1]*m[3*0+2])
	m10 := -m[3*1+0]
	m11 := +m[3*0+0]
	m12 := +float64(m[3*1+0]*m[3*0+2]) - float64(m[3*1+2]*m[3*0+0])
	det := float64(m00*m11) - float64(m10*m01)
	return f64.Aff3{m00 / det, m01 / det, m02 / det, m10 / det, m11 / det, m12 / det}
}

// transformRect returns the pixels covered by sr mapped through s2d, as
// x/image/draw computes them.
func transformRect(s2d *f64.Aff3, sr *image.Rectangle) (dr image.Rectangle) {
	ps := [...]image.Point{
		{sr.Min.X, sr.Min.Y},
		{sr.Max.X, sr.Min.Y},
		{sr.Min.X, sr.Max.Y},
		{sr.Max.X, sr.Max.Y},
	}
	dr = image.Rectangle{Min: image.Pt(math.MaxInt, math.MaxInt), Max: image.Pt(math.MinInt, math.MinInt)}
	for _, p := range ps {
		sxf, syf := float64(p.X), float64(p.Y)
		dx := int(math.Floor(float64(s2d[0]*sxf) + float64(s2d[1]*syf) + s2d[2]))
		dy := int(math.Floor(float64(s2d[3]*sxf) + float64(s2d[4]*syf) + s2d[5]))
		dr.Min.X, dr.Max.X = min(dr.Min.X, dx), max(dr.Max.X, dx+1)
		dr.Min.Y, dr.Max.Y = min(dr.Min.Y, dy), max(dr.Max.Y, dy+1)
	}
	return dr
}

// glyphFont is a font at one size in pixels.
type glyphFont struct {
	font  *opentype.Font
	scale fixed.Int26_6 // pixels per em
}

// glyphKey identifies a rasterised glyph: the mask depends on the dot's
// position within its pixel, in 1/64 pixel.
type glyphKey struct {
	glyphFont
	r      rune
	fx, fy uint8
}

// kernKey identifies the kerning of a pair of runes.
type kernKey struct {
	glyphFont
	r0, r1 rune
}

// rasterGlyph is a cached glyph.
type rasterGlyph struct {
	ok      bool          // the font has the glyph
	off     image.Point   // mask origin minus the dot's whole pixel
	mask    *image.Alpha  // bounds at (0, 0); nil when empty (space)
	advance fixed.Int26_6 // to the next dot
}

// glyphFace rasterises glyphs on a cache miss. Faces keep buffers between
// calls, hence one per FillString, never shared.
type glyphFace = xfont.Face

// Glyph cache. Labels repeat from plot to plot (tick values, legends,
// titles) and glyphs at the same sub-pixel position repeat within them.
// Entries are never removed; the count bounds the memory (a glyph is a
// few hundred bytes) in a long-lived process drawing odd sizes.
var (
	glyphCache sync.Map // glyphKey → *rasterGlyph, kernKey → fixed.Int26_6
	glyphCount atomic.Int64
)

const maxCachedGlyphs = 1 << 16

// glyph returns the glyph of r with the dot at dot, rasterising it with
// *face (made from fnt when nil) unless cached.
func (gf glyphFont) glyph(face *glyphFace, fnt font.Face, dpi float64, dot fixed.Point26_6, r rune) *rasterGlyph {
	k := glyphKey{glyphFont: gf, r: r, fx: uint8(dot.X & 63), fy: uint8(dot.Y & 63)}
	if g, ok := glyphCache.Load(k); ok {
		return g.(*rasterGlyph)
	}
	dr, mask, maskp, advance, ok := gf.face(face, fnt, dpi).Glyph(dot, r)
	g := &rasterGlyph{ok: ok, off: dr.Min.Sub(image.Point{X: dot.X.Floor(), Y: dot.Y.Floor()}), advance: advance}
	if ok && !dr.Empty() {
		// A copy: the face reuses its mask.
		g.mask = image.NewAlpha(image.Rect(0, 0, dr.Dx(), dr.Dy()))
		draw.Draw(g.mask, g.mask.Rect, mask, maskp, draw.Src)
	}
	cacheGlyph(k, g)
	return g
}

// kern returns the kerning between r0 and r1.
func (gf glyphFont) kern(face *glyphFace, fnt font.Face, dpi float64, r0, r1 rune) fixed.Int26_6 {
	k := kernKey{glyphFont: gf, r0: r0, r1: r1}
	if v, ok := glyphCache.Load(k); ok {
		return v.(fixed.Int26_6)
	}
	v := gf.face(face, fnt, dpi).Kern(r0, r1)
	cacheGlyph(k, v)
	return v
}

// cacheGlyph stores v under k in the glyph cache unless the cache is full.
func cacheGlyph(k, v any) {
	if glyphCount.Load() < maxCachedGlyphs {
		if _, loaded := glyphCache.LoadOrStore(k, v); !loaded {
			glyphCount.Add(1)
		}
	}
}

// face returns *face, making it first if needed.
func (gf glyphFont) face(face *glyphFace, fnt font.Face, dpi float64) glyphFace {
	if *face == nil {
		*face = fnt.FontFace(dpi)
	}
	return *face
}

// tentWeights fills w with the normalised bilinear (tent) weights of the
// source samples around s, clipped to [lo, hi), and returns the first and
// one-past-last sample index: x/image/draw's BiLinear kernel along one axis.
func tentWeights(w []float64, s float64, lo, hi int) (i, j int) {
	i = max(int(math.Floor(s-1)), lo)
	j = min(int(math.Ceil(s+1)), hi)
	total := 0.0
	for k := i; k < j; k++ {
		v := 0.0
		if t := math.Abs(s - float64(k)); t < 1 {
			v = 1 - t
		}
		w[k-i] = v
		total += v
	}
	for k := range w[:j-i] {
		w[k] /= total
	}
	return i, j
}
