package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/result"
)

// kind is one kind of file of a sub-experiment that compare gates: its
// latency summary or its throughput summary.
type kind[R result.Row] struct {
	// tables are an experiment's files of the kind; get is the one of a
	// sub-experiment, nil when it has none.
	tables func(*experiment.Experiment) []experiment.Table[R]
	get    func(*experiment.Experiment, string) *experiment.Table[R]
	// what names a sub-experiment's file in errors.
	what func(typ string) string
	// same checks that every run of both sides holds the rows of the
	// first reference run.
	same func(refRuns, tgtRuns []*experiment.Table[R]) error
	// throughput: gated on pairing.ThroughputMetric, not Config's metrics.
	throughput bool
}

var (
	latencyKind = kind[result.SummaryRow]{
		tables: func(e *experiment.Experiment) []experiment.Summary { return e.Summaries },
		get:    (*experiment.Experiment).Summary,
		what:   func(typ string) string { return fmt.Sprintf("sub-experiment %q", typ) },
		same:   samePayloadsAll,
	}
	throughputKind = kind[result.ThroughputRow]{
		tables: func(e *experiment.Experiment) []experiment.Throughput { return e.Throughputs },
		get:    (*experiment.Experiment).Throughput,
		what: func(typ string) string {
			return fmt.Sprintf("throughput of sub-experiment %q (%s)", typ, experiment.ThroughputFileName(typ))
		},
		same: sameThroughputRows, throughput: true,
	}
)

// runs returns sub-experiment typ's file of every run of one side, nil
// when no run has it, and an error when some have it and others do not.
func (k kind[R]) runs(exps []*experiment.Experiment, typ, side string) ([]*experiment.Table[R], error) {
	var have []*experiment.Table[R]
	var lacking []string
	for _, e := range exps {
		if s := k.get(e, typ); s != nil {
			have = append(have, s)
		} else {
			lacking = append(lacking, e.Dir)
		}
	}
	if len(have) > 0 && len(lacking) > 0 {
		return nil, fileerr.New(lacking[0], 0, "", "%s is in %d %s runs but missing from %d (%s): every run of a side must measure the same sub-experiments",
			k.what(typ), len(have), side, len(lacking), strings.Join(lacking, ", "))
	}
	return have, nil
}

// match calls add, in type order, with the runs of both sides of every
// sub-experiment some run has a file of this kind of (tgtRuns nil when
// the results lack it). It returns input errors for a sub-experiment in
// some runs of a side but not all, for rows that differ between runs, and
// noRef's for one that no reference run has.
func (k kind[R]) match(refs, tgts []*experiment.Experiment, noRef func(typ string, tgtRuns []*experiment.Table[R]) error,
	add func(refRuns, tgtRuns []*experiment.Table[R])) []error {
	types := map[string]bool{}
	for _, e := range slices.Concat(refs, tgts) {
		for _, t := range k.tables(e) {
			types[t.Type] = true
		}
	}
	var errs []error
	for _, typ := range slices.Sorted(maps.Keys(types)) {
		refRuns, err := k.runs(refs, typ, "reference")
		var tgtRuns []*experiment.Table[R]
		if err == nil {
			tgtRuns, err = k.runs(tgts, typ, "results")
		}
		switch {
		case err != nil:
		case refRuns == nil:
			err = noRef(typ, tgtRuns)
		default:
			if err = k.same(refRuns, tgtRuns); err == nil {
				add(refRuns, tgtRuns)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// origins lists the checks of a sub-experiment whose first reference run
// is t: metric by metric, each over t's rows.
func (k kind[R]) origins(t *experiment.Table[R], cfg Config) []pairing.Origin {
	metrics := cfg.metrics()
	if k.throughput {
		metrics = []result.Metric{pairing.ThroughputMetric}
	}
	var os []pairing.Origin
	for _, m := range metrics {
		for _, key := range t.Keys() {
			os = append(os, pairing.Origin{SubExperiment: t.Type, Key: key, Metric: m, Throughput: k.throughput})
		}
	}
	return os
}

// pool adds to pool a check per origin of every sub-experiment of this
// kind in exps[0], its values those of every run; it returns the input
// errors of runs that differ, or that hold a sub-experiment exps[0] lacks.
func (k kind[R]) pool(pool *calibrate.Pool, exps []*experiment.Experiment, cfg Config) []error {
	var errs []error
	for _, e := range exps[1:] {
		for _, t := range k.tables(e) {
			if k.get(exps[0], t.Type) == nil {
				errs = append(errs, fmt.Errorf("%s: %s is not in %s: every unchanged run must measure the same sub-experiments", e.Dir, k.what(t.Type), exps[0].Dir))
			}
		}
	}
	for _, t := range k.tables(exps[0]) {
		runs, err := k.runs(exps, t.Type, "unchanged")
		if err == nil {
			err = k.same(runs, nil)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, o := range k.origins(&t, cfg) {
			pool.Keys = append(pool.Keys, calibrate.Key{SubExperiment: checkSub(o), Payload: o.Key.Payload, Metric: o.Metric, Threshold: cfg.ThresholdOf(o.Metric)})
			pool.Values = append(pool.Values, values(runs, o.Key, o.Metric))
		}
	}
	return errs
}
