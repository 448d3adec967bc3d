package history

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/parallel"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// DefaultChangeWindow is how many of the newest experiments change-point
// detection looks at by default. E-divisive costs O(n²) per permutation: a
// hundred experiments take milliseconds per series, a thousand seconds.
const DefaultChangeWindow = 100

// DefaultGateMetrics are the magnitudes history --gate judges by default:
// the Median and the 99th percentile. Min rarely regresses alone, and Max is
// one sample of a run, too noisy to gate on.
var DefaultGateMetrics = []string{"Median", "99%"}

// AllExperiments as ChangeOptions.Window analyses every experiment.
const AllExperiments = -1

// ChangeOptions say how change points are looked for. The zero value
// means the defaults.
type ChangeOptions struct {
	changepoint.Options
	// Window is the number of newest experiments analysed:
	// DefaultChangeWindow when 0, every one when AllExperiments.
	Window int
	// Workers analyse series in parallel; GOMAXPROCS when ≤ 0.
	Workers int
}

// SeriesChanges is the change-point analysis of one series: a
// sub-experiment's payload and magnitude across the experiments.
type SeriesChanges struct {
	// From is the first experiment analysed (the window's start).
	From int
	// Result of changepoint.Detect; its indices are experiment indices.
	changepoint.Result
}

// Change is one change point of one series, for listings.
type Change struct {
	Type      string
	Payload   int
	Magnitude string
	changepoint.ChangePoint
}

// Slower reports whether the values rose at the change: the metric got
// worse (latency: lower is better, formats §7).
func (c Change) Slower() bool { return regressed(c.Magnitude, c.Ratio) }

// regressed reports whether a ratio after/before of magnitude is a regression,
// by the metric's direction (internal/gate).
func regressed(magnitude string, ratio float64) bool {
	if metricOf(magnitude).Better == result.HigherIsBetter {
		return ratio < 1
	}
	return ratio > 1
}

// Direction is "slower" or "faster".
func (c Change) Direction() string {
	if c.Slower() {
		return "slower"
	}
	return "faster"
}

// DetectChanges looks for change points in every series of h (every
// sub-experiment, payload and magnitude over the newest opt.Window
// experiments) and stores them in the sub-experiments' Changes. Each series
// gets its own seed, derived from opt.Seed and its position, so that results
// do not depend on the order series are analysed in. opt.Autocorrelation is
// not used: the lag-1 autocorrelation is estimated per series, pooled over
// the series of its magnitude as far as they can be shown to share it
// (changepoint.Share), and every series with some is segmented again,
// pre-whitened (formats §10).
func (h *History) DetectChanges(ctx context.Context, opt ChangeOptions) error {
	opt.Options = opt.Options.WithDefaults()
	if err := opt.Options.Validate(); err != nil {
		return err
	}
	switch {
	case opt.Window == 0:
		opt.Window = DefaultChangeWindow
	case opt.Window < AllExperiments:
		return fmt.Errorf("change window %d: expected a number of experiments, or AllExperiments", opt.Window)
	}
	n := len(h.Experiments)
	from := 0
	if opt.Window > 0 && n > opt.Window {
		from = n - opt.Window
	}
	h.ChangeOptions = opt
	h.ChangeFrom = from
	var jobs []seriesJob
	for si, s := range h.SubExperiments {
		s.Changes = make([][]SeriesChanges, len(s.Mags()))
		for m := range s.Mags() {
			s.Changes[m] = make([]SeriesChanges, len(s.Payloads))
			for p := range s.Payloads {
				jobs = append(jobs, seriesJob{si, m, p})
			}
		}
	}
	// Every series as it is, then every series autocorrelated around its
	// segments pre-whitened: with the φ its magnitude's series share (over
	// the sub-experiments and payloads: one machine's drift), or its own
	// when it was shown to differ from them (changepoint.Share).
	phis := make([]float64, len(jobs))
	for round := 0; round < 2; round++ {
		var (
			mu       sync.Mutex
			firstErr error
		)
		err := parallel.Each(ctx, opt.Workers, len(jobs), func(i int) {
			j := jobs[i]
			s := h.SubExperiments[j.s]
			o := opt.Options
			o.Seed = seriesSeed(opt.Seed, i)
			if o.Autocorrelation = phis[i]; round > 0 && o.Autocorrelation == 0 {
				return
			}
			res, err := changepoint.Detect(s.Values[j.m][j.p][from:], o)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("%s, %d bytes, %s: %w", s.Type, s.Payloads[j.p], s.Mags()[j.m], err)
				}
				mu.Unlock()
				return
			}
			for k := range res.ChangePoints {
				res.ChangePoints[k].Index += from
			}
			s.Changes[j.m][j.p] = SeriesChanges{From: from, Result: res}
		})
		if firstErr != nil {
			return firstErr
		}
		if err != nil {
			return err
		}
		if round > 0 {
			break
		}
		if !h.sharePhis(jobs, from, phis) {
			break
		}
	}
	h.changesDetected = true
	return nil
}

// seriesJob is one series of DetectChanges: sub-experiment s, magnitude m,
// payload p.
type seriesJob struct{ s, m, p int }

// sharePhis sets phis[i], the φ to pre-whiten series jobs[i] with, from
// their plain segmentations (windows from from on): changepoint.Share over
// the series of each magnitude. It reports whether any φ is above 0.
func (h *History) sharePhis(jobs []seriesJob, from int, phis []float64) bool {
	groups := map[string][]int{}
	lags := make([]changepoint.Lag1, len(jobs))
	whole := make([]changepoint.Lag1, len(jobs))
	for i, j := range jobs {
		s := h.SubExperiments[j.s]
		sc, mag := s.Changes[j.m][j.p], s.Mags()[j.m]
		if sc.Reason != "" {
			continue
		}
		r := sc.Result
		r.ChangePoints = slices.Clone(r.ChangePoints)
		for k := range r.ChangePoints {
			r.ChangePoints[k].Index -= from
		}
		lags[i].Add(s.Values[j.m][j.p][from:], r)
		whole[i].Add(s.Values[j.m][j.p][from:], changepoint.Result{})
		groups[mag] = append(groups[mag], i)
	}
	any := false
	for _, idx := range groups {
		seg, one := make([]changepoint.Lag1, len(idx)), make([]changepoint.Lag1, len(idx))
		for k, i := range idx {
			seg[k], one[k] = lags[i], whole[i]
		}
		for k, phi := range changepoint.Share(seg, one) {
			phis[idx[k]] = phi
			any = any || phi > 0
		}
	}
	return any
}

// seriesSeed mixes the user's seed with a series' position (SplitMix64).
func seriesSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ChangesDetected reports whether DetectChanges ran.
func (h *History) ChangesDetected() bool { return h.changesDetected }

// Changes returns every change point of h, by sub-experiment, payload,
// magnitude (Magnitudes order) and experiment.
func (h *History) Changes() []Change {
	var out []Change
	for _, s := range h.SubExperiments {
		for m, mag := range s.Mags() {
			if s.Changes == nil {
				continue
			}
			for p, b := range s.Payloads {
				for _, c := range s.Changes[m][p].ChangePoints {
					out = append(out, Change{Type: s.Type, Payload: b, Magnitude: mag, ChangePoint: c})
				}
			}
		}
	}
	return out
}

// ChangeSummary counts the series analysed and those too short to test.
func (h *History) ChangeSummary() (series, short int) {
	for _, s := range h.SubExperiments {
		for m := range s.Changes {
			for _, c := range s.Changes[m] {
				series++
				if c.Reason != "" {
					short++
				}
			}
		}
	}
	return series, short
}

// DefaultGateWindow is the default GateOptions.Window of the command line
// (--gate-window): a shift is judged from the run where --min-segment (5)
// experiments show it until it is 10 experiments old, so CI fails on six
// runs in a row, time to fix it or acknowledge it, and then stops failing on
// a shift nobody acted on as if it were new.
const DefaultGateWindow = 10

// DefaultMinChange is the default GateOptions.MinChange of the command line
// (--min-change): shifts of 5 % or less are reported but do not fail. Run to
// run noise of a few per cent between machines or days is common, and a
// gate that fails on it is soon ignored.
const DefaultMinChange = 0.05

// GateOptions say what history --gate judges.
type GateOptions struct {
	// Metrics are the magnitudes judged (Magnitudes entries).
	Metrics []string
	// MinChange is the least relative slowdown that fails, e.g. 0.05: a
	// newest segment 3 % slower than the one before passes at 0.05.
	MinChange float64
	// Window: only a change point whose new segment begins among the
	// newest Window experiments is judged; 0 judges one of any age.
	Window int
	// Acks are the accepted shifts (--acknowledged): a change point one
	// covers does not fail. AcksFile names their file, for reports.
	Acks     []Ack
	AcksFile string
}

// The rules that decide a judged series, as GateSeries.Rule and reports
// name them.
const (
	RuleNoChange     = "no change point"
	RuleOutside      = "outside the gate window"
	RuleFaster       = "not a slowdown"
	RuleBelowMin     = "below --min-change"
	RuleAcknowledged = "acknowledged"
	RuleNotSig       = "not significant"
	RuleSignificant  = "significant slowdown"
)

// GateSeries is the gate's view of one judged series.
type GateSeries struct {
	Type      string
	Payload   int
	Magnitude string
	// Change is the newest change point; nil when the series has none (or
	// was too short to test).
	Change *changepoint.ChangePoint
	// SegmentFrom is the first experiment of the segment before Change.
	SegmentFrom int
	// Candidate: the newest change point lies in the gate window, is not
	// acknowledged, and its segment is slower than the one before by more
	// than the minimum change, so it was tested.
	Candidate bool
	// Rule is what decided the series (a Rule constant).
	Rule string
	// Ack is the acknowledgement covering Change, when Rule is
	// RuleAcknowledged.
	Ack *Ack
	// Autocorrelation is the lag-1 autocorrelation the series was
	// pre-whitened with (changepoint.Result).
	Autocorrelation float64
	// P is the p-value of the local permutation test of the newest segment
	// against the one before (NaN when not a candidate).
	P float64
	// Level is the Holm level P was held to; Failed when P ≤ Level.
	Level  float64
	Failed bool
}

// GateResult is the verdict of history --gate.
type GateResult struct {
	Options GateOptions
	// Alpha is the family-wise level over all judged series (Holm).
	Alpha float64
	// Permutations of each candidate's local test.
	Permutations int
	// Experiments is the number of experiments in the history.
	Experiments int
	// Series judged (tested for change points); Short were too short.
	Series []GateSeries
	Short  int
	// Verdict has a check per judged series, for every gate report: failed
	// when a series failed, inconclusive when no series was long enough
	// to judge, else passed.
	Verdict *gate.Verdict
}

// Failed reports whether a series failed.
func (g *GateResult) Failed() bool { return g.Verdict.Status == gate.Failed }

// Failures returns the series that failed.
func (g *GateResult) Failures() []GateSeries {
	var out []GateSeries
	for _, s := range g.Series {
		if s.Failed {
			out = append(out, s)
		}
	}
	return out
}

// Gate decides whether the newest segment of any judged series is a
// significant regression. A series is a candidate when its newest change
// point starts a segment whose median is worse than the previous segment's
// by more than opt.Threshold. Each candidate is re-tested on its last two
// segments alone (changepoint.LocalTest) with enough permutations to resolve
// p-values below Alpha/S, and Holm's procedure over the S judged series
// keeps the probability that an unchanged system fails at most Alpha
// (the --significance level) for the whole gate. DetectChanges must have
// run.
func (h *History) Gate(ctx context.Context, opt GateOptions) (*GateResult, error) {
	if !h.changesDetected {
		return nil, fmt.Errorf("gate: change points were not detected")
	}
	for _, m := range opt.Metrics {
		if slices.Index(Magnitudes, m) < 0 {
			return nil, fmt.Errorf("gate metric %q: expected one of %s", m, strings.Join(Magnitudes, ", "))
		}
	}
	co := h.ChangeOptions
	n := len(h.Experiments)
	g := &GateResult{Options: opt, Alpha: co.Alpha, Experiments: n}
	expIndex := make(map[string]int, n)
	for i, e := range h.Experiments {
		expIndex[e.Name] = i
	}
	for _, s := range h.SubExperiments {
		metrics := opt.Metrics
		if s.Throughput || s.Burst {
			// Throughput and burst series are always judged.
			metrics = s.Mags()
		}
		for _, mag := range metrics {
			m := slices.Index(s.Mags(), mag)
			for p, b := range s.Payloads {
				sc := s.Changes[m][p]
				if sc.Reason != "" {
					g.Short++
					continue
				}
				gs := GateSeries{Type: s.Type, Payload: b, Magnitude: mag, P: math.NaN(), Rule: RuleNoChange,
					Autocorrelation: sc.Autocorrelation}
				if k := len(sc.ChangePoints); k > 0 {
					c := sc.ChangePoints[k-1]
					gs.Change = &c
					gs.SegmentFrom = sc.From
					if k > 1 {
						gs.SegmentFrom = sc.ChangePoints[k-2].Index
					}
					gs.Rule, gs.Ack = opt.rule(&gs, n, expIndex)
					gs.Candidate = gs.Rule == RuleNotSig
				}
				g.Series = append(g.Series, gs)
			}
		}
	}
	S := len(g.Series)
	// The smallest Holm level is Alpha/S; p-values resolve to
	// 1/(permutations+1), half of it.
	g.Permutations = max(co.Permutations, int(math.Ceil(2*float64(S)/co.Alpha))-1)
	var cands []int
	for i, gs := range g.Series {
		if gs.Candidate {
			cands = append(cands, i)
		}
	}
	var mu sync.Mutex
	var firstErr error
	err := parallel.Each(ctx, max(co.Workers, runtime.GOMAXPROCS(0)), len(cands), func(k int) {
		gs := &g.Series[cands[k]]
		s := h.sub(gs.Type, gs.Magnitude)
		x := s.Values[slices.Index(s.Mags(), gs.Magnitude)][slices.Index(s.Payloads, gs.Payload)]
		// Any p-value above Alpha is never rejected by Holm: stop there.
		p, err := changepoint.LocalTest(x, gs.SegmentFrom, n, co.MinSegment, g.Permutations, seriesSeed(co.Seed^0x6761746500000000, k), gs.Autocorrelation, co.Alpha)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("gate: %s, %d bytes, %s: %w", gs.Type, gs.Payload, gs.Magnitude, err)
		}
		gs.P = p
	})
	if firstErr != nil {
		return nil, firstErr
	}
	if err != nil {
		return nil, err
	}
	rules := make([]gate.Rule, len(g.Series))
	for i := range g.Series {
		rules[i] = changeRule{h, &g.Series[i], opt.MinChange}
	}
	g.Verdict = &gate.Verdict{Tool: "history", Baseline: "each series' previous segment", ReferenceName: "previous segment", FalseFail: co.Alpha}
	g.Verdict.Add(gate.Family{Correction: gate.Holm, Alpha: co.Alpha}.Judge(rules)...)
	g.Verdict.Mode = g.Rules()
	g.Verdict.Finish()
	if S == 0 {
		need := 2 * co.MinSegment
		g.Verdict.Status = gate.Inconclusive
		g.Verdict.Warn(fmt.Sprintf("no series has the %d values a test needs: take at least %d experiments", need, need))
	}
	for i, a := range opt.Acks {
		if why := h.unmatched(a, opt.Metrics); why != "" {
			g.Verdict.Warn(fmt.Sprintf("%s: matches no series of the history: %s; it can never cover a change point", a.Where(), why))
		}
		if _, ok := expIndex[a.Experiment]; !ok {
			g.Verdict.Warn(fmt.Sprintf("%s: acknowledges a shift at experiment %q, which is not among the %d experiments: it covers nothing", a.Where(), a.Experiment, n))
			continue
		}
		// Reports list the checks that pass without their messages: say
		// here which shifts passed because they are acknowledged.
		var covered []string
		for _, s := range g.Series {
			if s.Ack == &opt.Acks[i] {
				covered = append(covered, fmt.Sprintf("%s %d B %s %s", s.Type, s.Payload, s.Magnitude, shiftText(s.Change.Ratio)))
			}
		}
		if len(covered) > 0 {
			g.Verdict.Warn(fmt.Sprintf("%s (%s) acknowledges the shift at %s of %d series, which pass: %s",
				a.Where(), a.Note, a.Experiment, len(covered), strings.Join(covered, ", ")))
		}
	}
	return g, nil
}

// unmatched says why acknowledgement a covers none of the series the gate
// judges in h (latency series by metrics, throughput and burst series by
// every metric), "" when it covers one: its sub-experiment, payload or
// metric is not in the history. Such a row is most likely mistyped; it is a
// warning, not an error, since acknowledgements outlive the experiments
// they name.
func (h *History) unmatched(a Ack, metrics []string) string {
	var types []string
	typeSeen, payloadSeen := false, false
	for _, s := range h.SubExperiments {
		if !slices.Contains(types, s.Type) {
			types = append(types, s.Type)
		}
		if a.SubExperiment != "" && s.Type != a.SubExperiment {
			continue
		}
		typeSeen = true
		if a.Payload >= 0 && !slices.Contains(s.Payloads, a.Payload) {
			continue
		}
		payloadSeen = true
		mags := metrics
		if s.Throughput || s.Burst {
			mags = s.Mags()
		}
		if a.Metric == "" && len(mags) > 0 || slices.Contains(mags, a.Metric) {
			return ""
		}
	}
	sub := "any sub-experiment"
	if a.SubExperiment != "" {
		sub = "sub-experiment " + a.SubExperiment
	}
	switch {
	case len(types) == 0:
		return "the history holds no series"
	case !typeSeen:
		return fmt.Sprintf("sub-experiment %s is not in it (it holds %s)", a.SubExperiment, joinFirst(types, 5))
	case !payloadSeen:
		return fmt.Sprintf("payload %d B is not measured by %s", a.Payload, sub)
	}
	return fmt.Sprintf("metric %s is not judged for %s at %s (latency series are judged by %s, --gate-metrics; throughput and burst series by each of their metrics)",
		a.Metric, sub, payloadText(a.Payload), strings.Join(metrics, ", "))
}

// payloadText names an acknowledgement's payload.
func payloadText(p int) string {
	if p < 0 {
		return "any payload"
	}
	return fmt.Sprintf("%d B", p)
}

// joinFirst joins at most n names, saying how many more there are.
func joinFirst(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// rule returns what decides series gs, whose newest change point is set, in
// a history of n experiments (expIndex: experiment names to indices), and
// the acknowledgement covering it.
func (opt GateOptions) rule(gs *GateSeries, n int, expIndex map[string]int) (string, *Ack) {
	c := gs.Change
	switch {
	case opt.Window > 0 && c.Index < n-opt.Window:
		return RuleOutside, nil
	case !regressed(gs.Magnitude, c.Ratio):
		return RuleFaster, nil
	case math.Abs(c.Ratio-1) <= opt.MinChange:
		return RuleBelowMin, nil
	}
	for i, a := range opt.Acks {
		if e, ok := expIndex[a.Experiment]; ok && a.covers(gs.Type, gs.Payload, gs.Magnitude) && e >= c.Index-AckSlack && e <= c.Index+AckSlack {
			return RuleAcknowledged, &opt.Acks[i]
		}
	}
	return RuleNotSig, nil
}

// Rules says in one sentence how the gate decides, with its window,
// minimum change, acknowledgements, level and number of series: every gate
// report states it (the verdict's Mode).
func (g *GateResult) Rules() string {
	window := fmt.Sprintf("begins among the newest %d of %d experiments (--gate-window)", g.Options.Window, g.Experiments)
	if g.Options.Window == 0 {
		window = fmt.Sprintf("begins at any of the %d experiments (--gate-window 0)", g.Experiments)
	}
	acks := "no acknowledgements file"
	if g.Options.AcksFile != "" {
		acks = fmt.Sprintf("is not acknowledged in %s (%d series acknowledged)", g.Options.AcksFile, g.count(RuleAcknowledged))
	}
	tally := []string{}
	if len(g.Series) == 0 {
		tally = append(tally, "none judged")
	}
	for _, r := range []string{RuleNoChange, RuleOutside, RuleFaster, RuleBelowMin, RuleAcknowledged, RuleNotSig, RuleSignificant} {
		if k := g.count(r); k > 0 {
			tally = append(tally, fmt.Sprintf("%s %d", r, k))
		}
	}
	return fmt.Sprintf("change point rule: a series fails when its newest change point %s, %s, makes it slower by more than %s "+
		"(--min-change) and a permutation test of its two newest segments (pre-whitened for lag-1 autocorrelation) finds "+
		"that significant; Holm over N = %d series at family-wise level %g; series by the rule that decided: %s",
		window, acks, percent(g.Options.MinChange), len(g.Series), g.Alpha, strings.Join(tally, ", "))
}

// count returns the number of series decided by rule.
func (g *GateResult) count(rule string) int {
	n := 0
	for _, s := range g.Series {
		if s.Rule == rule {
			n++
		}
	}
	return n
}

// percent writes a fraction as a percentage: 0.05 → "5%".
func percent(x float64) string { return strconv.FormatFloat(100*x, 'g', 6, 64) + "%" }

// changeRule is the gate's rule for one judged series: its newest segment
// fails when the permutation test's p-value is rejected by Holm over every
// judged series; those that are not candidates (or whose test did not run)
// belong to the family with p = 1.
type changeRule struct {
	h         *History
	s         *GateSeries
	minChange float64
}

func (r changeRule) P() float64 {
	if !r.s.Candidate || math.IsNaN(r.s.P) {
		return 1
	}
	return r.s.P
}

// Decide records the decision in the series and makes its check: the
// previous segment's median is the reference, the newest one's the value.
func (r changeRule) Decide(d stats.Decision) gate.Check {
	s := r.s
	s.Level, s.Failed = d.Level, d.Rejected
	m := metricOf(s.Magnitude)
	if s.Change == nil {
		c := gate.MissingCheck(s.Type, s.Payload, m, math.NaN(), math.NaN(), "no change point")
		c.Status, c.Threshold = gate.Passed, r.minChange
		return c
	}
	c := gate.Evaluate(s.Type, s.Payload, m, "previous segment", s.Change.Before, r.minChange, s.Change.After)
	c.Status = gate.Passed
	c.Message = fmt.Sprintf("%s since %s (median %s -> %s %s", shiftText(s.Change.Ratio), r.h.Experiments[s.Change.Index].Label(),
		result.Format3(s.Change.Before), result.Format3(s.Change.After), result.UnitText(m.Unit))
	switch {
	case s.Failed:
		c.Status, s.Rule = gate.Failed, RuleSignificant
		what := ""
		if m.Better == result.HigherIsBetter {
			what = ", a throughput drop (higher is better)"
		}
		c.Message += fmt.Sprintf(", p = %s <= %s%s): %s", formatP(s.P), formatP(s.Level), what, RuleSignificant)
	case s.Candidate:
		c.Message += fmt.Sprintf(", p = %s > %s): %s", formatP(s.P), formatP(s.Level), RuleNotSig)
	case s.Rule == RuleAcknowledged:
		c.Message += fmt.Sprintf("): %s in %s (%s)", RuleAcknowledged, s.Ack.Where(), s.Ack.Note)
	case s.Rule == RuleBelowMin:
		c.Message += fmt.Sprintf("): %s %s", RuleBelowMin, percent(r.minChange))
	default:
		c.Message += "): " + s.Rule
	}
	if s.Candidate {
		c.Stats = &gate.Stats{NReference: s.Change.Index - s.SegmentFrom, NCandidate: len(r.h.Experiments) - s.Change.Index,
			Estimate: s.Change.Ratio, Low: math.NaN(), High: math.NaN(), Tail: d.Level, PassTail: math.NaN(), Confidence: math.NaN(),
			P: s.P, PAdjusted: d.Adjusted, Dispersion: math.NaN(), NeedRuns: -1, Gateable: true}
	}
	return c
}

// sub is the sub-experiment typ holding magnitude: a burst series has the
// type of a latency one, not its magnitudes.
func (h *History) sub(typ, magnitude string) *SubExperiment {
	for _, s := range h.SubExperiments {
		if s.Type == typ && slices.Index(s.Mags(), magnitude) >= 0 {
			return s
		}
	}
	return nil
}

// Summary is one sentence on the verdict, e.g. "failed: 3 of 44 series
// (Median, 99%) end in a significant slowdown".
func (g *GateResult) Summary() string {
	metrics := strings.Join(g.Options.Metrics, ", ")
	for _, s := range g.Series {
		if s.Magnitude == result.MessageRate.Name {
			metrics += "; throughput " + s.Magnitude
			break
		}
	}
	cands := 0
	for _, s := range g.Series {
		if s.Candidate {
			cands++
		}
	}
	window := fmt.Sprintf("gate window: newest %d experiments", g.Options.Window)
	if g.Options.Window == 0 {
		window = "gate window: every experiment"
	}
	rules := fmt.Sprintf("%s; min change %s", window, percent(g.Options.MinChange))
	if g.Options.AcksFile != "" {
		rules += fmt.Sprintf("; %d acknowledged", g.count(RuleAcknowledged))
	}
	if k := g.count(RuleOutside); k > 0 {
		rules += fmt.Sprintf("; %d outside the window", k)
	}
	short := ""
	if g.Short > 0 {
		short = fmt.Sprintf("; %d series too short to test", g.Short)
	}
	if len(g.Series) == 0 {
		return fmt.Sprintf("inconclusive: no series (%s) long enough to test%s", metrics, short)
	}
	if g.Failed() {
		return fmt.Sprintf("failed: %d of %d series (%s) end in a significant slowdown (%s; Holm, family-wise level %g, N = %d%s)",
			len(g.Failures()), len(g.Series), metrics, rules, g.Alpha, len(g.Series), short)
	}
	return fmt.Sprintf("passed: no newest segment of %d series (%s) is a significant slowdown (%d candidate(s) tested; %s; Holm, family-wise level %g, N = %d%s)",
		len(g.Series), metrics, cands, rules, g.Alpha, len(g.Series), short)
}
