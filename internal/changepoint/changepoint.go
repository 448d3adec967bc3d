package changepoint

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/mqgate/mqgate/internal/stats"
)

// Defaults of Options.
const (
	DefaultAlpha        = 0.01
	DefaultPermutations = 199
	// MinSegmentFloor is the least and default MinSegment.
	MinSegmentFloor = 5
)

// Options tune Detect. The zero value means the defaults.
type Options struct {
	// Alpha is the significance level of each split, in (0, 1).
	Alpha float64
	// Permutations drawn per test. Alpha·(Permutations+1) must be at least
	// 1, else no split could ever be significant.
	Permutations int
	// MinSegment is the fewest values of a segment, at least 5.
	MinSegment int
	// Seed of the permutations.
	Seed uint64
	// Autocorrelation is the lag-1 autocorrelation φ to pre-whiten the
	// values with (see the package documentation), in [0, 1). NaN
	// estimates it from the series alone; 0 tests the values as they are.
	Autocorrelation float64
}

// WithDefaults returns o with zero fields set to the defaults.
func (o Options) WithDefaults() Options {
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.Permutations = cmp.Or(o.Permutations, DefaultPermutations)
	o.MinSegment = cmp.Or(o.MinSegment, MinSegmentFloor)
	return o
}

// Validate reports options that cannot work, saying what is expected.
func (o Options) Validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("significance level %v: expected a number between 0 and 1, e.g. 0.01", o.Alpha)
	case o.Permutations < 1:
		return fmt.Errorf("%d permutations: expected at least 1", o.Permutations)
	case o.Alpha*float64(o.Permutations+1) < 1:
		return fmt.Errorf("%d permutations cannot show significance at %v: the smallest p-value is 1/(permutations+1); take at least %d",
			o.Permutations, o.Alpha, int(math.Ceil(1/o.Alpha))-1)
	case o.MinSegment < MinSegmentFloor:
		return fmt.Errorf("minimum segment length %d: expected at least %d", o.MinSegment, MinSegmentFloor)
	case o.Autocorrelation < 0 || o.Autocorrelation >= 1:
		return fmt.Errorf("autocorrelation %v: expected a number from 0 to below 1, or NaN to estimate it", o.Autocorrelation)
	}
	return nil
}

// ChangePoint is where a series shifts.
type ChangePoint struct {
	// Index of the first value of the new segment, in the series given to
	// Detect (gaps counted).
	Index int
	// Order is 1 for the first change point the procedure accepted, 2 for
	// the second, …: the strongest shifts come first.
	Order int
	// Q is the energy statistic of the split when it was accepted.
	Q float64
	// P is its permutation p-value.
	P float64
	// Before and After are the medians of the segments that end and start
	// here, in the final segmentation; Ratio is After/Before (+Inf when
	// Before is 0 and After is not, 1 when both are 0).
	Before, After, Ratio float64
}

// Result is what Detect found.
type Result struct {
	// Values is the number of values tested (NaN gaps left out).
	Values int
	// ChangePoints in ascending Index order.
	ChangePoints []ChangePoint
	// Reason is set when the series was not tested: too short to hold two
	// segments.
	Reason string
	// Tests is the number of permutation tests run; the last one, unless
	// every interval became too short to split, found no significant split.
	Tests int
	// Autocorrelation is the lag-1 autocorrelation φ the values were
	// pre-whitened with (see Autocorrelation); 0 when not tested.
	Autocorrelation float64
}

// Detect finds the change points of x by E-divisive means (see the package
// documentation). NaN values are gaps: they are left out of the analysis, and
// indices refer to x. Infinite values are an error.
func Detect(x []float64, opt Options) (Result, error) {
	opt = opt.WithDefaults()
	if err := opt.Validate(); err != nil {
		return Result{}, err
	}
	vals := make([]float64, 0, len(x))
	pos := make([]int, 0, len(x))
	for i, v := range x {
		if math.IsInf(v, 0) {
			return Result{}, fmt.Errorf("value %d is %v: expected a finite number", i, v)
		}
		if !math.IsNaN(v) {
			vals = append(vals, v)
			pos = append(pos, i)
		}
	}
	res := Result{Values: len(vals)}
	m := opt.MinSegment
	if len(vals) < 2*m {
		res.Reason = fmt.Sprintf("%d value(s), fewer than 2 × the minimum segment length (%d): not tested for change points", len(vals), m)
		return res, nil
	}
	phi := opt.Autocorrelation
	if math.IsNaN(phi) {
		// The plain segmentation, then, when the values are autocorrelated
		// around it, the segmentation of the pre-whitened values.
		d := newDetector(vals, 0, opt)
		cps := d.run()
		res.Tests = d.tests
		var a Lag1
		a.add(vals, bounds(cps, len(vals)))
		if phi = a.Estimate(); phi == 0 {
			res.ChangePoints = describe(vals, cps, pos)
			return res, nil
		}
	}
	d := newDetector(vals, phi, opt)
	cps := d.run()
	res.Tests += d.tests
	res.Autocorrelation = phi
	res.ChangePoints = describe(vals, cps, pos)
	return res, nil
}

// bounds returns the segment bounds of change points cps (Index into n
// values): 0, the indices in ascending order, n.
func bounds(cps []ChangePoint, n int) []int {
	b := []int{0}
	for _, c := range cps {
		b = append(b, c.Index)
	}
	slices.Sort(b)
	return append(b, n)
}

// describe sorts cps by index, fills in the medians of their segments and
// maps their indices, into the values without gaps, to their positions pos
// in the series given.
func describe(vals []float64, cps []ChangePoint, pos []int) []ChangePoint {
	sort.Slice(cps, func(i, j int) bool { return cps[i].Index < cps[j].Index })
	b := bounds(cps, len(vals))
	meds := make([]float64, len(b)-1)
	for i := range meds {
		meds[i] = stats.Median(vals[b[i]:b[i+1]])
	}
	for i := range cps {
		cps[i].Before, cps[i].After = meds[i], meds[i+1]
		cps[i].Ratio = Ratio(meds[i+1], meds[i])
		cps[i].Index = pos[cps[i].Index]
	}
	return cps
}

// Ratio returns after/before: +Inf when before is 0 and after is not, 1 when
// both are 0.
func Ratio(after, before float64) float64 {
	if before == 0 {
		if after == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return after / before
}

// interval is a segment [lo, hi) of the current segmentation with its best
// split, cached: an interval's proposal does not change until it is split.
type interval struct {
	lo, hi int
	tau    int // best split (absolute index); -1 when too short
	q      float64
}

type detector struct {
	vals  []float64 // centred, pre-whitened values
	opt   Options
	rng   *rand.Rand
	sc    *scanner
	tests int
	pv    []float64 // scratch for permutations
}

func newDetector(vals []float64, phi float64, opt Options) *detector {
	// Centring keeps the running sums small next to the differences they
	// yield, and gives the first whitened value the level of the others.
	return &detector{
		vals: whiten(centred(vals, stats.Median(vals)), phi),
		opt:  opt,
		rng:  rand.New(rand.NewPCG(opt.Seed, 0x65646976)),
		sc:   newScanner(len(vals)),
		pv:   make([]float64, len(vals)),
	}
}

// centred returns the values v less c.
func centred(v []float64, c float64) []float64 {
	u := make([]float64, len(v))
	for i, x := range v {
		u[i] = x - c
	}
	return u
}

// newInterval finds the best split of [lo, hi).
func (d *detector) newInterval(lo, hi int) interval {
	iv := interval{lo: lo, hi: hi, tau: -1}
	if hi-lo < 2*d.opt.MinSegment {
		return iv
	}
	t, _, q := d.sc.best(d.vals[lo:hi], d.opt.MinSegment)
	iv.tau, iv.q = lo+t, q
	return iv
}

func (d *detector) run() []ChangePoint {
	ivs := []interval{d.newInterval(0, len(d.vals))}
	var cps []ChangePoint
	for {
		best := -1
		for i, iv := range ivs {
			if iv.tau >= 0 && (best < 0 || iv.q > ivs[best].q) {
				best = i
			}
		}
		if best < 0 {
			return cps // nothing left long enough to split
		}
		cand := ivs[best]
		d.tests++
		if !(cand.q > 0) {
			return cps // no separation at all (e.g. constant values)
		}
		p, stopped := d.pValue(ivs, cand.q, maxExceed(d.opt.Alpha, d.opt.Permutations))
		if stopped {
			return cps // p is only known to exceed Alpha
		}
		cps = append(cps, ChangePoint{Index: cand.tau, Order: len(cps) + 1, Q: cand.q, P: p})
		left, right := d.newInterval(cand.lo, cand.tau), d.newInterval(cand.tau, cand.hi)
		ivs = slices.Replace(ivs, best, best+1, left, right)
	}
}

// maxExceed is the most permuted statistics at or above the observed one
// that still leave p = (1+k)/(R+1) ≤ alpha.
func maxExceed(alpha float64, r int) int {
	return int(math.Floor(alpha*float64(r+1)+1e-9)) - 1
}

// pValue draws Permutations shuffles within every interval of ivs that
// can be split and counts those whose largest statistic reaches q: it
// returns the p-value (1+count)/(Permutations+1), and whether it stopped
// early, once the count exceeded limit (a lower bound of p then).
func (d *detector) pValue(ivs []interval, q float64, limit int) (float64, bool) {
	r := d.opt.Permutations
	exceed := 0
	for k := 0; k < r; k++ {
		qmax := math.Inf(-1)
		for _, iv := range ivs {
			if iv.tau >= 0 {
				qmax = max(qmax, d.permuted(iv.lo, iv.hi))
			}
		}
		if atLeast(qmax, q) {
			if exceed++; exceed > limit {
				return float64(1+exceed) / float64(r+1), true
			}
		}
	}
	return float64(1+exceed) / float64(r+1), false
}

// atLeast reports whether a permuted statistic reaches the observed q,
// allowing for rounding: a permutation that reproduces the observed split
// must count.
func atLeast(perm, q float64) bool {
	return perm >= q-1e-9*math.Abs(q)
}

// permuted shuffles the values of [lo, hi) in scratch space and returns the
// best split statistic of the shuffled interval.
func (d *detector) permuted(lo, hi int) float64 {
	pv := d.pv[lo:hi]
	copy(pv, d.vals[lo:hi])
	d.rng.Shuffle(len(pv), func(i, j int) { pv[i], pv[j] = pv[j], pv[i] })
	_, _, q := d.sc.best(pv, d.opt.MinSegment)
	return q
}

// LocalTest tests whether the values of x[lo:hi] (NaN gaps left out) are one
// distribution rather than two separated somewhere: the statistic is the
// best split's Q (both sides at least minSegment values), and the p-value
// is (1+#{Q of a shuffle ≥ Q})/(permutations+1). It is the test of one
// E-divisive step, confined to two adjacent segments, with as many
// permutations as asked. The test stops once the p-value is sure to exceed
// stopAbove, and then returns a lower bound of it that exceeds stopAbove;
// stopAbove ≥ 1 never stops early. The values are pre-whitened with the
// lag-1 autocorrelation phi first (see the package documentation; 0 tests
// them as they are).
func LocalTest(x []float64, lo, hi, minSegment, permutations int, seed uint64, phi, stopAbove float64) (float64, error) {
	if lo < 0 || hi > len(x) || lo >= hi {
		return math.NaN(), fmt.Errorf("range [%d, %d) outside the series of %d values", lo, hi, len(x))
	}
	vals, err := testValues(minSegment, permutations, x[lo:hi])
	if err != nil {
		return math.NaN(), err
	}
	return bestSplitP(vals[0], phi, minSegment, permutations, seed, stopAbove), nil
}

// testValues checks the arguments of a LocalTest or SegmentsTest and
// returns the values of each stretch, NaN gaps left out; together they
// must be enough for a split.
func testValues(minSegment, permutations int, stretches ...[]float64) ([][]float64, error) {
	if minSegment < MinSegmentFloor {
		return nil, fmt.Errorf("minimum segment length %d: expected at least %d", minSegment, MinSegmentFloor)
	}
	if permutations < 1 {
		return nil, errors.New("expected at least 1 permutation")
	}
	parts, n := make([][]float64, len(stretches)), 0
	for k, x := range stretches {
		for _, v := range x {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("value %v: expected a finite number", v)
			}
			if !math.IsNaN(v) {
				parts[k] = append(parts[k], v)
			}
		}
		n += len(parts[k])
	}
	if n < 2*minSegment {
		return nil, fmt.Errorf("%d value(s): a split needs at least %d", n, 2*minSegment)
	}
	return parts, nil
}

// SegmentsTest is LocalTest of two stretches of x that need not touch: a
// segment before a shift, [refLo, refHi), and the newest one, [curLo,
// curHi), with refHi ≤ curLo and whatever lies between left out. It tests
// whether the two hold one distribution, by the best split of the values of
// the first followed by those of the second (both sides at least
// minSegment values), as LocalTest does for adjacent segments, which it
// is when refHi = curLo. Each stretch is pre-whitened with phi on its own
// (from its first value, as Prais–Winsten starts a series), around the
// median of both, so that the values between them weigh in neither.
func SegmentsTest(x []float64, refLo, refHi, curLo, curHi, minSegment, permutations int, seed uint64, phi, stopAbove float64) (float64, error) {
	if refLo < 0 || refLo >= refHi || refHi > curLo || curLo >= curHi || curHi > len(x) {
		return math.NaN(), fmt.Errorf("stretches [%d, %d) and [%d, %d) are not two in order inside the series of %d values", refLo, refHi, curLo, curHi, len(x))
	}
	if refHi == curLo {
		return LocalTest(x, refLo, curHi, minSegment, permutations, seed, phi, stopAbove)
	}
	parts, err := testValues(minSegment, permutations, x[refLo:refHi], x[curLo:curHi])
	if err != nil {
		return math.NaN(), err
	}
	c := stats.Median(append(slices.Clone(parts[0]), parts[1]...))
	var w []float64
	for _, p := range parts {
		w = append(w, whiten(centred(p, c), phi)...)
	}
	return bestSplitP(w, 0, minSegment, permutations, seed, stopAbove), nil
}

// bestSplitP is the permutation p-value of the best split of vals,
// pre-whitened with phi first (LocalTest).
func bestSplitP(vals []float64, phi float64, minSegment, permutations int, seed uint64, stopAbove float64) float64 {
	opt := Options{Alpha: 0.5, Permutations: permutations, MinSegment: minSegment, Seed: seed}
	d := newDetector(vals, phi, opt)
	iv := d.newInterval(0, len(vals))
	if !(iv.q > 0) {
		return 1
	}
	limit := permutations + 1 // never stops
	if stopAbove < 1 {
		limit = maxExceed(stopAbove, permutations)
	}
	p, _ := d.pValue([]interval{iv}, iv.q, limit)
	return p
}
