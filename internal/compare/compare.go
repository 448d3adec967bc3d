package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/summary"
)

// Result is the outcome of comparing a target experiment with a reference.
type Result struct {
	Reference, Target *experiment.Experiment
	Config            Config
	// Latency is the latency definition both sides share (formats §2).
	Latency string
	// Subs are the compared sub-experiments, sorted by type: every
	// sub-experiment of the reference.
	Subs []SubResult
	// Warnings do not change the verdict: experiments measured on
	// different hosts (formats §6), an incomplete run admitted, a raw file
	// without summary.
	Warnings []string
}

// hostWarning returns a warning when both experiments record their host and
// the fingerprints differ: latencies measured on different machines are not
// comparable, so a regression (or its absence) may be the machine's doing.
func hostWarning(reference, target *experiment.Experiment) (string, bool) {
	if reference.Host() == nil || target.Host() == nil {
		return "", false
	}
	rf, tf := reference.Host().Fingerprint(), target.Host().Fingerprint()
	if rf == tf {
		return "", false
	}
	return fmt.Sprintf("the experiments ran on different hosts, so their latencies may not be comparable: reference %q on %s; results %q on %s",
		reference.Name, rf, target.Name, tf), true
}

// SubResult is the comparison of one sub-experiment.
type SubResult struct {
	Type string
	// Reference and Target are the two summaries; Target is nil when the
	// sub-experiment is missing from the results.
	Reference, Target *experiment.Summary
	// Checks are ordered metric by metric (in Config order), each over the
	// payloads in reference order. A missing sub-experiment has one Missing
	// check per metric and payload.
	Checks []gate.Check
}

// Missing reports whether the sub-experiment is absent from the results.
func (s *SubResult) Missing() bool { return s.Target == nil }

// Failed returns the checks that failed.
func (s *SubResult) Failed() []gate.Check {
	var f []gate.Check
	for _, c := range s.Checks {
		if c.Status == gate.Failed {
			f = append(f, c)
		}
	}
	return f
}

// Passed reports whether the sub-experiment passes: every check passed, or,
// if allowMissing, it is missing from the results.
func (s *SubResult) Passed(allowMissing bool) bool {
	if s.Missing() {
		return allowMissing
	}
	return len(s.Failed()) == 0
}

// referenceName names the reference in check messages.
const referenceName = "reference"

// Compare gates target against reference with cfg. It returns an input error
// (no gate can be made) when cfg is invalid, when either side is an
// incomplete run and cfg does not allow it, when the two sides measure
// latency differently, when a sub-experiment of the target has no
// reference, or when a sub-experiment's payloads differ between the two
// sides; the error names every such sub-experiment and payload.
func Compare(reference, target *experiment.Experiment, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	latency, admitted, err := experiment.Admit([]*experiment.Experiment{reference, target}, cfg.AllowIncomplete)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, t := range target.Summaries {
		if reference.Summary(t.Type) == nil {
			errs = append(errs, fileerr.New(t.Path, 0, "", "sub-experiment %q has no reference: expected %s in %s",
				t.Type, experiment.SummaryFileName(t.Type), reference.Dir))
		}
	}
	res := &Result{Reference: reference, Target: target, Config: cfg, Latency: latency}
	res.Warnings = append(append(res.Warnings, reference.Warnings...), target.Warnings...)
	res.Warnings = append(res.Warnings, admitted...)
	if w, ok := hostWarning(reference, target); ok {
		res.Warnings = append(res.Warnings, w)
	}
	for i := range reference.Summaries {
		ref := &reference.Summaries[i]
		sr := SubResult{Type: ref.Type, Reference: ref, Target: target.Summary(ref.Type)}
		if sr.Target == nil {
			sr.Checks = missingChecks(ref, cfg)
		} else {
			if err := samePayloads(ref, sr.Target); err != nil {
				errs = append(errs, err)
				continue
			}
			sr.Checks = checks(ref, sr.Target, cfg)
		}
		res.Subs = append(res.Subs, sr)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return res, nil
}

// samePayloads reports an error naming the payloads that only one side of a
// sub-experiment has.
func samePayloads(ref, target *experiment.Summary) error {
	onlyRef := payloadsNotIn(ref.Rows, target.Rows)
	onlyTarget := payloadsNotIn(target.Rows, ref.Rows)
	if len(onlyRef) == 0 && len(onlyTarget) == 0 {
		return nil
	}
	var parts []string
	if len(onlyRef) > 0 {
		parts = append(parts, fmt.Sprintf("payloads %s only in the reference %s", joinInts(onlyRef), ref.Path))
	}
	if len(onlyTarget) > 0 {
		parts = append(parts, fmt.Sprintf("payloads %s only in the results %s", joinInts(onlyTarget), target.Path))
	}
	return fileerr.New(target.Path, 0, "Bytes", "sub-experiment %q: the two sides measured different payloads: %s; compare experiments run with the same payloads",
		ref.Type, strings.Join(parts, "; "))
}

func payloadsNotIn(rows, other []summary.Row) []int {
	var out []int
	for _, r := range rows {
		if !slices.ContainsFunc(other, func(o summary.Row) bool { return o.Bytes == r.Bytes }) {
			out = append(out, r.Bytes)
		}
	}
	return out
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// value returns metric m of row r; the gated metrics are all summary columns.
func value(r summary.Row, m gate.Metric) float64 {
	v, ok := r.Get(m.Name)
	if !ok {
		panic("compare: summary has no column " + m.Name)
	}
	return v
}

func rowOf(s *experiment.Summary, payload int) summary.Row {
	for _, r := range s.Rows {
		if r.Bytes == payload {
			return r
		}
	}
	panic(fmt.Sprintf("compare: %s has no payload %d", s.Path, payload))
}

func checks(ref, target *experiment.Summary, cfg Config) []gate.Check {
	var cs []gate.Check
	for _, m := range cfg.metrics() {
		t := cfg.ThresholdOf(m)
		for _, r := range ref.Rows {
			cs = append(cs, gate.Evaluate(ref.Type, r.Bytes, m, referenceName, value(r, m), t, value(rowOf(target, r.Bytes), m)))
		}
	}
	return cs
}

func missingChecks(ref *experiment.Summary, cfg Config) []gate.Check {
	var cs []gate.Check
	for _, m := range cfg.metrics() {
		for _, r := range ref.Rows {
			c := gate.MissingCheck(ref.Type, r.Bytes, m, value(r, m), math.NaN(),
				fmt.Sprintf("%d B %s: sub-experiment missing from the results (%s)", r.Bytes, m.Name, experiment.SummaryFileName(ref.Type)))
			c.Threshold = cfg.ThresholdOf(m)
			cs = append(cs, c)
		}
	}
	return cs
}
