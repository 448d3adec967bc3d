//go:build !race

package paired

// The statistical simulations of the paired analysis: hundreds of drawn
// families each, arithmetic without goroutines, which the race detector
// slows several times over and has nothing to find in. go test -race leaves
// them out; make test runs them in a go test of their own, without -race
// (every test named TestSim…, in files built only without it).

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/stats/dist"
)

// model draws the log ratios of one unit: K checks sharing a common factor
// with correlation rho, each with its own spread, shifted by theta.
type model struct {
	theta, spread []float64
	rho           float64
	heavy         bool // Student t with 3 degrees of freedom, scaled to the spread
	// perRun is a drift of the machine per run (log scale) over the series
	// of 2n runs; fixedOrder runs A first in every pair, else the order
	// within a pair is drawn.
	perRun     float64
	fixedOrder bool
}

func (m model) draw(rng *rand.Rand, n int) []Check {
	k := len(m.theta)
	checks := make([]Check, k)
	for c := range checks {
		checks[c] = Check{Name: string(rune('a' + c)), A: make([]float64, n), B: make([]float64, n)}
	}
	noise := func() float64 {
		if !m.heavy {
			return rng.NormFloat64()
		}
		z := rng.NormFloat64()
		var chi float64
		for range 3 {
			g := rng.NormFloat64()
			chi += g * g
		}
		return z / math.Sqrt(chi/3) / math.Sqrt(3) // unit variance
	}
	for i := range n {
		common := noise()
		runA, runB := 2*i, 2*i+1
		if !m.fixedOrder && rng.IntN(2) == 0 {
			runA, runB = runB, runA
		}
		driftA, driftB := math.Exp(m.perRun*float64(runA)), math.Exp(m.perRun*float64(runB))
		for c := range checks {
			e := math.Sqrt(m.rho)*common + math.Sqrt(1-m.rho)*noise()
			checks[c].A[i] = 100 * driftA * float64(c+1)
			checks[c].B[i] = 100 * driftB * float64(c+1) * math.Exp(m.theta[c]+m.spread[c]*e)
		}
	}
	return checks
}

func repeat(v float64, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = v
	}
	return out
}

// rate runs reps analyses of n units and counts the verdicts in zone z.
func rate(t *testing.T, m model, n, reps int, cfg Config, z Zone, seed uint64) (hits int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	for r := range reps {
		cfg.Seed = uint64(r)
		a, err := Analyze(m.draw(rng, n), Pairs, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if a.Verdict.Zone == z {
			hits++
		}
	}
	return hits
}

func ci(k, n int) string {
	lo, hi := dist.ClopperPearson(k, n, 0.05)
	return fmtRate(k, n) + " [" + fmtPct(lo) + ", " + fmtPct(hi) + "]"
}

func fmtRate(k, n int) string { return fmtPct(float64(k) / float64(n)) }

func fmtPct(p float64) string { return strconvPct(100 * p) }

// TestSimFalseFailAtTheMargin: every check exactly 5 % worse, the edge of what
// may not fail: the family fails at most Tail of the time, for normal and
// heavy-tailed units, with exact (10 units) and drawn (20 units) flips.
func TestSimFalseFailAtTheMargin(t *testing.T) {
	if testing.Short() {
		t.Skip("4,000 analyses")
	}
	const reps, k = 1000, 4
	cfg := Config{Tail: 0.05, Flips: 2000}
	for _, heavy := range []bool{false, true} {
		for _, n := range []int{10, 20} {
			m := model{theta: repeat(Worse(0.05), k), spread: []float64{0.03, 0.05, 0.07, 0.05}, rho: 0.5, heavy: heavy}
			fails := rate(t, m, n, reps, cfg, Fail, uint64(n))
			t.Logf("heavy %v, %d units: false fail %s (nominal ≤ %g)", heavy, n, ci(fails, reps), cfg.Tail)
			if lo, _ := dist.ClopperPearson(fails, reps, 0.002); lo > cfg.Tail {
				t.Errorf("heavy %v, %d units: false fail %s exceeds %g", heavy, n, ci(fails, reps), cfg.Tail)
			}
		}
	}
}

// TestSimDriftWithinPairs: the machine drifts 1 % per run (50 % over the 40
// runs of 20 pairs). With the order within each pair drawn at random the
// drift cancels in distribution and an unchanged family at the margin
// still fails at most Tail of the time; with A always first, every ratio
// carries one run's drift and the level is lost.
func TestSimDriftWithinPairs(t *testing.T) {
	const reps, k, n = 1000, 4, 20
	cfg := Config{Tail: 0.05, Flips: 1000}
	for _, fixed := range []bool{false, true} {
		m := model{theta: repeat(Worse(0.05), k), spread: repeat(0.05, k), rho: 0.5, perRun: 0.01, fixedOrder: fixed}
		fails := rate(t, m, n, reps, cfg, Fail, 9)
		t.Logf("drift 1 %% per run, A first always %v: false fail %s (nominal ≤ %g)", fixed, ci(fails, reps), cfg.Tail)
		lo, _ := dist.ClopperPearson(fails, reps, 0.002)
		if fixed != (lo > cfg.Tail) {
			t.Errorf("A first always %v: false fail %s", fixed, ci(fails, reps))
		}
	}
}

// TestSimDecidesUnchangedAndRegressed: ten checks whose unit ratios vary by
// 5 % and correlate by ½, 60 units: an unchanged system passes and a 10 %
// regression of a single check fails nearly always, at the default level
// (1 %) and margins (5 %). The sign tests of the median need about half as
// many units again as a t test of the mean would (40 here).
func TestSimDecidesUnchangedAndRegressed(t *testing.T) {
	const reps, k, n = 300, 10, 60
	cfg := Config{Flips: 2000}
	spread := repeat(0.05, k)
	m := model{theta: repeat(0, k), spread: spread, rho: 0.5}
	pass := rate(t, m, n, reps, cfg, Pass, 1)
	theta := repeat(0, k)
	theta[7] = Worse(0.10)
	fail := rate(t, model{theta: theta, spread: spread, rho: 0.5}, n, reps, cfg, Fail, 2)
	t.Logf("%d checks, %d units: unchanged passes %s, 10 %% regression of one check fails %s", k, n, ci(pass, reps), ci(fail, reps))
	if pass < reps*95/100 || fail < reps*95/100 {
		t.Errorf("pass %s, fail %s: the gate does not decide", ci(pass, reps), ci(fail, reps))
	}
}

// TestSimPlanUnits plans from 40 A/A units and checks the plan on fresh
// comparisons from the same model.
func TestSimPlanUnits(t *testing.T) {
	const k = 3
	spread := []float64{0.04, 0.07, 0.05}
	rng := rand.New(rand.NewPCG(3, 4))
	aa := model{theta: repeat(0, k), spread: spread, rho: 0.6}.draw(rng, 40)
	cfg := PlanConfig{Config: Config{Flips: 1000}, Resamples: 300}
	p, err := PlanUnits(aa, Pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range p.Points {
		t.Logf("%3d units: pass %.3f [%.3f, %.3f], fail %.3f [%.3f, %.3f]", pt.Units, pt.Pass, pt.PassLow, pt.PassHigh,
			pt.Fail, pt.FailLow, pt.FailHigh)
	}
	if p.Units == 0 {
		t.Fatal("no plan within 200 units")
	}
	const reps = 400
	theta := repeat(0, k)
	theta[1] = Worse(0.10) // the noisiest check
	for _, tt := range []struct {
		name  string
		units int
		least int // of reps, for pass and for fail
	}{{"planned", p.Units, reps * 80 / 100}, {"safe", p.Safe, reps * 95 / 100}} {
		pass := rate(t, model{theta: repeat(0, k), spread: spread, rho: 0.6}, tt.units, reps, cfg.Config, Pass, 5)
		fail := rate(t, model{theta: theta, spread: spread, rho: 0.6}, tt.units, reps, cfg.Config, Fail, 6)
		t.Logf("%s %d units; fresh comparisons: pass %s, fail %s", tt.name, tt.units, ci(pass, reps), ci(fail, reps))
		// The plan rests on 40 A/A units, so its N is an estimate: near
		// the 95 % aimed at, and the safe N reaches it. The sign tests'
		// power rests on the share of units near the margin, which 40
		// units estimate more loosely than a spread (here 82 % at the
		// planned N).
		if pass < tt.least || fail < tt.least {
			t.Errorf("at the %s %d units: pass %s, fail %s", tt.name, tt.units, ci(pass, reps), ci(fail, reps))
		}
	}
}

func strconvPct(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " %" }

// TestSimSerialDependenceBlocksOrRefuses: pairs whose log ratios follow an
// AR(1) with φ 0.8 are found dependent and the verdict is on blocks or
// refused; independent pairs are found dependent about as often as the
// test's level.
func TestSimSerialDependenceBlocksOrRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const reps = 200
	found, falseAlarm := 0, 0
	for range reps {
		for _, phi := range []float64{0.8, 0} {
			x := [][]float64{make([]float64, 40), make([]float64, 40)}
			var e0, e1 float64
			for i := range 40 {
				e0 = phi*e0 + math.Sqrt(1-phi*phi)*rng.NormFloat64()
				e1 = phi*e1 + math.Sqrt(1-phi*phi)*rng.NormFloat64()
				x[0][i], x[1][i] = 0.05*e0, 0.05*e1
			}
			a, err := Analyze(checksOf(x), Pairs, Config{Seed: rng.Uint64()})
			if err != nil {
				t.Fatal(err)
			}
			dep := a.Dependence
			if dep.Significant != (dep.Block > 1 || dep.Refused) {
				t.Fatalf("dependence %+v: significant without blocks or refusal, or the reverse", dep)
			}
			if dep.Refused && (a.Verdict.Zone != Inconclusive || !strings.Contains(a.Verdict.Reason, "refused")) {
				t.Errorf("refused, but %s: %s", a.Verdict.Zone, a.Verdict.Reason)
			}
			if phi > 0 && dep.Significant {
				found++
			}
			if phi == 0 && dep.Significant {
				falseAlarm++
			}
		}
	}
	t.Logf("φ 0.8: found %d of %d; independent: %d of %d", found, reps, falseAlarm, reps)
	if found < reps*9/10 || falseAlarm > reps/10 {
		t.Errorf("φ 0.8 found %d of %d, independent found %d of %d", found, reps, falseAlarm, reps)
	}
}

// TestSimBlockForSample: the lag-1 autocorrelation of 60 units of an AR(1)
// with φ 0.53, averaged over 2,000 series, is biased low enough that
// BlockFor of it gives blocks a size too small for φ; BlockForSample of it
// gives BlockFor(φ).
func TestSimBlockForSample(t *testing.T) {
	const phi, n, reps = 0.53, 60, 2000
	rng := rand.New(rand.NewPCG(9, 10))
	var sum float64
	x := [][]float64{make([]float64, n)}
	for range reps {
		e := rng.NormFloat64()
		for i := range n {
			e = phi*e + math.Sqrt(1-phi*phi)*rng.NormFloat64()
			x[0][i] = e
		}
		r, _, _ := SerialDependence(x, 1, 0)
		sum += r
	}
	r := sum / reps
	t.Logf("mean r %.3f for φ %g: BlockFor %d, BlockForSample %d, BlockFor(φ) %d", r, phi, BlockFor(r), BlockForSample(r, n), BlockFor(phi))
	if BlockFor(r) >= BlockFor(phi) || BlockForSample(r, n) != BlockFor(phi) {
		t.Errorf("mean r %.3f for φ %g: BlockFor %d, BlockForSample %d, want BlockFor(r) below BlockFor(φ) = %d and BlockForSample equal to it",
			r, phi, BlockFor(r), BlockForSample(r, n), BlockFor(phi))
	}
}
