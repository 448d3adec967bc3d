package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/stats/unpaired"
)

// DefaultFalseFail is the default family-wise false-fail level of a
// statistical gate run: the probability that an unchanged system fails it.
const DefaultFalseFail = 0.01

// Modes say how a gate judged its checks; every report states it.
const (
	// ModeStatistical: several runs per side, judged by the model of
	// formats §8 (Judge).
	ModeStatistical = "statistical"
	// ModeSingleRun: one run per side, judged by the threshold rule of
	// formats §4 (Evaluate), with no statement about noise.
	ModeSingleRun = "single-run threshold"
	// ModePaired: interleaved pairs of runs, judged on each pair's log
	// ratio at the family level in three zones (package stats/paired);
	// the Verdict's Decision says how.
	ModePaired = "paired"
)

// Series is the data of one statistical check: one value of one metric per
// run on each side.
type Series struct {
	SubExperiment string
	Payload       int
	Metric        result.Metric
	// Threshold is the relative change tolerated in the metric's bad
	// direction (0.1 = 10 %).
	Threshold            float64
	Reference, Candidate []float64
}

// Stats is the statistical evidence behind one check judged on several runs
// per side (formats §8). Ratios are candidate/reference.
type Stats struct {
	NReference int `json:"n_reference"`
	NCandidate int `json:"n_candidate"`
	// Estimate is the Hodges–Lehmann ratio; Low and High its interval. The
	// end on the side of "no regression" (Low for latency, High for
	// throughput) is in error with probability at most Tail, Holm's
	// per-check level, which keeps the whole gate's false-fail rate at its
	// level; the end on the side of the threshold with probability at most
	// PassTail, the false-fail level itself, unadjusted, as a false pass is
	// a per-check error. Confidence = 1 − Tail − PassTail.
	Estimate   float64 `json:"estimate"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Tail       float64 `json:"tail"`
	PassTail   float64 `json:"pass_tail"`
	Confidence float64 `json:"confidence"`
	// P is the one-sided p-value for "the candidate is worse": the larger
	// of Mann–Whitney's and Welch's on the log values (compareSides);
	// PAdjusted is it after Holm's correction over the gate run.
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	Exact     bool    `json:"exact"`
	// Dispersion is the pooled robust run-to-run standard deviation of the
	// log values (see dist.Effect).
	Dispersion float64 `json:"dispersion"`
	// NeedRuns is roughly how many runs per side it takes for an unchanged
	// system to pass this check, given Dispersion and Tail; −1 when no
	// number does (a threshold of 0). Gateable says NeedRuns ≤ the runs
	// given.
	NeedRuns int  `json:"need_runs"`
	Gateable bool `json:"gateable"`
	// MoreRuns is, for an inconclusive gateable check, roughly how many more
	// runs per side would decide it (−1: too many to say); 0 otherwise.
	MoreRuns int `json:"more_runs"`
	// Method is, for a check against statistical requirements (formats
	// §11), the limit's method: MethodOrder, whose verdict rests on Over,
	// the candidate runs beyond the limit (above it; below a Floor), and
	// has no interval; or
	// MethodLogNormal; MethodPaired for a paired comparison's check.
	// Empty for an unpaired compare.
	Method string `json:"method,omitempty"`
	Over   int    `json:"over,omitempty"`
	// Floor says that the limit is a lower one (higher is better, a
	// throughput requirement): Over then counts the runs below it.
	Floor bool `json:"floor,omitempty"`
}

// Methods of a statistical requirement's limit (Stats.Method).
// A statistical requirements file (formats §11) names the method asked in
// its Mode column and the method each check used in its "<metric> method"
// columns; a file without a Mode column was written in the Fast-RTPS
// percentile mode.
const (
	// MethodOrder is the distribution-free bound: the largest of the n
	// reference runs (or the J-th largest). It assumes only that runs of
	// an unchanged system are exchangeable (independent draws from one
	// continuous distribution).
	MethodOrder = "order"
	// MethodLogNormal is the one-sided prediction bound of a log-normal
	// distribution, for the geometric mean of the candidate runs. It
	// assumes the log run values are normal; Shapiro–Wilk tests that on
	// every check and the check falls back to MethodOrder when it is
	// rejected.
	MethodLogNormal = "lognormal"
	// MethodPaired: the check of a paired comparison (compare, mode
	// ModePaired), its estimate the median pair ratio, its interval the
	// sign tests' order-statistic bounds (the low end at level/K for
	// FAIL, the high end at the level for PASS), its adjusted p-value the
	// sign test's, Bonferroni over the checks.
	MethodPaired = "paired"
)

// NoInterval says why s has no interval, for the interval column of
// reports: an order-method check counts runs beyond its limit instead
// ("none (order method): 3 of 10 runs above the limit"), a log-normal
// check of one run has no spread to bound. It is "" when s has an
// interval.
func (s *Stats) NoInterval() string {
	switch {
	case s.Method == MethodOrder:
		side := "above"
		if s.Floor {
			side = "below"
		}
		return fmt.Sprintf("none (order method): %d of %d run(s) %s the limit", s.Over, s.NCandidate, side)
	case !math.IsNaN(s.Low) && !math.IsNaN(s.High):
		return ""
	case s.Method == MethodLogNormal && s.NCandidate == 1:
		return "none (one run)"
	case math.IsNaN(s.Low) && (math.IsNaN(s.High) || math.IsInf(s.High, 1)):
		return "none"
	}
	return ""
}

// Judge judges every series with the statistical model (formats §8) at
// family-wise false-fail level falseFail over all of them:
//
//   - effect: Compare, the Hodges–Lehmann ratio with a Mann–Whitney
//     interval, and the one-sided p-value of compareSides;
//   - Holm's correction across the series gives each its tail level;
//   - Failed when Holm rejects "no regression", the interval lies beyond 1
//     in the bad direction and the estimate beyond 1 ± Threshold; Passed
//     when the whole interval lies within 1 ± Threshold; else Inconclusive,
//     saying roughly how many more runs would decide, or that the metric is
//     not gateable with this many runs when its run-to-run dispersion keeps
//     even an unchanged system from passing.
//
// A series with no runs on a side, or with a value ≤ 0, gives a Missing
// check and takes no part in the correction. referenceName names the
// reference in messages.
func Judge(series []Series, falseFail float64, referenceName string) []Check {
	rules := make([]Rule, len(series))
	for i, s := range series {
		// The p-value does not depend on the tail; the interval is
		// recomputed at the Holm level in Decide.
		eff, err := compareSides(s, 0.25)
		rules[i] = shiftRule{s, eff, err, falseFail, referenceName}
	}
	return Family{Correction: Holm, Alpha: falseFail}.Judge(rules)
}

// shiftRule is the shift test of one series (formats §8).
type shiftRule struct {
	s             Series
	eff           dist.Effect
	err           error
	falseFail     float64
	referenceName string
}

// P is the one-sided p-value of compareSides; NaN for a series that
// cannot be compared, which is Missing.
func (r shiftRule) P() float64 {
	if r.err != nil {
		return math.NaN()
	}
	return r.eff.P
}

// Decide judges the series with its interval at the family's tail.
func (r shiftRule) Decide(d stats.Decision) Check {
	s := r.s
	if r.err != nil {
		return MissingCheck(s.SubExperiment, s.Payload, s.Metric, stats.Median(s.Reference), stats.Median(s.Candidate),
			fmt.Sprintf("%d B %s: %s", s.Payload, s.Metric.Name, missingReason(s, r.referenceName, r.err)))
	}
	eff, _ := compareSides(s, d.Tail)
	pass, _ := compareSides(s, math.Max(r.falseFail, d.Tail))
	return decide(s, eff, pass, d.Adjusted, d.Rejected, r.referenceName)
}

// compareSides is dist.Compare of s's sides at tail, its p-value the
// larger of Mann–Whitney's (exact when the runs of both sides are
// exchangeable, whatever their shape) and Welch's on the log values (near
// its level for log-normal runs whatever the two spreads): a check rejects
// only when both do, so it keeps its level when either assumption holds.
// Mann–Whitney alone fails unchanged runs 4 % of the time at 1 % when 20
// quiet runs (CV 5 %) meet 5 noisy ones (CV 30 %); Brunner–Munzel, built
// for unequal spreads, still 3 % there: with 5 runs all above a tight
// reference 1 time in 32 under no change, no rank test can do better.
func compareSides(s Series, tail float64) (dist.Effect, error) {
	higher := s.Metric.Better == result.HigherIsBetter
	eff, err := dist.Compare(s.Reference, s.Candidate, higher, tail)
	if err == nil {
		if p, ok := unpaired.WelchWorse(s.Reference, s.Candidate, higher); ok {
			eff.P = math.Max(eff.P, p)
		}
	}
	return eff, err
}

func missingReason(s Series, referenceName string, err error) string {
	switch {
	case len(s.Reference) == 0:
		return "no " + referenceName + " runs"
	case len(s.Candidate) == 0:
		return "no runs"
	}
	return err.Error()
}

// decide turns one effect into a check: eff has its interval at the Holm
// tail, pass at the pass tail; the interval reported takes its "no
// regression" end from eff and its threshold end from pass.
func decide(s Series, eff, pass dist.Effect, pAdj float64, rejected bool, referenceName string) Check {
	m := s.Metric
	c := measured(s.SubExperiment, s.Payload, m, stats.Median(s.Reference), s.Threshold, stats.Median(s.Candidate))
	// Latency: Low is the "no regression" end, High the threshold end;
	// throughput (worse is lower) the other way round.
	if m.Better == result.HigherIsBetter {
		eff.Low = pass.Low
	} else {
		eff.High = pass.High
	}
	st := &Stats{
		NReference: eff.NReference, NCandidate: eff.NCandidate,
		Estimate: eff.Estimate, Low: eff.Low, High: eff.High,
		Tail: eff.Tail, PassTail: pass.Tail, Confidence: 1 - eff.Tail - pass.Tail,
		P: eff.P, PAdjusted: pAdj, Exact: eff.Exact,
		Dispersion: eff.Dispersion,
	}
	c.Stats = st

	// In badness space (log ratio, positive = worse) with tolerance tau.
	bad := func(ratio float64) float64 {
		if m.Better == result.HigherIsBetter {
			return -math.Log(ratio)
		}
		return math.Log(ratio)
	}
	tau := toleranceLog(m, s.Threshold)
	shift := bad(eff.Estimate)
	loBad, hiBad := bad(eff.Low), bad(eff.High)
	if m.Better == result.HigherIsBetter {
		loBad, hiBad = hiBad, loBad
	}
	n := min(eff.NReference, eff.NCandidate)
	// The half-width on the side that must move: above the estimate to
	// pass, below it to fail.
	st.NeedRuns = runsToReach(eff.Dispersion, pass.Tail, n, hiBad-shift, tau)
	st.Gateable = st.NeedRuns >= 0 && st.NeedRuns <= n

	limit := 1 + signedThreshold(m, s.Threshold)
	evidence := fmt.Sprintf("%s/%s ×%.3f, %s interval %s, p %s (Holm %s), runs %d/%d",
		"candidate", referenceName, eff.Estimate, ConfidenceText(st.Confidence), intervalText(eff.Low, eff.High),
		PText(eff.P), PText(pAdj), eff.NCandidate, eff.NReference)
	head := fmt.Sprintf("%d B %s: %s", s.Payload, m.Name, evidence)
	switch {
	case rejected && loBad > 0 && shift > tau:
		c.Status = Failed
		c.Message = fmt.Sprintf("%s: regression beyond ×%.3f", head, limit)
	case hiBad < tau:
		c.Status = Passed
		c.Message = fmt.Sprintf("%s: within ×%.3f", head, limit)
	case !st.Gateable:
		c.Status = Inconclusive
		c.Message = fmt.Sprintf("%s: %s", head, notGateable(st, n, eff.Dispersion))
	default:
		c.Status = Inconclusive
		target, half, tail := tau-shift, hiBad-shift, pass.Tail // to pass: the upper end below tau
		if shift > tau {
			target, half, tail = shift, shift-loBad, eff.Tail // to fail: the lower end above 0
		}
		st.MoreRuns = -1
		if k := runsToReach(eff.Dispersion, tail, n, half, target); k >= 0 {
			st.MoreRuns = max(k-n, 1)
		}
		c.Message = fmt.Sprintf("%s: %s", head, moreRunsText(st.MoreRuns))
	}
	return c
}

// runsToReach is how many runs per side make an interval end (at error
// tail) lie within distance of the estimate, n runs having given it
// half-width half: from the dispersion sd (runsNeeded), and from the
// interval actually found, whose half-width shrinks as 1/√n; the larger,
// as heavy tails widen the interval beyond what the dispersion says. −1
// when too many to say (>10000).
func runsToReach(sd, tail float64, n int, half, distance float64) int {
	k := runsNeeded(sd, distance, tail)
	if k < 0 || math.IsInf(half, 0) || math.IsNaN(half) {
		return k
	}
	m := float64(n) * math.Pow(half/distance, 2)
	if m > 10000 {
		return -1
	}
	return max(k, int(math.Ceil(m)))
}

// toleranceLog is the threshold as a log ratio in the bad direction.
func toleranceLog(m result.Metric, threshold float64) float64 {
	if m.Better == result.HigherIsBetter {
		if threshold >= 1 {
			return math.Inf(1)
		}
		return -math.Log(1 - threshold)
	}
	return math.Log1p(threshold)
}

// runsNeeded is roughly how many runs per side make the interval's end
// (each at error tail) fall within distance of the estimate when the log
// values' run-to-run standard deviation is sd: n with
// z·sd·√(π/3)·√(2/n) ≤ distance, where √(π/3) is the Hodges–Lehmann
// estimator's efficiency loss against the mean for normal data; never fewer
// than dist.MinRuns(tail). −1 when distance ≤ 0 or too many to say (>10000).
func runsNeeded(sd, distance, tail float64) int {
	if !(distance > 0) {
		return -1
	}
	minRuns := dist.MinRuns(tail)
	if sd == 0 || math.IsNaN(sd) {
		return minRuns
	}
	z := dist.NormalQuantile(1 - tail)
	n := 2 * math.Pi / 3 * math.Pow(z*sd/distance, 2)
	if n > 10000 {
		return -1
	}
	return max(int(math.Ceil(n)), minRuns)
}

func notGateable(st *Stats, n int, sd float64) string {
	if st.NeedRuns < 0 {
		return fmt.Sprintf("not gateable with %d runs: run-to-run dispersion %.1f%% needs more than 10000 runs per side at this threshold", n, 100*sd)
	}
	return fmt.Sprintf("not gateable with %d runs: needs ≈ %d per side (run-to-run dispersion %.1f%%)", n, st.NeedRuns, 100*sd)
}

func moreRunsText(k int) string {
	if k < 0 {
		return "too close to the threshold for a practical number of runs to decide"
	}
	if k == 1 {
		return "≈ 1 more run per side would decide"
	}
	return fmt.Sprintf("≈ %d more runs per side would decide", k)
}

// ConfidenceText writes a confidence level as a percentage with one decimal,
// or as many more as it takes not to round it up to 100 %, trailing zeros
// dropped: "98%", "99.3%", "99.98%".
func ConfidenceText(c float64) string {
	t := ""
	for d := 1; d < 8; d++ {
		t = fmt.Sprintf("%.*f", d, 100*c)
		if c >= 1 || t != fmt.Sprintf("%.*f", d, 100.0) {
			break
		}
	}
	return strings.TrimSuffix(strings.TrimRight(t, "0"), ".") + "%"
}

func intervalText(lo, hi float64) string {
	f := func(x float64) string {
		if math.IsInf(x, 0) {
			if x > 0 {
				return "∞"
			}
			return "-∞"
		}
		return fmt.Sprintf("%.3f", x)
	}
	return "[" + f(lo) + ", " + f(hi) + "]"
}

// PText writes a p-value with 4 decimals, or in scientific notation below
// 0.0001: "0.0123", "3.2e-07".
func PText(p float64) string {
	if p < 0.0001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}
