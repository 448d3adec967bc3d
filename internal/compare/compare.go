package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/summary"
)

// Experiment is what compare reads of one experiment directory: the summary
// of each sub-experiment.
type Experiment struct {
	// Name labels the experiment in the comparison CSV and plots: the
	// directory's base name, as in the Fast-RTPS script.
	Name string
	Dir  string
	// Subs are the sub-experiments, sorted by type.
	Subs []Sub
	// Host is the fingerprint of the machine the experiment ran on, from
	// its meta.json; nil when there is none.
	Host *meta.Host
	// Warnings say what could not be read besides the summaries (a bad
	// meta.json); they do not change the verdict.
	Warnings []string
}

// Sub is one sub-experiment's summary.
type Sub struct {
	Type string
	File string
	// Rows are the summary rows in file order, one per payload.
	Rows []summary.Row
}

// Sub returns the sub-experiment typ of e, or nil.
func (e *Experiment) Sub(typ string) *Sub {
	for i := range e.Subs {
		if e.Subs[i].Type == typ {
			return &e.Subs[i]
		}
	}
	return nil
}

// Load reads every summary file of the experiment directory dir. A directory
// that does not exist or holds no summary, and a summary that summary.Read
// rejects (empty, malformed, a payload twice), are input errors.
func Load(dir string) (*Experiment, error) {
	files, err := experiment.SummaryFiles(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fileerr.New(dir, 0, "", "no summary file (%s): run process on the experiment first", experiment.SummaryFileName("<type>"))
	}
	e := &Experiment{Name: experimentName(dir), Dir: dir}
	for _, f := range files {
		rows, err := summary.ReadFile(f.Path)
		if err != nil {
			return nil, err
		}
		e.Subs = append(e.Subs, Sub{Type: f.Type, File: f.Path, Rows: rows})
	}
	e.Host, e.Warnings = loadHost(dir)
	return e, nil
}

// MetaFileName is the name of an experiment's metadata file (SPEC §6).
const MetaFileName = "meta.json"

// loadHost reads the host fingerprint from dir's meta.json. Experiments
// processed from other tools have none; a meta.json that cannot be read is
// a warning, since the gate judges the summaries, not the metadata.
func loadHost(dir string) (*meta.Host, []string) {
	path := filepath.Join(dir, MetaFileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	m, err := meta.ReadFile(path)
	if err != nil {
		return nil, []string{fmt.Sprintf("cannot read the host fingerprint: %v", err)}
	}
	return &m.Host, nil
}

// experimentName is the base name of dir, made absolute first so that "."
// and "results/" name the experiment too.
func experimentName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Base(dir)
}

// Result is the outcome of comparing a target experiment with a reference.
type Result struct {
	Reference, Target *Experiment
	Config            Config
	// Subs are the compared sub-experiments, sorted by type: every
	// sub-experiment of the reference.
	Subs []SubResult
	// Warnings do not change the verdict: experiments measured on
	// different hosts (SPEC §6), an unreadable meta.json.
	Warnings []string
}

// hostWarning returns a warning when both experiments record their host and
// the fingerprints differ: latencies measured on different machines are not
// comparable, so a regression (or its absence) may be the machine's doing.
func hostWarning(reference, target *Experiment) (string, bool) {
	if reference.Host == nil || target.Host == nil {
		return "", false
	}
	rf, tf := reference.Host.Fingerprint(), target.Host.Fingerprint()
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
	Reference, Target *Sub
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
// (no gate can be made) when cfg is invalid, when a sub-experiment of the
// target has no reference, or when a sub-experiment's payloads differ between
// the two sides; the error names every such sub-experiment and payload.
func Compare(reference, target *Experiment, cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var errs []error
	for _, t := range target.Subs {
		if reference.Sub(t.Type) == nil {
			errs = append(errs, fileerr.New(t.File, 0, "", "sub-experiment %q has no reference: expected %s in %s",
				t.Type, experiment.SummaryFileName(t.Type), reference.Dir))
		}
	}
	res := &Result{Reference: reference, Target: target, Config: cfg}
	res.Warnings = append(append(res.Warnings, reference.Warnings...), target.Warnings...)
	if w, ok := hostWarning(reference, target); ok {
		res.Warnings = append(res.Warnings, w)
	}
	for i := range reference.Subs {
		ref := &reference.Subs[i]
		sr := SubResult{Type: ref.Type, Reference: ref, Target: target.Sub(ref.Type)}
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
func samePayloads(ref, target *Sub) error {
	onlyRef := payloadsNotIn(ref.Rows, target.Rows)
	onlyTarget := payloadsNotIn(target.Rows, ref.Rows)
	if len(onlyRef) == 0 && len(onlyTarget) == 0 {
		return nil
	}
	var parts []string
	if len(onlyRef) > 0 {
		parts = append(parts, fmt.Sprintf("payloads %s only in the reference %s", joinInts(onlyRef), ref.File))
	}
	if len(onlyTarget) > 0 {
		parts = append(parts, fmt.Sprintf("payloads %s only in the results %s", joinInts(onlyTarget), target.File))
	}
	return fileerr.New(target.File, 0, "Bytes", "sub-experiment %q: the two sides measured different payloads: %s; compare experiments run with the same payloads",
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

func rowOf(s *Sub, payload int) summary.Row {
	for _, r := range s.Rows {
		if r.Bytes == payload {
			return r
		}
	}
	panic(fmt.Sprintf("compare: %s has no payload %d", s.File, payload))
}

func checks(ref, target *Sub, cfg Config) []gate.Check {
	var cs []gate.Check
	for _, m := range cfg.metrics() {
		t := cfg.ThresholdOf(m)
		for _, r := range ref.Rows {
			cs = append(cs, gate.Evaluate(ref.Type, r.Bytes, m, referenceName, value(r, m), t, value(rowOf(target, r.Bytes), m)))
		}
	}
	return cs
}

func missingChecks(ref *Sub, cfg Config) []gate.Check {
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
