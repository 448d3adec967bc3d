package plots

import (
	"bytes"
	"compress/zlib"
	"io"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot/vg/draw"
)

// checkZlib compresses src and decompresses it with compress/zlib, which
// also checks the Adler-32 sum and that every code is complete.
func checkZlib(t testing.TB, z *deflater, src []byte) int {
	t.Helper()
	var b bytes.Buffer
	if err := zlibCompress(&b, src, z); err != nil {
		t.Fatal(err)
	}
	n := b.Len()
	r, err := zlib.NewReader(&b)
	if err != nil {
		t.Fatalf("%d bytes: %v", len(src), err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%d bytes: %v", len(src), err)
	}
	if !bytes.Equal(got, src) {
		t.Fatalf("%d bytes: round trip gives %d different bytes", len(src), len(got))
	}
	return n
}

// TestZlibCompress round-trips inputs that reach the corners of the format:
// empty and tiny inputs, incompressible bytes, runs longer than a match,
// matches at the largest distance, blocks of the most tokens, skewed
// frequencies that make long codes.
func TestZlibCompress(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	random := func(n, alphabet int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(alphabet))
		}
		return b
	}
	// Fibonacci-like frequencies: a Huffman code deeper than 15 bits.
	var skewed []byte
	for i, f := 0, [2]int{1, 1}; i < 26; i, f = i+1, [2]int{f[1], f[0] + f[1]} {
		skewed = append(skewed, bytes.Repeat([]byte{byte(i * 7)}, min(f[0], 3000))...)
	}
	r.Shuffle(len(skewed), func(i, j int) { skewed[i], skewed[j] = skewed[j], skewed[i] })
	far := random(40000, 256)
	copy(far[32768+100:], far[100:1100]) // a match exactly 32768 bytes back
	far2 := random(40000, 256)
	copy(far2[32769+100:], far2[100:1100]) // one byte too far
	cases := map[string][]byte{
		"empty":      {},
		"one byte":   {42},
		"three":      {1, 2, 3},
		"four equal": {9, 9, 9, 9},
		"run":        bytes.Repeat([]byte{0xff}, 100000),
		"random":     random(100000, 256),
		"two values": random(300000, 2), // more than one block of tokens
		"skewed":     skewed,
		"far":        far,
		"too far":    far2,
		"pattern":    bytes.Repeat([]byte("abcdefghij0123456789"), 5000),
	}
	z := new(deflater)
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			n := checkZlib(t, z, src)
			if name == "run" && n > 1000 {
				t.Errorf("a run of %d bytes compresses to %d bytes", len(src), n)
			}
		})
	}
}

// TestHuffmanLengths checks that codes are complete and within the length
// limit, for frequencies that need limiting and for two symbols.
func TestHuffmanLengths(t *testing.T) {
	fib := make([]int32, 30)
	fib[0], fib[1] = 1, 1
	for i := 2; i < len(fib); i++ {
		fib[i] = fib[i-1] + fib[i-2]
	}
	for _, c := range []struct {
		freq    []int32
		maxBits int
	}{
		{fib, 15},
		{fib[:19], 7},
		{[]int32{0, 5, 0, 1}, 15},
		{[]int32{3, 3, 3, 3, 3}, 2 + 1},
	} {
		lengths := make([]uint8, len(c.freq))
		huffmanLengths(lengths, c.freq, c.maxBits)
		kraft := 0
		for i, l := range lengths {
			if (l == 0) != (c.freq[i] == 0) || int(l) > c.maxBits {
				t.Fatalf("freq %v: lengths %v", c.freq, lengths)
			}
			if l > 0 {
				kraft += 1 << (c.maxBits - int(l))
			}
		}
		if kraft != 1<<c.maxBits {
			t.Errorf("freq %v: lengths %v: incomplete code (Kraft sum %d/%d)", c.freq, lengths, kraft, 1<<c.maxBits)
		}
	}
}

// FuzzZlibCompress round-trips arbitrary bytes, alone and repeated (to
// make matches).
func FuzzZlibCompress(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("hello, hello, hello"))
	f.Add(bytes.Repeat([]byte{1, 2, 3, 4, 5}, 100))
	z := new(deflater)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkZlib(t, z, b)
		checkZlib(t, z, bytes.Repeat(b, 3))
	})
}

// BenchmarkZlibCompress compresses the filtered rows of a time series plot,
// the job of encodePNG.
func BenchmarkZlibCompress(b *testing.B) {
	img := getImage(DefaultWidth, DefaultHeight)
	Series(latencies(10000, 5), SeriesPoints, "t").Draw(inMargin(draw.New(newRasterCanvas(img))))
	var raw []byte
	for y := range img.Rect.Dy() {
		raw = append(raw, 0)
		raw = append(raw, img.Pix[y*img.Stride:(y+1)*img.Stride]...)
	}
	z := new(deflater)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := zlibCompress(io.Discard, raw, z); err != nil {
			b.Fatal(err)
		}
	}
}
