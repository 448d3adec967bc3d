package requirements

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// modePercentile names the Fast-RTPS mode (--percentile) in messages; it is
// never written to a file.
const modePercentile = "percentile"

// Defaults of the statistical mode.
const (
	DefaultFalseFail      = 0.01
	DefaultNormalityLevel = 0.05
	DefaultMethod         = gate.MethodOrder
)

// Model is the statistical model of one requirement row: what a
// statistical check needs beyond the limits themselves. A row of a
// percentile (Fast-RTPS) file has none.
type Model struct {
	// Method is the method asked (the file's Mode column).
	Method string
	// Runs is n, the number of reference runs behind the row.
	Runs int
	// FalseFail is the family-wise false-fail level asked: the chance that
	// an unchanged system fails a whole check.
	FalseFail float64
	// CheckLevel is the share of it each check gets, FalseFail/m for the m
	// checks of the file (Bonferroni).
	CheckLevel float64
	// Fits are the Median, 99% and Max fits, in RequirementMetrics order.
	Fits [checksPerRequirement]Fit
}

// Fit is how one check's limit was set.
type Fit struct {
	// Method is the method used: gate.MethodLogNormal, or gate.MethodOrder when asked
	// or when the log-normal assumption failed.
	Method string
	// LogSD is the standard deviation (n−1) of the log run values; NaN when
	// it does not exist (fewer than 2 runs, a value ≤ 0).
	LogSD float64
	// NormalityP is the Shapiro–Wilk p-value of the log run values; NaN when
	// they could not be tested (fewer than 3, all equal, a value ≤ 0).
	NormalityP float64
	// Rank is, for a distribution-free fit, which largest run is the limit:
	// 1 (or 0) the largest, j the j-th largest (StatConfig.OrderRank).
	Rank int
}

// rank is f's order-statistic rank, 1 for the largest run.
func (f Fit) rank() int { return max(f.Rank, 1) }

// MethodText is f's method as a requirements file writes it: "lognormal",
// "order" for the largest run, "order:J" for the J-th largest.
func (f Fit) MethodText() string {
	if f.Method == gate.MethodOrder && f.rank() > 1 {
		return fmt.Sprintf("%s:%d", gate.MethodOrder, f.rank())
	}
	return f.Method
}

// parseFitMethod reads MethodText's output into f's Method and Rank; false
// when s is none of its forms.
func parseFitMethod(s string, f *Fit) bool {
	if s == gate.MethodOrder || s == gate.MethodLogNormal {
		f.Method, f.Rank = s, 0
		return true
	}
	rest, ok := strings.CutPrefix(s, gate.MethodOrder+":")
	if !ok {
		return false
	}
	j, err := strconv.Atoi(rest)
	if err != nil || j < 2 || rest != strconv.Itoa(j) {
		return false
	}
	f.Method, f.Rank = gate.MethodOrder, j
	return true
}

// orderTail is the chance that at least r of k new runs exceed the j-th
// largest of n runs when all n+k are exchangeable and continuous: the r-th
// largest new run then comes before the j-th largest old one in the joint
// order, with i < j old runs above it, so the chance is
//
//	Σ_{i<j} C(r−1+i, i) · C(n+k−r−i, n−i) / C(n+k, n).
//
// j = 1 is orderChance. It is 1 for r ≤ 0 and 0 for r > k.
func orderTail(n, k, j, r int) float64 {
	if j <= 1 {
		return orderChance(n, k, r)
	}
	if r <= 0 {
		return 1
	}
	if r > k {
		return 0
	}
	total := 0.0
	for i := 0; i < j && i <= n; i++ {
		total += math.Exp(lchoose(r-1+i, i) + lchoose(n+k-r-i, n-i) - lchoose(n+k, n))
	}
	return math.Min(total, 1)
}

// lchoose is log C(a, b).
func lchoose(a, b int) float64 {
	x, _ := math.Lgamma(float64(a + 1))
	y, _ := math.Lgamma(float64(b + 1))
	z, _ := math.Lgamma(float64(a - b + 1))
	return x - y - z
}

// orderRunsNeededRank is the smallest number k of candidate runs for which
// k runs all exceeding the j-th largest of n reference runs has chance ≤
// level (orderTail), so that such a check can fail at that level; −1 when
// no k up to 10000 does. j = 1 is orderRunsNeeded.
func orderRunsNeededRank(n, j int, level float64) int {
	if j <= 1 {
		return orderRunsNeeded(n, level)
	}
	if j > n {
		return -1
	}
	for k := 1; k <= 10000; k++ {
		if orderTail(n, k, j, k) <= level {
			return k
		}
	}
	return -1
}

// orderChance is the chance that at least r of k new runs exceed the largest
// of n runs when all n+k are exchangeable and continuous: the r largest of
// the n+k values are then equally likely to be any r of them, so the chance
// that they all are new runs is C(k, r)/C(n+k, r). It is 1 for r = 0.
func orderChance(n, k, r int) float64 {
	if r > k {
		return 0
	}
	// Π_{i<r} (k−i)/(n+k−i), in floating point to stay finite.
	p := 1.0
	for i := 0; i < r; i++ {
		p *= float64(k-i) / float64(n+k-i)
	}
	return p
}

// orderRunsNeeded is the smallest number k of candidate runs for which k
// runs all exceeding the largest of n reference runs has chance ≤ level, so
// that a distribution-free check can fail at that level; −1 beyond 100000.
func orderRunsNeeded(n int, level float64) int {
	// 1/C(n+k, k) falls as k grows.
	return searchRuns(0, func(k int) bool { return orderChance(n, k, k) <= level })
}

// logNormalLimit is the one-sided prediction bound, at chance level of
// being exceeded, for the geometric mean of k new runs given n runs whose
// log values have mean logMean and standard deviation logSD:
//
//	exp(logMean + t(n−1, 1−level) · logSD · √(1/n + 1/k))
//
// If the log values are normal, the geometric mean of k new runs of the
// same system exceeds it with chance exactly level (over both the n runs and
// the new ones). k = 1 bounds a single run.
func logNormalLimit(logMean, logSD float64, n, k int, level float64) float64 {
	return math.Exp(logMean + dist.TQuantile(n-1, 1-level)*logSD*math.Sqrt(1/float64(n)+1/float64(k)))
}

// StatConfig is what a statistical derivation asks for.
type StatConfig struct {
	// FalseFail is the family-wise false-fail level, in (0, 1).
	FalseFail float64
	// Method is gate.MethodOrder or gate.MethodLogNormal.
	Method string
	// NormalityLevel is the Shapiro–Wilk level below which the log-normal
	// assumption is rejected for a check, in (0, 1).
	NormalityLevel float64
	// OrderRank is which largest run a distribution-free limit is: j ≥ 1
	// the j-th largest (1 the largest), which one slow reference run cannot
	// raise (formats §11); 0 chooses it from the runs, orderRankFor(n).
	OrderRank int
}

// orderQuantile is the quantile of the reference runs that a
// distribution-free limit estimates when no rank is asked: the largest of
// up to 18 runs, then the orderRankFor(n)-th largest, so that one new run
// of the unchanged system exceeds it with chance j/(n+1) ≈ 1 − orderQuantile
// whatever n. The largest of n runs instead moves into the tail as n
// grows (one new run exceeds it with chance 1/(n+1)), so that more
// reference runs would make the check more lenient: a regression would
// pass more often and fail less often.
const orderQuantile = 0.9

// orderRankFor is the rank a distribution-free limit of n runs takes when
// none is asked: max(1, ⌊(n+1)·(1 − orderQuantile)⌋), the largest order
// statistic whose expected exceedance j/(n+1) is at most 1 − orderQuantile
// (the largest run below 19 runs, the 2nd largest of 19–28, the 4th of
// 39–48).
func orderRankFor(n int) int { return max(1, (n+1)/10) }

// rankFor is the rank cfg asks for n runs.
func (c StatConfig) rankFor(n int) int {
	if c.OrderRank > 0 {
		return c.OrderRank
	}
	return orderRankFor(n)
}

// Validate checks the configuration's ranges.
func (c StatConfig) Validate() error {
	switch {
	case !(c.FalseFail > 0 && c.FalseFail < 1):
		return fmt.Errorf("false-fail level %v is outside (0, 1)", c.FalseFail)
	case c.Method != gate.MethodOrder && c.Method != gate.MethodLogNormal:
		return fmt.Errorf("method %q: expected %s or %s", c.Method, gate.MethodOrder, gate.MethodLogNormal)
	case !(c.NormalityLevel > 0 && c.NormalityLevel < 1):
		return fmt.Errorf("normality level %v is outside (0, 1)", c.NormalityLevel)
	case c.OrderRank < 0:
		return fmt.Errorf("order rank %d: expected 1 (the largest run) or more", c.OrderRank)
	}
	return nil
}

// DeriveStatistical sets, per sub-experiment, payload and metric, a limit
// that an unchanged system exceeds with a controlled chance, so that a whole
// check fails it with chance at most cfg.FalseFail (see Derivation and
// formats §11):
//
//   - the level is split evenly over the m = 3·rows checks (Bonferroni):
//     each gets CheckLevel = FalseFail/m, whatever the dependence between
//     checks;
//   - gate.MethodLogNormal: the limit is logNormalLimit(…, k = 1, CheckLevel)
//     when the n runs can back the check level, CheckLevel ≥ 1/(n+1) (the
//     smallest chance n runs show), and Shapiro–Wilk does not reject
//     normality of the log values at NormalityLevel. Passing the pretest
//     is no evidence for the tail beyond 1/(n+1): a rare slow mode absent
//     from the runs fails a single run past a normal bound. Otherwise, or
//     with gate.MethodOrder, the limit is the j-th largest run value
//     (cfg.OrderRank, else orderRankFor(n): the largest below 19 runs),
//     which one new run exceeds with chance j/(n+1) and at least r of k new
//     runs exceed with chance orderTail(n, k, j, r), under exchangeability
//     alone.
//
// Every group needs at least 2 runs.
func DeriveStatistical(obs []Observation, cfg StatConfig) (*Derivation, error) {
	return deriveStatistical(obs, cfg, 0)
}

// deriveStatistical is DeriveStatistical for a derivation that also sets
// extraChecks other checks (throughput requirements, one check each) from
// the same runs: the level is split over all of them.
func deriveStatistical(obs []Observation, cfg StatConfig, extraChecks int) (*Derivation, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	groups, keys, experiments, err := group(obs)
	if err != nil {
		return nil, err
	}
	m := len(keys)*checksPerRequirement + extraChecks
	level := cfg.FalseFail / float64(m)
	d := &Derivation{Mode: cfg.Method, FalseFail: cfg.FalseFail, CheckLevel: level, Experiments: experiments}
	var few, atRank []string
	rejected := map[string][]string{}
	var rejectedOrder []string
	for _, k := range keys {
		g := groups[k]
		n := len(g)
		if n < max(2, cfg.OrderRank) {
			few = append(few, fmt.Sprintf("%s %d B", k.typ, k.bytes))
			continue
		}
		if n == cfg.OrderRank {
			atRank = append(atRank, fmt.Sprintf("%s %d B", k.typ, k.bytes))
			continue
		}
		model := &Model{Method: cfg.Method, Runs: n, FalseFail: cfg.FalseFail, CheckLevel: level}
		r := Requirement{KeyedRow: KeyedRow{Type: k.typ, Key: result.Key{Payload: k.bytes}, Limits: map[string]float64{}, Stat: model}, N: n}
		for i, get := range observationColumns {
			limit, f, why := fitLimit(column(g, get), cfg, level)
			model.Fits[i] = f
			r.Limits[metricNames[i]] = limit
			r.Chances[i], r.NeedRuns[i] = f.Chance(n, 1, level), f.RunsNeeded(n, level)
			if why != "" {
				what := fmt.Sprintf("%s %d B %s", k.typ, k.bytes, metricNames[i])
				if _, ok := rejected[why]; !ok {
					rejectedOrder = append(rejectedOrder, why)
				}
				rejected[why] = append(rejected[why], what)
			}
		}
		d.Requirements = append(d.Requirements, r)
	}
	if len(few) > 0 {
		if cfg.OrderRank > 2 {
			return nil, fmt.Errorf("distribution-free limits at the %d-th largest run need at least %d runs per sub-experiment and payload; %s %s fewer",
				cfg.OrderRank, cfg.OrderRank, listSome(few), map[bool]string{true: "has", false: "have"}[len(few) == 1])
		}
		return nil, fmt.Errorf("statistical requirements need at least 2 runs per sub-experiment and payload; %s %s only one (take more runs, or use --percentile)",
			listSome(few), map[bool]string{true: "has", false: "have"}[len(few) == 1])
	}
	if len(atRank) > 0 {
		return nil, rankOfAll(cfg.OrderRank, atRank)
	}
	for _, why := range rejectedOrder {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d check(s) fall back to the distribution-free bound (%s): %s", len(rejected[why]), why, listSome(rejected[why])))
	}
	d.Warnings = append(d.Warnings, statWarnings(d)...)
	return d, nil
}

// rankOfAll is the error of groups (named) whose runs are exactly the j
// that --order-rank j asks for: the j-th worst of j runs is their best
// (latency: the smallest), which a check fails only when more candidate
// runs than anyone takes all pass it (formats §11: --order-rank below the runs). Written, it
// was a limit no unchanged nor regressed system ever failed.
func rankOfAll(j int, groups []string) error {
	return fmt.Errorf("--order-rank %d of %d runs: the %d-th worst run of %d is the best one, a limit no practical number of candidate runs can fail; "+
		"%s %s only %d runs: take more runs than --order-rank, or a lower rank", j, j, j, j, listSome(groups),
		map[bool]string{true: "has", false: "have"}[len(groups) == 1], j)
}

// observationColumns read the checked columns of an observation, in
// RequirementMetrics order.
var observationColumns = [checksPerRequirement]func(Observation) float64{
	func(o Observation) float64 { return o.Median },
	func(o Observation) float64 { return o.P99 },
	func(o Observation) float64 { return o.Max },
}

// column returns get of every observation of g.
func column(g []Observation, get func(Observation) float64) []float64 {
	v := make([]float64, len(g))
	for i, o := range g {
		v[i] = get(o)
	}
	return v
}

// metricNames are the checked summary columns, in order.
var metricNames = [checksPerRequirement]string{"Median", "99%", "Max"}

// fitLimit fits one check's run values; why says why a log-normal fit asked
// for was not used ("" when it was, or was not asked).
func fitLimit(vals []float64, cfg StatConfig, level float64) (limit float64, f Fit, why string) {
	n := len(vals)
	f = Fit{Method: gate.MethodOrder, LogSD: math.NaN(), NormalityP: math.NaN()}
	logs := make([]float64, n)
	positive := true
	for i, v := range vals {
		if !(v > 0) {
			positive = false
			break
		}
		logs[i] = math.Log(v)
	}
	var mean float64
	if positive {
		mean, f.LogSD = meanSD(logs)
		if n >= 3 {
			if _, p, err := dist.ShapiroWilk(logs); err == nil {
				f.NormalityP = p
			}
		}
	}
	// The distribution-free limit: the j-th largest run (the largest when
	// j = 1; DeriveStatistical checks j ≤ n).
	sorted := slices.Sorted(slices.Values(vals))
	f.Rank = cfg.rankFor(n)
	max := sorted[n-min(f.Rank, n)]
	if f.Rank == 1 {
		f.Rank = 0
	}
	if cfg.Method != gate.MethodLogNormal {
		return max, f, ""
	}
	switch {
	case !positive:
		return max, f, "a value ≤ 0 has no logarithm"
	case level < 1/float64(n+1):
		// n runs show chances down to 1/(n+1); a bound further out rests
		// on the normal tail alone, which no test of n runs can check.
		return max, f, fmt.Sprintf("the check level is below 1/(n+1) = %s for n = %d runs: a log-normal bound there extrapolates into a tail the runs cannot show, and a rare slow mode missing from them would fail an unchanged system far more often than the level", pct(1/float64(n+1)), n)
	case n < 3:
		return max, f, "fewer than 3 runs cannot test log-normality"
	case math.IsNaN(f.NormalityP):
		return max, f, "all runs equal: nothing to fit"
	case f.NormalityP < cfg.NormalityLevel:
		return max, f, fmt.Sprintf("Shapiro–Wilk rejects log-normality at %g", cfg.NormalityLevel)
	}
	f.Method, f.Rank = gate.MethodLogNormal, 0
	return logNormalLimit(mean, f.LogSD, n, 1, level), f, ""
}

// meanSD returns the mean and the standard deviation (n−1) of x.
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// Chance is the chance that k candidate runs of an unchanged system fail the
// check fitted from n runs: level for a log-normal fit; for a
// distribution-free one the chance that all k exceed the largest run,
// orderChance(n, k, k), when that is at most level, else 0, since such a
// check does not fail (see Judge).
func (f Fit) Chance(n, k int, level float64) float64 {
	if f.Method == gate.MethodLogNormal {
		return level
	}
	if p := orderTail(n, k, f.rank(), k); p <= level {
		return p
	}
	return 0
}

// RunsNeeded is the number of candidate runs from which on the check can
// fail at level: 1 for a log-normal fit, orderRunsNeeded for an order one.
func (f Fit) RunsNeeded(n int, level float64) int {
	if f.Method == gate.MethodLogNormal {
		return 1
	}
	return orderRunsNeededRank(n, f.rank(), level)
}

// statWarnings says which checks cannot fail with a single candidate run.
func statWarnings(d *Derivation) []string {
	byNeed := map[int]int{}
	for _, r := range d.Requirements {
		for _, k := range r.NeedRuns {
			if k > 1 {
				byNeed[k]++
			}
		}
	}
	var ws []string
	for _, k := range slices.Sorted(maps.Keys(byNeed)) {
		ws = append(ws, fmt.Sprintf("%d distribution-free check(s) can fail only when all of at least %d candidate runs exceed them "+
			"(check --experiment-directory … repeated %d times); with fewer runs, exceeding them is inconclusive, not a failure",
			byNeed[k], k, k))
	}
	return ws
}

// listSome lists up to 4 items, then "and N more".
func listSome(items []string) string {
	if len(items) <= 4 {
		return strings.Join(items, ", ")
	}
	return experiment.JoinNames(items, 3)
}

// signTail is P(Bin(k, ½) ≤ r): the chance that at most r of k runs exceed
// a value that each exceeds with chance ½.
func signTail(k, r int) float64 {
	if r >= k {
		return 1
	}
	var p float64
	for i := 0; i <= r; i++ {
		p += math.Exp(lchoose(k, i) - float64(k)*math.Ln2)
	}
	return math.Min(p, 1)
}

// medianWithin reports whether k candidate runs, over of them above a
// limit, show that the candidate's median run is within it at level: a
// candidate whose median run sat at the limit (or beyond) has each run
// above it with chance ½ or more, so it shows so few above with chance at
// most signTail(k, over) ≤ level (the sign test). This is the
// distribution-free "passed" of formats §11, a non-inferiority statement
// about the candidate; "at most half of the runs above" is not one.
func medianWithin(k, over int, level float64) bool { return signTail(k, over) <= level }

// orderNoFail decides a distribution-free check that did not fail, with at
// most half of its k runs above the limit: passed when medianWithin at
// the model's family-wise level (a false pass is an error of one check,
// not of the family), else inconclusive, "no evidence of regression",
// with roughly how many more runs in the same proportion would pass.
func orderNoFail(j *Judgement, k int, level float64) {
	if medianWithin(k, j.Over, level) {
		j.Status = gate.Passed
		j.Why = fmt.Sprintf("%s: the median run is within it at %s confidence (sign test: at most %d of %d above has chance %s for a median at the limit)",
			overText(*j, k), confOne(level), j.Over, k, pct(signTail(k, j.Over)))
		return
	}
	j.Status = gate.Inconclusive
	frac := float64(j.Over) / float64(k)
	j.MoreRuns = -1
	if frac < 0.5 { // at half above, no number of runs shows the median within
		j.MoreRuns = searchRuns(k, func(kk int) bool { return medianWithin(kk, int(math.Round(frac*float64(kk))), level) })
	}
	// The fewest runs that can show a median within a limit at level are
	// the sign test's: all of them within it, ½^k ≤ level.
	j.Why = fmt.Sprintf("no evidence of regression, not a pass: %s, too few to fail, but %d run(s) cannot show the median run within the limit at %s confidence (sign test: needs ≥ %d runs all within it)",
		overText(*j, k), k, confOne(level), paired.MinPairs(level))
}

// confOne names a one-sided confidence 1 − level.
func confOne(level float64) string { return fmt.Sprintf("%.4g%%", 100*(1-level)) }
