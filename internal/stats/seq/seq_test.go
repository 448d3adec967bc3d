package seq

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// TestMixtureIsSignBet: the e-value is the mixture of the sign bets'
// wealths, each the product over the pairs of 2p (pair beyond the margin)
// or 2(1−p) (not), computed pair by pair; MinPairs is the first n at which
// n pairs all beyond reach the threshold.
func TestMixtureIsSignBet(t *testing.T) {
	m := newMixture(0.8)
	var wsum float64
	for _, lw := range m.logW {
		wsum += math.Exp(lw)
	}
	if math.Abs(wsum-1) > 1e-12 {
		t.Fatalf("weights sum to %v", wsum)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		n := 1 + rng.IntN(60)
		y := rng.IntN(n + 1)
		var e float64
		for j, p := range m.p {
			w := math.Exp(m.logW[j])
			for i := range n {
				if i < y {
					w *= 2 * p
				} else {
					w *= 2 * (1 - p)
				}
			}
			e += w
		}
		if got := math.Exp(m.logE(n, y)); math.Abs(got-e) > 1e-9*e {
			t.Errorf("n %d y %d: e-value %v, product %v", n, y, got, e)
		}
	}
	thr := math.Log(100.0)
	k := m.minPairs(thr)
	if !(m.logE(k, k) >= thr && m.logE(k-1, k-1) < thr) {
		t.Errorf("min pairs %d: log e %v at it, %v before, threshold %v", k, m.logE(k, k), m.logE(k-1, k-1), thr)
	}
}

// family draws pairs of K checks with log ratios theta + spread·noise, the
// noise sharing a common factor (correlation ½), normal or Student t₃.
type family struct {
	theta, spread []float64
	heavy         bool
}

func (f family) pair(rng *rand.Rand, i int) (a, b []float64) {
	noise := func() float64 {
		if !f.heavy {
			return rng.NormFloat64()
		}
		var chi float64
		for range 3 {
			g := rng.NormFloat64()
			chi += g * g
		}
		return rng.NormFloat64() / math.Sqrt(chi/3) / math.Sqrt(3)
	}
	common := noise()
	a, b = make([]float64, len(f.theta)), make([]float64, len(f.theta))
	for k := range a {
		e := math.Sqrt(0.5)*common + math.Sqrt(0.5)*noise()
		a[k] = 100 * math.Exp(0.003*float64(i)) // drift, common to the pair
		b[k] = a[k] * math.Exp(f.theta[k]+f.spread[k]*e)
	}
	return a, b
}

// run feeds pairs until the gate stops and returns its last decision.
func run(t *testing.T, f family, cfg Config, rng *rand.Rand) Decision {
	t.Helper()
	specs := make([]Spec, len(f.theta))
	for k := range specs {
		specs[k] = Spec{Name: string(rune('a' + k))}
	}
	g, err := New(specs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		a, b := f.pair(rng, i)
		d, err := g.Add(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status != Continue {
			return d
		}
	}
}

func rateCI(k, n int) (lo, hi float64) { return dist.ClopperPearson(k, n, 0.05) }

// TestNeverFailsAtTheMargin: 10,000 sequences of three checks each exactly
// at the fail margin, monitored after every pair up to 200 pairs (pass made
// unreachable, so that nothing but the budget stops a sequence that does
// not fail): the share ever failed stays below Level, for normal and
// heavy-tailed pairs.
func TestNeverFailsAtTheMargin(t *testing.T) {
	const seqs = 10000
	cfg := Config{Level: 0.05, Margins: paired.Margins{Pass: 0, Fail: 0.05}, MaxPairs: 200}
	for _, heavy := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(11, 12))
		at := paired.Worse(cfg.Margins.Fail)
		f := family{theta: []float64{at, at, at}, spread: []float64{0.03, 0.05, 0.07}, heavy: heavy}
		fails := 0
		for range seqs {
			if run(t, f, cfg, rng).Status == Fail {
				fails++
			}
		}
		lo, hi := rateCI(fails, seqs)
		t.Logf("heavy %v: ever failed %d of %d = %.3f %% [%.3f, %.3f] at level %g", heavy, fails, seqs,
			100*float64(fails)/seqs, 100*lo, 100*hi, cfg.Level)
		// The observed count must not be significantly above the level.
		if lo, _ := dist.ClopperPearson(fails, seqs, 0.002); lo > cfg.Level {
			t.Errorf("heavy %v: ever failed %d of %d, above %g", heavy, fails, seqs, cfg.Level)
		}
	}
}

// TestNeverPassesAtTheMargin: the mirror guarantee, 10,000 sequences of
// one check exactly at the pass margin (worse by δ_pass; with more checks
// all would have to cross), fail made unreachable: the share ever passed
// stays below Level.
func TestNeverPassesAtTheMargin(t *testing.T) {
	const seqs = 10000
	cfg := Config{Level: 0.05, Margins: paired.Margins{Pass: 0.05, Fail: 10}, MaxPairs: 200}
	rng := rand.New(rand.NewPCG(31, 32))
	at := paired.Worse(cfg.Margins.Pass)
	f := family{theta: []float64{at}, spread: []float64{0.05}}
	passes := 0
	for range seqs {
		if run(t, f, cfg, rng).Status == Pass {
			passes++
		}
	}
	lo, hi := rateCI(passes, seqs)
	t.Logf("ever passed %d of %d = %.3f %% [%.3f, %.3f] at level %g", passes, seqs, 100*float64(passes)/seqs, 100*lo, 100*hi, cfg.Level)
	if lo, _ := dist.ClopperPearson(passes, seqs, 0.002); lo > cfg.Level {
		t.Errorf("ever passed %d of %d, above %g", passes, seqs, cfg.Level)
	}
}

// TestStopsEarly: three checks with pairs varying by 5 %, at the default
// level (1 %) and margins (5 %), budget 100 pairs: a 10 % regression of
// one check fails, and an unchanged family passes, nearly always; the
// average number of pairs is logged beside the maximum.
func TestStopsEarly(t *testing.T) {
	const seqs = 2000
	cfg := Config{MaxPairs: 100}
	spread := []float64{0.05, 0.05, 0.05}
	for _, tt := range []struct {
		name  string
		theta []float64
		want  Status
	}{
		{"10 % regression", []float64{0, paired.Worse(0.10), 0}, Fail},
		{"unchanged", []float64{0, 0, 0}, Pass},
	} {
		rng := rand.New(rand.NewPCG(21, 22))
		hits, total, most := 0, 0, 0
		for range seqs {
			d := run(t, family{theta: tt.theta, spread: spread}, cfg, rng)
			if d.Status == tt.want {
				hits++
			}
			total += d.Pairs
			most = max(most, d.Pairs)
		}
		lo, hi := rateCI(hits, seqs)
		t.Logf("%s: %s %.2f %% [%.2f, %.2f], pairs on average %.1f, at most %d", tt.name, tt.want,
			100*float64(hits)/seqs, 100*lo, 100*hi, float64(total)/seqs, most)
		if hits < seqs*95/100 {
			t.Errorf("%s: %s only %d of %d", tt.name, tt.want, hits, seqs)
		}
	}
}

// TestDecisionAndBounds: a clear regression fails with the check named,
// its confidence-sequence bounds above 1+δ_fail, and the gate refuses more
// pairs; the budget ends an undecidable comparison as Spent.
func TestDecisionAndBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g, err := New([]Spec{{Name: "latency"}, {Name: "throughput", HigherIsBetter: true}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var d Decision
	for i := 0; d.Status == Continue; i++ {
		lat := 1.3 * math.Exp(0.03*rng.NormFloat64())
		thr := math.Exp(0.03 * rng.NormFloat64())
		if d, err = g.Add([]float64{100, 1000}, []float64{100 * lat, 1000 * thr}); err != nil {
			t.Fatal(err)
		}
	}
	if d.Status != Fail || len(d.Checks) != 1 || d.Checks[0] != "latency" {
		t.Fatalf("decision %+v", d)
	}
	st := g.Checks()
	if !(st[0].Low > 1.05 && st[0].Low < st[0].Ratio && st[0].Ratio < st[0].High) || st[0].EFail < 2/0.01 {
		t.Errorf("latency state %+v", st[0])
	}
	if !(st[1].Low < st[1].Ratio && st[1].Ratio < st[1].High) {
		t.Errorf("throughput state %+v", st[1])
	}
	if _, err := g.Add([]float64{1, 1}, []float64{1, 1}); err == nil {
		t.Error("a pair after the decision was accepted")
	}
	g, _ = New([]Spec{{Name: "x"}}, Config{MaxPairs: 3})
	for range 3 {
		d, _ = g.Add([]float64{100}, []float64{100 * math.Exp(0.05*rng.NormFloat64())})
	}
	if d.Status != Spent || d.Pairs != 3 || len(d.Checks) != 1 {
		t.Errorf("after the budget: %+v", d)
	}
}

// TestRefusesDependentPairs: one check 30 % worse whose pairs follow an
// AR(1) with φ 0.9: when a decision is due the pairs are found serially
// dependent and the gate stops as Refused, saying so; independent pairs
// of the same check fail.
func TestRefusesDependentPairs(t *testing.T) {
	for _, phi := range []float64{0.9, 0} {
		rng := rand.New(rand.NewPCG(7, 8))
		refused, failed := 0, 0
		for range 50 {
			g, err := New([]Spec{{Name: "x"}, {Name: "y"}}, Config{MaxPairs: 200})
			if err != nil {
				t.Fatal(err)
			}
			var d Decision
			var e0, e1 float64
			for d.Status == Continue {
				e0 = phi*e0 + math.Sqrt(1-phi*phi)*rng.NormFloat64()
				e1 = phi*e1 + math.Sqrt(1-phi*phi)*rng.NormFloat64()
				if d, err = g.Add([]float64{100, 100}, []float64{130 * math.Exp(0.1*e0), 100 * math.Exp(0.1*e1)}); err != nil {
					t.Fatal(err)
				}
			}
			switch d.Status {
			case Refused:
				refused++
				if !d.Dependence.Significant || !strings.Contains(d.Reason, "refused") || d.Pairs < d.MinPairs {
					t.Errorf("refused: %+v", d)
				}
			case Fail:
				failed++
			}
		}
		t.Logf("φ %g: refused %d, failed %d of 50", phi, refused, failed)
		if phi > 0 && refused < 45 || phi == 0 && failed < 45 {
			t.Errorf("φ %g: refused %d, failed %d of 50", phi, refused, failed)
		}
	}
}

// TestDriftingRegressionFails: a check seven times slower whose size
// wanders with the machine (its log ratio an AR(1) of φ 0.9 about 2) and
// an unchanged one: the wandering moves no count of the sign tests, so
// the gate fails at its first look rather than holding for serial
// dependence (as it did when it tested the log ratios themselves, and
// then refused a verdict at the budget of 60).
func TestDriftingRegressionFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	first := 0
	for rep := range 40 {
		g, err := New([]Spec{{Name: "x"}, {Name: "y"}}, Config{MaxPairs: 60})
		if err != nil {
			t.Fatal(err)
		}
		var d Decision
		var e float64
		for d.Status == Continue {
			e = 0.9*e + math.Sqrt(1-0.81)*rng.NormFloat64()
			if d, err = g.Add([]float64{1, 1}, []float64{math.Exp(2 + 0.3*e), math.Exp(0.03 * rng.NormFloat64())}); err != nil {
				t.Fatal(err)
			}
		}
		if d.Status == Pass {
			t.Errorf("rep %d: passed: %s", rep, d.Reason)
		}
		if d.Status == Fail && d.Pairs == g.MinPairs() && !d.Dependence.Significant && strings.Contains(d.Dependence.Text(), "clipped to two spreads about the margin") {
			first++
		}
	}
	// The dependence test's own level (5 %) holds a few by chance.
	if first < 36 {
		t.Errorf("failed at the first look in %d of 40 gates, want nearly all", first)
	}
}
