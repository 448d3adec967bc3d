package requirements

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// DefaultCheckFactors are the regressions of the check calibration's power
// curve.
var DefaultCheckFactors = []float64{1.05, 1.1, 1.25, 1.5, 2}

// CheckPool gathers unchanged runs into a calibration pool for CheckGate:
// one check per sub-experiment, payload and requirement column (Median,
// 99%, Max: a statistical requirements file always holds the three, and
// its Bonferroni level counts them all), one value per run, runs in the
// order their observations first appear. Every run must measure the same
// sub-experiments and payloads.
func CheckPool(obs []Observation) (calibrate.Pool, error) {
	groups, keys, _, err := group(obs)
	if err != nil {
		return calibrate.Pool{}, err
	}
	var pool calibrate.Pool
	index := map[string]int{}
	for _, o := range obs {
		if _, ok := index[o.Experiment]; !ok {
			index[o.Experiment] = len(pool.RunNames)
			pool.RunNames = append(pool.RunNames, o.Experiment)
		}
	}
	runs := len(pool.RunNames)
	var lacking []string
	for _, k := range keys {
		g := groups[k]
		if len(g) != runs {
			for _, name := range pool.RunNames {
				if !slices.ContainsFunc(g, func(o Observation) bool { return o.Experiment == name }) {
					lacking = append(lacking, fmt.Sprintf("%s has no %d-byte row of %s", name, k.bytes, k.typ))
				}
			}
			continue
		}
		for i, m := range result.RequirementMetrics {
			v := make([]float64, runs)
			for _, o := range g {
				v[index[o.Experiment]] = observationColumns[i](o)
			}
			pool.Keys = append(pool.Keys, calibrate.Key{SubExperiment: k.typ, Payload: k.bytes, Metric: m})
			pool.Values = append(pool.Values, v)
		}
	}
	if len(lacking) > 0 {
		return calibrate.Pool{}, fmt.Errorf("every unchanged run must measure the same sub-experiments and payloads: %s", listSome(lacking))
	}
	return pool, nil
}

// CheckGate is the gate that statistical requirements and a multi-run
// check make together (formats §11), as calibrate sees it: from a split's
// reference runs it derives requirements as 'requirements --false-fail'
// does (DeriveStatistical with Config), then judges the candidate runs
// against them as 'check' does with several runs (Judge per row and
// column, with Margin, over Columns). The whole check fails when one of
// its checks fails, is inconclusive when none fails and one is
// inconclusive, and passes otherwise.
type CheckGate struct {
	Config StatConfig
	// Margin raises every limit, as check --margin.
	Margin float64
	// Columns are the columns checked, a subset of result.RequirementMetrics
	// (check --columns); nil means all three.
	Columns []result.Metric
}

// Name implements calibrate.Gate.
func (CheckGate) Name() string { return "check" }

// ThresholdName implements calibrate.Thresholder.
func (CheckGate) ThresholdName() string { return "--margin" }

// WithThreshold implements calibrate.Thresholder: the check with margin t.
func (g CheckGate) WithThreshold(t float64) calibrate.Gate {
	g.Margin = t
	return g
}

// Describe implements calibrate.Gate.
func (g CheckGate) Describe() string {
	var cols []string
	for i, m := range result.RequirementMetrics {
		if g.checked(i) {
			cols = append(cols, m.Name)
		}
	}
	margin := ""
	if g.Margin != 0 {
		margin = fmt.Sprintf(", --margin %g%%", 100*g.Margin)
	}
	rank := ""
	if g.Config.OrderRank > 0 {
		rank = fmt.Sprintf(" --order-rank %d", g.Config.OrderRank)
	}
	return fmt.Sprintf("requirements --false-fail %g --method %s%s (normality level %g) from the reference runs, then check of the candidate runs (--columns %s%s)",
		g.Config.FalseFail, g.Config.Method, rank, g.Config.NormalityLevel, strings.Join(cols, ","), margin)
}

// checked reports whether g checks the i-th requirement column.
func (g CheckGate) checked(i int) bool {
	return g.Columns == nil || slices.Contains(g.Columns, result.RequirementMetrics[i])
}

// checkIndex maps a pool's checks to requirement rows: for every (type,
// payload) the pool index of its Median, 99% and Max (−1 when absent).
type checkIndex struct {
	keys []groupKey
	at   map[groupKey]*[checksPerRequirement]int
}

func indexPool(pool calibrate.Pool) (checkIndex, error) {
	ix := checkIndex{at: map[groupKey]*[checksPerRequirement]int{}}
	for k, key := range pool.Keys {
		gk := groupKey{key.SubExperiment, key.Payload}
		cols := ix.at[gk]
		if cols == nil {
			cols = &[checksPerRequirement]int{-1, -1, -1}
			ix.at[gk] = cols
			ix.keys = append(ix.keys, gk)
		}
		i := slices.Index(result.RequirementMetrics, key.Metric)
		if i < 0 {
			return ix, fmt.Errorf("check %s %d B %s: requirements hold only Median, 99%% and Max", key.SubExperiment, key.Payload, key.Metric.Name)
		}
		cols[i] = k
	}
	for _, gk := range ix.keys {
		for i, at := range ix.at[gk] {
			if at < 0 {
				return ix, fmt.Errorf("%s %d B: no %s in the pool (requirements need Median, 99%% and Max)", gk.typ, gk.bytes, result.RequirementMetrics[i].Name)
			}
		}
	}
	return ix, nil
}

// derive derives the requirements of the reference runs ref, and returns
// them with the pool's index.
func (g CheckGate) derive(pool calibrate.Pool, ref []int) (checkIndex, *Derivation, error) {
	ix, err := indexPool(pool)
	if err != nil {
		return ix, nil, err
	}
	obs := make([]Observation, 0, len(ix.keys)*len(ref))
	for _, gk := range ix.keys {
		cols := ix.at[gk]
		for _, r := range ref {
			obs = append(obs, Observation{Experiment: fmt.Sprint(r), Type: gk.typ, Bytes: gk.bytes,
				Median: pool.Values[cols[0]][r], P99: pool.Values[cols[1]][r], Max: pool.Values[cols[2]][r]})
		}
	}
	d, err := DeriveStatistical(obs, g.Config)
	return ix, d, err
}

// Judge implements calibrate.Gate.
func (g CheckGate) Judge(pool calibrate.Pool, ref, cand []int, factors []float64) ([]calibrate.Outcome, error) {
	ix, d, err := g.derive(pool, ref)
	if err != nil {
		return nil, err
	}
	out := make([]calibrate.Outcome, len(factors))
	values := make([]float64, len(cand))
	for f, factor := range factors {
		v := gate.Verdict{}
		for _, req := range d.Requirements {
			cols := ix.at[groupKey{req.Type, req.Key.Payload}]
			for i, m := range result.RequirementMetrics {
				if !g.checked(i) {
					continue
				}
				for c, r := range cand {
					values[c] = calibrate.Worse(m, pool.Values[cols[i]][r], factor)
				}
				v.Add(gate.Check{Status: Judge(req.Limit(m), values, g.Margin).Status})
			}
		}
		out[f] = calibrate.OutcomeOf(&v)
	}
	return out, nil
}

// Notes implements calibrate.Gate: which method the checks get from the
// first reference runs of the pool, and what the distribution-free checks
// need before they can fail.
func (g CheckGate) Notes(pool calibrate.Pool, r *calibrate.Result) []string {
	ref := make([]int, r.Reference)
	for i := range ref {
		ref[i] = i
	}
	_, d, err := g.derive(pool, ref)
	if err != nil {
		return nil
	}
	var notes []string
	byMethod := map[string]int{}
	var sds [checksPerRequirement][]float64
	for _, req := range d.Requirements {
		for i, f := range req.Stat.Fits {
			if g.checked(i) {
				byMethod[f.Method]++
				if f.Method == gate.MethodLogNormal {
					sds[i] = append(sds[i], f.LogSD)
				}
			}
		}
	}
	notes = append(notes, fmt.Sprintf("on the first %d runs of the pool, %d checked limit(s) are log-normal and %d distribution-free (Bonferroni over all %d limits of the file, %s each)",
		r.Reference, byMethod[gate.MethodLogNormal], byMethod[gate.MethodOrder], len(d.Requirements)*checksPerRequirement, pct(d.CheckLevel)))
	if byMethod[gate.MethodOrder] > 0 {
		j := g.Config.rankFor(r.Reference)
		need := orderRunsNeededRank(r.Reference, j, d.CheckLevel)
		limit := fmt.Sprintf("a distribution-free limit (the %s of %d reference runs)", largest(j), r.Reference)
		switch {
		case need < 0:
			notes = append(notes, fmt.Sprintf("%s cannot fail at %s with any number of candidate runs", limit, pct(d.CheckLevel)))
		case r.Candidate < need:
			notes = append(notes, fmt.Sprintf("%s fails only when ≥ %d candidate runs all exceed it: with %d candidate runs those checks cannot fail (they are inconclusive at most)",
				limit, need, r.Candidate))
		default:
			fails := orderFailCount(r.Reference, r.Candidate, j, d.CheckLevel)
			notes = append(notes, fmt.Sprintf("%s fails when ≥ %d of the %d candidate runs exceed it (fewest runs that can: %d)",
				limit, fails, r.Candidate, need))
		}
	}
	if r.FalseFails.Trials > 0 && r.FalseFails.Low > r.FalseFail && byMethod[gate.MethodLogNormal] > 0 {
		notes = append(notes, fmt.Sprintf("the measured false-fail rate is above the level asked: the log-normal assumption does not hold on these runs "+
			"(Shapiro–Wilk on %d runs does not see a rare slow or fast mode, and one such candidate run moves a geometric mean past a tight limit); use --method order",
			r.Reference))
	}
	var cols []string
	for i, col := range sds {
		if len(col) == 0 {
			continue
		}
		sort.Float64s(col)
		sd := col[len(col)/2]
		cols = append(cols, fmt.Sprintf("%s (%d limits): log sd %.3g, detects ×%.3g, ×%g needs %s candidate runs", result.RequirementMetrics[i].Name, len(col), sd,
			logNormalDetectable(sd, r.Reference, r.Candidate, d.CheckLevel, r.Power, g.Margin), targetFactor,
			runsText(logNormalRunsFor(sd, r.Reference, d.CheckLevel, r.Power, g.Margin, targetFactor))))
	}
	if len(cols) > 0 {
		notes = append(notes, fmt.Sprintf("log-normal limits at their median run-to-run log sd, with %g%% power at these runs: %s", 100*r.Power, strings.Join(cols, "; ")))
	}
	return notes
}

// largest names the j-th largest run: "largest", "2nd largest", …
func largest(j int) string {
	if j <= 1 {
		return "largest"
	}
	return Ordinal(float64(j)) + " largest"
}

// targetFactor is the regression the notes size the candidate runs for.
const targetFactor = 1.1

// orderFailCount is the fewest of k candidate runs above a
// distribution-free limit (the j-th largest of n runs) that fail a check at
// level; k+1 when none does.
func orderFailCount(n, k, j int, level float64) int {
	for r := 1; r <= k; r++ {
		if orderTail(n, k, j, r) <= level {
			return r
		}
	}
	return k + 1
}

// runsText writes a number of runs, −1 as "no number of".
func runsText(k int) string {
	if k < 0 {
		return "no number of"
	}
	return fmt.Sprint(k)
}

// logNormalDetectable is the regression factor that a log-normal check of
// n reference runs with log standard deviation s detects with probability
// power from k candidate runs at level, limits raised by margin. It uses
// the known-variance approximation: shifted by log f, the k-run log mean
// minus the reference mean, normal with sd s·√(1/n+1/k), must exceed
// t·s·√(1/n+1/k) + log(1+margin), so log f = (t + z_power)·s·√(1/n+1/k) +
// log(1+margin).
func logNormalDetectable(s float64, n, k int, level, power, margin float64) float64 {
	t := dist.TQuantile(n-1, 1-level)
	z := dist.NormalQuantile(power)
	return (1 + margin) * math.Exp((t+z)*s*math.Sqrt(1/float64(n)+1/float64(k)))
}

// logNormalRunsFor is about how many candidate runs a log-normal check
// (logNormalDetectable's terms) needs to detect factor with probability
// power; −1 when no number of runs does (the n reference runs alone leave
// too much doubt).
func logNormalRunsFor(s float64, n int, level, power, margin, factor float64) int {
	return searchRuns(0, func(k int) bool { return logNormalDetectable(s, n, k, level, power, margin) <= factor })
}
