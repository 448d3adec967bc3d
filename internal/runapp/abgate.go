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
	"time"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
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
	// bad holds each check's units' log ratios, positive when worse, for
	// the spread the undecided verdict plans with.
	bad  [][]float64
	runs int // runs per side so far
	// began is when the first run started, for the progress lines.
	began time.Time
	// missing are the checks of the sub-experiments the candidate did
	// not measure, which stop the gate at once (stopMissing).
	missing []gate.Check
	// scale is, per check, what its log ratios are multiplied by before
	// the sequential gate sees them: 1 for a latency, and for an echo CPU
	// check the ratio of the latency fail margin to its own (in log
	// ratio), so that one gate judges both at their margins (cpuScale).
	scale []float64
	// cpuNote says which sub-experiments have no echo CPU check and why;
	// unpinned says the echo processes are not pinned (--cpus none), which
	// leaves out every echo CPU check.
	cpuNote  string
	unpinned bool
	// heldAt is the unit at which the gate was held for serial dependence
	// (0: not held), heldDep the dependence found there (nil when the
	// hold fell on a look, whose analysis replaced it at once): the
	// verdict's dependence is otherwise its last look's, of the units
	// clipped about the margins, which can find none.
	heldAt  int
	heldDep *paired.Dependence
}

// EchoCPU is the column of an echo CPU check (the interleaved design):
// the CPU time an echo process spent per message it echoed.
var EchoCPU = result.Metric{Name: "Echo CPU/message", Unit: "ns", Better: result.LowerIsBetter}

// isCPU reports whether check k is an echo CPU check.
func (g *abGate) isCPU(k int) bool { return g.origins[k].Metric == EchoCPU }

// cpuScale maps the echo CPU checks' log ratios onto the latency
// margins: log(1+fail)/log(1+cpu fail). With no latency fail margin the
// CPU checks keep the latency margins.
func (g *abGate) cpuScale() float64 {
	if g.cfg.Margins.Fail == 0 || g.cfg.CPUMargin == 0 {
		return 1
	}
	return math.Log1p(g.cfg.Margins.Fail) / math.Log1p(g.cfg.CPUMargin)
}

// margins are check k's: the gate's, or for an echo CPU check
// --cpu-margin as the fail margin and a pass margin in the proportion of
// the gate's (the two equal when they are).
func (g *abGate) margins(k int) paired.Margins {
	m := g.cfg.Margins
	if k >= len(g.scale) || g.scale[k] == 1 {
		return m
	}
	s := g.scale[k]
	return paired.Margins{Pass: math.Expm1(math.Log1p(m.Pass) / s), Fail: math.Expm1(math.Log1p(m.Fail) / s)}
}

// checks are the gate's check states with every ratio and bound in the
// check's own terms (an echo CPU check's mapped back from the scale the
// sequential gate saw).
func (g *abGate) checks() []seq.CheckState {
	sts := g.seq.Checks()
	for k := range sts {
		if k < len(g.scale) && g.scale[k] != 1 {
			back := func(x float64) float64 { return math.Exp(math.Log(x) / g.scale[k]) }
			sts[k].Ratio, sts[k].Low, sts[k].High = back(sts[k].Ratio), back(sts[k].Low), back(sts[k].High)
		}
	}
	return sts
}

// what names check k's payload and column for messages: "64 B Median",
// or "Echo CPU/message" (over every payload).
func (g *abGate) what(k int) string {
	o := g.origins[k]
	if g.isCPU(k) {
		return o.Metric.Name + " (all payloads)"
	}
	return fmt.Sprintf("%d B %s", o.Key.Payload, o.Metric.Name)
}

func newABGate(cfg ABConfig, units int) (*abGate, error) {
	if !(cfg.Level > 0 && cfg.Level < 0.5) {
		return nil, exit.Usagef("--false-fail %v: expected a probability in (0, 0.5), e.g. 0.01 or 1%%", cfg.Level)
	}
	if !(cfg.Margins.Pass >= 0 && cfg.Margins.Pass < 10) || !(cfg.Margins.Fail >= 0 && cfg.Margins.Fail < 10) {
		return nil, exit.Usagef("--pass-margin %v, --fail-margin %v: expected fractions from 0 to 10, e.g. 0.05 or 5%%", cfg.Margins.Pass, cfg.Margins.Fail)
	}
	if !(cfg.CPUMargin >= 0 && cfg.CPUMargin < 10) {
		return nil, exit.Usagef("--cpu-margin %v: expected a fraction from 0 to 10, e.g. 0.05 or 5%%, or none", cfg.CPUMargin)
	}
	if cfg.Margins.Pass > cfg.Margins.Fail {
		return nil, exit.Usagef("--pass-margin %s above --fail-margin %s: a change between them would both pass and fail", numflag.Percent(cfg.Margins.Pass), numflag.Percent(cfg.Margins.Fail))
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

// count says n units of the design: "1 round", "37 rounds".
func (g *abGate) count(n int) string {
	if n == 1 {
		return "1 " + unitOf(g.cfg.Design)
	}
	return fmt.Sprintf("%d %s", n, g.unitWord())
}

// unitWord names the units of the design, plural.
func (g *abGate) unitWord() string { return unitOf(g.cfg.Design) + "s" }

// add summarises and reads the runs of one completed unit and feeds its
// values to the gate; it reports whether the gate has stopped. The family
// of checks is package pairing's, as compare builds it: every
// sub-experiment, row and gated column (and throughput row) of the runs.
func (g *abGate) add(ctx context.Context, runs []abRun, stderr io.Writer) (bool, error) {
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
	}
	g.runs += unit
	return g.feed(a, b, stderr)
}

// feed gives the gate one unit: per check, the log of the unit's value on
// each side (the one run's, a block's geometric mean, or a block pair's
// statistic). It reports whether the gate has stopped, and prints the
// progress line when it has not.
func (g *abGate) feed(logA, logB []float64, stderr io.Writer) (bool, error) {
	a, b := make([]float64, len(logA)), make([]float64, len(logB))
	for k := range g.origins {
		g.logA[k] += logA[k]
		g.logB[k] += logB[k]
		bad := logB[k] - logA[k]
		if g.origins[k].Metric.Better == result.HigherIsBetter {
			bad = -bad
		}
		g.bad[k] = append(g.bad[k], bad)
		a[k], b[k] = math.Exp(logA[k]), math.Exp(logA[k]+g.scale[k]*(logB[k]-logA[k]))
	}
	var err error
	if g.last, err = g.seq.Add(a, b); err != nil {
		return false, exit.Usagef("%v", err)
	}
	for k, st := range g.seq.Checks() {
		g.maxEFail[k] = max(g.maxEFail[k], st.EFail) // e-values need no mapping back
	}
	if g.heldAt == 0 && len(g.seq.HeldLooks()) > 0 {
		g.heldAt = g.last.Pairs
		if dep := g.last.Dependence; dep.Significant {
			g.heldDep = &dep
		}
	}
	if g.last.Status == seq.Continue {
		fmt.Fprintln(stderr, g.progress(time.Now()))
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
	g.scale = make([]float64, len(checks))
	for k := range g.scale {
		g.scale[k] = 1
		if g.isCPU(k) {
			g.scale[k] = g.cpuScale()
		}
	}
	g.maxEFail = make([]float64, len(checks))
	g.bad = make([][]float64, len(checks))
	g.logA = make([]float64, len(checks))
	g.logB = make([]float64, len(checks))
	return nil
}

// opening is the gate's first line: its budget, when it can first decide,
// and how the order of the runs is drawn.
func (g *abGate) opening(series string) string {
	if g.cfg.Design == DesignInterleave {
		line := fmt.Sprintf("ab: sequential gate, at most %s (%d checks); %s (%s)",
			g.count(g.units), len(g.origins), orderText(g.cfg), series)
		if g.seq != nil && g.seq.MinPairs() > g.units {
			// Said before the first round, not only by exit 3 after the
			// whole budget.
			line += fmt.Sprintf("\nab: no decision is possible within --max-runs %d: with %d checks at --false-fail %g no boundary can be crossed before %s %d, "+
				"so the gate will end undecided (exit 3) when its budget is spent; raise --max-runs or --false-fail for a verdict",
				g.units, len(g.origins), g.cfg.Level, unitOf(g.cfg.Design), g.seq.MinPairs())
		}
		return line
	}
	return fmt.Sprintf("ab: sequential gate, at most %s (%d runs per side); %s (%s)",
		g.count(g.units), g.cfg.MaxRuns, orderText(g.cfg), series)
}

// progress is the line after each unit that does not stop the gate: the
// units so far and left, the time, and the widest open check with its
// median ratio, its current bounds and the ratios that pass and fail.
func (g *abGate) progress(now time.Time) string {
	d := g.last
	took := now.Sub(g.began)
	left := g.units - d.Pairs
	line := fmt.Sprintf("ab: %s of at most %d, %s, %d left", unitName(g.cfg.Design, d.Pairs), g.units, took.Round(time.Second), left)
	if d.Pairs > 0 && left > 0 {
		// From the time unrounded: after a first round of 0.4 s, 149 more
		// are about a minute, not the "0s" of the rounded time.
		line += fmt.Sprintf(" (at most %s more)", (took / time.Duration(d.Pairs) * time.Duration(left)).Round(time.Second))
	}
	open := g.openChecks(d.Checks)
	line += fmt.Sprintf(": %d of %d checks open", len(open), len(g.origins))
	if k := g.widest(open); k >= 0 {
		st := g.checks()[k]
		line += fmt.Sprintf(", the widest %s ×%.3f", st.Name, st.Ratio)
		if st.Low > 0 || !math.IsInf(st.High, 1) {
			line += " in " + boundsText(st)
		}
		line += " (" + g.marginsText(k) + ")"
	}
	switch {
	case d.Dependence.Significant:
		line += fmt.Sprintf("; held for serial dependence (consecutive %s alike, r %+.2f): it judges blocks of %s at %s",
			g.unitWord(), d.Dependence.R, g.unitWord(), g.atLooks(d.Pairs))
	case d.Pairs < g.seq.MinPairs():
		line += "; no decision before " + unitName(g.cfg.Design, g.seq.MinPairs())
	}
	return line
}

// openChecks returns the indices of the checks named.
func (g *abGate) openChecks(names []string) []int {
	var out []int
	for k, st := range g.checks() {
		if slices.Contains(names, st.Name) {
			out = append(out, k)
		}
	}
	return out
}

// widest returns, of the checks ks, the one whose bounds are widest (ties,
// as before the first look when none has bounds, to the larger spread of
// its units' log ratios); -1 when ks is empty.
func (g *abGate) widest(ks []int) int {
	sts := g.checks()
	best, bestW, bestS := -1, 0.0, 0.0
	for _, k := range ks {
		w := math.Log(sts[k].High / sts[k].Low)
		if math.IsNaN(w) {
			w = math.Inf(1)
		}
		sp := robustSpread(g.bad[k])
		if best < 0 || w > bestW || (w == bestW && sp > bestS) {
			best, bestW, bestS = k, w, sp
		}
	}
	return best
}

// boundsText writes a check's current bounds on its median ratio.
func boundsText(st seq.CheckState) string {
	f := func(x float64) string {
		switch {
		case math.IsNaN(x):
			return "?"
		case math.IsInf(x, 1):
			return "∞"
		}
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("[%s, %s]", f(st.Low), f(st.High))
}

// marginsText says which bounds of check k's median ratio pass and which
// fail: "pass < ×1.050, fail > ×1.050" for a latency, the other way round
// for a throughput.
func (g *abGate) marginsText(k int) string {
	hib := g.origins[k].Metric.Better == result.HigherIsBetter
	mg := g.margins(k)
	pass, fail := paired.Ratio(paired.Worse(mg.Pass), hib), paired.Ratio(paired.Worse(mg.Fail), hib)
	if hib {
		return fmt.Sprintf("pass > ×%.3f, fail < ×%.3f", pass, fail)
	}
	return fmt.Sprintf("pass < ×%.3f, fail > ×%.3f", pass, fail)
}

// robustSpread is the spread of x: 1.4826 times its median absolute
// deviation, the standard deviation for normal values, or the standard
// deviation when most values are equal.
func robustSpread(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	if s := stats.MADSpread(x); s > 0 {
		return s
	}
	var sum, sq float64
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(len(x))
	for _, v := range x {
		sq += (v - mean) * (v - mean)
	}
	return math.Sqrt(sq / float64(len(x)-1))
}

// verdict is the gate's verdict in the report model: one check per
// sub-experiment, payload and column, with its median pair ratio and its
// bounds, and the Decision that says how the gate stopped.
func (g *abGate) verdict() *gate.Verdict {
	k := float64(len(g.origins))
	lvl := g.cfg.Level
	d := g.last
	v := &gate.Verdict{Tool: "run ab", Subject: g.cfg.Out + "/" + SideCandidate, Baseline: g.cfg.Out + "/" + SideReference,
		Mode: g.modeText(), FalseFail: lvl, Decision: gate.SequentialDecision(d, lvl, g.unitWord())}
	if g.heldAt > 0 {
		v.Decision.Dependence = g.heldText(v.Decision.Dependence)
	}
	n := float64(d.Pairs)
	for _, c := range g.missing {
		v.Add(c)
	}
	if g.seq == nil {
		v.Finish()
		return v
	}
	for i, st := range g.checks() {
		o := g.origins[i]
		mg := g.margins(i)
		sub, m := o.SubExperiment, o.Metric
		if o.Throughput {
			sub = result.ThroughputLabel(o.SubExperiment, o.Key)
		}
		ref, val := math.Exp(g.logA[i]/n), math.Exp(g.logB[i]/n)
		ch := gate.Check{SubExperiment: sub, Payload: o.Key.Payload, Metric: m, Reference: ref, Threshold: mg.Fail,
			Limit: m.Limit(ref, mg.Fail), Value: val, Difference: math.Abs(ref - val), Percent: (val - ref) * 100 / ref}
		ch.Margin = m.Worse(val, ch.Limit)
		// The anytime-valid p-value of the sign bets, 1/(largest fail
		// e-value); none (NaN, "crossed" in the reports) once a check
		// crossed a group-sequential fail boundary, which decides by
		// counts, not by an e-value.
		p := math.Min(1, 1/g.maxEFail[i])
		if math.IsInf(g.maxEFail[i], 1) {
			p = math.NaN()
		}
		ch.Stats = &gate.Stats{NReference: g.runs, NCandidate: g.runs, Estimate: st.Ratio, Low: st.Low, High: st.High,
			Tail: lvl / k, PassTail: lvl, Confidence: 1 - lvl/k - lvl, P: p, PAdjusted: math.Min(1, k*p), Method: gate.MethodPaired,
			Dispersion: robustSpread(g.bad[i]), NeedRuns: -1, Gateable: true}
		head := fmt.Sprintf("%s: median pair ratio ×%.3f, bounds %s after %d %s: ", g.what(i), st.Ratio, boundsText(st),
			d.Pairs, g.unitWord())
		switch {
		case d.Status == seq.Fail && slices.Contains(d.Checks, st.Name):
			ch.Status = gate.Failed
			ch.Message = head + fmt.Sprintf("shown worse than %+g %%", 100*mg.Fail)
		case d.Status == seq.Pass || (st.ShownWithin && d.Status != seq.Fail):
			ch.Status = gate.Passed
			ch.Message = head + fmt.Sprintf("shown worse by less than %+g %%", 100*mg.Pass)
		case d.Status == seq.Fail:
			ch.Status = gate.Inconclusive
			ch.Message = head + fmt.Sprintf("not shown beyond %+g %% (another check failed the gate)", 100*mg.Fail)
		default:
			ch.Status = gate.Inconclusive
			ch.Message = head + fmt.Sprintf("not yet shown within %+g %% nor beyond %+g %%", 100*mg.Pass, 100*mg.Fail)
		}
		v.Add(ch)
	}
	v.Finish()
	return v
}

// heldText says the serial dependence of a gate that was held: what held
// it, and where, then last, what its last look's analysis found. The
// look's alone read "no serial dependence" in the verdict of a gate held
// for serial dependence.
func (g *abGate) heldText(last string) string {
	u := unitOf(g.cfg.Design)
	found := "consecutive " + g.unitWord() + " alike"
	if dep := g.heldDep; dep != nil {
		found = fmt.Sprintf("lag-1 autocorrelation of the log ratios in measured order %+.2f (pooled over the checks), randomisation p %.4f over %d orders: serially dependent at %g",
			dep.R, dep.P, dep.Perms, dep.Level)
	}
	text := fmt.Sprintf("at %s %d, %s, so the gate held and judged blocks of %s at %s", u, g.heldAt, found, g.unitWord(), g.atLooks(0))
	return text + fmt.Sprintf("; at %s %d, %s", u, g.last.Pairs, last)
}

// modeText says how the gate judges, for the reports' mode: the design,
// the estimand, the construction and the levels. Why it stopped is the
// Decision's.
func (g *abGate) modeText() string {
	method := "stopped after the first unit"
	if g.seq != nil {
		method = g.seq.Method()
	}
	k := max(len(g.origins), len(g.missing))
	text := fmt.Sprintf("sequential paired, %s design: the median of the %s' ratios per check; %s; FAIL at family-wise level %g (each of %d checks at %.3g), "+
		"PASS when every check is shown within the pass margin, each at %g (intersection–union); pass margin %+g %%, fail margin %+g %%",
		g.cfg.Design, g.unitWord(), method, g.cfg.Level, k, g.cfg.Level/float64(max(k, 1)), g.cfg.Level, 100*g.cfg.Margins.Pass, 100*g.cfg.Margins.Fail)
	if i := slices.IndexFunc(g.origins, func(o pairing.Origin) bool { return o.Metric == EchoCPU }); i >= 0 {
		mg := g.margins(i)
		text += fmt.Sprintf("; echo CPU checks (CPU time of the echo process per message, over the round's blocks of every payload): pass margin %+.3g %%, fail margin %+.3g %%",
			100*mg.Pass, 100*mg.Fail)
	}
	return text
}

// names are the checks' names.
func (g *abGate) names() []string {
	out := make([]string, len(g.origins))
	for k, st := range g.seq.Checks() {
		out[k] = st.Name
	}
	return out
}

// marginWord gives the margin of the checks named, pass or fail: the
// gate's ("+5 %"), or both kinds' when they include echo CPU checks of
// another margin ("+5 % (echo CPU +3 %)").
func (g *abGate) marginWord(names []string, pass bool) string {
	pick := func(m paired.Margins) string {
		if pass {
			return fmt.Sprintf("%+g %%", 100*m.Pass)
		}
		return fmt.Sprintf("%+g %%", 100*m.Fail)
	}
	word := pick(g.cfg.Margins)
	for k, st := range g.seq.Checks() {
		if g.isCPU(k) && g.scale[k] != 1 && slices.Contains(names, st.Name) {
			mg := g.margins(k)
			mg.Pass, mg.Fail = math.Round(1e4*mg.Pass)/1e4, math.Round(1e4*mg.Fail)/1e4
			return word + " (echo CPU " + pick(mg) + ")"
		}
	}
	return word
}

// finish writes the verdict: once, in plain words, on stdout with the
// checks that decided or keep it open, how it was judged, what would
// decide an undecided gate, and the report files; the error carries the
// exit code of the verdict.
func (g *abGate) finish(stdout io.Writer) error {
	v := g.verdict()
	took := ""
	if !g.began.IsZero() {
		took = ", " + time.Since(g.began).Round(time.Second).String()
	}
	d := g.last
	sides := fmt.Sprintf("%d runs per side", g.runs)
	if g.cfg.Design == DesignInterleave {
		sides = "one run per side, rounds of " + g.cfg.rounds
	}
	fmt.Fprintf(stdout, "run ab: %s after %s (%s%s): %s\n", strings.ToUpper(string(v.Status)), g.count(d.Pairs), sides, took, g.plainReason())
	g.checkLines(stdout, v)
	if g.cpuNote != "" {
		fmt.Fprintf(stdout, "  echo CPU: %s\n", g.cpuNote)
	}
	if line := g.spreadText(); line != "" {
		fmt.Fprintf(stdout, "  spread: %s\n", line)
	}
	if g.seq != nil {
		fmt.Fprintf(stdout, "  how: %s; minimum for a decision: %d %s; serial dependence: %s\n", g.modeText(), d.MinPairs, g.unitWord(), v.Decision.Dependence)
	}
	if v.Status == gate.Inconclusive && g.seq != nil {
		for _, l := range g.toDecide() {
			fmt.Fprintf(stdout, "  to decide: %s\n", l)
		}
	}
	written, err := report.WriteFiles(v, "", func(flag string) string { return g.cfg.Reports[flag] })
	for _, f := range written {
		fmt.Fprintf(stdout, "wrote %s\n", f)
	}
	if err != nil {
		return exit.Usagef("%v", err)
	}
	switch code := v.ExitCode(); code {
	case exit.OK:
		return nil
	case exit.GateFailed:
		return exit.With(code, errors.New("exit 1: the gate failed, as the verdict on standard output says"))
	default:
		return exit.With(code, fmt.Errorf("exit %d: undecided, as the verdict on standard output says", code))
	}
}

// spreadText says how far the units' log ratios spread, per check (the
// robust spread, as the reports' dispersion gives each): the median over
// the checks and the largest, which the margins are to be read against.
func (g *abGate) spreadText() string {
	if g.seq == nil || len(g.bad) == 0 || len(g.bad[0]) < 2 {
		return ""
	}
	line := ""
	names := g.checks()
	for _, cpu := range []bool{false, true} {
		var sp []float64
		worst, k0 := -1, -1
		for k, x := range g.bad {
			if g.isCPU(k) != cpu {
				continue
			}
			sp = append(sp, robustSpread(x))
			if worst < 0 || sp[len(sp)-1] > robustSpread(g.bad[worst]) {
				worst = k
			}
			k0 = k
		}
		if len(sp) == 0 {
			continue
		}
		mg := g.margins(k0)
		if !cpu {
			line = fmt.Sprintf("of a %s log ratio, per check: median %.3f, largest %.3f (%s), against margins of %.3f (pass) and %.3f (fail) in log ratio",
				unitOf(g.cfg.Design)+"'s", stats.Median(sp), robustSpread(g.bad[worst]), names[worst].Name,
				paired.Worse(mg.Pass), paired.Worse(mg.Fail))
			continue
		}
		if line != "" {
			line += "; "
		}
		line += fmt.Sprintf("echo CPU checks: median %.3f, largest %.3f (%s), against margins of %.3f and %.3f",
			stats.Median(sp), robustSpread(g.bad[worst]), names[worst].Name, paired.Worse(mg.Pass), paired.Worse(mg.Fail))
	}
	return line
}

// plainReason says in plain words why the gate stopped: which checks are
// worse than the fail margin, that every one is within the pass margin,
// or which keep it open and why.
func (g *abGate) plainReason() string {
	d := g.last
	held := ""
	if strings.HasPrefix(d.Reason, "held at pair") {
		held = fmt.Sprintf(" (consecutive %s were alike, so the gate judged blocks of them, at set %s: %s)", g.unitWord(), g.unitWord(), seq.ListPairs(g.seq.HeldLooks()))
	}
	switch {
	case g.seq == nil:
		return d.Reason
	case d.Status == seq.Fail:
		return fmt.Sprintf("%s worse than the %s fail margin%s", experiment.JoinNames(d.Checks, 3), g.marginWord(d.Checks, false), held)
	case d.Status == seq.Pass:
		return fmt.Sprintf("every check is within the %s pass margin%s", g.marginWord(g.names(), true), held)
	case d.Status == seq.Refused:
		return fmt.Sprintf("no verdict: consecutive %s were alike (lag-1 correlation %+.2f, p %.3g), which the gate's level cannot allow for; open: %s",
			g.unitWord(), d.Dependence.R, d.Dependence.P, experiment.JoinNames(d.Checks, 3))
	}
	return fmt.Sprintf("the budget is spent with %s neither within the %+g %% pass margin nor beyond the %+g %% fail margin%s",
		experiment.JoinNames(d.Checks, 3), 100*g.cfg.Margins.Pass, 100*g.cfg.Margins.Fail, held)
}

// checkLines lists the checks that failed or are open, each with its
// median ratio and bounds, and counts the rest.
func (g *abGate) checkLines(w io.Writer, v *gate.Verdict) {
	passed := 0
	for _, c := range v.Checks {
		if c.Status == gate.Passed && (v.Status != gate.Passed || len(v.Checks) > 3) {
			passed++
			continue
		}
		if c.Metric == EchoCPU {
			fmt.Fprintf(w, "  %-12s %s %s", c.Status, c.SubExperiment, c.Metric.Name)
		} else {
			fmt.Fprintf(w, "  %-12s %s %d B %s", c.Status, c.SubExperiment, c.Payload, c.Metric.Name)
		}
		if c.Stats != nil {
			fmt.Fprintf(w, ": ×%.3f %s", c.Stats.Estimate, boundsText(seq.CheckState{Low: c.Stats.Low, High: c.Stats.High}))
		} else {
			fmt.Fprintf(w, ": %s", c.Message)
		}
		fmt.Fprintln(w)
	}
	if passed > 0 {
		fmt.Fprintf(w, "  %d more checks within the %+g %% pass margin\n", passed, 100*g.cfg.Margins.Pass)
	}
}

// toDecide says, for an undecided gate, how many units the measured spread
// implies at these margins, and the margins with which these units would
// have decided (to be set before another gate: choosing them after seeing
// the data would void the level). Units alike from one to the next need
// blocks of them: the units then count blocks of the size that dependence
// calls for, and bounds read as if the units were independent would
// mislead, so no margins are offered.
func (g *abGate) toDecide() []string {
	var out []string
	d := g.last
	n, fails, why := g.impliedUnits()
	if d.Dependence.Significant {
		b := paired.BlockForSample(d.Dependence.R, d.Pairs) // r of few units is biased low
		least := paired.MinPairs(g.cfg.Level)
		if fails {
			least = paired.MinPairs(g.cfg.Level / float64(len(g.origins)))
		}
		if n > 0 {
			n = max(n, least) * max(b, 2) // blocks, each of b units
			why += fmt.Sprintf(", in blocks of %d consecutive %s, which a lag-1 correlation of %+.2f calls for", max(b, 2), g.unitWord(), d.Dependence.R)
		}
	}
	if n > 0 {
		n = max(n, min(seq.DefaultDecideFrom, g.units)) // no decision comes sooner
		flag := fmt.Sprintf("--max-runs %d", n*unitSize(g.cfg.Design))
		if n*unitSize(g.cfg.Design) > maxRunsLimit {
			flag = fmt.Sprintf("beyond --max-runs %d", maxRunsLimit)
		}
		out = append(out, fmt.Sprintf("about %d %s (%s) at the spread measured, %s", n, g.unitWord(), flag, why))
	} else {
		out = append(out, why)
	}
	if d.Dependence.Significant {
		return append(out, "or quieten the machine (pin the runs to cores, stop other work), so that its slow changes no longer reach consecutive "+g.unitWord())
	}
	passAt, failAt := 0.0, math.Inf(-1)
	for k, st := range g.checks() {
		if g.isCPU(k) {
			continue // the margins offered are the latency checks'
		}
		lo, hi := badBounds(st, g.origins[k].Metric.Better == result.HigherIsBetter)
		passAt = max(passAt, hi)
		failAt = max(failAt, lo)
	}
	switch {
	case fails && failAt > 0:
		out = append(out, fmt.Sprintf("these %d %s would have failed at a --fail-margin below %.1f %%", d.Pairs, g.unitWord(),
			math.Floor(1000*math.Expm1(failAt))/10))
	case !fails && !math.IsInf(passAt, 1) && !math.IsNaN(passAt):
		out = append(out, fmt.Sprintf("these %d %s would have passed at a --pass-margin of %.1f %% (and a --fail-margin as wide)", d.Pairs, g.unitWord(),
			math.Ceil(1000*math.Expm1(passAt))/10))
	default:
		return out
	}
	out[len(out)-1] += "; set margins before a gate, never after seeing its pairs"
	return out
}

// maxRunsLimit is the largest --max-runs the command line takes.
const maxRunsLimit = 1000

// badBounds returns a check's bounds on its median log ratio, positive
// when worse: the fail side's (lo) and the pass side's (hi).
func badBounds(st seq.CheckState, higherIsBetter bool) (lo, hi float64) {
	lo, hi = math.Log(st.Low), math.Log(st.High)
	if higherIsBetter {
		lo, hi = -hi, -lo
	}
	return lo, hi
}

// impliedUnits is the number of units with which a gate at these margins
// would decide with a chance of about 90 %, were each check's log ratios
// spread as measured about their median (normal approximation of the sign
// tests, not yet raised to the first look at 20 units): the most any check
// needs to pass, when every check leans to passing, else the fewest a
// leaning check needs to fail (fails). 0 when no number decides (a check's
// median at the margins); why says which.
func (g *abGate) impliedUnits() (n int, fails bool, why string) {
	k := float64(len(g.origins))
	need := func(p, alpha float64) float64 {
		za, zb := normalQuantile(1-alpha), normalQuantile(0.9)
		x := (za*0.5 + zb*math.Sqrt(p*(1-p))) / (p - 0.5)
		return x * x
	}
	passN, failN := 0.0, math.Inf(1)
	var stuck []string
	for i, x := range g.bad {
		mg := g.margins(i)
		pass, fail := paired.Worse(mg.Pass), paired.Worse(mg.Fail)
		m, s := stats.Median(x), max(robustSpread(x), 1e-9)
		pIn, pOut := normalCDF((pass-m)/s), normalCDF((m-fail)/s)
		switch {
		case pOut > 0.5:
			failN = min(failN, need(pOut, g.cfg.Level/k))
		case pIn > 0.5:
			passN = max(passN, need(pIn, g.cfg.Level))
		default:
			stuck = append(stuck, fmt.Sprintf("%s (median ratio ×%.3f)", g.checks()[i].Name, paired.Ratio(m, g.origins[i].Metric.Better == result.HigherIsBetter)))
		}
	}
	switch {
	case !math.IsInf(failN, 1):
		return max(1, int(math.Ceil(failN))), true, "for a check to fail"
	case len(stuck) == 0:
		return max(1, int(math.Ceil(passN))), false, "for every check to pass"
	}
	return 0, false, fmt.Sprintf("no number of %s at these margins: %s lie at the margins; widen them (before a new gate) or quieten the machine",
		g.unitWord(), experiment.JoinNames(stuck, 3))
}

func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// atLooks names the looks of a held gate from pair from on, after "at":
// "round 150" for one, "rounds 94, 122 and 150" for several.
func (g *abGate) atLooks(from int) string {
	looks := slices.DeleteFunc(g.seq.HeldLooks(), func(n int) bool { return n < from })
	if len(looks) == 1 {
		return unitOf(g.cfg.Design) + " " + seq.ListPairs(looks)
	}
	return g.unitWord() + " " + seq.ListPairs(looks)
}
