package paired

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// CheckResult is the paired analysis of one check.
type CheckResult struct {
	Name           string
	HigherIsBetter bool
	// Ratio is the geometric mean of the units' ratios B/A.
	Ratio float64
	// Low and High bound the ratio B/A simultaneously with every other
	// check's, by max-T: a Low beyond 1+δ_fail (in the worse direction)
	// is the family-wise test's rejection of "worse by at most δ_fail",
	// with error at most Tail, and likewise for High and δ_pass.
	Low, High float64
	// Spread is the standard deviation of the units' log ratios: 0.05
	// means a unit's ratio typically varies by about 5 %.
	Spread float64
	// T is the studentised mean log ratio, positive when B is worse.
	T float64
	// P is the one-sided sign-flip permutation p-value of "B is no worse"
	// for this check alone.
	P float64
	// PAdjusted is P adjusted for the family by Westfall–Young step-down
	// max-T: the family-wise error of declaring this check worse.
	PAdjusted float64
	// Wilcoxon is the one-sided signed-rank test of the log ratios.
	Wilcoxon SignedRank
}

// Analysis is the paired comparison of a family of checks.
type Analysis struct {
	// Units is the number of pairs (or ABBA blocks).
	Units int
	// Exact says every sign flip was enumerated; otherwise Flips were
	// drawn.
	Exact bool
	Flips int
	// CriticalFail is the (1−Tail)-quantile of the largest studentised
	// statistic of the log ratios less the fail margin over the family:
	// each lower bound is the mean log ratio less CriticalFail standard
	// errors. CriticalPass is the same for the pass margin and the upper
	// bounds. They are equal when the margins are.
	CriticalFail, CriticalPass float64
	Tail                       float64
	Margins                    Margins
	Checks                     []CheckResult
	Verdict                    Verdict
}

// Analyze compares B with A on every check of the family from the same
// interleaved units (each check has one value per run of each side, the
// runs in the same order), and decides the verdict.
func Analyze(checks []Check, d Design, cfg Config) (Analysis, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Analysis{}, err
	}
	bad, err := badnessAll(checks, d)
	if err != nil {
		return Analysis{}, err
	}
	f := sumFlips(bad, cfg.Flips, cfg.Seed)
	b := simultaneous(bad, &f, cfg.Tail, cfg.Margins)
	t, p, padj := maxT(bad, &f)
	a := Analysis{Units: len(bad[0]), Exact: f.exact, Flips: f.total(), CriticalFail: b.critFail, CriticalPass: b.critPass, Tail: cfg.Tail,
		Margins: cfg.Margins, Checks: make([]CheckResult, len(checks))}
	names := make([]string, len(checks))
	for k, c := range checks {
		lo, hi := RatioBounds(b.low[k], b.high[k], c.HigherIsBetter)
		a.Checks[k] = CheckResult{Name: c.Name, HigherIsBetter: c.HigherIsBetter, Ratio: Ratio(b.mean[k], c.HigherIsBetter),
			Low: lo, High: hi, Spread: b.sd[k], T: t[k], P: p[k], PAdjusted: padj[k], Wilcoxon: SignedRankTest(bad[k])}
		names[k] = c.Name
	}
	a.Verdict = decide(names, b.low, b.high, cfg.Margins, cfg.Tail)
	return a, nil
}

// badnessAll returns [check][unit] log ratios, checking that every check
// has the same number of units, at least two.
func badnessAll(checks []Check, d Design) ([][]float64, error) {
	if len(checks) == 0 {
		return nil, errors.New("no checks to compare")
	}
	bad := make([][]float64, len(checks))
	for k, c := range checks {
		var err error
		if bad[k], err = Badness(c, d); err != nil {
			return nil, err
		}
		if len(bad[k]) != len(bad[0]) {
			return nil, fmt.Errorf("%s has %d units but %s has %d: every check needs a value from each run",
				c.Name, len(bad[k]), checks[0].Name, len(bad[0]))
		}
	}
	if len(bad[0]) < 2 {
		return nil, fmt.Errorf("%d unit(s): a paired comparison needs at least 2", len(bad[0]))
	}
	return bad, nil
}

// bounds are a family's simultaneous bounds on the badness scale.
type bounds struct {
	mean, sd           []float64
	critFail, critPass float64
	low, high          []float64
}

// simultaneous returns the max-T bounds. The lower bounds use the
// (1−tail)-quantile, over the sign flips, of the largest studentised mean of
// the flipped log ratios less the fail margin: a lower bound exceeds the
// margin exactly when the single-step max-T test rejects "this check is
// worse by at most δ_fail", which is exact when every check sits at the
// margin and its units' ratios are symmetric. The upper bounds use the same
// quantile for the ratios less the pass margin (by the symmetry of the flip
// set, that of the largest negated statistic). A check whose log ratios
// are all equal takes no part in the maxima and gets the point interval.
func simultaneous(d [][]float64, f *flipSums, tail float64, m Margins) bounds {
	k, n := len(d), len(d[0])
	b := bounds{mean: make([]float64, k), sd: make([]float64, k), low: make([]float64, k), high: make([]float64, k)}
	failAt, passAt := Worse(m.Fail), Worse(m.Pass)
	ssFail, ssPass := make([]float64, k), make([]float64, k)
	flat := make([]bool, k)
	for c, x := range d {
		var s, ss float64
		for _, v := range x {
			s += v
			ssFail[c] += (v - failAt) * (v - failAt)
			ssPass[c] += (v - passAt) * (v - passAt)
		}
		mean := s / float64(n)
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
		b.mean[c], b.sd[c] = mean, math.Sqrt(ss/float64(n-1))
		flat[c] = ss <= 1e-24*ssFail[c] || ss == 0
	}
	fails := make([]float64, 0, f.total())
	passes := make([]float64, 0, f.total())
	for g, e := range f.se {
		fp, fm, pp, pm := math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
		for c := range d {
			if flat[c] {
				continue
			}
			tf := tstat(f.sd[g][c]-failAt*e, ssFail[c], n)
			tp := tstat(f.sd[g][c]-passAt*e, ssPass[c], n)
			fp, fm, pp, pm = max(fp, tf), max(fm, -tf), max(pp, tp), max(pm, -tp)
		}
		fails = append(fails, fp, fm)
		passes = append(passes, pp, pm)
	}
	b.critFail, b.critPass = upperQuantile(fails, tail), upperQuantile(passes, tail)
	for c := range d {
		if flat[c] {
			b.low[c], b.high[c] = b.mean[c], b.mean[c]
			continue
		}
		se := b.sd[c] / math.Sqrt(float64(n))
		b.low[c], b.high[c] = b.mean[c]-b.critFail*se, b.mean[c]+b.critPass*se
	}
	return b
}

// upperQuantile returns the smallest value c of x with a share of at most
// tail of x above it. It sorts x.
func upperQuantile(x []float64, tail float64) float64 {
	slices.Sort(x)
	return x[int(math.Ceil((1-tail)*float64(len(x))))-1]
}

// maxT returns each check's studentised mean log ratio, its one-sided
// sign-flip p-value, and the Westfall–Young step-down max-T adjusted
// p-value (Westfall and Young 1993, algorithm 2.8, with successive maxima
// so that the adjusted p-values are monotone in the observed statistics).
// Drawn flips count the observed one: p = (1 + hits)/(1 + flips).
func maxT(d [][]float64, f *flipSums) (t, p, padj []float64) {
	k, n := len(d), len(d[0])
	t, p, padj = make([]float64, k), make([]float64, k), make([]float64, k)
	ss := make([]float64, k)
	for c, x := range d {
		var s float64
		for _, v := range x {
			s += v
			ss[c] += v * v
		}
		t[c] = tstat(s, ss[c], n)
	}
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpFloat(t[a], t[b]) })
	hits := make([]float64, k)
	stepHits := make([]float64, k)
	star := make([]float64, k)
	for g := range f.se {
		for c := range d {
			star[c] = tstat(f.sd[g][c], ss[c], n)
		}
		for _, sign := range []float64{1, -1} {
			u := math.Inf(-1)
			for j := k - 1; j >= 0; j-- {
				c := order[j]
				u = max(u, sign*star[c])
				if atLeast(u, t[c]) {
					stepHits[j]++
				}
				if atLeast(sign*star[c], t[c]) {
					hits[c]++
				}
			}
		}
	}
	total, extra := float64(f.total()), 0.0
	if !f.exact {
		extra = 1
	}
	running := 0.0
	for j, c := range order {
		p[c] = (hits[c] + extra) / (total + extra)
		running = max(running, (stepHits[j]+extra)/(total+extra))
		padj[c] = running
	}
	return t, p, padj
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
