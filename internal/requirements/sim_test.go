//go:build !race

package requirements

// The package's statistical simulations: thousands of seeded derivations
// and drift tests each, pure arithmetic in one goroutine that the race
// detector slows several times over and has nothing to find in. go test
// -race leaves them out; make test runs them in a go test of their own,
// without -race (every test named TestSim…, in files built only without
// it).

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// TestSimCorrelatedRunsAreReported: when consecutive runs are AR(1)-correlated
// (φ = 0.6), the candidate block follows the reference block and an
// unchanged system fails a check far more often than its level, whichever
// the rank: exchangeability, which the guarantee rests on, does not hold,
// and no limit from the runs alone can restore it. What requirements does
// is say so: the drift report tests each check's lag-1 autocorrelation,
// and finds it in most series of 20 and 40 runs. Run with -v for the
// figures.
func TestSimCorrelatedRunsAreReported(t *testing.T) {
	trials := simTrials(1500)
	sd := math.Sqrt(math.Log(1 + 0.3*0.3))
	const level = 0.01 / 3
	rng := rand.New(rand.NewPCG(23, 24))
	for _, phi := range []float64{0.3, 0.6} {
		for _, n := range []int{10, 20, 40} {
			f1, _ := checkRates(rng, trials, n, 10, sd, phi, 1, 1)
			f0, _ := checkRates(rng, trials, n, 10, sd, phi, 1, 0)
			found := rate{n: trials / 5}
			for range found.n {
				if len(driftOf(ar1Input(rng, n, phi, sd)).Correlated()) > 0 {
					found.k++
				}
			}
			t.Logf("φ %.1f, %d runs: unchanged fails %v (largest run, %.0f× the level), %v (now, %.0f×); correlation reported in %v of the reference series",
				phi, n, f1, f1.p()/level, f0, f0.p()/level, found)
			if phi == 0.6 && n >= 20 && found.p() < 0.5 {
				t.Errorf("φ 0.6, %d runs: correlation reported in only %v", n, found)
			}
		}
	}
}

// TestSimDriftLevelAutocorrelated: driftOf on AR(1) runs without trend
// (φ = 0, 0.3, 0.6; 10, 20 and 40 runs; 3 checks, Holm at 5 %). Before, on
// the plain Mann–Kendall p-values, one check at 5 % was flagged in 10–14 %
// of the series at φ = 0.3 and 21–34 % at φ = 0.6, the family in 17–48 %;
// with the variance corrected for lag-1 autocorrelation each stays at or
// below 5 % (the rate and the lower end of its 95 % interval). Run with -v
// for the figures.
func TestSimDriftLevelAutocorrelated(t *testing.T) {
	trials := simTrials(600)
	rng := rand.New(rand.NewPCG(25, 26))
	for _, phi := range []float64{0, 0.3, 0.6} {
		for _, n := range []int{10, 20, 40} {
			single := [2]rate{{n: trials}, {n: trials}} // the Median check alone, before and now
			family := [2]rate{{n: trials}, {n: trials}}
			for range trials {
				d := driftOf(ar1Input(rng, n, phi, 0.1))
				var plain []float64
				for _, c := range d.Checks {
					plain = append(plain, c.Test.P)
				}
				if d.Checks[0].Test.P <= driftLevel {
					single[0].k++
				}
				if d.Checks[0].Serial.P <= driftLevel {
					single[1].k++
				}
				for _, dec := range stats.Holm(plain, driftLevel) {
					if dec.Rejected {
						family[0].k++
						break
					}
				}
				if len(d.Drifting()) > 0 {
					family[1].k++
				}
			}
			t.Logf("φ %.1f, %d runs: one check before %v, now %v; family of 3 (Holm) before %v, now %v", phi, n, single[0], single[1], family[0], family[1])
			for _, r := range []rate{single[1], family[1]} {
				if lo, _ := r.ci(); r.p() > driftLevel || lo > driftLevel {
					t.Errorf("φ %v, %d runs: drift flagged in %v of series without trend", phi, n, r)
				}
			}
			if phi == 0.6 && single[0].p() < 0.15 {
				t.Errorf("φ 0.6, %d runs: the plain test flags only %v: the simulation does not show the excess", n, single[0])
			}
		}
	}
}

// TestSimDriftLevel: on 2,000 seeded families of 3 steady checks of 20 runs,
// the family is flagged at most about driftLevel of the time (Holm).
func TestSimDriftLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const families = 2000
	flagged := 0
	for range families {
		if len(driftOf(driftInput(rng, 20, 0)).Drifting()) > 0 {
			flagged++
		}
	}
	rate := float64(flagged) / families
	t.Logf("steady runs: family flagged %.2f%% at %.0f%%", 100*rate, 100*driftLevel)
	if rate > driftLevel+0.015 {
		t.Errorf("steady runs flagged %.4f of the time, level %v", rate, driftLevel)
	}
}

// TestSimJudgeCalibration simulates unchanged systems (seeded): requirements
// derived from n runs, then k candidate runs of the same system. The
// log-normal check fails with chance level (exactly, by construction), the
// distribution-free one with at most orderChance(n, k, k); 3000 trials
// keep the binomial noise inside the tolerances (5 standard deviations).
func TestSimJudgeCalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 20))
	const trials = 3000
	const level = 0.05
	for _, tc := range []struct {
		method string
		n, k   int
		heavy  bool // runs from a heavy-tailed, not log-normal, distribution
	}{{gate.MethodLogNormal, 20, 1, false}, {gate.MethodLogNormal, 20, 4, false}, {gate.MethodOrder, 6, 3, true}, {gate.MethodOrder, 10, 2, true}} {
		draw := func() float64 {
			if tc.heavy {
				return 10 + math.Abs(r.NormFloat64())/math.Max(r.Float64(), 1e-9) // ratio: heavy tail
			}
			return math.Exp(2 + 0.3*r.NormFloat64())
		}
		fails := 0
		for i := 0; i < trials; i++ {
			obs := make([]Observation, tc.n)
			for j := range obs {
				x := draw()
				obs[j] = Observation{Experiment: string(rune('a' + j)), Type: "a_b", Bytes: 16, Median: x, P99: x, Max: x}
			}
			d, err := DeriveStatistical(obs, StatConfig{FalseFail: 3 * level, Method: tc.method, NormalityLevel: 1e-9})
			if err != nil {
				t.Fatal(err)
			}
			cand := make([]float64, tc.k)
			for j := range cand {
				cand[j] = draw()
			}
			if Judge(d.Requirements[0].Limit(result.RequirementMetrics[0]), cand, 0).Status == "failed" {
				fails++
			}
		}
		rate := float64(fails) / trials
		want := level
		if tc.method == gate.MethodOrder {
			want = orderChance(tc.n, tc.k, tc.k)
		}
		// ±5 binomial standard deviations.
		sd := math.Sqrt(want * (1 - want) / trials)
		if math.Abs(rate-want) > 5*sd {
			t.Errorf("%s n=%d k=%d: unchanged systems fail %.4f of the time, want %.4f", tc.method, tc.n, tc.k, rate, want)
		}
	}
}

// TestSimCorrelatedRunsAreRefused: reference runs that wander together (AR(1)
// over the runs) make an unchanged system fail a check several times as
// often as its level, and nothing computed from them restores
// exchangeability; requirements refuses them instead (pooledSerial at
// serialLevel, before anything is written). For a derivation of 11
// payloads whose runs share the wander, the false-fail rate of the
// requirements it writes is at the level from 20 runs at φ 0.3 and 0.6
// (before: 2–10 times it), and independent runs are refused at about
// serialLevel. One row of 10 runs cannot show the correlation: that case
// keeps its excess (docs/methods.md). Run with -v for the figures.
func TestSimCorrelatedRunsAreRefused(t *testing.T) {
	trials := simTrials(1000)
	sd := math.Sqrt(math.Log(1 + 0.3*0.3))
	const k = 10
	rng := rand.New(rand.NewPCG(25, 26))
	var b strings.Builder
	b.WriteString("| φ | rows | reference runs | unchanged fails, before | unchanged fails, now (refused not counted) | refused |\n|---|---|---|---|---|---|\n")
	for _, phi := range []float64{0, 0.3, 0.6} {
		for _, rows := range []int{1, 11} {
			for _, n := range []int{10, 20, 40} {
				before, _ := sharedRates(rng, trials, rows, n, k, sd, phi, false)
				now, refused := sharedRates(rng, trials, rows, n, k, sd, phi, true)
				lvl := 0.01 / float64(3*rows)
				b.WriteString("| " + strconv.FormatFloat(phi, 'g', -1, 64) + " | " + strconv.Itoa(rows) + " | " + strconv.Itoa(n) + " | " +
					before.String() + " | " + now.String() + " | " + refused.String() + " |\n")
				switch {
				case rows == 11 && n >= 20:
					// The requirements written hold the check level.
					if lo, _ := now.ci(); lo > lvl {
						t.Errorf("φ %g, %d rows, %d runs: unchanged fails %v, above the check level %.3g %%", phi, rows, n, now, 100*lvl)
					}
				case phi == 0:
					if lo, _ := refused.ci(); lo > serialLevel {
						t.Errorf("independent runs, %d rows, %d runs: refused %v, above %g", rows, n, refused, serialLevel)
					}
				}
			}
		}
	}
	t.Logf("CV 30 %%, %d candidate runs, %d derivations per cell, level per check 0.01/(3·rows):\n%s", k, trials, b.String())
}
