package runapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/pairing"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/paired"
	"github.com/mqgate/mqgate/internal/stats/seq"
)

// abGate is `run ab --max-runs`: the sequential paired gate over the
// units of the series, fed as each unit completes.
type abGate struct {
	cfg     ABConfig
	units   int // the budget, in units
	pairs   []pairing.Pair
	origins []pairing.Origin
	seq     *seq.Gate
	last    seq.Decision
	// maxEFail is, per check, the largest fail e-value so far; logA and
	// logB the sums of the units' log values per side, for the geometric
	// means the report shows.
	maxEFail, logA, logB []float64
	runs                 int // runs per side so far
	// missing are the checks of the sub-experiments the candidate did
	// not measure, which stop the gate at once (stopMissing).
	missing []gate.Check
}

func newABGate(cfg ABConfig, units int) (*abGate, error) {
	if !(cfg.Level > 0 && cfg.Level < 0.5) {
		return nil, exit.Usagef("--false-fail %v: expected a probability in (0, 0.5), e.g. 0.01 or 1%%", cfg.Level)
	}
	if !(cfg.Margins.Pass >= 0 && cfg.Margins.Pass < 10) || !(cfg.Margins.Fail >= 0 && cfg.Margins.Fail < 10) {
		return nil, exit.Usagef("--pass-margin %v, --fail-margin %v: expected fractions from 0 to 10, e.g. 0.05 or 5%%", cfg.Margins.Pass, cfg.Margins.Fail)
	}
	if cfg.Margins.Pass > cfg.Margins.Fail {
		return nil, exit.Usagef("--pass-margin %v above --fail-margin %v: a change between them would both pass and fail", cfg.Margins.Pass, cfg.Margins.Fail)
	}
	if len(cfg.Metrics) == 0 {
		return nil, exit.Usagef("--columns: no column to gate")
	}
	for i, m := range cfg.Metrics {
		if slices.ContainsFunc(cfg.Metrics[:i], func(o result.Metric) bool { return o.Name == m.Name }) {
			return nil, exit.Usagef("--columns: %q is listed twice", m.Name)
		}
	}
	if cfg.Summarise == nil {
		return nil, errors.New("ab: the sequential gate needs a summariser")
	}
	return &abGate{cfg: cfg, units: units}, nil
}

// unitWord names the units of the design, plural.
func (g *abGate) unitWord() string {
	if g.cfg.Design == DesignABBA {
		return "blocks"
	}
	return "pairs"
}

// add summarises and reads the runs of one completed unit and feeds its
// values to the gate; it reports whether the gate has stopped. The family
// of checks is package pairing's, as compare builds it: every
// sub-experiment, row and gated column (and throughput row) of the runs.
func (g *abGate) add(ctx context.Context, runs []abRun, stderr io.Writer, quiet bool) (bool, error) {
	exps := map[string]*experiment.Experiment{}
	for _, r := range runs {
		if err := g.cfg.Summarise(ctx, r.dir); err != nil {
			return false, exit.With(exit.Code(err), fmt.Errorf("summarising %s: %w", r.dir, err))
		}
		e, err := experiment.Load(r.dir)
		if err != nil {
			return false, exit.With(exit.Code(err), err)
		}
		if !e.Completed() {
			return false, exit.Usagef("%s: the run did not complete (%s)", r.dir, e.Incompleteness())
		}
		exps[r.side+"/"+e.Name] = e
	}
	unit := len(runs) / 2
	for _, r := range runs {
		if r.side == SideReference {
			name := filepath.Base(r.dir)
			g.pairs = append(g.pairs, pairing.Pair{Name: name, Reference: exps[SideReference+"/"+name], Candidate: exps[SideCandidate+"/"+name]})
		}
	}
	// The rules compare applies to the same runs: one latency definition
	// on both sides (formats §2), and a sub-experiment the candidate did
	// not measure is missing, which fails the gate.
	var all []*experiment.Experiment
	for _, p := range g.pairs {
		all = append(all, p.Reference, p.Candidate)
	}
	if _, _, err := experiment.Admit(all, false); err != nil {
		return false, exit.With(exit.Usage, err)
	}
	if g.seq == nil {
		if missing, origins := pairing.Missing(g.pairs, g.cfg.Metrics); len(missing) > 0 {
			return true, g.stopMissing(missing, origins)
		}
	}
	checks, origins, err := pairing.Checks(g.pairs, g.cfg.Metrics)
	if err != nil {
		return false, exit.With(exit.Code(err), err)
	}
	if g.seq == nil {
		if err := g.start(checks, origins); err != nil {
			return false, err
		}
	} else if len(checks) != len(g.origins) {
		return false, exit.Usagef("%s: the runs of %s measure %d checks, the first %d", runs[0].dir, unitName(g.cfg.Design, runs[0].unit),
			len(checks), len(g.origins))
	}
	// The unit's value per side: the one run's, or the geometric mean of
	// a block's two.
	a, b := make([]float64, len(checks)), make([]float64, len(checks))
	for k, c := range checks {
		n := len(c.A)
		for i := n - unit; i < n; i++ {
			if !(c.A[i] > 0) || !(c.B[i] > 0) || math.IsInf(c.A[i], 0) || math.IsInf(c.B[i], 0) {
				return false, exit.Usagef("%s: %v and %v in %s: expected positive values", c.Name, c.A[i], c.B[i], unitName(g.cfg.Design, runs[0].unit))
			}
			a[k] += math.Log(c.A[i]) / float64(unit)
			b[k] += math.Log(c.B[i]) / float64(unit)
		}
		g.logA[k] += a[k]
		g.logB[k] += b[k]
		a[k], b[k] = math.Exp(a[k]), math.Exp(b[k])
	}
	if g.last, err = g.seq.Add(a, b); err != nil {
		return false, exit.Usagef("%v", err)
	}
	g.runs += unit
	for k, st := range g.seq.Checks() {
		g.maxEFail[k] = max(g.maxEFail[k], st.EFail)
	}
	if !quiet {
		d := g.last
		fmt.Fprintf(stderr, "ab: after %d %s: %s", d.Pairs, g.unitWord(), d.Status)
		if d.Status == seq.Continue {
			fmt.Fprintf(stderr, ", %d of %d checks not yet shown within %+.1f %%: %s", len(d.Checks), len(checks),
				100*g.cfg.Margins.Pass, shortList(d.Checks, 3))
		}
		fmt.Fprintln(stderr)
	}
	return g.last.Status != seq.Continue, nil
}

// stopMissing stops the gate after the first unit, whose candidate runs
// lack sub-experiments its reference runs hold: their checks are missing
// from the results, as compare reports them, and fail the gate whatever
// the other checks would show.
func (g *abGate) stopMissing(missing []paired.Check, origins []pairing.Origin) error {
	subs := map[string]bool{}
	var names []string
	for k, o := range origins {
		sub := o.SubExperiment
		file := experiment.SummaryFileName(sub)
		what := fmt.Sprintf("%d B %s: sub-experiment", o.Key.Payload, o.Metric.Name)
		if o.Throughput {
			sub, file, what = result.ThroughputLabel(o.SubExperiment, o.Key), experiment.ThroughputFileName(o.SubExperiment), o.Key.String()+": throughput"
		}
		c := gate.MissingCheck(sub, o.Key.Payload, o.Metric, stats.Median(missing[k].A), math.NaN(),
			fmt.Sprintf("%s missing from the results (%s)", what, file))
		c.Threshold = g.cfg.Margins.Fail
		g.missing = append(g.missing, c)
		if !subs[o.SubExperiment] {
			subs[o.SubExperiment] = true
			names = append(names, o.SubExperiment)
		}
	}
	g.last = seq.Decision{Status: seq.Fail, Pairs: 1, Checks: names,
		Reason: fmt.Sprintf("%s measured by the reference but not by the candidate: %d checks missing from the results", strings.Join(names, ", "), len(g.missing))}
	g.runs = len(g.pairs)
	return nil
}

// start sets the family of checks from the first unit's.
func (g *abGate) start(checks []paired.Check, origins []pairing.Origin) error {
	specs := make([]seq.Spec, len(checks))
	for k, c := range checks {
		specs[k] = seq.Spec{Name: c.Name, HigherIsBetter: c.HigherIsBetter}
	}
	var err error
	if g.seq, err = seq.New(specs, seq.Config{Level: g.cfg.Level, Margins: g.cfg.Margins, MaxPairs: g.units,
		Horizon: min(g.units, 30)}); err != nil {
		return exit.Usagef("%v", err)
	}
	g.origins = origins
	g.maxEFail = make([]float64, len(checks))
	g.logA = make([]float64, len(checks))
	g.logB = make([]float64, len(checks))
	return nil
}

// shortList names up to n items and how many more there are.
func shortList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// stopReason says why the gate stopped, in the words of the closing line.
func stopReason(s seq.Status) string {
	switch s {
	case seq.Pass:
		return "decided pass"
	case seq.Fail:
		return "decided fail"
	}
	return "budget spent, inconclusive"
}

// verdict is the gate's verdict in the report model: one check per
// sub-experiment, payload and column, with its ratio and
// confidence-sequence bounds.
func (g *abGate) verdict() *gate.Verdict {
	k := float64(len(g.origins))
	lvl := g.cfg.Level
	thr := k / lvl
	d := g.last
	v := &gate.Verdict{Tool: "run ab", Subject: g.cfg.Out + "/" + SideCandidate, Baseline: g.cfg.Out + "/" + SideReference,
		Mode: fmt.Sprintf("sequential paired, %s design (normal-mixture e-processes of the %s' log ratios, Howard et al. 2021; "+
			"family-wise level %g under continuous monitoring, Bonferroni over e-values; pass margin %+g %%, fail margin %+g %%): "+
			"stopped after %d %s, %s: %s",
			g.cfg.Design, g.unitWord(), lvl, 100*g.cfg.Margins.Pass, 100*g.cfg.Margins.Fail, d.Pairs, g.unitWord(), stopReason(d.Status), d.Reason),
		FalseFail: lvl}
	n := float64(d.Pairs)
	for _, c := range g.missing {
		v.Add(c)
	}
	if g.seq == nil {
		v.Finish()
		return v
	}
	for i, st := range g.seq.Checks() {
		o := g.origins[i]
		sub, m := o.SubExperiment, o.Metric
		if o.Throughput {
			sub = result.ThroughputLabel(o.SubExperiment, o.Key)
		}
		ref, val := math.Exp(g.logA[i]/n), math.Exp(g.logB[i]/n)
		ch := gate.Check{SubExperiment: sub, Payload: o.Key.Payload, Metric: m, Reference: ref, Threshold: g.cfg.Margins.Fail,
			Limit: m.Limit(ref, g.cfg.Margins.Fail), Value: val, Difference: math.Abs(ref - val), Percent: (val - ref) * 100 / ref}
		ch.Margin = m.Worse(val, ch.Limit)
		p := math.Min(1, 1/g.maxEFail[i])
		ch.Stats = &gate.Stats{NReference: g.runs, NCandidate: g.runs, Estimate: st.Ratio, Low: st.Low, High: st.High,
			Tail: lvl / k, PassTail: lvl / k, Confidence: 1 - 2*lvl/k, P: p, PAdjusted: math.Min(1, k*p), Method: "e-process"}
		bounds := fmt.Sprintf("ratio ×%.3f, confidence sequence [%.3f, %.3f] after %d %s", st.Ratio, st.Low, st.High, d.Pairs, g.unitWord())
		switch {
		case st.EFail >= thr:
			ch.Status = gate.Failed
			ch.Message = fmt.Sprintf("%d B %s: %s: shown worse than %+g %%", o.Key.Payload, m.Name, bounds, 100*g.cfg.Margins.Fail)
		case st.EPass >= thr || d.Status == seq.Pass:
			ch.Status = gate.Passed
			ch.Message = fmt.Sprintf("%d B %s: %s: shown worse by less than %+g %%", o.Key.Payload, m.Name, bounds, 100*g.cfg.Margins.Pass)
		default:
			ch.Status = gate.Inconclusive
			ch.Message = fmt.Sprintf("%d B %s: %s: not yet shown within %+g %% nor beyond %+g %%", o.Key.Payload, m.Name, bounds,
				100*g.cfg.Margins.Pass, 100*g.cfg.Margins.Fail)
		}
		v.Add(ch)
	}
	v.Finish()
	return v
}

// finish writes the verdict: the report on stdout, the closing line, and
// the report files; the error carries the exit code of the verdict.
func (g *abGate) finish(cfg ABConfig, stdout io.Writer) error {
	v := g.verdict()
	if err := report.Text(stdout, v); err != nil {
		return err
	}
	d := g.last
	fmt.Fprintf(stdout, "run ab: %s after %d %s (%d runs per side), %s: %s\n", strings.ToUpper(string(v.Status)), d.Pairs,
		g.unitWord(), g.runs, stopReason(d.Status), d.Reason)
	if d.Status == seq.Spent {
		fmt.Fprintf(stdout, "run ab: kept open by %s\n", strings.Join(d.Checks, ", "))
	}
	written, err := report.WriteFiles(v, "", func(flag string) string { return cfg.Reports[flag] })
	for _, f := range written {
		fmt.Fprintf(stdout, "wrote %s\n", f)
	}
	if err != nil {
		return exit.Usagef("%v", err)
	}
	if code := v.ExitCode(); code != exit.OK {
		return exit.With(code, fmt.Errorf("%s after %d %s: %s", stopReason(d.Status), d.Pairs, g.unitWord(), d.Reason))
	}
	return nil
}
