package requirements

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/stats"
)

// DefaultPercentile is the percentile over experiments that a requirement is
// set at, as in the Fast-RTPS scripts.
const DefaultPercentile = 99

// checksPerRequirement is the number of checks one requirement row makes
// (Median, 99%, Max).
const checksPerRequirement = 3

// Observation is what one experiment measured for one payload of one
// sub-experiment: the Median, 99% and Max columns of its summary row.
type Observation struct {
	Experiment string
	Type       string
	Bytes      int
	Median     float64
	P99        float64
	Max        float64
}

// Requirement is a derived requirement row and the evidence behind it.
type Requirement struct {
	KeyedRow
	// N is the number of experiments that back the requirement.
	N int
	// Rank is the 1-based, possibly fractional, order statistic the
	// requirement sits at: 1 + (N−1)·p/100. With numpy's linear method the
	// requirement is x(⌊Rank⌋) + (Rank−⌊Rank⌋)·(x(⌊Rank⌋+1) − x(⌊Rank⌋)).
	Rank float64
	// FailChance is the chance that a new run of the unchanged system
	// exceeds the requirement in one of its checks (see Derivation).
	FailChance float64
	// FailChanceMin and FailChanceMax bound FailChance for any continuous
	// distribution: the chances of exceeding x(⌈Rank⌉) and x(⌊Rank⌋).
	FailChanceMin, FailChanceMax float64

	// Statistical mode only, per checked column (Median, 99%, Max):
	// Chances are the chances that one run of an unchanged system fails
	// the check (Fit.Chance with k = 1) and NeedRuns the candidate runs
	// needed before the check can fail at all (Fit.RunsNeeded).
	Chances  [checksPerRequirement]float64
	NeedRuns [checksPerRequirement]int
}

// Derivation is the result of derive.
//
// # The chance that an unchanged system fails
//
// If the N experiments and the next run are independent draws from one
// continuous distribution, the next run is equally likely to fall in any of
// the N+1 gaps around the N sorted values, so it exceeds the k-th smallest
// value x(k) with probability (N−k+1)/(N+1), whatever the distribution.
//
// The p-th percentile with numpy's linear method sits at the fractional rank
// r = 1 + (N−1)·p/100, interpolated between x(⌊r⌋) and x(⌈r⌉). When r is
// whole the chance is exactly (N−r+1)/(N+1). Otherwise it lies between the
// chances for the two neighbours, FailChanceMin = (N−⌈r⌉+1)/(N+1) and
// FailChanceMax = (N−⌊r⌋+1)/(N+1); FailChance reports the interpolated
// (N−r+1)/(N+1), which is exact for a uniform distribution (the expected
// chance given the sorted values at their expected quantiles) and an estimate
// otherwise. For example, the 99th percentile of 5 runs has r = 4.96:
// FailChance = 1.04/6 ≈ 0.173, about one run in six, between 1/6 and 2/6.
//
// CheckFailChance is the chance that a whole check of a run (every
// requirement, checksPerRequirement checks each) fails somewhere:
// 1 − Π(1 − FailChance)^3, assuming every check fails independently. Checks
// of one run are in practice positively correlated (a slow run is slow in
// every column), which makes the true chance lower than this estimate.
type Derivation struct {
	// Mode is modePercentile (derive) or the method of DeriveStatistical.
	Mode string
	// FalseFail and CheckLevel are those of a statistical derivation: the
	// family-wise level asked and each check's share of it.
	FalseFail, CheckLevel float64

	Percentile      float64
	Requirements    []Requirement
	Experiments     int // distinct experiments that contributed
	CheckFailChance float64
	// Warnings say when the data cannot support the percentile asked for.
	Warnings []string
}

// Rows returns the requirement rows of d.
func (d *Derivation) Rows() []KeyedRow {
	rows := make([]KeyedRow, len(d.Requirements))
	for i, r := range d.Requirements {
		rows[i] = r.KeyedRow
	}
	return rows
}

// derive sets, per sub-experiment and payload, each requirement column to the
// percentile-th percentile (numpy's linear method) of that column over the
// experiments that measured it. Rows are ordered by sub-experiment, then
// payload ascending. percentile must be in (0, 100].
func derive(obs []Observation, percentile float64) (*Derivation, error) {
	if !(percentile > 0 && percentile <= 100) {
		return nil, fmt.Errorf("percentile %v is outside (0, 100]", percentile)
	}
	groups, keys, experiments, err := group(obs)
	if err != nil {
		return nil, err
	}
	d := &Derivation{Mode: modePercentile, Percentile: percentile, Experiments: experiments}
	pass := 1.0
	for _, k := range keys {
		g := groups[k]
		var lim [checksPerRequirement]float64
		for i, get := range observationColumns {
			lim[i] = stats.Percentile(slices.Sorted(slices.Values(column(g, get))), percentile)
		}
		r := Requirement{KeyedRow: LatencyRow(k.typ, k.bytes, lim[0], lim[1], lim[2]), N: len(g)}
		r.Rank, r.FailChance, r.FailChanceMin, r.FailChanceMax = failChance(len(g), percentile)
		pass *= math.Pow(1-r.FailChance, checksPerRequirement)
		d.Requirements = append(d.Requirements, r)
	}
	d.CheckFailChance = 1 - pass
	d.Warnings = warnings(d)
	return d, nil
}

// groupKey is a requirement row's identity.
type groupKey struct {
	typ   string
	bytes int
}

// group groups observations by sub-experiment and payload, sorted by
// sub-experiment then payload, and counts the distinct experiments.
func group(obs []Observation) (map[groupKey][]Observation, []groupKey, int, error) {
	if len(obs) == 0 {
		return nil, nil, 0, fmt.Errorf("no experiment results to derive requirements from")
	}
	groups := map[groupKey][]Observation{}
	experiments := map[string]bool{}
	for _, o := range obs {
		k := groupKey{o.Type, o.Bytes}
		if slices.ContainsFunc(groups[k], func(prev Observation) bool { return prev.Experiment == o.Experiment }) {
			return nil, nil, 0, fmt.Errorf("experiment %s has two rows for %s, %d bytes", o.Experiment, o.Type, o.Bytes)
		}
		groups[k] = append(groups[k], o)
		experiments[o.Experiment] = true
	}
	keys := slices.Collect(maps.Keys(groups))
	slices.SortFunc(keys, func(a, b groupKey) int {
		return cmp.Or(strings.Compare(a.typ, b.typ), cmp.Compare(a.bytes, b.bytes))
	})
	return groups, keys, len(experiments), nil
}

// failChance returns, for a requirement at the percentile-th percentile of n
// experiments, its fractional rank among them and the chance that the next
// run of an unchanged system exceeds it, with the bounds described at
// Derivation.
func failChance(n int, percentile float64) (rank, chance, lo, hi float64) {
	rank = 1 + float64(n-1)*percentile/100
	chance = (float64(n) - rank + 1) / float64(n+1)
	lo = (float64(n) - math.Ceil(rank) + 1) / float64(n+1)
	hi = (float64(n) - math.Floor(rank) + 1) / float64(n+1)
	return rank, chance, lo, hi
}

// minExperiments is the number of experiments from which on the
// percentile-th percentile has, in expectation, at least one experiment above
// it: ⌈100/(100−p)⌉. Fewer, and the requirement is interpolated between the
// largest values, so it says more about those few runs than about the
// percentile. It is 1 for p = 100 (the maximum, asked for as such).
func minExperiments(percentile float64) int {
	if percentile >= 100 {
		return 1
	}
	return int(math.Ceil(100/(100-percentile) - 1e-9))
}

// warnings explains, grouped by the number of backing experiments, when
// there are too few of them for the percentile.
func warnings(d *Derivation) []string {
	need := minExperiments(d.Percentile)
	byN := map[int][]string{}
	for _, r := range d.Requirements {
		if r.N < need {
			byN[r.N] = append(byN[r.N], fmt.Sprintf("%s %d B", r.Type, r.Key.Payload))
		}
	}
	var ws []string
	for _, n := range slices.Sorted(maps.Keys(byN)) {
		_, chance, _, _ := failChance(n, d.Percentile)
		ws = append(ws, fmt.Sprintf(
			"%d requirement(s) rest on %d experiment(s) (%s): too few for the %s percentile, which needs at least %d; "+
				"each of their checks fails an unchanged system with chance %.1f%% (1 run in %.1f), not %.2g%%",
			len(byN[n]), n, listSome(byN[n]), Ordinal(d.Percentile), need, chance*100, 1/chance, 100-d.Percentile))
	}
	return ws
}

// Ordinal writes 99 as "99th", 1 as "1st", 99.9 as "99.9th".
func Ordinal(p float64) string {
	s := fmt.Sprintf("%g", p)
	if n := int(p); p == math.Trunc(p) && (n%100 < 11 || n%100 > 13) && n%10 >= 1 && n%10 <= 3 {
		return s + [...]string{"st", "nd", "rd"}[n%10-1]
	}
	return s + "th"
}

// Derived is what requirements are derived from one Input: the latency
// requirements (nil without latency summaries), the throughput ones (nil
// without throughput summaries) with their warnings, and the drift report.
type Derived struct {
	Latency            *Derivation
	Throughput         []ThroughputRequirement
	ThroughputWarnings []string
	Drift              Drift
}

// DeriveInput derives the requirements of in, at percentile p or, unless
// percentile, statistically with st. The serial-correlation test refuses
// statistical requirements here, before anything is written.
func DeriveInput(in *Input, percentile bool, p float64, st StatConfig) (dv Derived, err error) {
	latObs, tputObs := in.Observations(), in.ThroughputObservations()
	_, tputKeys := groupThroughput(tputObs)
	dv.Drift = driftOf(in)
	if !percentile && dv.Drift.Pooled.Refuse {
		return dv, refuseCorrelated(dv.Drift.Pooled)
	}
	if len(latObs) > 0 {
		if percentile {
			dv.Latency, err = derive(latObs, p)
		} else {
			dv.Latency, err = deriveStatistical(latObs, st, len(tputKeys))
		}
		if err != nil {
			return dv, err
		}
	}
	if len(tputObs) > 0 {
		if percentile {
			dv.Throughput, err = deriveThroughput(tputObs, p)
		} else {
			latRows := 0
			if dv.Latency != nil {
				latRows = len(dv.Latency.Requirements)
			}
			dv.Throughput, dv.ThroughputWarnings, err = DeriveThroughputStatistical(tputObs, st, CheckLevelFor(st.FalseFail, latRows, len(tputKeys)))
		}
		if err != nil {
			return dv, err
		}
	}
	return dv, nil
}

// Input is what requirements are derived from: the experiments under a
// results root, admitted together (experiment.Admit).
type Input struct {
	// Experiments in name order.
	Experiments []*experiment.Experiment
	// Latency is the latency definition they share (formats §2).
	Latency string
	// Warnings name the entries skipped and the incomplete experiments
	// admitted.
	Warnings []string
}

// Observations returns the Median, 99% and Max of every payload of every
// summary, experiment by experiment.
func (in *Input) Observations() []Observation {
	var obs []Observation
	for _, e := range in.Experiments {
		for _, s := range e.Summaries {
			for _, r := range s.Rows {
				obs = append(obs, Observation{Experiment: e.Name, Type: s.Type, Bytes: r.Bytes, Median: r.Median, P99: r.P99, Max: r.Max})
			}
		}
	}
	return obs
}
