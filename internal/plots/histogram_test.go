package plots

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func sum(c []int) int {
	s := 0
	for _, v := range c {
		s += v
	}
	return s
}

func TestBin(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name       string
		samples    []float64
		bins       int
		min, width float64
		counts     []int
	}{
		{"empty", nil, 4, 0, 0.25, []int{0, 0, 0, 0}},
		{"one", []float64{7}, 4, 6.5, 0.25, []int{0, 0, 1, 0}},
		{"all equal", []float64{3, 3, 3}, 2, 2.5, 0.5, []int{0, 3}},
		{"two values", []float64{1, 2}, 4, 1, 0.25, []int{1, 0, 0, 1}},
		{"right edge in last bin", []float64{0, 1, 2, 3, 4}, 4, 0, 1, []int{1, 1, 1, 2}},
		{"non-finite skipped", []float64{0, nan, 4, inf, -inf}, 2, 0, 2, []int{1, 1}},
		{"bins < 1 means 1", []float64{1, 2, 3}, 0, 1, 2, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Bin(tc.samples, tc.bins)
			if b.Min != tc.min || b.Width != tc.width || !slices.Equal(b.Counts, tc.counts) {
				t.Errorf("Bin = {%g %g %v}, want {%g %g %v}", b.Min, b.Width, b.Counts, tc.min, tc.width, tc.counts)
			}
		})
	}
}

// TestBinProperties: counts sum to n, each sample lies in its bin, and the
// bins span the data.
func TestBinProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 1000, 10000} {
		x := make([]float64, n)
		for i := range x {
			x[i] = 5 + 100*r.ExpFloat64()
		}
		for _, bins := range []int{1, 7, 100} {
			b := Bin(x, bins)
			if got := sum(b.Counts); got != n {
				t.Errorf("n=%d bins=%d: counts sum to %d", n, bins, got)
			}
			if len(b.Counts) != bins {
				t.Errorf("n=%d: %d bins, want %d", n, len(b.Counts), bins)
			}
			lo, hi := slices.Min(x), slices.Max(x)
			if n > 1 && (b.Min != lo || math.Abs(b.Max()-hi) > 1e-9*hi) {
				t.Errorf("n=%d bins=%d: range [%g, %g], want [%g, %g]", n, bins, b.Min, b.Max(), lo, hi)
			}
			if n > 1 && (b.Counts[0] == 0 || b.Counts[bins-1] == 0) {
				t.Errorf("n=%d bins=%d: an end bin is empty: %v", n, bins, b.Counts)
			}
		}
	}
}

func BenchmarkBin(b *testing.B) {
	x := latencies(10000, 4)
	b.ReportAllocs()
	for b.Loop() {
		Bin(x, 100)
	}
}

func FuzzBin(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 1e300, 7)
	f.Add(0.0, 0.0, 0.0, 0.0, 1)
	f.Add(-1.5, math.Inf(1), math.NaN(), 5e-324, 100)
	f.Fuzz(func(t *testing.T, a, b, c, d float64, bins int) {
		bins = 1 + abs(bins)%200
		x := []float64{a, b, c, d}
		finite := 0
		for _, v := range x {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				finite++
			}
		}
		h := Bin(x, bins)
		if got := sum(h.Counts); got != finite {
			t.Fatalf("Bin(%v, %d): counts %v sum to %d, want %d", x, bins, h.Counts, got, finite)
		}
		if len(h.Counts) != bins {
			t.Fatalf("Bin(%v, %d): %d bins", x, bins, len(h.Counts))
		}
	})
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// outlierSamples returns n latency-like samples and, last, one outlier
// far beyond them.
func outlierSamples(n int, outlier float64) []float64 {
	r := rand.New(rand.NewPCG(7, 1))
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Min(7+3*r.ExpFloat64(), 30) // the body ends at 30 µs
	}
	return append(x, outlier)
}

// TestBodyBinsOutlier: one outlier a hundred times the median must not
// crowd the body into a few bins (plain Bin does, which is what the
// histograms looked like before).
func TestBodyBinsOutlier(t *testing.T) {
	x := outlierSamples(10000, 1640)
	nonEmpty := func(b Bins) int {
		k := 0
		for _, c := range b.Counts {
			if c > 0 {
				k++
			}
		}
		return k
	}
	if old := Bin(x, 100); nonEmpty(old) > 3 {
		t.Fatalf("the fixture is not hard enough: Bin spreads the body over %d bins", nonEmpty(old))
	}
	b := BodyBins(x, 100)
	if k := nonEmpty(b); k < 50 {
		t.Errorf("BodyBins puts the body in %d of 100 bins, want at least 50: %v", k, b.Counts)
	}
	// 10,001 samples: the body is the 9,990 smallest.
	if b.Over != 11 || b.OverMax != 1640 {
		t.Errorf("overflow: %d samples up to %g, want 11 up to 1640", b.Over, b.OverMax)
	}
	if b.Max() > 30 {
		t.Errorf("the body ends at %g, want at most 30", b.Max())
	}
	if got := sum(b.Counts) + b.Over; got != len(x) {
		t.Errorf("bins and overflow hold %d samples, want %d", got, len(x))
	}
}

func TestBodyBins(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name       string
		samples    []float64
		bins       int
		min, width float64
		counts     []int
		over       int
		overMax    float64
	}{
		{"empty", nil, 4, 0, 0.25, []int{0, 0, 0, 0}, 0, 0},
		{"one", []float64{7}, 4, 6.5, 0.25, []int{0, 0, 1, 0}, 0, 0},
		// A body of fewer than ten samples: every sample on one scale.
		{"small", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 100}, 2, 1, 49.5, []int{9, 1}, 0, 0},
		// The tail is 1.5 times the body: not far enough.
		{"near tail", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13.5}, 3, 0, 4.5, []int{5, 4, 2}, 0, 0},
		{"far tail", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13.51}, 3, 0, 3, []int{3, 3, 4}, 1, 13.51},
		// More than the body share equal: the body is [v−0.5, v+0.5].
		{"equal body", []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9}, 2, 4.5, 0.5, []int{0, 10}, 1, 9},
		{"non-finite skipped", []float64{0, nan, 1, 2, 3, 4, 5, 6, 7, 8, 9, inf, -inf, 100}, 3, 0, 3, []int{3, 3, 4}, 1, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := BodyBins(tc.samples, tc.bins)
			if b.Min != tc.min || b.Width != tc.width || !slices.Equal(b.Counts, tc.counts) || b.Over != tc.over || b.OverMax != tc.overMax {
				t.Errorf("BodyBins = {%g %g %v over %d max %g}, want {%g %g %v over %d max %g}",
					b.Min, b.Width, b.Counts, b.Over, b.OverMax, tc.min, tc.width, tc.counts, tc.over, tc.overMax)
			}
		})
	}
}

// TestBodyBinsQuantile: the body holds the ⌊0.999·n⌋ smallest samples when
// the tail is far, whatever the order of the samples.
func TestBodyBinsQuantile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{11, 100, 999, 1000, 1001, 5000, 20000} {
		k := int(0.999 * float64(n))
		x := make([]float64, n)
		for i := range x {
			x[i] = 10 + r.Float64()
		}
		for i, j := range r.Perm(n)[:n-k] {
			x[j] = 1000 + float64(i) // far outliers
		}
		b := BodyBins(x, 50)
		sorted := slices.Sorted(slices.Values(x))
		if b.Max() != sorted[k-1] {
			t.Errorf("n=%d: the body ends at %g, want the %d-th smallest, %g", n, b.Max(), k, sorted[k-1])
		}
		if sum(b.Counts) != k || b.Over != n-k || b.OverMax != sorted[n-1] {
			t.Errorf("n=%d: body %d, over %d (max %g); want %d, %d (max %g)", n, sum(b.Counts), b.Over, b.OverMax, k, n-k, sorted[n-1])
		}
	}
}

func TestFormatLatency(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{8.15349, "8.153"}, {145.23, "145.2"}, {1898.6, "1899"}, {22031.4, "22031"}, {0.5, "0.500"}, {0.01234, "0.012"}, {0, "0.000"}} {
		if got := FormatLatency(tc.v); got != tc.want {
			t.Errorf("FormatLatency(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestHistogramOverflow: the overflow bar is labelled with its threshold,
// count and maximum, the title says what was done, and no x tick stands
// beyond the body.
func TestHistogramOverflow(t *testing.T) {
	x := outlierSamples(10000, 1640)
	p := Histogram(x, 100, "Latency histogram - 16 Bytes")
	b := BodyBins(x, 100)
	if !strings.Contains(p.Title.Text, "bins up to the 99.89th percentile, larger samples in the last bar") {
		t.Errorf("title %q does not say what was done", p.Title.Text)
	}
	svg, err := SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "&gt; " + FormatLatency(b.Max()) + " µs: 11 samples"
	if !strings.Contains(string(svg), want) || !strings.Contains(string(svg), "max 1640 µs") {
		t.Errorf("SVG lacks the overflow label %q and max 1640 µs", want)
	}
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Value > b.Max() {
			t.Errorf("x tick %g (%q) beyond the body's end %g", tk.Value, tk.Label, b.Max())
		}
	}
	if p.X.Max <= b.Max() {
		t.Errorf("x axis ends at %g: no room for the overflow bar after %g", p.X.Max, b.Max())
	}
	// Without a far tail, nothing changes.
	p = Histogram(latencies(2000, 1)[:0:0], 100, "t")
	if strings.Contains(p.Title.Text, "\n") {
		t.Errorf("title %q of an empty histogram has a note", p.Title.Text)
	}
}

func BenchmarkBodyBins(b *testing.B) {
	x := latencies(10000, 4)
	b.ReportAllocs()
	for b.Loop() {
		BodyBins(x, 100)
	}
}

// TestBodyBinsLog: a tight bulk with a long tail (90% within 0.5–1 µs, the
// rest spread to 30 µs) gets logarithmic bins, which spread the bulk over
// many of them; a bulk spread over its range keeps linear bins.
func TestBodyBinsLog(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, 5000)
	for i := range x {
		x[i] = 0.5 + 0.5*r.Float64()
		if i%10 == 0 {
			x[i] = 1 + 29*r.Float64()
		}
	}
	b := BodyBins(x, 100)
	if b.Ratio == 0 {
		t.Fatalf("BodyBins of a tight bulk with a long tail: linear bins, want logarithmic")
	}
	if got := b.Edge(0); got != slices.Min(x) {
		t.Errorf("first edge %g, want the minimum %g", got, slices.Min(x))
	}
	bulk := 0 // bins within the bulk
	for i, c := range b.Counts {
		if c > 0 && b.Edge(i+1) <= 1 {
			bulk++
		}
	}
	if lin := Bin(x, 100); lin.Counts[0]+lin.Counts[1] < 4000 {
		t.Fatalf("the fixture is not hard enough: linear bins spread the bulk")
	}
	if bulk < 10 {
		t.Errorf("logarithmic bins hold the bulk in %d bins, want at least 10", bulk)
	}
	if sum(b.Counts)+b.Over != len(x) {
		t.Errorf("bins and overflow hold %d samples, want %d", sum(b.Counts)+b.Over, len(x))
	}
	p := Histogram(x, 100, "Latency histogram - 16 Bytes")
	if !strings.Contains(p.Title.Text, "logarithmic bins") || !strings.Contains(p.X.Label.Text, "log scale") {
		t.Errorf("title %q, x label %q: want them to say the bins and axis are logarithmic", p.Title.Text, p.X.Label.Text)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Contains(labels, "1") || !slices.Contains(labels, "10") {
		t.Errorf("x tick labels %q: want 1 and 10 among them", labels)
	}

	// Uniform samples: linear bins.
	for i := range x {
		x[i] = 10 + r.Float64()
	}
	if b := BodyBins(x, 100); b.Ratio != 0 {
		t.Errorf("BodyBins of uniform samples: logarithmic bins, want linear")
	}
}
