package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// TestUnequalSpreads: an unchanged system whose reference and candidate
// runs differ in spread (CV 5 % vs 30 %, 20 vs 5 runs, each way round;
// 4,000 seeded cases per design), judged by one check at family-wise 1 %
// with no threshold. Mann–Whitney alone (the old p-value) fails it about
// 4 % of the time when the 5 runs are the noisy side; the gate's p-value,
// with Welch's test, now fails it near 1 %. With equal spreads the level
// holds too.
func TestUnequalSpreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 4))
	const cases = 4000
	for _, c := range []struct {
		nr, nc     int
		sr, sc     float64
		oldAtLeast float64 // the old false-fail rate was at least
	}{{20, 5, 0.05, 0.3, 0.025}, {5, 20, 0.3, 0.05, 0.025}, {5, 20, 0.05, 0.3, 0}, {20, 5, 0.3, 0.05, 0}, {10, 10, 0.1, 0.1, 0}} {
		var mw, fails int
		for range cases {
			s := Series{SubExperiment: "s", Payload: 16, Metric: result.Median}
			for range c.nr {
				s.Reference = append(s.Reference, 50*math.Exp(c.sr*rng.NormFloat64()))
			}
			for range c.nc {
				s.Candidate = append(s.Candidate, 50*math.Exp(c.sc*rng.NormFloat64()))
			}
			if e, _ := dist.Compare(s.Reference, s.Candidate, false, 0.01); e.P <= 0.01 && e.Low > 1 {
				mw++
			}
			if Judge([]Series{s}, 0.01, "reference")[0].Status == Failed {
				fails++
			}
		}
		rate := func(k int) float64 { return float64(k) / cases }
		lo, hi := dist.ClopperPearson(fails, cases, 0.05)
		t.Logf("reference %d runs CV %.0f%%, candidate %d runs CV %.0f%%: Mann–Whitney alone %.2f%%, gate %.2f%% (95%% CI %.2f–%.2f%%)",
			c.nr, 100*c.sr, c.nc, 100*c.sc, 100*rate(mw), 100*rate(fails), 100*lo, 100*hi)
		if rate(mw) < c.oldAtLeast || lo > 0.01 || rate(fails) > 0.015 {
			t.Errorf("old %.4f (want ≥ %v), gate %.4f (CI %.4f–%.4f), want near 1 %%", rate(mw), c.oldAtLeast, rate(fails), lo, hi)
		}
	}
}
