package compare

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// Result is the outcome of comparing a target experiment with a reference,
// or several runs of the target with several runs of the reference.
type Result struct {
	// Reference and Target are the first run of each side (the only one in
	// single-run mode); References and Targets are every run.
	Reference, Target   *experiment.Experiment
	References, Targets []*experiment.Experiment
	Config              Config
	// Mode is gate.ModeSingleRun (one run per side) or
	// gate.ModeStatistical (two or more on each side).
	Mode string
	// Latency is the latency definition both sides share (formats §2).
	Latency string
	// Subs are the compared sub-experiments, sorted by type: every
	// sub-experiment of the reference.
	Subs []SubResult
	// Throughputs are the compared throughput summaries, sorted by type:
	// every one of the reference.
	Throughputs []ThroughputResult
	// Pairs are the runs' pairs in ModePaired (References and Targets are
	// then in pair order), and Analysis their paired analysis; nil
	// otherwise (Analysis also when no check could be analysed).
	Pairs    []pairing.Pair
	Analysis *paired.Analysis
	// New are the sub-experiments of the results that the reference lacks,
	// reported as new and not compared (Config.AllowMissing), sorted; a
	// throughput summary's is "throughput of <type>".
	New []string
	// series are the unpaired statistical gate's data, for its drift test.
	series []gate.Series
	// Warnings do not change the verdict: experiments measured on
	// different hosts (formats §6), an incomplete run admitted, a raw file
	// without summary.
	Warnings []string
}

// hostWarning returns a warning when the experiments record their host and
// the fingerprints differ: latencies measured on different machines are not
// comparable, so a regression (or its absence) may be the machine's doing.
// It names the first reference run and the first run on another host.
func hostWarning(references, targets []*experiment.Experiment) (string, bool) {
	var first *experiment.Experiment
	for _, e := range slices.Concat(references, targets) {
		if e.Host() == nil {
			continue
		}
		if first == nil {
			first = e
			continue
		}
		if rf, tf := first.Host().Fingerprint(), e.Host().Fingerprint(); rf != tf {
			side := "results"
			if slices.Contains(references, e) {
				side = "reference"
			}
			return fmt.Sprintf("the experiments ran on different hosts, so their latencies may not be comparable: reference %q on %s; %s %q on %s",
				first.Name, rf, side, e.Name, tf), true
		}
	}
	return "", false
}

// Sub is the comparison of one sub-experiment's files of one kind: its
// latency summaries (SubResult) or its throughput summaries
// (ThroughputResult).
type Sub[R result.Row] struct {
	Type string
	// ReferenceRuns and TargetRuns are every run's file; TargetRuns is nil
	// when the sub-experiment is missing from the results.
	ReferenceRuns, TargetRuns []*experiment.Table[R]
	Checks                    []gate.Check
}

// Missing reports whether the sub-experiment is absent from the results.
func (s *Sub[R]) Missing() bool { return s.TargetRuns == nil }

// Failed returns the checks that failed.
func (s *Sub[R]) Failed() []gate.Check {
	return slices.DeleteFunc(slices.Clone(s.Checks), func(c gate.Check) bool { return c.Status != gate.Failed })
}

// checkList returns the checks of s.
func (s *Sub[R]) checkList() []gate.Check { return s.Checks }

// SubResult is the comparison of one sub-experiment's latency summaries.
// Its Checks are ordered metric by metric (in Config order), each over the
// payloads in reference order; a missing sub-experiment has one Missing
// check per metric and payload.
type SubResult struct {
	Sub[result.SummaryRow]
	// Reference and Target are the two summaries; Target is nil when the
	// sub-experiment is missing from the results. With several runs per side
	// they hold, per payload, the median of each column over the runs.
	Reference, Target *experiment.Summary
}

// section is one compared file kind of a sub-experiment, SubResult or
// ThroughputResult: what the files, the verdict and the error line take
// from either.
type section interface {
	Missing() bool
	Failed() []gate.Check
	checkList() []gate.Check
	// csvName names its comparison CSV; writeTo writes it.
	csvName() string
	writeTo(r *Result, w io.Writer) error
	figures(r *Result) []Figure
	htmlSection(r *Result, v *gate.Verdict) htmlreport.Section
}

func (s *SubResult) csvName() string { return CSVFileName(s.Type) }
func (s *SubResult) writeTo(r *Result, w io.Writer) error {
	return s.writeCSV(r, w, result.SummaryColumns)
}
func (s *SubResult) figures(r *Result) []Figure { return r.Figures(s) }

// sections lists the latency comparisons, then the throughput ones.
func (r *Result) sections() []section {
	var ss []section
	for i := range r.Subs {
		ss = append(ss, &r.Subs[i])
	}
	for i := range r.Throughputs {
		ss = append(ss, &r.Throughputs[i])
	}
	return ss
}

// referenceName names the reference in check messages.
const referenceName = "reference"

// CompareRuns gates the target runs against the reference runs with cfg.
// With one run per side it applies the threshold rule of formats §4
// (gate.Evaluate, mode gate.ModeSingleRun); with two or more on each side
// the statistical model of formats §8 over every check of every
// sub-experiment at once (gate.Judge, mode gate.ModeStatistical). It
// returns an input error (no gate can be made) when cfg is invalid, when one
// side has one run and the other several, when a run is incomplete and cfg
// does not allow it, when the runs measure latency differently, when a
// sub-experiment of the target has no reference (unless cfg.AllowMissing:
// then it is new, not compared, Result.New), when a sub-experiment is in
// some runs of a side but not all, or when payloads (throughput: rows)
// differ between runs; the error names every such sub-experiment and
// payload.
func CompareRuns(references, targets []*experiment.Experiment, cfg Config) (*Result, error) {
	mode, err := runMode(references, targets, cfg)
	if err != nil {
		return nil, err
	}
	pairs, seriesWarnings, err := pairsOf(references, targets, cfg)
	if err != nil {
		return nil, err
	}
	if pairs != nil {
		mode = gate.ModePaired
		references, targets = make([]*experiment.Experiment, len(pairs)), make([]*experiment.Experiment, len(pairs))
		for i, p := range pairs {
			references[i], targets[i] = p.Reference, p.Candidate
		}
	}
	if cfg, err = modeDefaults(cfg, mode); err != nil {
		return nil, err
	}
	all := slices.Concat(references, targets)
	latency, admitted, err := experiment.Admit(all, cfg.AllowIncomplete)
	if err != nil {
		return nil, err
	}
	res := &Result{Reference: references[0], Target: targets[0], References: references, Targets: targets,
		Config: cfg, Mode: mode, Latency: latency, Pairs: pairs}
	errs := res.unreferenced()
	for _, e := range all {
		res.Warnings = append(res.Warnings, e.Warnings...)
	}
	res.Warnings = append(append(res.Warnings, admitted...), seriesWarnings...)
	if w, ok := hostWarning(references, targets); ok {
		res.Warnings = append(res.Warnings, w)
	}
	errs = append(errs, res.matchSubs()...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := res.decide(); err != nil {
		return nil, err
	}
	return res, nil
}

// runMode checks cfg and the number of runs per side and returns the mode
// they call for before pairing: one run per side is single-run, two or more
// on each side statistical.
func runMode(references, targets []*experiment.Experiment, cfg Config) (string, error) {
	if err := cfg.Validate(); err != nil {
		return "", err
	}
	if len(references) == 0 || len(targets) == 0 {
		return "", errors.New("compare needs at least one reference run and one run to gate")
	}
	switch {
	case len(references) >= 2 && len(targets) >= 2:
		return gate.ModeStatistical, nil
	case len(references) != len(targets):
		return "", fmt.Errorf("%d reference runs and %d runs to gate: give one run per side (the single-run threshold rule) or at least 2 per side (the statistical gate)",
			len(references), len(targets))
	}
	return gate.ModeSingleRun, nil
}

// modeDefaults fills in what cfg leaves to the mode: the default columns
// when several runs per side are gated (checked again, since they must suit
// the other settings) and the default false-fail rate.
func modeDefaults(cfg Config, mode string) (Config, error) {
	if mode != gate.ModeSingleRun && len(cfg.Metrics) == 0 {
		cfg.Metrics = result.DefaultStatisticalMetrics
		if err := cfg.Validate(); err != nil {
			return cfg, fmt.Errorf("%w (with several runs per side the default columns are %s)", err, result.Names(cfg.Metrics))
		}
	}
	cfg.FalseFail = cmp.Or(cfg.FalseFail, gate.DefaultFalseFail)
	return cfg, nil
}

// unreferenced returns an error for each latency sub-experiment of a target
// run that the first reference run lacks (or, with AllowMissing, records it
// as new).
func (r *Result) unreferenced() []error {
	var errs []error
	for _, target := range r.Targets {
		for _, t := range target.Summaries {
			if r.References[0].Summary(t.Type) == nil {
				if err := r.noReference(t.Type, t.Path, experiment.SummaryFileName(t.Type)); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errs
}

// matchSubs pairs the sides' latency and then throughput sub-experiments
// into r.Subs and r.Throughputs, returning an error for each that does
// not match (a throughput sub-experiment without reference included).
func (r *Result) matchSubs() []error {
	references, targets := r.References, r.Targets
	errs := latencyKind.match(references, targets, func(string, []*experiment.Summary) error { return nil }, // said by unreferenced
		func(refRuns, tgtRuns []*experiment.Summary) {
			sr := SubResult{Sub: Sub[result.SummaryRow]{Type: refRuns[0].Type, ReferenceRuns: refRuns, TargetRuns: tgtRuns},
				Reference: medianSummary(refRuns)}
			if tgtRuns != nil {
				sr.Target = medianSummary(tgtRuns)
			}
			r.Subs = append(r.Subs, sr)
		})
	return append(errs, throughputKind.match(references, targets, func(typ string, tgtRuns []*experiment.Throughput) error {
		return r.noReference("throughput of "+typ, tgtRuns[0].Path, experiment.ThroughputFileName(typ))
	}, func(refRuns, tgtRuns []*experiment.Throughput) {
		r.Throughputs = append(r.Throughputs, ThroughputResult{Sub: Sub[result.ThroughputRow]{Type: refRuns[0].Type,
			ReferenceRuns: refRuns, TargetRuns: tgtRuns}, Keys: refRuns[0].Keys()})
	})...)
}

// decide judges every check by r.Mode: the threshold rule for one run per
// side, the statistical model for several, the paired model for pairs.
func (r *Result) decide() error {
	switch r.Mode {
	case gate.ModeSingleRun:
		r.slots(func(_ pairing.Origin, se gate.Series, set func(gate.Check)) {
			set(gate.Evaluate(se.SubExperiment, se.Payload, se.Metric, referenceName, se.Reference[0], se.Threshold, se.Candidate[0]))
		})
	case gate.ModeStatistical:
		r.judge()
	case gate.ModePaired:
		return r.judgePaired()
	}
	return nil
}

// samePayloadsAll checks that every run of both sides measured the payloads
// of the first reference run.
func samePayloadsAll(refRuns, tgtRuns []*experiment.Summary) error {
	var errs []error
	for _, s := range slices.Concat(refRuns[1:], tgtRuns) {
		if err := samePayloads(refRuns[0], s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// medianSummary is, per payload of the first run, the median of each column
// over the runs (the run itself when there is one): what the plots and
// tables of a comparison show.
func medianSummary(runs []*experiment.Summary) *experiment.Summary {
	if len(runs) == 1 {
		return runs[0]
	}
	out := &experiment.Summary{Type: runs[0].Type, Path: runs[0].Path}
	for _, r := range runs[0].Rows {
		m := result.SummaryRow{Bytes: r.Bytes, Summary: result.Summary{Samples: r.Samples}}
		for _, col := range result.SummaryColumns {
			if _, ok := r.Get(col); !ok {
				continue
			}
			vals := make([]float64, len(runs))
			for i, run := range runs {
				vals[i], _ = run.At(r.Key()).Get(col)
			}
			m.Set(col, stats.Median(vals))
		}
		out.Rows = append(out.Rows, m)
	}
	return out
}

// judge makes the statistical checks of every sub-experiment present on
// both sides at once, latency and throughput, so that Holm's correction
// covers the whole gate run.
func (r *Result) judge() {
	var sets []func(gate.Check)
	r.slots(func(_ pairing.Origin, se gate.Series, set func(gate.Check)) {
		r.series = append(r.series, se)
		sets = append(sets, set)
	})
	for k, c := range gate.Judge(r.series, r.Config.FalseFail, referenceName) {
		sets[k](c)
	}
}

// slots makes room for the checks of every sub-experiment, in the order
// of the single-run gate (latency: metric by metric, each over the
// payloads; throughput: one per row, on the Median [msg/s]), makes those of
// a sub-experiment missing from the results, and calls add with each other
// check's origin, its series and its setter.
func (r *Result) slots(add func(o pairing.Origin, se gate.Series, set func(gate.Check))) {
	for i := range r.Subs {
		r.Subs[i].slots(r, latencyKind.origins(r.Subs[i].ReferenceRuns[0], r.Config), nil, add)
	}
	for i := range r.Throughputs {
		t := &r.Throughputs[i]
		t.slots(r, throughputKind.origins(t.ReferenceRuns[0], r.Config), t.describe, add)
	}
}

// slots makes room for a check of s per origin (Result.slots); describe,
// when set, completes the message of each check add sets.
func (s *Sub[R]) slots(r *Result, os []pairing.Origin, describe func(gate.Check, result.Key) gate.Check,
	add func(o pairing.Origin, se gate.Series, set func(gate.Check))) {
	s.Checks = make([]gate.Check, len(os))
	for j, o := range os {
		se := gate.Series{SubExperiment: checkSub(o), Payload: o.Key.Payload, Metric: o.Metric, Threshold: r.Config.ThresholdOf(o.Metric),
			Reference: values(s.ReferenceRuns, o.Key, o.Metric)}
		if s.Missing() {
			s.Checks[j] = missingCheck(o, se)
			continue
		}
		se.Candidate = values(s.TargetRuns, o.Key, o.Metric)
		add(o, se, func(c gate.Check) {
			if describe != nil {
				c = describe(c, o.Key)
			}
			s.Checks[j] = c
		})
	}
}

// missingCheck is the check of origin o, whose sub-experiment is missing
// from the results: the median of the reference runs against nothing.
func missingCheck(o pairing.Origin, se gate.Series) gate.Check {
	what, file := fmt.Sprintf("%d B %s: sub-experiment", o.Key.Payload, o.Metric.Name), experiment.SummaryFileName(o.SubExperiment)
	if o.Throughput {
		what, file = o.Key.String()+": throughput", experiment.ThroughputFileName(o.SubExperiment)
	}
	c := gate.MissingCheck(se.SubExperiment, se.Payload, se.Metric, stats.Median(se.Reference), math.NaN(),
		fmt.Sprintf("%s missing from the results (%s)", what, file))
	c.Threshold = se.Threshold
	return c
}

// samePayloads reports an error naming the payloads that only one side of a
// sub-experiment has.
func samePayloads(ref, target *experiment.Summary) error {
	payloadText := func(k result.Key) string { return strconv.Itoa(k.Payload) }
	parts := onlyIn(ref, target, payloadText, "payloads ", "the reference "+ref.Path, "the results "+target.Path)
	if len(parts) == 0 {
		return nil
	}
	return fileerr.New(target.Path, 0, "Bytes", "sub-experiment %q: the two sides measured different payloads: %s; compare experiments run with the same payloads",
		ref.Type, strings.Join(parts, "; "))
}

// onlyIn names, as text says, the keys of a's rows that b lacks and then
// those of b's that a lacks, each list as "<prefix>KEYS only in <where>";
// nil when both have the same keys.
func onlyIn[R result.Row](a, b *experiment.Table[R], text func(result.Key) string, prefix, aWhere, bWhere string) []string {
	var parts []string
	for _, s := range []struct {
		t, other *experiment.Table[R]
		where    string
	}{{a, b, aWhere}, {b, a, bWhere}} {
		var only []string
		for _, k := range s.t.Keys() {
			if s.other.At(k) == nil {
				only = append(only, text(k))
			}
		}
		if len(only) > 0 {
			parts = append(parts, fmt.Sprintf("%s%s only in %s", prefix, strings.Join(only, ", "), s.where))
		}
	}
	return parts
}

// value returns metric m of row r; the gated metrics are all ones the rows
// hold.
func value[R result.Row](r R, m result.Metric) float64 {
	v, ok := r.Value(m)
	if !ok {
		panic("compare: a row has no " + m.Name)
	}
	return v
}

// values returns metric m of the row with key k in every run; every run
// has the row (samePayloadsAll, sameThroughputRows).
func values[R result.Row](runs []*experiment.Table[R], k result.Key, m result.Metric) []float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = value(*r.At(k), m)
	}
	return v
}
