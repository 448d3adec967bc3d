package stats

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// numpyCase is one input with numpy 1.24's results as exact hex floats,
// written by testdata/numpy_reference.py.
type numpyCase struct {
	X          []string `json:"x"`
	Sum        string   `json:"sum"`
	Mean       string   `json:"mean"`
	Std        string   `json:"std"`
	Median     string   `json:"median"`
	P90        string   `json:"p90"`
	P99        string   `json:"p99"`
	P9999      string   `json:"p9999"`
	P50        string   `json:"p50"`
	P0         string   `json:"p0"`
	P100       string   `json:"p100"`
	P33        string   `json:"p33"`
	MeanJitter *string  `json:"mean_jitter"`
	MaxJitter  *string  `json:"max_jitter"`
}

func loadNumpyCases(t *testing.T) []numpyCase {
	t.Helper()
	data, err := os.ReadFile("testdata/numpy_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Cases []numpyCase }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	return ref.Cases
}

func parse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMatchesNumpyBitForBit compares every statistic with numpy's result to
// the last bit, not within a tolerance: summaries are printed with 3
// decimals and a 1-ulp difference can flip the last printed digit.
func TestMatchesNumpyBitForBit(t *testing.T) {
	for _, c := range loadNumpyCases(t) {
		x := make([]float64, len(c.X))
		for i, s := range c.X {
			x[i] = parse(t, s)
		}
		sorted := append([]float64(nil), x...)
		slices.Sort(sorted)
		sum := Summarize(x, nil)
		check := func(name string, got float64, want string) {
			t.Helper()
			if w := parse(t, want); got != w {
				t.Errorf("n=%d %s = %v (%x), numpy %v (%s)", len(x), name, got, got, w, want)
			}
		}
		check("Sum", Sum(x), c.Sum)
		check("Mean", Mean(x), c.Mean)
		check("Summary.Mean", sum.Mean, c.Mean)
		check("Std", Std(x), c.Std)
		check("Summary.Stdev", sum.Stdev, c.Std)
		check("Median", Median(x), c.Median)
		check("Summary.Median", sum.Median, c.Median)
		check("P90", sum.P90, c.P90)
		check("P99", sum.P99, c.P99)
		check("P99.99", sum.P9999, c.P9999)
		check("Percentile 50", Percentile(sorted, 50), c.P50)
		check("Percentile 0", Percentile(sorted, 0), c.P0)
		check("Percentile 100", PercentileOf(x, 100), c.P100)
		check("Percentile 33.3", PercentileOf(x, 33.3), c.P33)
		if c.MeanJitter != nil {
			check("MeanJitter", sum.MeanJitter, *c.MeanJitter)
			check("MaxJitter", sum.MaxJitter, *c.MaxJitter)
		} else if !math.IsNaN(sum.MeanJitter) || !math.IsNaN(sum.MaxJitter) {
			t.Errorf("n=%d: jitter of one sample = %v, %v, want NaN", len(x), sum.MeanJitter, sum.MaxJitter)
		}
		if sum.Min != sorted[0] || sum.Max != sorted[len(sorted)-1] {
			t.Errorf("n=%d: min/max %v %v", len(x), sum.Min, sum.Max)
		}
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	x := []float64{3, 1, 2}
	Summarize(x, nil)
	Median(x)
	PercentileOf(x, 50)
	if x[0] != 3 || x[1] != 1 || x[2] != 2 {
		t.Fatalf("input modified: %v", x)
	}
}

func TestEmpty(t *testing.T) {
	s := Summarize(nil, nil)
	if s.Samples != 0 || !math.IsNaN(s.Mean) || !math.IsNaN(s.P99) {
		t.Fatalf("empty summary %+v", s)
	}
	if !math.IsNaN(Percentile(nil, 50)) || !math.IsNaN(Mean(nil)) || !math.IsNaN(Std(nil)) {
		t.Fatal("empty input should give NaN")
	}
}

func TestLerpExactAtEnds(t *testing.T) {
	// numpy's two-sided formula returns b exactly at t = 1 and a at t = 0.
	a, b := 0.1, 0.7
	if lerp(a, b, 0) != a || lerp(a, b, 1) != b {
		t.Fatal("lerp not exact at the ends")
	}
}

func BenchmarkSummarize10k(b *testing.B) {
	x := make([]float64, 10000)
	for i := range x {
		x[i] = 10 + float64((i*7919)%1000)/37
	}
	var scratch Scratch
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Summarize(x, &scratch)
	}
}

func TestSortFloats(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, n := range []int{0, 1, 5, 255, 256, 1000, 10001} {
		x := make([]float64, n)
		for i := range x {
			switch i % 4 {
			case 0:
				x[i] = rng.NormFloat64() * 1e3
			case 1:
				x[i] = float64(rng.Intn(5)) // ties
			case 2:
				x[i] = rng.ExpFloat64() * 1e-300
			default:
				x[i] = -rng.ExpFloat64() * 1e300
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		sortFloats(x, make([]uint64, 2*n))
		if !slices.Equal(x, want) {
			t.Fatalf("n=%d: radix sort differs from slices.Sort", n)
		}
	}
}

// TestCheckRange: a summary of finite latencies whose statistic overflows
// float64 (numpy gives inf for the same inputs) is a *RangeError naming the
// statistic and the sample to blame.
func TestCheckRange(t *testing.T) {
	cases := []struct {
		name  string
		x     []float64
		stat  string // "" with index -1: no error
		index int
	}{
		{"finite", []float64{1, 2, 3}, "", -1},
		{"one sample, NaN jitters", []float64{7}, "", -1},
		{"empty", nil, "", -1},
		{"largest finite", []float64{math.MaxFloat64}, "", -1},
		// numpy: mean inf, median inf, std inf
		{"mean", []float64{1e308, 1e308}, "Mean", 1},
		// numpy: mean inf, median 5e307, std inf
		{"mean, where the sum overflows", []float64{1, 1e308, 1e308, 5}, "Mean", 2},
		// numpy: mean 5e199, median 5e199, std inf
		{"stdev", []float64{0, 1e200}, "Stdev", 1},
		// numpy: mean 3.67e306, median inf, std inf
		{"median", []float64{0.95e308, -1.79e308, 0.95e308, -1.79e308, 0.95e308, 0.95e308}, "Median", 0},
		{"not finite", []float64{1, math.NaN()}, "latency", 1},
		{"infinite", []float64{math.Inf(1), 1}, "latency", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckRange(Summarize(c.x, nil), c.x)
			if c.index < 0 {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			re, ok := err.(*RangeError)
			if !ok {
				t.Fatalf("error %v, want a *RangeError", err)
			}
			stat := re.Stat
			if stat == "" {
				stat = "latency"
			}
			if stat != c.stat || re.Index != c.index || re.Value != c.x[c.index] && !math.IsNaN(re.Value) {
				t.Fatalf("%+v, want %s at %d", re, c.stat, c.index)
			}
			if !strings.Contains(err.Error(), "not a finite number") {
				t.Fatalf("message %q", err)
			}
		})
	}
}
