package plots

import (
	"math"
	"math/rand/v2"
	"slices"
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
