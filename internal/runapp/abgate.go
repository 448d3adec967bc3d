package runapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/report"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/seq"
)

// abCheck is one check of the sequential gate: a summary column of one
// payload of one sub-experiment.
type abCheck struct {
	sub     string
	payload int
	metric  result.Metric
}

func (c abCheck) String() string { return fmt.Sprintf("%s %d B %s", c.sub, c.payload, c.metric.Name) }

// abGate is `run ab --max-runs`: the sequential paired gate over the
// units of the series, fed as each unit completes.
type abGate struct {
	cfg      ABConfig
	units    int // the budget, in units
	checks   []abCheck
	seq      *seq.Gate
	last     seq.Decision
	maxEFail []float64 // per check, the largest fail e-value so far
	// logA and logB are, per check, the sums of the sides' log values, for
	// the geometric means the report shows.
	logA, logB []float64
	runs       int // runs per side so far
}

func newABGate(cfg ABConfig, units int) (*abGate, error) {
	if !(cfg.Level > 0 && cfg.Level < 0.5) {
		return nil, exit.Usagef("--level %v: expected a probability in (0, 0.5), e.g. 0.01 or 1%%", cfg.Level)
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
// values to the gate; it reports whether the gate has stopped.
func (g *abGate) add(ctx context.Context, runs []abRun, stderr io.Writer, quiet bool) (bool, error) {
	exps := map[string][]*experiment.Experiment{}
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
		exps[r.side] = append(exps[r.side], e)
	}
	if g.seq == nil {
		if err := g.start(exps[SideReference][0]); err != nil {
			return false, err
		}
	}
	a, err := g.means(exps[SideReference])
	if err != nil {
		return false, err
	}
	b, err := g.means(exps[SideCandidate])
	if err != nil {
		return false, err
	}
	if g.last, err = g.seq.Add(a, b); err != nil {
		return false, exit.Usagef("%v", err)
	}
	for k := range g.checks {
		g.logA[k] += math.Log(a[k])
		g.logB[k] += math.Log(b[k])
	}
	g.runs += len(runs) / 2
	for k, st := range g.seq.Checks() {
		g.maxEFail[k] = max(g.maxEFail[k], st.EFail)
	}
	if !quiet {
		d := g.last
		fmt.Fprintf(stderr, "ab: after %d %s: %s", d.Pairs, g.unitWord(), d.Status)
		if d.Status == seq.Continue {
			fmt.Fprintf(stderr, ", %d of %d checks not yet shown within %+.1f %%: %s", len(d.Checks), len(g.checks),
				100*g.cfg.Margins.Pass, shortList(d.Checks, 3))
		}
		fmt.Fprintln(stderr)
	}
	return g.last.Status != seq.Continue, nil
}

// start sets the family of checks from the first reference run: every
// sub-experiment, payload and gated column it has.
func (g *abGate) start(first *experiment.Experiment) error {
	if len(first.Summaries) == 0 {
		return exit.Usagef("%s: no summaries to gate", first.Dir)
	}
	subs := slices.Clone(first.Summaries)
	slices.SortFunc(subs, func(x, y experiment.Summary) int { return strings.Compare(x.Type, y.Type) })
	var specs []seq.Spec
	for _, s := range subs {
		for _, row := range s.Rows {
			for _, m := range g.cfg.Metrics {
				c := abCheck{sub: s.Type, payload: row.Bytes, metric: m}
				g.checks = append(g.checks, c)
				specs = append(specs, seq.Spec{Name: c.String(), HigherIsBetter: m.Better == result.HigherIsBetter})
			}
		}
	}
	var err error
	if g.seq, err = seq.New(specs, seq.Config{Level: g.cfg.Level, Margins: g.cfg.Margins, MaxPairs: g.units,
		Horizon: min(g.units, 30)}); err != nil {
		return exit.Usagef("%v", err)
	}
	g.maxEFail = make([]float64, len(g.checks))
	g.logA = make([]float64, len(g.checks))
	g.logB = make([]float64, len(g.checks))
	return nil
}

// means returns, per check, the geometric mean of the runs' values (the
// one run's value in a pair).
func (g *abGate) means(exps []*experiment.Experiment) ([]float64, error) {
	out := make([]float64, len(g.checks))
	for k, c := range g.checks {
		var s float64
		for _, e := range exps {
			t := e.Summary(c.sub)
			if t == nil {
				return nil, exit.Usagef("%s: no summary of %s, which the first reference run has", e.Dir, c.sub)
			}
			row := t.At(result.Key{Payload: c.payload})
			if row == nil {
				return nil, exit.Usagef("%s: %s has no %d B row, which the first reference run has", e.Dir, c.sub, c.payload)
			}
			v, ok := row.Value(c.metric)
			if !ok || !(v > 0) || math.IsInf(v, 0) {
				return nil, exit.Usagef("%s: %s %d B %s is %v: expected a positive value", e.Dir, c.sub, c.payload, c.metric.Name, v)
			}
			s += math.Log(v)
		}
		out[k] = math.Exp(s / float64(len(exps)))
	}
	return out, nil
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
	k := float64(len(g.checks))
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
	for i, st := range g.seq.Checks() {
		c := g.checks[i]
		ref, val := math.Exp(g.logA[i]/n), math.Exp(g.logB[i]/n)
		ch := gate.Check{SubExperiment: c.sub, Payload: c.payload, Metric: c.metric, Reference: ref, Threshold: g.cfg.Margins.Fail,
			Limit: c.metric.Limit(ref, g.cfg.Margins.Fail), Value: val, Difference: math.Abs(ref - val), Percent: (val - ref) * 100 / ref}
		ch.Margin = c.metric.Worse(val, ch.Limit)
		p := math.Min(1, 1/g.maxEFail[i])
		ch.Stats = &gate.Stats{NReference: g.runs, NCandidate: g.runs, Estimate: st.Ratio, Low: st.Low, High: st.High,
			Tail: lvl / k, PassTail: lvl / k, Confidence: 1 - 2*lvl/k, P: p, PAdjusted: math.Min(1, k*p), Method: "e-process"}
		bounds := fmt.Sprintf("ratio ×%.3f, confidence sequence [%.3f, %.3f] after %d %s", st.Ratio, st.Low, st.High, d.Pairs, g.unitWord())
		switch {
		case st.EFail >= thr:
			ch.Status = gate.Failed
			ch.Message = fmt.Sprintf("%d B %s: %s: shown worse than %+g %%", c.payload, c.metric.Name, bounds, 100*g.cfg.Margins.Fail)
		case st.EPass >= thr || d.Status == seq.Pass:
			ch.Status = gate.Passed
			ch.Message = fmt.Sprintf("%d B %s: %s: shown worse by less than %+g %%", c.payload, c.metric.Name, bounds, 100*g.cfg.Margins.Pass)
		default:
			ch.Status = gate.Inconclusive
			ch.Message = fmt.Sprintf("%d B %s: %s: not yet shown within %+g %% nor beyond %+g %%", c.payload, c.metric.Name, bounds,
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
