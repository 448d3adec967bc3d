//go:build !race

package trend

// The statistical simulations of the package: thousands of drawn series,
// arithmetic without goroutines, which the race detector slows several times
// over and has nothing to find in. go test -race leaves them out; make test
// runs them in a go test of their own, without -race (every test named
// TestSim…, in files built only without it).

import (
	"math/rand/v2"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/dist"
)

// TestSimSerialLevel: on AR(1) series without trend (φ = 0, 0.3, 0.6; 10, 20
// and 40 runs) the plain Mann–Kendall p-value rejects at 5 % far more often
// than 5 % once φ > 0, and TestSerial's corrected one does not: its rate's
// 95 % Clopper–Pearson interval starts at or below 5 %, and the rate itself
// is at most 5 %. The lag-1 permutation test holds its level on independent
// runs, with or without a drift. Run with -v for the rates;
// MQGATE_SIM_TRIALS=5000 for the figures of docs/methods.md.
func TestSimSerialLevel(t *testing.T) {
	if testing.Short() {
		t.Skip("3,600 series")
	}
	trials := simTrials(400)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{10, 20, 40} {
		x := make([]float64, n)
		for _, phi := range []float64{0, 0.3, 0.6} {
			var plain, corrected, lag int
			for range trials {
				ar1(rng, x, phi, 0)
				s, err := TestSerial(x)
				if err != nil {
					t.Fatal(err)
				}
				if s.Test.P <= 0.05 {
					plain++
				}
				if s.P <= 0.05 {
					corrected++
				}
				if s.Lag1P <= 0.05 {
					lag++
				}
			}
			rate := func(k int) (float64, float64, float64) {
				lo, hi := dist.ClopperPearson(k, trials, 0.05)
				return float64(k) / float64(trials), lo, hi
			}
			p, _, _ := rate(plain)
			c, clo, chi := rate(corrected)
			l, llo, _ := rate(lag)
			t.Logf("n %d φ %.1f: plain %.1f%%, corrected %.1f%% [%.1f, %.1f], lag-1 test %.1f%%", n, phi, 100*p, 100*c, 100*clo, 100*chi, 100*l)
			if c > 0.05 || clo > 0.05 {
				t.Errorf("n %d φ %v: corrected test rejects %.2f%% [%.2f, %.2f] at 5 %%", n, phi, 100*c, 100*clo, 100*chi)
			}
			if phi >= 0.3 && p < 0.09 {
				t.Errorf("n %d φ %v: plain test rejects only %.2f%%: the simulation does not reproduce the excess it is for", n, phi, 100*p)
			}
			if phi == 0 && llo > 0.05 {
				t.Errorf("n %d: lag-1 test rejects %.2f%% of independent series at 5 %%", n, 100*l)
			}
		}
	}
	// Independent runs with a drift: the lag-1 test is run on the runs
	// less Sen's line, so a drift is not taken for correlation.
	x := make([]float64, 20)
	lag := 0
	for range trials {
		ar1(rng, x, 0, 0.3)
		if s, _ := TestSerial(x); s.Lag1P <= 0.05 {
			lag++
		}
	}
	if lo, _ := dist.ClopperPearson(lag, trials, 0.05); lo > 0.05 {
		t.Errorf("drift of 0.3 sd per run: lag-1 test rejects %d of %d independent series", lag, trials)
	}
}

// TestSimSerialPower: the correction costs power but keeps it where the
// drift is clear: 0.1 standard deviations per run over 40 independent runs
// is found in ≥ 90 % of series; and a lag-1 correlation of 0.6 over 40
// runs is detected in most series.
func TestSimSerialPower(t *testing.T) {
	trials := simTrials(200)
	rng := rand.New(rand.NewPCG(13, 14))
	x := make([]float64, 40)
	var found, corr int
	for range trials {
		ar1(rng, x, 0, 0.1)
		if s, _ := TestSerial(x); s.P <= 0.05 {
			found++
		}
		ar1(rng, x, 0.6, 0)
		if s, _ := TestSerial(x); s.Lag1P <= 0.05 {
			corr++
		}
	}
	t.Logf("drift 0.1 sd per run, 40 runs: found %d of %d; φ = 0.6: lag-1 significant in %d", found, trials, corr)
	// The price, where it shows: 20 runs.
	x = x[:20]
	var plain, corrected int
	for range trials {
		ar1(rng, x, 0, 0.1)
		s, _ := TestSerial(x)
		if s.Test.P <= 0.05 {
			plain++
		}
		if s.P <= 0.05 {
			corrected++
		}
	}
	t.Logf("drift 0.1 sd per run, 20 independent runs: found by Test in %d, by TestSerial in %d of %d", plain, corrected, trials)
	if float64(found) < 0.9*float64(trials) || float64(corr) < 0.7*float64(trials) {
		t.Errorf("drift found in %d, φ = 0.6 detected in %d of %d series", found, corr, trials)
	}
}

// TestSimHinge: on AR(1) series of 40 runs without a rise, whitened with
// the true φ (0, 0.6, 0.8), TestHinge from run 30 rejects "no rise" at
// 1 % in a share whose 95 % Clopper–Pearson interval holds 1 % (it is
// exact for normal runs); on independent runs that rise 0.5 standard
// deviations per run from run 30 (a creep of 1 % per experiment in 2 %
// noise), it finds the rise at 1 % in at least 99 % of series, where
// Mann–Kendall over the same 40 runs (TestSerialPhi, φ = 0) finds it in
// fewer: it looks for a line through all of them.
func TestSimHinge(t *testing.T) {
	trials := simTrials(2000)
	rng := rand.New(rand.NewPCG(15, 16))
	x := make([]float64, 40)
	for _, phi := range []float64{0, 0.6, 0.8} {
		k := 0
		for range trials {
			ar1(rng, x, phi, 0)
			h, err := TestHinge(x, 30, phi)
			if err != nil {
				t.Fatal(err)
			}
			k += btoi(h.PUp <= 0.01)
		}
		lo, hi := dist.ClopperPearson(k, trials, 0.05)
		t.Logf("φ %.1f, no rise: rejected at 1 %% in %d of %d [%.2f, %.2f %%]", phi, k, trials, 100*lo, 100*hi)
		if lo > 0.01 || hi < 0.01 {
			t.Errorf("φ %v: rejected %d of %d at 1 %%: [%.4f, %.4f]", phi, k, trials, lo, hi)
		}
	}
	hinge, mk := 0, 0
	for range trials {
		ar1(rng, x, 0, 0)
		for i := 30; i < 40; i++ {
			x[i] += 0.5 * float64(i-29)
		}
		h, _ := TestHinge(x, 30, 0)
		s, _ := TestSerialPhi(x, 0)
		hinge += btoi(h.PUp <= 0.01)
		mk += btoi(s.P/2 <= 0.01 && s.Test.S > 0)
	}
	t.Logf("rise of 0.5 sd per run over the newest 10 of 40: found at 1 %% by the hinge in %d of %d, by Mann–Kendall in %d", hinge, trials, mk)
	if float64(hinge) < 0.99*float64(trials) || mk >= hinge {
		t.Errorf("rise found by the hinge in %d of %d, by Mann–Kendall in %d", hinge, trials, mk)
	}
}
