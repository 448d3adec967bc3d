package requirements

import (
	"fmt"
	"math"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// Judgement is the verdict on one check of k candidate runs against one
// requirement (see Judge).
type Judgement struct {
	// Status is passed, failed or inconclusive.
	Status gate.Status
	// Statistic names Value: "value" (one run), "geometric mean of k runs"
	// (log-normal) or "median of k runs".
	Statistic string
	// Value is the candidate's statistic.
	Value float64
	// Requirement is the limit for k runs without margin: the file's limit,
	// or for a log-normal fit its prediction bound for the geometric mean
	// of k runs.
	Requirement float64
	// Limit is Requirement·(1 + margin), the value a failure must exceed.
	Limit float64
	// Over is the number of candidate runs above Limit.
	Over int
	// P is the chance that an unchanged system is judged this bad or worse
	// (one-sided); NaN for a percentile requirement, which has no model.
	P float64
	// Low and High bound the candidate's geometric mean (log-normal fits,
	// k ≥ 2), each end wrong with chance at most the check level; NaN
	// otherwise.
	Low, High float64
	// NeedRuns is the number of candidate runs from which on the check can
	// fail (1 for log-normal and percentile requirements); MoreRuns, for an
	// inconclusive check, roughly how many more would decide it (−1: too
	// many to say).
	NeedRuns, MoreRuns int
	// Why says in words how the verdict was reached.
	Why string
}

// Limit is one limit of a requirement row: metric Metric may be no worse
// than Value (an upper limit when lower is better, a lower one when higher
// is better). Stat is the row's statistical model, nil in percentile mode,
// and Fit the index of the limit's fit in Stat.Fits.
type Limit struct {
	Metric result.Metric
	Value  float64
	Stat   *Model
	Fit    int
}

// Judge judges the candidate runs' values of l.Metric against limit l, with
// the limit moved by margin (0.1 = 10 %; 0 keeps the guarantee exact, more
// makes it conservative) in the metric's good direction. The rules
// (formats §11), for a lower-is-better metric:
//
// Log-normal fit (t = Student's t quantile at 1 − level, n reference runs,
// s their log standard deviation, G the geometric mean of the k candidate
// runs): the requirement for k runs is the file's limit moved from the
// single-run bound to the bound for a k-run mean,
// limit·exp(t·s·(√(1/n+1/k) − √(1+1/n))). The check fails when G exceeds it
// (times 1 + margin): an unchanged system does so with chance exactly level.
// With k ≥ 2 it passes when the upper confidence bound of G (t at 1 − level
// with n+k−2 degrees of freedom, pooled log standard deviation) is within
// it, and is inconclusive otherwise.
//
// Distribution-free fit: the check fails when so many runs exceed the limit
// (the j-th largest reference run, times 1 + margin) that an unchanged system
// would do so with chance orderTail(n, k, j, over) ≤ level; it passes when so
// few exceed it that the median run is shown within it (medianWithin at the
// family-wise level), and is inconclusive otherwise (in particular whenever
// k is too small for the check to fail at all).
//
// Percentile requirement (no model, Fast-RTPS): one run passes or fails as
// in formats §4; with k ≥ 2 the check fails when every run exceeds the limit,
// passes when at most half do, and is inconclusive otherwise.
//
// A higher-is-better metric is judged by the same rules on the reciprocals
// (a statistical row's fit is theirs), whose limit is 1/l.Value raised by
// margin/(1 − margin); the Judgement's numbers are turned back: Value is the
// median or geometric mean of the runs, Requirement and Limit the lower
// limits, Low and High the interval, Over the runs below the limit.
func Judge(l Limit, values []float64, margin float64) Judgement {
	if l.Metric.Better == result.HigherIsBetter {
		return judgeReciprocals(l, values, margin)
	}
	k := len(values)
	limit1 := l.Value
	j := Judgement{Value: stats.Median(values), Statistic: fmt.Sprintf("median of %d runs", k), Requirement: limit1,
		P: math.NaN(), Low: math.NaN(), High: math.NaN(), NeedRuns: 1}
	if k == 1 {
		j.Statistic = "value"
	}
	if l.Stat != nil && l.Stat.Fits[l.Fit].Method == gate.MethodLogNormal {
		return judgeLogNormal(j, l.Stat, l.Stat.Fits[l.Fit], limit1, values, margin)
	}
	j.Limit = j.Requirement * (1 + margin)
	j.Over = countOver(values, j.Limit)
	half := j.Over*2 <= k
	if l.Stat == nil {
		switch {
		case j.Over == k:
			j.Status, j.Why = gate.Failed, overText(j, k)
		case half:
			j.Status, j.Why = gate.Passed, overText(j, k)
		default:
			j.Status, j.Why = gate.Inconclusive, overText(j, k)+": more than half, not all (percentile requirements have no model of the run-to-run spread)"
		}
		return j
	}
	m := l.Stat
	rank := m.Fits[l.Fit].rank()
	j.P = orderTail(m.Runs, k, rank, j.Over)
	j.NeedRuns = orderRunsNeededRank(m.Runs, rank, m.CheckLevel)
	chance := fmt.Sprintf("an unchanged system does that with chance %s", pct(j.P))
	switch {
	case j.P <= m.CheckLevel:
		j.Status, j.Why = gate.Failed, fmt.Sprintf("%s: %s ≤ the check level %s", overText(j, k), chance, pct(m.CheckLevel))
	case half:
		orderNoFail(&j, k, m.FalseFail)
	case k < j.NeedRuns:
		j.Status = gate.Inconclusive
		j.MoreRuns = j.NeedRuns - k
		j.Why = fmt.Sprintf("%s (%s): not gateable with %d run(s), the distribution-free limit of %d reference runs needs ≥ %d candidate runs all above it to fail at %s",
			overText(j, k), chance, k, m.Runs, j.NeedRuns, pct(m.CheckLevel))
	default:
		j.Status = gate.Inconclusive
		j.MoreRuns = moreOrderRuns(m.Runs, k, rank, j.Over, m.CheckLevel)
		j.Why = fmt.Sprintf("%s: more than half, but %s > the check level %s", overText(j, k), chance, pct(m.CheckLevel))
	}
	return j
}

// judgeReciprocals is Judge of a higher-is-better limit.
func judgeReciprocals(l Limit, values []float64, margin float64) Judgement {
	m := 0.0
	if margin > 0 {
		m = 1/(1-margin) - 1
		if margin >= 1 {
			m = math.Inf(1)
		}
	}
	j := Judge(Limit{Metric: result.Metric{Better: result.LowerIsBetter}, Value: 1 / l.Value, Stat: l.Stat, Fit: l.Fit}, reciprocals(values), m)
	j.Value, j.Requirement, j.Limit = 1/j.Value, 1/j.Requirement, 1/j.Limit
	j.Low, j.High = 1/j.High, 1/j.Low
	j.Why = strings.NewReplacer("exceed the limit", "fall below the limit", "exceeds the limit", "falls below the limit",
		"above the log-normal bound", "below the log-normal bound", "upper end", "lower end").Replace(j.Why)
	return j
}

func judgeLogNormal(j Judgement, m *Model, f Fit, limit1 float64, values []float64, margin float64) Judgement {
	n, k := m.Runs, len(values)
	t := dist.TQuantile(n-1, 1-m.CheckLevel)
	s := f.LogSD
	// The file's limit is exp(ȳ + t·s·√(1+1/n)); ȳ is recovered from it so
	// that a limit edited by hand moves every k's limit with it.
	center := math.Log(limit1) - t*s*math.Sqrt(1+1/float64(n))
	scale := s * math.Sqrt(1/float64(n)+1/float64(k))
	j.Requirement = math.Exp(center + t*scale)
	j.Limit = j.Requirement * (1 + margin)
	logs := make([]float64, k)
	for i, v := range values {
		if !(v > 0) {
			// No logarithm: judged like a run far beyond any limit would
			// be only if it were positive; a value ≤ 0 is better than
			// every limit.
			logs[i] = math.Inf(-1)
			continue
		}
		logs[i] = math.Log(v)
	}
	mean, sc := meanSD(logs)
	j.Value = math.Exp(mean)
	if k > 1 {
		j.Statistic = fmt.Sprintf("geometric mean of %d runs", k)
	}
	j.Over = countOver(values, j.Limit)
	// P: chance that an unchanged system's k-run geometric mean, divided by
	// 1 + margin, is this high or higher.
	if scale > 0 {
		j.P = dist.TSurvival(n-1, (mean-math.Log(1+margin)-center)/scale)
	} else {
		j.P = map[bool]float64{true: 0, false: 1}[mean-math.Log(1+margin) > center]
	}
	if math.IsInf(mean, -1) {
		j.P = 1
	}
	bound := fmt.Sprintf("the log-normal bound for %s at %s", map[bool]string{true: "one run", false: fmt.Sprintf("the geometric mean of %d runs", k)}[k == 1], pct(m.CheckLevel))
	if k > 1 {
		j.Low, j.High = logNormalInterval(mean, sc, s, n, k, m.CheckLevel)
	}
	switch {
	case j.Value > j.Limit:
		j.Status = gate.Failed
		j.Why = fmt.Sprintf("above %s (an unchanged system gets this far with chance %s)", bound, pct(j.P))
	case k == 1:
		j.Status, j.Why = gate.Passed, "within "+bound
	case j.High <= j.Limit:
		j.Status = gate.Passed
		j.Why = fmt.Sprintf("within %s, and so is the upper end of its %s interval", bound, confText(m.CheckLevel))
	default:
		j.Status = gate.Inconclusive
		j.Why = fmt.Sprintf("within %s, but the upper end of its %s interval, %.3f, is not", bound, confText(m.CheckLevel), j.High)
		j.MoreRuns = moreLogNormalRuns(mean, sc, s, n, k, m.CheckLevel, center, t, margin)
	}
	return j
}

// logNormalInterval bounds the candidate's geometric mean: exp(mean ± t·sp/√k)
// with the pooled log standard deviation sp of reference (s, n) and
// candidate (sc, k) and t at 1 − level on n+k−2 degrees of freedom.
func logNormalInterval(mean, sc, s float64, n, k int, level float64) (lo, hi float64) {
	sp := pooled(s, n, sc, k)
	h := dist.TQuantile(n+k-2, 1-level) * sp / math.Sqrt(float64(k))
	return math.Exp(mean - h), math.Exp(mean + h)
}

func pooled(s float64, n int, sc float64, k int) float64 {
	if math.IsNaN(sc) || k < 2 {
		return s
	}
	return math.Sqrt((float64(n-1)*s*s + float64(k-1)*sc*sc) / float64(n+k-2))
}

// moreLogNormalRuns is roughly how many more candidate runs, at the same
// geometric mean and spread, would decide an inconclusive log-normal check:
// the smallest k' > k whose interval's upper end is within the k'-run limit
// (pass) or whose limit the mean exceeds (fail; the limit falls as k'
// grows), found by doubling then bisection; −1 when none up to 100000
// does, e.g. a mean at the limit.
func moreLogNormalRuns(mean, sc, s float64, n, k int, level, center, t, margin float64) int {
	sp := pooled(s, n, sc, k)
	decides := func(kk int) bool {
		limit := center + t*s*math.Sqrt(1/float64(n)+1/float64(kk)) + math.Log(1+margin)
		return mean > limit || mean+dist.TQuantile(n+kk-2, 1-level)*sp/math.Sqrt(float64(kk)) <= limit
	}
	return searchRuns(k, decides)
}

// searchRuns returns the smallest k' > k for which decides(k') holds,
// minus k, assuming it holds from some k' on; −1 when it does not up to
// 100000. With k = 0 it is the smallest k' ≥ 1 itself.
func searchRuns(k int, decides func(int) bool) int {
	lo, hi := k, k+1
	for !decides(hi) {
		if hi >= 100000 {
			return -1
		}
		lo, hi = hi, min(2*hi, 100000)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if decides(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi - k
}

// moreOrderRuns is roughly how many more candidate runs, exceeding the limit
// in the same proportion, would make a distribution-free check fail; −1 when
// none up to 100000 would.
func moreOrderRuns(n, k, rank, over int, level float64) int {
	frac := float64(over) / float64(k)
	return searchRuns(k, func(kk int) bool { return orderTail(n, kk, rank, int(math.Round(frac*float64(kk)))) <= level })
}

// countOver is the number of values above limit.
func countOver(values []float64, limit float64) int {
	n := 0
	for _, v := range values {
		if v > limit {
			n++
		}
	}
	return n
}

// reciprocals returns 1/x of every x of values.
func reciprocals(values []float64) []float64 {
	inv := make([]float64, len(values))
	for i, v := range values {
		inv[i] = 1 / v
	}
	return inv
}

func overText(j Judgement, k int) string {
	if k == 1 {
		if j.Over == 1 {
			return "the run exceeds the limit"
		}
		return "the run is within the limit"
	}
	return fmt.Sprintf("%d of %d runs exceed the limit", j.Over, k)
}

// pct writes a probability as a percentage with 3 significant digits.
func pct(p float64) string { return fmt.Sprintf("%.3g%%", 100*p) }

// confText names a two-sided interval whose ends each err with chance level.
func confText(level float64) string { return fmt.Sprintf("%.4g%%", 100*(1-2*level)) }
