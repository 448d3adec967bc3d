package paired

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mqgate/mqgate/internal/stats"
)

// DefaultDependenceLevel is the level of the serial-dependence test of the
// sequential gate: a lag-1 autocorrelation significant at 10 % holds it.
// At 5 % the test missed about 1 in 15 of the stretches of 20 pairs that a
// family at the margin with AR(1) pairs of φ 0.95 spends wholly beyond it,
// each one a FAIL at the first look of a budget of 60: 1.5 % false FAIL in
// all (2,000 gates); at 10 %, 0.86 % (10,000). An independent family held
// by chance is judged at the budget on every pair instead.
const DefaultDependenceLevel = 0.10

// DefaultFixedDependenceLevel is the level of the serial-dependence test of
// the fixed design (Analyze's default). The dependence the test misses is
// what inflates the sign tests: with one check of 40 pairs whose
// consecutive pairs correlate by 0.3 (AR(1)) at the margin, every false
// FAIL and PASS came from pairs the test had not found dependent, and at 5 %
// it misses about 4 in 10 (false FAIL 1.5 %, upper 95 % bound 1.8 %, of
// 10,000 families); at 10 % it misses fewer and the false decisions stay at
// the level (internal/stats/gatesim). The price is blocks of 2 pairs in 1
// independent family of 10, which costs a sign test about 2 points of
// power at 40 pairs. The sequential gate decides later, on more pairs, and
// keeps 5 %.
const DefaultFixedDependenceLevel = 0.10

// Dependence is the serial-dependence diagnostic of a family's units in
// measured order, and what the verdict did about it.
type Dependence struct {
	// Tested says the test ran (it needs 3 units or more, and a check
	// whose log ratios vary).
	Tested bool
	// Clipped says the test was of the log ratios clipped to two spreads
	// either side of the margin decided on (the sequential gate's), so
	// that the size of a regression far beyond the margin, which moves no
	// sign test's count, cannot hold a verdict.
	Clipped bool
	// R is the lag-1 autocorrelation of the units' log ratios, averaged
	// over the checks; P its one-sided randomisation p-value (the same
	// random reordering of the units for every check, Perms orders drawn,
	// p = (1 + orders at least as correlated)/(1 + Perms)). Both are of
	// the units as first measured, before any blocking.
	R, P  float64
	Perms int
	// Level is the test's level; Significant says P ≤ Level.
	Level       float64
	Significant bool
	// Block is the number of consecutive units averaged into one unit of
	// the verdict: 1 when the test was not significant, else doubled until
	// the blocks' own test was not (Units blocks, the pairs past the last
	// whole block left out).
	Block, Units int
	// Refused says the blocks could not remove the dependence with enough
	// of them left for a decision: the verdict is inconclusive whatever
	// the ratios.
	Refused bool
}

// Text says in one sentence what the diagnostic found and what the verdict
// did, for every report.
func (d Dependence) Text() string {
	if !d.Tested {
		if d.Units >= 3 {
			// Every unit gave each check the same ratio: no order is
			// more correlated than another.
			if d.Clipped {
				// The units vary, but all beyond the margin decided
				// on: no sign test's count can move.
				return fmt.Sprintf("serial dependence not tested (no check's log ratio, clipped to two spreads about the margin decided on, varies over the %d units)", d.Units)
			}
			return fmt.Sprintf("serial dependence not tested (no check's log ratio varies over the %d units)", d.Units)
		}
		return "serial dependence not tested (fewer than 3 units)"
	}
	clipped := ""
	if d.Clipped {
		clipped = ", clipped to two spreads about the margin decided on,"
	}
	head := fmt.Sprintf("lag-1 autocorrelation of the log ratios in measured order%s %+.2f (pooled over the checks), randomisation p %s over %d orders",
		clipped, d.R, pText(d.P), d.Perms)
	switch {
	case d.Refused:
		return fmt.Sprintf("%s: serially dependent at %g, and blocks of consecutive pairs leave too few units to remove it; the verdict is refused (inconclusive)", head, d.Level)
	case d.Block > 1:
		return fmt.Sprintf("%s: serially dependent at %g, so the verdict is on the means of %d consecutive units (%d blocks)", head, d.Level, d.Block, d.Units)
	}
	return fmt.Sprintf("%s: no serial dependence at %g", head, d.Level)
}

func pText(p float64) string {
	if p < 0.0001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

// SerialDependence tests a family's units, [check][unit] log ratios in
// measured order, for positive lag-1 autocorrelation: the statistic is
// each check's lag-1 autocorrelation averaged over the checks, its null
// distribution that of random orders of the units (each order applied to
// every check, so that the dependence between the checks of a unit is
// kept). Exact for exchangeable units. ok is false with fewer than 3 units
// or no check that varies.
func SerialDependence(d [][]float64, perms int, seed uint64) (r, p float64, ok bool) {
	n := len(d[0])
	if n < 3 || perms < 1 {
		return 0, 1, false
	}
	var cs [][]float64 // centred, scaled so that Σx² = 1
	for _, x := range d {
		var m, ss float64
		for _, v := range x {
			m += v
		}
		m /= float64(n)
		c := make([]float64, n)
		for i, v := range x {
			c[i] = v - m
			ss += c[i] * c[i]
		}
		if ss <= 1e-24 {
			continue
		}
		for i := range c {
			c[i] /= math.Sqrt(ss)
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return 0, 1, false
	}
	// gram[a][b] is the mean over the checks of the product of units a
	// and b: a reordering's statistic is then a sum of n−1 entries.
	gram := make([]float64, n*n)
	for _, c := range cs {
		for a := range n {
			for b := range n {
				gram[a*n+b] += c[a] * c[b] / float64(len(cs))
			}
		}
	}
	lag := func(order []int) float64 {
		var s float64
		for i := 1; i < n; i++ {
			s += gram[order[i-1]*n+order[i]]
		}
		return s
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	r = lag(order)
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	hits := 0
	for range perms {
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		if lag(order) >= r-1e-12 {
			hits++
		}
	}
	return r, float64(1+hits) / float64(1+perms), true
}

// blocks averages every b consecutive units of d, leaving out the units
// past the last whole block.
func blocks(d [][]float64, b int) [][]float64 {
	out := make([][]float64, len(d))
	for c, x := range d {
		out[c] = make([]float64, len(x)/b)
		for j := range out[c] {
			var s float64
			for _, v := range x[j*b : (j+1)*b] {
				s += v
			}
			out[c][j] = s / float64(b)
		}
	}
	return out
}

// ClipAbout returns x clipped to two of its spreads (1.4826 MAD) either
// side of at: the log ratios as a sign test about a margin at sees them.
// Near the margin, where dependence moves a sign test's count and so its
// level, almost nothing is clipped; a check far beyond it whose size
// wanders clips to a constant, which moves no count.
func ClipAbout(x []float64, at float64) []float64 {
	w := 2 * stats.MADSpread(x)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = min(max(v, at-w), at+w)
	}
	return out
}

// ClippedView is every check of d clipped about the fail margin and, when
// it differs, also about the pass margin, pooled as further checks: what
// Analyze's dependence test sees with Config.Clipped.
func ClippedView(d [][]float64, m Margins) [][]float64 {
	var out [][]float64
	for _, x := range d {
		out = append(out, ClipAbout(x, Worse(m.Fail)))
		if m.Pass != m.Fail {
			out = append(out, ClipAbout(x, Worse(m.Pass)))
		}
	}
	return out
}

// diagnose tests view(d) for serial dependence and returns the units of
// the verdict: d itself, or, when dependent, the means of blocks of b
// consecutive units, b starting from BlockFor of the autocorrelation found
// (at least minBlock) and doubled until view of the blocks tests
// independent; refused when that leaves fewer than least blocks (or fewer
// than 3 to test).
func diagnose(d [][]float64, view func([][]float64) [][]float64, level float64, perms int, seed uint64, least, minBlock int) ([][]float64, Dependence) {
	dep := Dependence{Level: level, Perms: perms, Block: 1, Units: len(d[0])}
	r, p, ok := SerialDependence(view(d), perms, seed)
	if !ok {
		return d, dep
	}
	dep.Tested, dep.R, dep.P, dep.Significant = true, r, p, p <= level
	units := d
	if dep.Significant {
		minBlock = max(minBlock, BlockFor(r))
	}
	if minBlock > 1 {
		dep.Block = minBlock / 2
	}
	for sig := dep.Significant || minBlock > 1; sig; {
		dep.Block *= 2
		units = blocks(d, dep.Block)
		dep.Units = len(units[0])
		if dep.Units < max(least, 3) {
			dep.Refused = true
			return d, dep // the verdict is refused; the estimates are the units'

		}
		_, bp, bok := SerialDependence(view(units), perms, seed+uint64(dep.Block))
		sig = bok && bp <= level
	}
	return units, dep
}

// BlockFor returns the block of consecutive units (a power of 2) whose
// means correlate by at most 0.1 at lag 1 when the units follow an AR(1)
// with coefficient phi: the lag-1 correlation of means of b units is
// φ(1−φᵇ)² / (b(1−φ²) − 2φ(1−φᵇ)). 1 for phi ≤ 0; at most 64.
func BlockFor(phi float64) int {
	b := 1
	for phi > 0 && b < 64 {
		pb := math.Pow(phi, float64(b))
		if phi*(1-pb)*(1-pb)/(float64(b)*(1-phi*phi)-2*phi*(1-pb)) <= 0.1 {
			break
		}
		b *= 2
	}
	return b
}

// BlockForSample returns BlockFor of the AR(1) coefficient that r, the
// lag-1 autocorrelation of n units, estimates. r is biased low in short
// series, E r ≈ φ − (1 + 3φ)/n (Marriott and Pope 1954), so φ is taken as
// (r + 1/n)/(1 − 3/n): blocks sized from r itself came out a size too
// small for the dependence they were to remove.
func BlockForSample(r float64, n int) int {
	if n <= 3 {
		return BlockFor(r)
	}
	return BlockFor((r + 1/float64(n)) / (1 - 3/float64(n)))
}
