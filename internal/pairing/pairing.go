package pairing

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// Pair is the two runs of one unit of an interleaved comparison: the
// reference and candidate experiments of the same name.
type Pair struct {
	Name                 string
	Reference, Candidate *experiment.Experiment
}

// Unmatched is the error of runs that do not pair: experiment names found
// on one side only, or more than once on a side.
type Unmatched struct {
	// ReferenceOnly and CandidateOnly are the names found on one side only.
	ReferenceOnly, CandidateOnly []string
	// Duplicates are names found twice on one side ("reference: x-01").
	Duplicates []string
}

func (u *Unmatched) Error() string {
	var parts []string
	if len(u.ReferenceOnly) > 0 {
		parts = append(parts, "only in the reference: "+strings.Join(u.ReferenceOnly, ", "))
	}
	if len(u.CandidateOnly) > 0 {
		parts = append(parts, "only in the results: "+strings.Join(u.CandidateOnly, ", "))
	}
	if len(u.Duplicates) > 0 {
		parts = append(parts, "named twice on one side: "+strings.Join(u.Duplicates, ", "))
	}
	return "the runs do not pair (a pair is the reference and results experiments of the same name, as run ab writes them): " +
		strings.Join(parts, "; ")
}

// Match pairs the reference and candidate experiments by name (the base
// name of each experiment directory), in the order of the references. It
// returns an *Unmatched error when a name is on one side only or twice on a
// side, and an error when there are fewer than two pairs or one side is
// empty.
func Match(refs, cands []*experiment.Experiment) ([]Pair, error) {
	u := &Unmatched{}
	index := func(side string, exps []*experiment.Experiment) map[string]*experiment.Experiment {
		m := map[string]*experiment.Experiment{}
		for _, e := range exps {
			if _, dup := m[e.Name]; dup {
				u.Duplicates = append(u.Duplicates, side+": "+e.Name)
			}
			m[e.Name] = e
		}
		return m
	}
	byRef, byCand := index("reference", refs), index("results", cands)
	var pairs []Pair
	for _, r := range refs {
		c, ok := byCand[r.Name]
		if !ok {
			u.ReferenceOnly = append(u.ReferenceOnly, r.Name)
			continue
		}
		if byRef[r.Name] == r {
			pairs = append(pairs, Pair{Name: r.Name, Reference: r, Candidate: c})
		}
	}
	for _, c := range cands {
		if _, ok := byRef[c.Name]; !ok {
			u.CandidateOnly = append(u.CandidateOnly, c.Name)
		}
	}
	if len(u.ReferenceOnly)+len(u.CandidateOnly)+len(u.Duplicates) > 0 {
		return nil, u
	}
	if len(pairs) < 2 {
		return nil, fmt.Errorf("%d pair(s) of runs: a paired comparison needs at least 2", len(pairs))
	}
	return pairs, nil
}

// Origin says where a paired check comes from: a latency summary's row
// (Throughput false) or a throughput summary's row, and the metric.
type Origin struct {
	SubExperiment string
	Key           result.Key
	Metric        result.Metric
	Throughput    bool
}

// Label names the check for people: "intraprocess 1024 B 99%",
// "throughput_intraprocess (window) 16 B Messages/s".
func (o Origin) Label() string {
	sub := o.SubExperiment
	if o.Throughput {
		sub = result.ThroughputLabel(o.SubExperiment, o.Key)
	}
	return sub + " " + strconv.Itoa(o.Key.Payload) + " B " + o.Metric.Name
}

// ThroughputMetric is what a throughput row is gated on: its median
// msg/s, higher is better, as compare gates it.
var ThroughputMetric = result.MessageRate

// Checks builds the family of paired checks of pairs: for every latency
// sub-experiment (in type order), every metric of latency, every row (in
// the first reference run's order), then for every throughput
// sub-experiment every row on ThroughputMetric, one paired.Check named by
// its Origin's Label, with A[i] and B[i] the metric's value in pair i's
// reference and candidate run and HigherIsBetter from the metric. The
// origins are parallel to the checks.
//
// A sub-experiment that no candidate run holds is left out: the candidate
// does not measure it, and the caller reports it missing (Missing lists
// its checks).
// Otherwise every run must hold the same sub-experiments and rows as the
// first reference run; an error names the file and the row or
// sub-experiment that differ. Values are taken as they are: paired.Analyze refuses one
// that is not positive.
func Checks(pairs []Pair, latency []result.Metric) ([]paired.Check, []Origin, error) {
	if len(pairs) == 0 {
		return nil, nil, errors.New("no pairs of runs")
	}
	checks, origins, errs := collect(pairs, summaries, latency, false, true)
	c, o, terrs := collect(pairs, throughputs, []result.Metric{ThroughputMetric}, true, true)
	checks, origins = append(checks, c...), append(origins, o...)
	if err := errors.Join(append(errs, terrs...)...); err != nil {
		return nil, nil, err
	}
	if len(checks) == 0 {
		return nil, nil, fmt.Errorf("%s holds no summary to compare", pairs[0].Reference.Dir)
	}
	return checks, origins, nil
}

// Missing returns the checks Checks leaves out: those of every
// sub-experiment that some reference run holds and no candidate run does,
// which the candidate did not measure. Each has its origin, A the values
// of the reference runs that hold it and B nil; compare and run ab report
// them missing from the results, which fails the gate as a failed check
// does.
func Missing(pairs []Pair, latency []result.Metric) ([]paired.Check, []Origin) {
	checks, origins, _ := collect(pairs, summaries, latency, false, false)
	c, o, _ := collect(pairs, throughputs, []result.Metric{ThroughputMetric}, true, false)
	return append(checks, c...), append(origins, o...)
}

// tablesOf is one kind of an experiment's tables: its latency summaries or
// its throughput summaries, all of them and one by type.
type tablesOf[R result.Row] struct {
	all func(*experiment.Experiment) []experiment.Table[R]
	get func(*experiment.Experiment, string) *experiment.Table[R]
}

var (
	summaries = tablesOf[result.SummaryRow]{
		func(e *experiment.Experiment) []experiment.Summary { return e.Summaries }, (*experiment.Experiment).Summary}
	throughputs = tablesOf[result.ThroughputRow]{
		func(e *experiment.Experiment) []experiment.Throughput { return e.Throughputs }, (*experiment.Experiment).Throughput}
)

// collect returns, for every sub-experiment of kind that any run holds (in
// type order) and every metric, the checks of family when held and some
// candidate run holds the sub-experiment, or those of missing when !held
// and none does.
func collect[R result.Row](pairs []Pair, kind tablesOf[R], metrics []result.Metric, throughput, held bool) (
	[]paired.Check, []Origin, []error) {
	var checks []paired.Check
	var origins []Origin
	var errs []error
	for _, typ := range types(pairs, kind.all) {
		if slices.ContainsFunc(pairs, func(p Pair) bool { return kind.get(p.Candidate, typ) != nil }) != held {
			continue
		}
		var tabs [][2]*experiment.Table[R]
		if held {
			var err error
			if tabs, err = tables(pairs, typ, kind.get); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		for _, m := range metrics {
			var c []paired.Check
			var o []Origin
			var err error
			if held {
				c, o, err = family(tabs, typ, m, throughput)
			} else {
				c, o = missing(pairs, typ, m, throughput, kind.get)
			}
			errs = append(errs, err)
			checks, origins = append(checks, c...), append(origins, o...)
		}
	}
	return checks, origins, errs
}

// missing returns the checks of metric m over the rows of the first
// reference run holding sub-experiment typ, with the reference runs'
// values.
func missing[R result.Row](pairs []Pair, typ string, m result.Metric, throughput bool,
	get func(*experiment.Experiment, string) *experiment.Table[R]) ([]paired.Check, []Origin) {
	var first *experiment.Table[R]
	for _, p := range pairs {
		if first = get(p.Reference, typ); first != nil {
			break
		}
	}
	if first == nil {
		return nil, nil
	}
	var checks []paired.Check
	var origins []Origin
	for _, k := range first.Keys() {
		o := Origin{SubExperiment: typ, Key: k, Metric: m, Throughput: throughput}
		c := paired.Check{Name: o.Label(), HigherIsBetter: m.Better == result.HigherIsBetter}
		for _, p := range pairs {
			if t := get(p.Reference, typ); t != nil {
				if v, err := valueAt(t, k, m, o.Label()); err == nil {
					c.A = append(c.A, v)
				}
			}
		}
		checks, origins = append(checks, c), append(origins, o)
	}
	return checks, origins
}

// types returns the sub-experiment types any run of pairs holds, sorted.
func types[R result.Row](pairs []Pair, all func(*experiment.Experiment) []experiment.Table[R]) []string {
	set := map[string]bool{}
	for _, p := range pairs {
		for _, e := range []*experiment.Experiment{p.Reference, p.Candidate} {
			for _, t := range all(e) {
				set[t.Type] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// tables returns sub-experiment typ of every pair's runs, [pair][0 ref, 1
// candidate], or an error naming the runs that lack it.
func tables[R result.Row](pairs []Pair, typ string, get func(*experiment.Experiment, string) *experiment.Table[R]) ([][2]*experiment.Table[R], error) {
	out := make([][2]*experiment.Table[R], len(pairs))
	var lacking []string
	for i, p := range pairs {
		for s, e := range []*experiment.Experiment{p.Reference, p.Candidate} {
			out[i][s] = get(e, typ)
			if out[i][s] == nil {
				lacking = append(lacking, e.Dir)
			}
		}
	}
	if len(lacking) > 0 {
		return nil, fileerr.New(lacking[0], 0, "", "sub-experiment %q is missing from %d of the %d paired runs (%s): every run of a paired comparison must measure the same sub-experiments",
			typ, len(lacking), 2*len(pairs), strings.Join(lacking, ", "))
	}
	return out, nil
}

// family builds the checks of metric m over the rows of the first
// reference table.
func family[R result.Row](tabs [][2]*experiment.Table[R], typ string, m result.Metric, throughput bool) ([]paired.Check, []Origin, error) {
	var checks []paired.Check
	var origins []Origin
	var errs []error
	for _, k := range tabs[0][0].Keys() {
		o := Origin{SubExperiment: typ, Key: k, Metric: m, Throughput: throughput}
		c := paired.Check{Name: o.Label(), HigherIsBetter: m.Better == result.HigherIsBetter,
			A: make([]float64, len(tabs)), B: make([]float64, len(tabs))}
		ok := true
		for i, t := range tabs {
			for s, side := range []*[]float64{&c.A, &c.B} {
				v, err := valueAt(t[s], k, m, o.Label())
				if err != nil {
					errs = append(errs, err)
					ok = false
					continue
				}
				(*side)[i] = v
			}
		}
		if ok {
			checks, origins = append(checks, c), append(origins, o)
		}
	}
	for _, t := range tabs {
		for _, s := range t {
			if n := len(s.Rows); n != len(tabs[0][0].Rows) {
				errs = append(errs, fileerr.New(s.Path, 0, "", "%d rows, but %s has %d: every run of a paired comparison must measure the same payloads",
					n, tabs[0][0].Path, len(tabs[0][0].Rows)))
			}
		}
	}
	return checks, origins, errors.Join(errs...)
}

// valueAt returns metric m of t's row with key k; label names the check in
// errors.
func valueAt[R result.Row](t *experiment.Table[R], k result.Key, m result.Metric, label string) (float64, error) {
	r := t.At(k)
	if r == nil {
		return 0, fileerr.New(t.Path, 0, "", "no row for %s: every run of a paired comparison must measure the same payloads", label)
	}
	v, ok := (*r).Value(m)
	if !ok {
		return 0, fileerr.New(t.Path, 0, m.Name, "no value for %s", label)
	}
	return v, nil
}
