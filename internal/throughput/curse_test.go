package throughput

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noisyCurve is a link whose throughput at window f is known, trueRate(f),
// each window measured with 10 % Gaussian noise: what a real broker gives,
// minus the drift.
func noisyCurve(peak float64, rng *rand.Rand) (MeasureFunc, func(f int) float64) {
	trueRate := func(f int) float64 {
		x := math.Log(float64(f) / peak)
		return 1e5 * math.Exp(-x*x/4)
	}
	return func(f int) (Point, error) {
		p := Point{Payload: 16, F: f, Samples: make([]float64, DefaultWindows)}
		for i := range p.Samples {
			p.Samples[i] = trueRate(f) * (1 + 0.1*rng.NormFloat64())
		}
		p.Summarise()
		return p, nil
	}, trueRate
}

// TestSearchWithoutWinnersCurse: over many seeds of a noisy link of known
// curve, the search's own best median overstates the throughput at its F
// (the figure reported before), while the confirmation measured after the
// search is unbiased, the chosen F's throughput lies within the method's
// 1 % of the optimum on average, and the interval covers the true median
// about as often as it says.
func TestSearchWithoutWinnersCurse(t *testing.T) {
	const seeds = 300
	for _, peak := range []float64{40, 3000} {
		var searchBias, confirmBias, reach float64
		covered := 0
		for seed := range uint64(seeds) {
			measure, trueRate := noisyCurve(peak, rand.New(rand.NewPCG(seed, 7)))
			out, _, err := Search(measure, Config{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			searchBias += out.SearchBest.Median/trueRate(out.SearchBest.F) - 1
			confirmBias += out.Confirmed.Median/trueRate(out.F) - 1
			reach += trueRate(out.F) / trueRate(int(peak))
			if out.Low <= trueRate(out.F) && trueRate(out.F) <= out.High {
				covered++
			}
		}
		searchBias /= seeds
		confirmBias /= seeds
		reach /= seeds
		t.Logf("peak %g: search's best overstates by %+.2f%%, confirmation %+.3f%%; chosen F reaches %.2f%% of the optimum; interval covers %d of %d",
			peak, 100*searchBias, 100*confirmBias, 100*reach, covered, seeds)
		if searchBias < 0.005 {
			t.Errorf("peak %g: the search's best overstates by only %+.2f%%: the test no longer shows the winner's curse", peak, 100*searchBias)
		}
		// The mean of 300 medians of 100 windows at 10 %: standard error
		// about 0.07 %.
		if math.Abs(confirmBias) > 0.003 {
			t.Errorf("peak %g: the confirmed median is biased by %+.3f%%", peak, 100*confirmBias)
		}
		if reach < 0.99 {
			t.Errorf("peak %g: the chosen F reaches %.2f%% of the optimal throughput, want ≥ 99%%", peak, 100*reach)
		}
		if c := float64(covered) / seeds; c < 0.9 || c > 0.995 {
			t.Errorf("peak %g: the %g%% interval covers %.1f%% of the time", peak, 100*ConfidenceLevel, 100*c)
		}
	}
}

// TestMedianInterval: the order statistics of the median's interval, as
// tabulated (n = 100 at 95 %: the 40th and 61st), and the range when too
// few samples cannot reach the level.
func TestMedianInterval(t *testing.T) {
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(100 - i) // 100 … 1, unsorted order
	}
	if lo, hi := MedianInterval(x, 0.95); lo != 40 || hi != 61 {
		t.Errorf("n = 100: interval %g–%g, want 40–61", lo, hi)
	}
	if lo, hi := MedianInterval([]float64{3, 1, 2}, 0.95); lo != 1 || hi != 3 {
		t.Errorf("n = 3: interval %g–%g, want the range 1–3", lo, hi)
	}
	if lo, hi := MedianInterval(nil, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no samples: %g–%g, want NaN", lo, hi)
	}
}
