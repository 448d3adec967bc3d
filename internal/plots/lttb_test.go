package plots

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func seq(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i)
	}
	return x
}

// TestLTTBHandComputed checks small cases worked out by hand: n = 6,
// threshold 4, so two buckets, {1, 2} and {3, 4}. The doubled triangle area
// of a candidate (x, y) is |(ax−avgX)(y−ay) − (ax−x)(avgY−ay)|, where a is the
// point kept from the previous bucket and avg the next bucket's average (the
// last point, for the last bucket).
func TestLTTBHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		y      []float64
		xs, ys []float64
	}{{
		// Extremes at the ends, so triangles decide. Bucket 1: a = (0, 10),
		// avg = (3.5, 0); areas 21.5 (point 1) and 2.5 (point 2): keep 1.
		// Bucket 2: a = (1, 1), avg = (5, −2); areas 6 (point 3) and 1
		// (point 4): keep 3.
		name: "triangles",
		y:    []float64{10, 1, 5, 1, -1, -2},
		xs:   []float64{0, 1, 3, 5},
		ys:   []float64{10, 1, 1, -2},
	}, {
		// Bucket 1 holds the global maximum (point 2) and bucket 2 the
		// global minimum (point 4): both kept whatever the triangles say.
		name: "extremes",
		y:    []float64{0, 1, 5, 1, -1, 2},
		xs:   []float64{0, 2, 4, 5},
		ys:   []float64{0, 5, -1, 2},
	}, {
		// Bucket 1 holds both extremes: the maximum wins. Bucket 2: a =
		// (1, 9), avg = (5, 3); areas 0 (point 3, on the line from a to avg)
		// and 2 (point 4): keep 4.
		name: "max first",
		y:    []float64{4, 9, 0, 6, 4, 3},
		xs:   []float64{0, 1, 4, 5},
		ys:   []float64{4, 9, 4, 3},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			xs, ys := LTTB(seq(6), tc.y, 4)
			if !slices.Equal(xs, tc.xs) || !slices.Equal(ys, tc.ys) {
				t.Errorf("got x %v y %v, want x %v y %v", xs, ys, tc.xs, tc.ys)
			}
		})
	}
}

func TestLTTBUnchanged(t *testing.T) {
	x, y := seq(10), seq(10)
	for _, threshold := range []int{-1, 0, 10, 11, 1000} {
		xs, ys := LTTB(x, y, threshold)
		if len(xs) != 10 || &xs[0] != &x[0] || &ys[0] != &y[0] {
			t.Errorf("threshold %d: input not returned as is", threshold)
		}
	}
	if xs, ys := LTTB(nil, nil, 5); len(xs) != 0 || len(ys) != 0 {
		t.Errorf("empty input: got %v, %v", xs, ys)
	}
}

func TestLTTBTiny(t *testing.T) {
	x, y := seq(10), []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 8}
	for _, tc := range []struct {
		threshold int
		x, y      []float64
	}{
		{1, []float64{0}, []float64{3}},
		{2, []float64{0, 9}, []float64{3, 8}},
	} {
		xs, ys := LTTB(x, y, tc.threshold)
		if !slices.Equal(xs, tc.x) || !slices.Equal(ys, tc.y) {
			t.Errorf("threshold %d: got %v %v, want %v %v", tc.threshold, xs, ys, tc.x, tc.y)
		}
	}
}

// checkLTTB checks the properties every downsampling must have: length,
// endpoints kept, points taken from the input in order.
func checkLTTB(t *testing.T, x, y []float64, threshold int) (xs, ys []float64) {
	t.Helper()
	xs, ys = LTTB(x, y, threshold)
	n := len(y)
	want := min(n, threshold)
	if threshold <= 0 {
		want = n
	}
	if len(xs) != want || len(ys) != want {
		t.Fatalf("n=%d threshold=%d: got %d/%d points, want %d", n, threshold, len(xs), len(ys), want)
	}
	if n == 0 {
		return
	}
	if xs[0] != x[0] || ys[0] != y[0] {
		t.Errorf("first point (%g, %g) not kept", x[0], y[0])
	}
	if want >= 2 && (xs[want-1] != x[n-1] || ys[want-1] != y[n-1]) {
		t.Errorf("last point (%g, %g) not kept", x[n-1], y[n-1])
	}
	if threshold >= 3 && slices.Max(ys) != slices.Max(y) {
		t.Errorf("global maximum %g not kept", slices.Max(y))
	}
	j := 0
	for i := range xs {
		for j < n && x[j] != xs[i] {
			j++
		}
		if j == n || y[j] != ys[i] && !(math.IsNaN(y[j]) && math.IsNaN(ys[i])) {
			t.Fatalf("point %d (%g, %g) is not an input point in order", i, xs[i], ys[i])
		}
		j++
	}
	return xs, ys
}

func TestLTTBProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{3, 4, 5, 10, 101, 1000, 10000} {
		for _, threshold := range []int{3, 4, 7, 100, 999, 2000} {
			y := make([]float64, n)
			for i := range y {
				y[i] = r.NormFloat64()
			}
			checkLTTB(t, seq(n), y, threshold)
		}
	}
}

// TestLTTBKeepsSpikes: in latency-like data (a noisy floor with rare
// spikes), the global maximum and minimum survive downsampling.
func TestLTTBKeepsSpikes(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		n := 10000
		y := make([]float64, n)
		for i := range y {
			y[i] = 8 + 0.5*r.Float64()
			if r.IntN(200) == 0 {
				y[i] += 10 + 50*r.Float64()
			}
		}
		// A single outlier and a single dip, in different buckets.
		y[1+r.IntN(n/2-2)] = 500
		y[n/2+r.IntN(n/2-1)] = 1
		for _, threshold := range []int{100, 1000, SeriesPoints} {
			_, ys := checkLTTB(t, seq(n), y, threshold)
			if got, want := slices.Max(ys), slices.Max(y); got != want {
				t.Errorf("seed %d threshold %d: max %g, want %g", seed, threshold, got, want)
			}
			if got, want := slices.Min(ys), slices.Min(y); got != want {
				t.Errorf("seed %d threshold %d: min %g, want %g", seed, threshold, got, want)
			}
		}
	}
}

func FuzzLTTB(f *testing.F) {
	f.Add([]byte{1, 2, 3, 200, 4, 5, 6, 7}, 4)
	f.Add([]byte{}, 3)
	f.Add([]byte{9, 9, 9, 9, 9}, 3)
	f.Fuzz(func(t *testing.T, data []byte, threshold int) {
		y := make([]float64, len(data))
		for i, b := range data {
			y[i] = float64(b)
		}
		checkLTTB(t, seq(len(y)), y, threshold%(len(y)+3))
	})
}
