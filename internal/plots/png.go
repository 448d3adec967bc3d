package plots

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
	"sync"
)

// encodePNG writes m, which must be opaque (plots are drawn on a white
// background), as an 8-bit RGB PNG. It is image/png cut down to what plots
// need: every row uses the Up filter, which turns the many rows that repeat
// the one above (background, bars, vertical lines) into zeros, instead of
// trying all five filters per row; and deflate runs at BestSpeed. That
// encodes a plot several times faster than png.Encode at a similar size.
func encodePNG(w io.Writer, m *image.RGBA) error {
	b := m.Bounds()
	width, height := b.Dx(), b.Dy()
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("\x89PNG\r\n\x1a\n")

	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8] = 8  // bit depth
	ihdr[9] = 2  // colour type: truecolour (RGB)
	ihdr[10] = 0 // deflate
	ihdr[11] = 0 // adaptive filtering (per-row filter byte)
	ihdr[12] = 0 // no interlace
	writeChunk(bw, "IHDR", ihdr[:])

	idat := &chunkWriter{w: bw, typ: "IDAT"}
	zw, ok := zlibPool.Get().(*zlib.Writer)
	if ok {
		zw.Reset(idat)
	} else {
		var err error
		if zw, err = zlib.NewWriterLevel(idat, zlib.BestSpeed); err != nil {
			return err
		}
	}
	defer zlibPool.Put(zw)
	row := make([]byte, 1+3*width)
	same := make([]byte, 1+3*width)  // filter Up, all zero: a repeated row
	row[0], same[0] = 2, 2           // filter type Up
	prevPix := make([]byte, 4*width) // the row above the first is zero
	for y := 0; y < height; y++ {
		start := (y+b.Min.Y-m.Rect.Min.Y)*m.Stride + (b.Min.X-m.Rect.Min.X)*4
		pix := m.Pix[start : start+4*width]
		if bytes.Equal(pix, prevPix) {
			if _, err := zw.Write(same); err != nil {
				return err
			}
			continue
		}
		upRGB(row[1:], pix, prevPix)
		if _, err := zw.Write(row); err != nil {
			return err
		}
		prevPix = pix
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := idat.flush(); err != nil {
		return err
	}
	writeChunk(bw, "IEND", nil)
	return bw.Flush()
}

// upRGB writes to dst the RGB bytes of the RGBA row cur minus those of the
// row above, prev: PNG's Up filter, dropping alpha.
func upRGB(dst, cur, prev []byte) {
	n := len(dst) / 3
	cur, prev = cur[:4*n], prev[:4*n]
	for x := range n {
		d, c, p := dst[3*x:3*x+3:3*x+3], cur[4*x:4*x+3:4*x+3], prev[4*x:4*x+3:4*x+3]
		d[0], d[1], d[2] = c[0]-p[0], c[1]-p[1], c[2]-p[2]
	}
}

// zlibPool recycles compressors, which allocate about 1 MB each.
var zlibPool sync.Pool

// writeChunk writes one PNG chunk: length, type, data, CRC of type and data.
// Errors are sticky in the bufio.Writer and reported by its Flush.
func writeChunk(w *bufio.Writer, typ string, data []byte) {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(hdr[4:])
	crc.Write(data)
	w.Write(hdr[:])
	w.Write(data)
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], crc.Sum32())
	w.Write(sum[:])
}

// chunkWriter buffers compressed data and emits it as chunks of typ.
type chunkWriter struct {
	w   *bufio.Writer
	typ string
	buf []byte
}

// maxChunk is the size of the IDAT chunks written.
const maxChunk = 64 << 10

func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), maxChunk-len(c.buf))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) == maxChunk {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (c *chunkWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	writeChunk(c.w, c.typ, c.buf)
	c.buf = c.buf[:0]
	return nil
}
