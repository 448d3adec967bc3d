package throughput

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/result"
)

// simLink is a link whose delivered rate at window f is known, trueRate(f).
// Each measurement is DefaultWindows windows of 10 ms, as Measure cuts
// them: a window's count is its rate × 10 ms, the rate drawn with
// relative noise within (window to window) and, once per measurement,
// between (a level shared by its windows: the machine's load, the
// broker's state, which change between measurements and not within one).
// skew, when set, makes windows bursty: most windows fast, a few slow, so
// the windows' median is above what was delivered. Every measurement's raw
// counts are logged, for the independent computations of the tests.
type simLink struct {
	trueRate        func(f int) float64
	within, between float64
	skew            bool
	rng             *rand.Rand
	log             []simMeasurement
}

type simMeasurement struct {
	f         int
	delivered int
	period    time.Duration
}

const simWindow = 10 * time.Millisecond

func (l *simLink) measure(f int) (Point, error) {
	p := Point{Payload: 16, F: f}
	level := 1 + l.between*l.rng.NormFloat64()
	for range DefaultWindows {
		r := l.trueRate(f) * level * (1 + l.within*l.rng.NormFloat64())
		if l.skew { // 80 % of windows at 1.2×, 20 % at 0.2×: mean 1
			r = l.trueRate(f) * level * 1.2
			if l.rng.Float64() < 0.2 {
				r = l.trueRate(f) * level * 0.2
			}
		}
		n := int(math.Round(max(r, 0) * simWindow.Seconds()))
		p.Samples = append(p.Samples, float64(n)/simWindow.Seconds())
		p.Delivered += n
		p.Period += simWindow
	}
	p.Summarise()
	l.log = append(l.log, simMeasurement{f, p.Delivered, p.Period})
	return p, nil
}

// peaked is a unimodal curve of peak 100,000 msg/s at F = peak.
func peaked(peak float64) func(int) float64 {
	return func(f int) float64 {
		x := math.Log(float64(f) / peak)
		return 1e5 * math.Exp(-x*x/4)
	}
}

// TestSearchWithoutWinnersCurse: over many seeds of a noisy link of known
// curve, the search's own best rate overstates the throughput at its F
// (the figure reported before the confirmation), while the rate confirmed
// after the search is unbiased, and the chosen F's throughput lies within
// the noise of the optimum on average.
func TestSearchWithoutWinnersCurse(t *testing.T) {
	const seeds = 300
	for _, peak := range []float64{40, 3000} {
		var searchBias, confirmBias, reach float64
		for seed := range uint64(seeds) {
			l := &simLink{trueRate: peaked(peak), within: 0.1, between: 0.01, rng: rand.New(rand.NewPCG(seed, 7))}
			out, _, err := Search(l.measure, Config{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			searchBias += out.SearchBest.DeliveredRate()/l.trueRate(out.SearchBest.F) - 1
			confirmBias += out.Rate/l.trueRate(out.F) - 1
			reach += l.trueRate(out.F) / l.trueRate(int(peak))
		}
		searchBias /= seeds
		confirmBias /= seeds
		reach /= seeds
		t.Logf("peak %g: search's best overstates by %+.2f%%, confirmation %+.3f%%; chosen F reaches %.2f%% of the optimum",
			peak, 100*searchBias, 100*confirmBias, 100*reach)
		if searchBias < 0.005 {
			t.Errorf("peak %g: the search's best overstates by only %+.2f%%: the test no longer shows the winner's curse", peak, 100*searchBias)
		}
		// 300 rates of 5 periods, each with 1 % between and 1 % within:
		// standard error about 0.04 %.
		if math.Abs(confirmBias) > 0.002 {
			t.Errorf("peak %g: the confirmed rate is biased by %+.3f%%", peak, 100*confirmBias)
		}
		// Stopping within the noise (differences of some 4 % of the rate)
		// costs little: the curve is flat near its peak.
		if reach < 0.98 {
			t.Errorf("peak %g: the chosen F reaches %.2f%% of the optimal throughput, want ≥ 98%%", peak, 100*reach)
		}
	}
}

// TestIntervalCoversRemeasurement: the interval reported covers an
// independent re-measurement of the chosen F about as often as it says,
// when measurements vary between themselves more than their windows say
// (the windows' median interval, reported before, covered it rarely).
func TestIntervalCoversRemeasurement(t *testing.T) {
	const seeds = 400
	covered := 0
	for seed := range uint64(seeds) {
		l := &simLink{trueRate: peaked(300), within: 0.1, between: 0.08, rng: rand.New(rand.NewPCG(seed, 9))}
		out, _, err := Search(l.measure, Config{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := l.measure(out.F)
		if r := again.DeliveredRate(); out.Low <= r && r <= out.High {
			covered++
		}
	}
	t.Logf("the %g %% interval covers %d of %d re-measurements", 100*ConfidenceLevel, covered, seeds)
	if c := float64(covered) / seeds; c < 0.9 || c > 0.99 {
		t.Errorf("the %g %% interval covers %.1f %% of independent re-measurements", 100*ConfidenceLevel, 100*c)
	}
}

// TestHeadlineIsDelivered: on a link whose windows are bursty, the windows'
// median is above what was delivered; the headline is the messages
// delivered over the measured time of the confirmation periods, computed
// here from the link's raw counts.
func TestHeadlineIsDelivered(t *testing.T) {
	l := &simLink{trueRate: peaked(30), skew: true, rng: rand.New(rand.NewPCG(1, 2))}
	var phases []string
	out, _, err := Search(l.measure, Config{}, func(s Step) { phases = append(phases, s.Phase) })
	if err != nil {
		t.Fatal(err)
	}
	var delivered int
	var period time.Duration
	for i, m := range l.log {
		if phases[i] == "confirmation" && m.f == out.F {
			delivered, period = delivered+m.delivered, period+m.period
		}
	}
	want := float64(delivered) / period.Seconds()
	if math.Abs(out.Rate-want) > 1e-9*want {
		t.Errorf("headline %.3f msg/s, delivered %d messages in %v: %.3f", out.Rate, delivered, period, want)
	}
	if row := out.Row(); row.Median != out.Rate || row.Samples != DefaultPeriods {
		t.Errorf("throughput row %+v, headline %.3f", row, out.Rate)
	}
	if out.Windows.Median < 1.1*want {
		t.Errorf("the windows' median %.0f is not above the delivered rate %.0f: the test no longer shows bursts", out.Windows.Median, want)
	}
	if s := out.Summary(16); !strings.Contains(s, "delivered "+result.Thousands(want)+" msg/s") || !strings.Contains(s, "windows: median "+result.Thousands(out.Windows.Median)) {
		t.Errorf("summary %q", s)
	}
}

// TestSearchStopsWithinNoise: on a flat link whose measurements vary by
// 5 %, the bisection used to chase the noise down to one-message brackets;
// it stops once the bracket's ends are not distinguishable from its best,
// and says so.
func TestSearchStopsWithinNoise(t *testing.T) {
	for seed := range uint64(20) {
		l := &simLink{trueRate: func(int) float64 { return 5e4 }, within: 0.1, between: 0.05, rng: rand.New(rand.NewPCG(seed, 3))}
		out, steps, err := Search(l.measure, Config{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bisections := 0
		for _, s := range steps {
			if s.Phase == "bisection" {
				bisections++
			}
		}
		// The chosen F is then the bracket's best, a point measured.
		if bisections > 3 || out.Hi-out.Lo <= 2 || !out.WithinNoise || out.F != out.SearchBest.F || !strings.Contains(out.Summary(16), "bisection stopped within the noise") {
			t.Errorf("seed %d: %d bisection steps, bracket %d–%d: %s", seed, bisections, out.Lo, out.Hi, out.Summary(16))
		}
	}
}

// TestPredictionInterval: mean ± t(0.975, 4) · s · √(1 + 1/5) for 1…5,
// with the tabulated t = 2.7764451051977987.
func TestPredictionInterval(t *testing.T) {
	lo, hi := PredictionInterval([]float64{5, 1, 4, 2, 3}, 0.95)
	if math.Abs(lo-(-1.8089439866285035)) > 1e-9 || math.Abs(hi-7.8089439866285035) > 1e-9 {
		t.Errorf("interval %v–%v, want −1.80894–7.80894", lo, hi)
	}
	if lo, hi := PredictionInterval([]float64{3}, 0.95); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("one value: %v–%v, want NaN", lo, hi)
	}
}
