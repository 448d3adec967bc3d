package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
		ok   bool
	}{
		{"png", FormatPNG, true},
		{"svg", FormatSVG, true},
		{"PNG", FormatPNG, true},
		{".svg", FormatSVG, true},
		{"", "", false},
		{"pdf", "", false},
		{"png ", "", false},
	} {
		got, err := ParseFormat(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), `"png"`) {
			t.Errorf("ParseFormat(%q): error %q does not say what is expected", tc.in, err)
		}
	}
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"png", "SVG", ".png", "", "jpeg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFormat(s)
		if err != nil {
			return
		}
		if got != FormatPNG && got != FormatSVG {
			t.Fatalf("ParseFormat(%q) = %q", s, got)
		}
		if again, err := ParseFormat(string(got)); err != nil || again != got {
			t.Fatalf("ParseFormat(%q) = %q, %v: not a fixed point", got, again, err)
		}
	})
}

// TestSubBytes checks the eight-bytes-at-a-time Up filter against the
// definition, on every length up to a few words.
func TestSubBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for n := range 40 {
		cur, prev, got := make([]byte, n), make([]byte, n), make([]byte, n)
		for i := range n {
			cur[i], prev[i] = byte(r.IntN(256)), byte(r.IntN(256))
		}
		if n > 2 {
			cur[0], prev[0], cur[1], prev[1] = 0, 0xff, 0xff, 0 // borrows
		}
		subBytes(got, cur, prev)
		for i := range n {
			if want := cur[i] - prev[i]; got[i] != want {
				t.Fatalf("n=%d: byte %d = %#x, want %#x", n, i, got[i], want)
			}
		}
	}
}

// TestPreferUp checks the filter choice on rows where one filter is plainly
// better.
func TestPreferUp(t *testing.T) {
	const w = 400
	white := bytes.Repeat([]byte{0xff}, 4*w)
	stripes := make([]byte, 4*w)
	for x := range w {
		copy(stripes[4*x:], []byte{byte(x * 37), byte(x * 11), byte(x), 0xff})
	}
	shifted := append(append([]byte{}, stripes[4:]...), 1, 2, 3, 0xff)
	for _, c := range []struct {
		name      string
		cur, prev []byte
		want      bool
	}{
		{"background", white, white, false},
		{"repeated row of stripes", stripes, stripes, true},
		{"stripes under background", stripes, white, false},
		{"shifted stripes", shifted, stripes, false},
	} {
		if got := preferUp(c.cur, c.prev); got != c.want {
			t.Errorf("%s: preferUp = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEncodePNG checks the PNG encoder against image/png's decoder on an
// opaque image with random content and odd bounds.
func TestEncodePNG(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, rect := range []image.Rectangle{
		image.Rect(0, 0, 1, 1),
		image.Rect(0, 0, 37, 11),
		image.Rect(3, 4, 300, 700), // 200 kB of raw rows: several IDAT chunks
		image.Rect(0, 0, 203, 90),  // columns: rows that take the Up filter
	} {
		m := image.NewRGBA(rect)
		for i := range m.Pix {
			m.Pix[i] = byte(r.IntN(256))
			if i%4 == 3 {
				m.Pix[i] = 0xff
			}
		}
		if rect.Dx() == 203 {
			// Vertical stripes, one pixel in ten changed: most rows are
			// closer to the one above than to themselves shifted.
			for y := rect.Min.Y + 1; y < rect.Max.Y; y++ {
				for x := rect.Min.X; x < rect.Max.X; x++ {
					if r.IntN(10) != 0 {
						copy(m.Pix[m.PixOffset(x, y):][:4], m.Pix[m.PixOffset(x, y-1):][:4])
					}
				}
			}
			if !preferUp(m.Pix[m.PixOffset(0, 5):][:4*203], m.Pix[m.PixOffset(0, 4):][:4*203]) {
				t.Fatal("stripes: preferUp chose None")
			}
		}
		var b bytes.Buffer
		if err := encodePNG(&b, m); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%v: decode: %v", rect, err)
		}
		if got.Bounds().Size() != rect.Size() {
			t.Fatalf("%v: decoded size %v", rect, got.Bounds().Size())
		}
		for y := 0; y < rect.Dy(); y++ {
			for x := 0; x < rect.Dx(); x++ {
				r1, g1, b1, a1 := m.At(rect.Min.X+x, rect.Min.Y+y).RGBA()
				r2, g2, b2, a2 := got.At(x, y).RGBA()
				if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
					t.Fatalf("%v: pixel (%d, %d) differs", rect, x, y)
				}
			}
		}
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	p := Histogram(latencies(1000, 1), 100, "Latency histogram - 16 Bytes")
	for _, f := range []Format{FormatPNG, FormatSVG} {
		path := filepath.Join(dir, "plots", "sub", "histogram"+f.Ext())
		if err := Save(p, path, f); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch f {
		case FormatPNG:
			cfg, err := png.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width != 800 || cfg.Height != 500 {
				t.Errorf("PNG is %d×%d, want 800×500", cfg.Width, cfg.Height)
			}
		case FormatSVG:
			if !bytes.HasPrefix(data, []byte("<?xml")) || !bytes.Contains(data, []byte("Latency histogram - 16 Bytes")) {
				t.Errorf("SVG does not look like the plot: %.100q", data)
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "plots", "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("directory holds %d files, want 2 (no temporary file left)", len(entries))
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	p := Series(latencies(100, 1), 0, "t")
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Save(p, filepath.Join(blocker, "x.png"), FormatPNG); err == nil {
		t.Error("Save under a regular file succeeded")
	}
	bad := filepath.Join(dir, "x.pdf")
	if err := Save(p, bad, Format("pdf")); err == nil || !strings.Contains(err.Error(), "x.pdf") {
		t.Errorf("Save in an unknown format: err = %v, want one naming the file", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("Save in an unknown format left %s", bad)
	}
}

// TestSaveConcurrent saves plots from several goroutines at once; run with
// -race.
func TestSaveConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			x := latencies(2000, uint64(i))
			var p = Histogram(x, 100, fmt.Sprintf("Latency histogram - %d Bytes", i))
			if i%2 == 1 {
				p = Series(x, 500, fmt.Sprintf("Latency time series - %d Bytes", i))
			}
			f := []Format{FormatPNG, FormatSVG}[i%4/2]
			errs <- Save(p, filepath.Join(dir, fmt.Sprintf("plot_%d%s", i, f.Ext())), f)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 16 {
		t.Errorf("%d files written, want 16", len(entries))
	}
}

// TestLegendBesideData checks that the legend never overlaps the data area,
// for few and many series, short and long names.
func TestLegendBesideData(t *testing.T) {
	for _, tc := range []struct {
		series int
		name   string
	}{
		{1, "Median"},
		{3, "16384 B"},
		{10, "interprocess_reliable_tcp_security"},
		{14, "s"},
	} {
		var lines []Line
		for i := range tc.series {
			lines = append(lines, Line{Name: fmt.Sprintf("%s %d", tc.name, i), Y: latencies(11, uint64(i))})
		}
		p := CategoryLines("t", "Payload [Bytes]", "Latency [µs]", payloadNames(), lines)
		w, h := Size(p)
		c := draw.NewCanvas(nil, w, h)
		data := p.DataCanvas(c)
		legend := p.Legend.Rectangle(c)
		legendLeft := c.Max.X - (legend.Max.X - legend.Min.X)
		if data.Max.X > legendLeft {
			t.Errorf("%d series %q: data area ends at %v, legend starts at %v", tc.series, tc.name, data.Max.X, legendLeft)
		}
		if got := data.Max.X - data.Min.X; got < DefaultWidth/2 {
			t.Errorf("%d series %q: data area only %v wide", tc.series, tc.name, got)
		}
	}
}

// TestEncodeRepeatable: recycled images and compressors leave no trace, so
// a plot encodes to the same bytes before and after others.
func TestEncodeRepeatable(t *testing.T) {
	a := Series(latencies(5000, 1), SeriesPoints, "a")
	b := CategoryLines("b", "x", "y", experimentNames(40), []Line{{Name: "long series name", Y: latencies(40, 2)}})
	encode := func(p *plot.Plot) []byte {
		var buf bytes.Buffer
		if err := Encode(&buf, p, FormatPNG); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	first := encode(a)
	encode(b)
	encode(Histogram(latencies(5000, 3), 100, "c"))
	if !bytes.Equal(first, encode(a)) {
		t.Error("a plot encodes differently after other plots")
	}
}

// TestOddInputs renders degenerate inputs: each must give an image, not a
// panic or an error.
func TestOddInputs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for name, p := range map[string]func() *plot.Plot{
		"histogram huge range": func() *plot.Plot { return Histogram([]float64{-1e308, 0, 1e308}, 100, "t") },
		"histogram tiny range": func() *plot.Plot { return Histogram([]float64{0, 5e-324}, 100, "t") },
		"histogram non-finite": func() *plot.Plot { return Histogram([]float64{nan, inf, -inf}, 100, "t") },
		"histogram zero bins":  func() *plot.Plot { return Histogram([]float64{1, 2}, 0, "") },
		"series one sample":    func() *plot.Plot { return Series([]float64{3}, SeriesPoints, "t") },
		"series constant":      func() *plot.Plot { return Series([]float64{3, 3, 3}, 2, "t") },
		"series with NaN":      func() *plot.Plot { return Series([]float64{1, nan, 3, 4}, 0, "t") },
		"lines all NaN": func() *plot.Plot {
			return CategoryLines("t", "x", "y", []string{"a", "b"}, []Line{{Name: "n", Y: []float64{nan, nan}, Marked: []bool{true, true}}})
		},
		"lines ragged": func() *plot.Plot {
			return CategoryLines("t", "x", "y", []string{"", "b"}, []Line{
				{Y: []float64{1, 2, 3, inf}, Marked: []bool{false, true, true, true, true, true}},
				{Name: "short", Y: []float64{2}},
			})
		},
		"lines no categories": func() *plot.Plot { return CategoryLines("", "", "", nil, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			for _, f := range []Format{FormatPNG, FormatSVG} {
				if err := Encode(io.Discard, p(), f); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}
