package history

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/parallel"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/trend"
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
func regressed(magnitude string, ratio float64) bool { return worseThan(magnitude, ratio, 1) }

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
	var jobs []seriesKey
	for _, s := range h.SubExperiments {
		s.Changes = make([][]SeriesChanges, len(s.Mags()))
		for m := range s.Mags() {
			s.Changes[m] = make([]SeriesChanges, len(s.Payloads))
			for p := range s.Payloads {
				jobs = append(jobs, seriesKey{s, m, p})
			}
		}
	}
	// Every series as it is, then every series autocorrelated around its
	// segments pre-whitened: with the φ its magnitude's series share (over
	// the sub-experiments and payloads: one machine's drift), or its own
	// when it was shown to differ from them (changepoint.Share).
	phis := make([]float64, len(jobs))
	for round := 0; round < 2; round++ {
		var errs firstError
		err := parallel.Each(ctx, opt.Workers, len(jobs), func(i int) {
			j := jobs[i]
			s := j.s
			o := opt.Options
			o.Seed = seriesSeed(opt.Seed, i)
			if o.Autocorrelation = phis[i]; round > 0 && o.Autocorrelation == 0 {
				return
			}
			res, err := changepoint.Detect(s.Values[j.m][j.p][from:], o)
			if err != nil {
				errs.set(fmt.Errorf("%s, %d bytes, %s: %w", s.Type, s.Payloads[j.p], s.Mags()[j.m], err))
				return
			}
			for k := range res.ChangePoints {
				res.ChangePoints[k].Index += from
			}
			s.Changes[j.m][j.p] = SeriesChanges{From: from, Result: res}
		})
		if err := cmp.Or(errs.err, err); err != nil {
			return err
		}
		if round > 0 || !h.sharePhis(jobs, from, phis) {
			break
		}
	}
	h.changesDetected = true
	return nil
}

// sharePhis sets phis[i], the φ to pre-whiten series jobs[i] with, from
// their plain segmentations (windows from from on): changepoint.Share over
// the series of each magnitude. It reports whether any φ is above 0.
func (h *History) sharePhis(jobs []seriesKey, from int, phis []float64) bool {
	groups := map[string][]int{}
	lags := make([]changepoint.Lag1, len(jobs))
	whole := make([]changepoint.Lag1, len(jobs))
	for i, j := range jobs {
		sc, x := j.s.Changes[j.m][j.p], j.s.Values[j.m][j.p]
		if sc.Reason != "" {
			continue
		}
		lags[i].Add(x[from:], sc.before(len(x)))
		whole[i].Add(x[from:], changepoint.Result{})
		mag := j.s.Mags()[j.m]
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
		for _, cs := range s.Changes {
			series += len(cs)
			short += countFunc(cs, func(c SeriesChanges) bool { return c.Reason != "" })
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
	// Change is the shift that decided the series: for a candidate, its
	// decisive test (Tests), with Before and After the levels compared and
	// Ratio their ratio; otherwise the change point its rule is about (the
	// newest, or the acknowledged one). Nil when the series has no change
	// point and no trend was tested (or it was too short to test).
	Change *changepoint.ChangePoint
	// SegmentFrom is the first experiment of the reference segment of
	// Change.
	SegmentFrom int
	// Tests are the shifts of the series that were tested: every
	// unacknowledged change point in the gate window after which the level
	// is slower than before it by more than the minimum change, and the
	// window's trend when it is such a slowdown.
	Tests []GateTest
	// Candidate: Tests is not empty; Decisive is then the test of the
	// smallest p-value.
	Candidate bool
	Decisive  *GateTest
	// Stale are the slowdowns older than the gate window that no
	// acknowledgement covers and after which the segment the window begins
	// in and the newest segment are both still slower than before them by
	// more than the minimum change, with Before that level and After the
	// less slow of the two (GateOptions.stale): the window's rule no
	// longer judges them.
	Stale []changepoint.ChangePoint
	// Trend is the Mann–Kendall test of the gate window's values (nil when
	// the window holds fewer than 2 × --min-segment values after its
	// newest acknowledged change point).
	Trend *trend.Serial
	// Hinge is the test of a rise from the window's start against the
	// values before it in the same segment, when it decided the trend's
	// p-value instead of Trend (trendTest); nil otherwise.
	Hinge *trend.Hinge
	// Rule is what decided the series (a Rule constant).
	Rule string
	// Ack is the acknowledgement covering Change, when Rule is
	// RuleAcknowledged.
	Ack *Ack
	// Autocorrelation is the lag-1 autocorrelation the series was
	// pre-whitened with (changepoint.Result).
	Autocorrelation float64
	// TestAutocorrelation is the φ the tests of its change points
	// whiten with: the largest of Autocorrelation, the floor from the
	// estimate pooled over the other series' values before the gate
	// window (pooledTrendPhi), and, when that floor is 0, the φ of an
	// AR(1) fit that explains the series better than its segments
	// (changepoint.Wander).
	TestAutocorrelation float64
	// P is the series' p-value: P/Weight of its deciding test (Decisive),
	// at most 1 (weighted Bonferroni; NaN when not a candidate).
	P float64
	// Level is the Holm level P was held to; Failed when P ≤ Level.
	Level  float64
	Failed bool
	// values are the series' values, which its change points' tests take.
	values []float64
}

// GateTest is one shift of a series that the gate tests.
type GateTest struct {
	// Trend: the window's Mann–Kendall trend (Change.Index is the first
	// experiment it covers, Before and After Sen's line at its ends);
	// otherwise a change point (Change.Index) whose reference segment
	// [RefFrom, Change.Index) is compared with the level [CurFrom, CurTo)
	// after it, the newest segment unless a later change point is
	// acknowledged.
	Trend                   bool
	Change                  changepoint.ChangePoint
	RefFrom, CurFrom, CurTo int
	// P is the test's one-sided p-value: the permutation test of the two
	// stretches (changepoint.SegmentsTest), or for the trend the hinge's
	// one-sided p-value (GateSeries.Hinge) or else half Mann–Kendall's.
	P float64
	// Weight is the test's share of the series' level (weighted
	// Bonferroni): the series' p-value is the smallest P/Weight.
	Weight float64
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
	return slices.DeleteFunc(slices.Clone(g.Series), func(s GateSeries) bool { return !s.Failed })
}

// Gate decides whether any judged series is significantly slower than
// before a change point in the gate window, or trends slower in it
// (GateOptions.judge says what is tested). Each change point is tested by
// changepoint.SegmentsTest with enough permutations to resolve p-values
// below the smallest share of Alpha/S, the trend by trend.TestSerialPhi; a
// series' tests share its level (weighted Bonferroni), and Holm's procedure
// over the S judged series keeps the probability that an unchanged system
// fails at most Alpha (the --significance level) for the whole gate.
// DetectChanges must have run.
func (h *History) Gate(ctx context.Context, opt GateOptions) (*GateResult, error) {
	if err := h.checkGate(opt); err != nil {
		return nil, err
	}
	n := len(h.Experiments)
	g := &GateResult{Options: opt, Alpha: h.ChangeOptions.Alpha, Experiments: n}
	expIndex := make(map[string]int, n)
	for i, e := range h.Experiments {
		expIndex[e.Name] = i
	}
	h.judgeSeries(g, expIndex)
	g.Permutations = g.permutations(h.ChangeOptions)
	if err := h.testChangePoints(ctx, g); err != nil {
		return nil, err
	}
	h.decide(g)
	h.warnStale(g)
	h.warnAcks(g, expIndex)
	return g, nil
}

// checkGate refuses to gate h before DetectChanges ran, or on a metric
// that is not a magnitude.
func (h *History) checkGate(opt GateOptions) error {
	if !h.changesDetected {
		return fmt.Errorf("gate: change points were not detected")
	}
	for _, m := range opt.Metrics {
		if slices.Index(Magnitudes, m) < 0 {
			return fmt.Errorf("gate metric %q: expected one of %s", m, strings.Join(Magnitudes, ", "))
		}
	}
	return nil
}

// judgeSeries adds to g.Series every series the gate judges, with what it
// tests in it (GateOptions.judge), and counts in g.Short those too short
// to test. expIndex maps experiment names to indices.
func (h *History) judgeSeries(g *GateResult, expIndex map[string]int) {
	opt, n := g.Options, g.Experiments
	pooled, floor := h.pooledTrendPhi(opt, n)
	h.eachJudged(opt, func(s *SubExperiment, mag string, m, p int) {
		sc := s.Changes[m][p]
		if sc.Reason != "" {
			g.Short++
			return
		}
		fl := floor[seriesKey{s, m, p}]
		gs := GateSeries{Type: s.Type, Payload: s.Payloads[p], Magnitude: mag, P: math.NaN(), Rule: RuleNoChange,
			Autocorrelation: sc.Autocorrelation, TestAutocorrelation: max(sc.Autocorrelation, fl), values: s.Values[m][p]}
		if fl == 0 {
			// No φ shown over the others: the series must tell its own
			// wander from steps (one series of φ 0.8 failed 1.45 % of
			// 4,000 unchanged histories without this, 1.07 % with it).
			gs.TestAutocorrelation = max(gs.TestAutocorrelation, changepoint.Wander(s.Values[m][p][sc.From:n], sc.before(n)))
		}
		opt.judge(&gs, sc, s.Values[m][p], n, h.ChangeOptions.MinSegment, expIndex, pooled[mag], fl)
		g.Series = append(g.Series, gs)
	})
}

// before returns sc's change points before experiment to, indexed from
// sc.From: a Result for the values x[sc.From:to].
func (sc SeriesChanges) before(to int) changepoint.Result {
	var r changepoint.Result
	for _, c := range sc.ChangePoints {
		if c.Index > sc.From && c.Index < to {
			c.Index -= sc.From
			r.ChangePoints = append(r.ChangePoints, c)
		}
	}
	return r
}

// permutations returns the permutations of each change point's test: at
// least co.Permutations, and enough to resolve p-values to half of the
// smallest share of Alpha/S, the smallest Holm level over the S series of
// g, that a series' tests get (weighted Bonferroni).
func (g *GateResult) permutations(co ChangeOptions) int {
	weight := 1.0
	for _, gs := range g.Series {
		for _, t := range gs.Tests {
			if !t.Trend {
				weight = min(weight, t.Weight)
			}
		}
	}
	return max(co.Permutations, int(math.Ceil(2*float64(len(g.Series))/(weight*co.Alpha)))-1)
}

// testChangePoints runs the permutation test (changepoint.SegmentsTest) of
// every change point the series of g test, in parallel, and sets their P.
func (h *History) testChangePoints(ctx context.Context, g *GateResult) error {
	co := h.ChangeOptions
	type job struct{ s, t int }
	var jobs []job
	for i, gs := range g.Series {
		for t, gt := range gs.Tests {
			if !gt.Trend {
				jobs = append(jobs, job{i, t})
			}
		}
	}
	var errs firstError
	err := parallel.Each(ctx, max(co.Workers, runtime.GOMAXPROCS(0)), len(jobs), func(k int) {
		gs := &g.Series[jobs[k].s]
		gt := &gs.Tests[jobs[k].t]
		// A p-value above Alpha/tests is never rejected by Holm: stop there.
		p, err := changepoint.SegmentsTest(gs.values, gt.RefFrom, gt.Change.Index, gt.CurFrom, gt.CurTo, co.MinSegment, g.Permutations,
			seriesSeed(co.Seed^0x6761746500000000, k), gs.TestAutocorrelation, co.Alpha*gt.Weight)
		if err != nil {
			errs.set(fmt.Errorf("gate: %s, %d bytes, %s: %w", gs.Type, gs.Payload, gs.Magnitude, err))
		}
		gt.P = p
	})
	return cmp.Or(errs.err, err)
}

// firstError keeps the first error that parallel jobs report.
type firstError struct {
	once sync.Once
	err  error
}

// set records err unless an error is recorded already.
func (f *firstError) set(err error) { f.once.Do(func() { f.err = err }) }

// decide sets each series' p-value and decisive test, judges the series
// by Holm's procedure into g.Verdict, and makes the verdict inconclusive
// when no series was long enough to judge.
func (h *History) decide(g *GateResult) {
	co, S := h.ChangeOptions, len(g.Series)
	rules := make([]gate.Rule, len(g.Series))
	for i := range g.Series {
		g.Series[i].decisive(co.Alpha / float64(S))
		rules[i] = changeRule{h, &g.Series[i], g.Options.MinChange}
	}
	g.Verdict = &gate.Verdict{Tool: "history", Baseline: "each series' previous segment", ReferenceName: "previous segment", FalseFail: co.Alpha}
	g.Verdict.Add(gate.Family{Correction: gate.Holm, Alpha: co.Alpha}.Judge(rules)...)
	g.Verdict.Mode = g.Rules()
	g.Verdict.Finish()
	if S == 0 {
		g.Verdict.Status = gate.Inconclusive
		g.Verdict.Warn(tooShort(co, len(h.Experiments)))
	}
}

// tooShort says why no series could be judged and what would let one be:
// more experiments, or, when the history holds enough but --change-window
// looks at fewer, a wider window (it asked for more experiments that were
// there already).
func tooShort(co ChangeOptions, experiments int) string {
	need := 2 * co.MinSegment
	if co.Window != AllExperiments && co.Window < need && experiments >= need {
		return fmt.Sprintf("no series has the %d values a test needs: --change-window %d looks at the newest %d of the %d experiments only; give --change-window %d or more (0 for every experiment)",
			need, co.Window, co.Window, experiments, need)
	}
	return fmt.Sprintf("no series has the %d values a test needs: take at least %d experiments", need, need)
}

// warnStale warns of the slowdowns older than the gate window that no
// acknowledgement covers and that last to the newest experiment
// (GateSeries.Stale): the gate no longer judges them.
func (h *History) warnStale(g *GateResult) {
	var stale []string
	for _, s := range g.Series {
		for _, c := range s.Stale {
			stale = append(stale, fmt.Sprintf("%s %d B %s %s since %s", s.Type, s.Payload, s.Magnitude, shiftText(c.Ratio), h.Experiments[c.Index].Label()))
		}
	}
	if len(stale) > 0 {
		g.Verdict.Warn(fmt.Sprintf("%d slowdown(s) began before the newest %d experiments (--gate-window), were never acknowledged and last to the newest experiment; "+
			"the gate no longer judges them, their level is the baseline now: %s. Acknowledge them (--acknowledged) or judge every age (--gate-window 0)",
			len(stale), g.Options.Window, experiment.JoinNames(stale, 5)))
	}
}

// warnAcks warns of each acknowledgement that matches no judged series or
// names no experiment of h (expIndex maps names to indices), and names
// the series that pass because one covers their shift.
func (h *History) warnAcks(g *GateResult, expIndex map[string]int) {
	opt := g.Options
	for i, a := range opt.Acks {
		if why := h.unmatched(a, opt.Metrics); why != "" {
			g.Verdict.Warn(fmt.Sprintf("%s: matches no series of the history: %s; it can never cover a change point", a.Where(), why))
		}
		if _, ok := expIndex[a.Experiment]; !ok {
			g.Verdict.Warn(fmt.Sprintf("%s: acknowledges a shift at experiment %q, which is not among the %d experiments: it covers nothing", a.Where(), a.Experiment, g.Experiments))
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
		types = appendNew(types, s.Type)
		if a.SubExperiment != "" && s.Type != a.SubExperiment {
			continue
		}
		typeSeen = true
		if a.Payload >= 0 && !slices.Contains(s.Payloads, a.Payload) {
			continue
		}
		payloadSeen = true
		if mags := s.judged(metrics); a.Metric == "" && len(mags) > 0 || slices.Contains(mags, a.Metric) {
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
		return fmt.Sprintf("sub-experiment %s is not in it (it holds %s)", a.SubExperiment, experiment.JoinNames(types, 5))
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

// judge finds what the gate tests in series x (its change points sc) of a
// history of n experiments (expIndex: experiment names to indices) and sets
// gs's Tests, and its Rule, Change and Ack for when none of them fails:
//
//   - every change point in the window that no acknowledgement covers is
//     judged by the level after it (the newest segment, or the segment
//     before the next acknowledged change point) against the segment
//     before it, so that a later partial recovery, or further steps each
//     below the minimum change, cannot hide it;
//   - the window's values after its newest acknowledged change point are
//     tested for a rise against the values before them in their segment
//     (trend.TestHinge, with φ from the noise around the best hinge, or
//     from the values before the window when smaller: hingePhi;
//     trend.TestSerialPhi over the window when fewer than
//     trendHingeBase, with φ from the values before the window: trendPhi
//     and pooledTrendPhi), so that a creep that no change point resolves
//     is judged too.
//
// A shift that is not slower by more than MinChange is not tested.
func (opt GateOptions) judge(gs *GateSeries, sc SeriesChanges, x []float64, n, minSegment int, expIndex map[string]int, pooled, floor float64) {
	cps := sc.ChangePoints
	win := sc.From
	if opt.Window > 0 {
		win = max(win, n-opt.Window)
	}
	start := func(k int) int { // first experiment of the segment ending at cps[k]
		if k == 0 {
			return sc.From
		}
		return cps[k-1].Index
	}
	acks := make([]*Ack, len(cps))
	for k := range cps {
		acks[k] = opt.ackFor(gs, cps[k].Index, expIndex)
	}
	// What decides the series when no test fails, by precedence.
	rank := map[string]int{RuleNoChange: 0, RuleOutside: 1, RuleFaster: 2, RuleBelowMin: 3, RuleAcknowledged: 4}
	set := func(rule string, c changepoint.ChangePoint, from int, ack *Ack) {
		if gs.Change == nil || rank[rule] > rank[gs.Rule] {
			gs.Rule, gs.Change, gs.SegmentFrom, gs.Ack = rule, &c, from, ack
		}
	}
	if k := len(cps); k > 0 && cps[k-1].Index < win {
		set(RuleOutside, cps[k-1], start(k-1), nil)
	}
	trendFrom, acked := opt.trendStart(gs, win, n, expIndex)
	// The segment the window begins in, [before, inWin): what the changes
	// older than the window left, before the window's own changes, which
	// the gate judges.
	inWin := n
	if k := slices.IndexFunc(cps, func(c changepoint.ChangePoint) bool { return c.Index >= win }); k >= 0 {
		inWin = cps[k].Index
	}
	before := sc.From
	for _, c := range cps {
		if c.Index < win {
			before = c.Index
		}
	}
	for k, c := range cps {
		if c.Index < win {
			if acks[k] == nil {
				opt.stale(gs, x, c, start(k), [2]int{before, inWin}, [2]int{cps[len(cps)-1].Index, n})
			}
			continue
		}
		if acks[k] != nil {
			set(RuleAcknowledged, c, start(k), acks[k])
			trendFrom, acked = max(trendFrom, c.Index), true
			continue
		}
		curFrom, curTo := cps[len(cps)-1].Index, n
		for l := k + 1; l < len(cps); l++ {
			if acks[l] != nil {
				curFrom, curTo = start(l), cps[l].Index
				break
			}
		}
		if t, rule := opt.shiftTest(gs.Magnitude, x, c, start(k), curFrom, curTo, minSegment); rule != "" {
			set(rule, t.Change, t.RefFrom, nil)
		} else {
			gs.Tests = append(gs.Tests, t)
		}
	}
	if t, ok := opt.trendTest(gs, sc, x, trendFrom, n, minSegment, acked, pooled, floor); ok {
		gs.Tests = append(gs.Tests, t)
	}
	if gs.Candidate = len(gs.Tests) > 0; gs.Candidate {
		gs.Rule, gs.Ack = RuleNotSig, nil
	}
	gs.weigh()
}

// trendStart returns the experiment the trend of gs's series is tested
// from: win, or the newest experiment from win on, before n, at which an
// acknowledgement of the series accepts a shift; and whether there is
// one. An acknowledged shift in the window starts the trend even when no
// change point was found at it: the hinge against the values before it
// would otherwise judge the step that was accepted.
func (opt GateOptions) trendStart(gs *GateSeries, win, n int, expIndex map[string]int) (int, bool) {
	trendFrom, acked := win, false
	for _, a := range opt.Acks {
		if e, ok := expIndex[a.Experiment]; ok && e >= trendFrom && e < n && a.covers(gs.Type, gs.Payload, gs.Magnitude) {
			trendFrom, acked = e, true
		}
	}
	return trendFrom, acked
}

// shiftTest returns the test of change point c of series x of magnitude,
// the level [curFrom, curTo) after it against the segment [ref, c.Index)
// before it, and "" when the gate tests it; else the rule that decides
// the shift instead: RuleFaster when it is not slower, or the newest
// minSegment values of the level are not, RuleBelowMin when either is
// not slower by more than MinChange.
func (opt GateOptions) shiftTest(magnitude string, x []float64, c changepoint.ChangePoint, ref, curFrom, curTo, minSegment int) (GateTest, string) {
	t := GateTest{Change: levels(c, x, ref, curFrom, curTo), RefFrom: ref, CurFrom: curFrom, CurTo: curTo, P: math.NaN()}
	// The newest minSegment values must be as slow: a fix too recent
	// to be a change point of its own is not failed as the slowdown
	// it undid.
	cur := finite(x[curFrom:curTo])
	tail := changepoint.Ratio(stats.Median(cur[max(0, len(cur)-minSegment):]), t.Change.Before)
	switch {
	case !regressed(magnitude, t.Change.Ratio) || !regressed(magnitude, tail):
		return t, RuleFaster
	case math.Abs(t.Change.Ratio-1) <= opt.MinChange || math.Abs(tail-1) <= opt.MinChange:
		return t, RuleBelowMin
	}
	return t, ""
}

// weigh shares gs's level among its Tests (Bonferroni with weights): the
// change points share changeWeight of it when the trend is tested too,
// which is rarely what finds a regression that they miss.
func (gs *GateSeries) weigh() {
	w, n := 1.0, len(gs.Tests)
	if n > 1 && gs.Tests[n-1].Trend { // the trend is the last test, if any
		gs.Tests[n-1].Weight = 1 - changeWeight
		w, n = changeWeight, n-1
	}
	for i := range gs.Tests[:n] {
		gs.Tests[i].Weight = w / float64(n)
	}
}

// changeWeight is the share of a series' level its change points' tests
// get when its trend is tested too.
const changeWeight = 0.8

// stale records in gs.Stale change point c, older than the window, a
// slowdown and not acknowledged, when both the segment the window begins
// in (old) and the newest segment (newest) are still slower than the
// segment before c, [ref, c.Index), by more than MinChange: the gate no
// longer judges it (that level is now the series' baseline), and says so.
// Its After is the less slow of the two levels: what lasts of it to the
// newest experiment, without a slowdown of the window's own (which the
// gate judges) nor a change point that was faster.
func (opt GateOptions) stale(gs *GateSeries, x []float64, c changepoint.ChangePoint, ref int, old, newest [2]int) {
	if !regressed(gs.Magnitude, c.Ratio) {
		return
	}
	c = levels(c, x, ref, old[0], old[1])
	if now := levels(c, x, ref, newest[0], newest[1]); worseThan(gs.Magnitude, c.Ratio, now.Ratio) {
		c = now
	}
	if regressed(gs.Magnitude, c.Ratio) && math.Abs(c.Ratio-1) > opt.MinChange {
		gs.Stale = append(gs.Stale, c)
	}
}

// levels returns c with Before and After the medians of the series x
// over [ref, c.Index) and [from, to), gaps left out, and Ratio theirs.
func levels(c changepoint.ChangePoint, x []float64, ref, from, to int) changepoint.ChangePoint {
	c.Before, c.After = stats.Median(finite(x[ref:c.Index])), stats.Median(finite(x[from:to]))
	c.Ratio = changepoint.Ratio(c.After, c.Before)
	return c
}

// trendTest tests the values x[from:n] for a trend. It sets gs.Trend (and
// gs.Hinge) and returns the test when the trend is a slowdown by more than
// MinChange over those experiments. The AR(1) correlation φ the test is
// corrected for is that of the series' values before from (trendPhi), or
// for the hinge the smaller of that and the φ of the noise around the best
// hinge (hingePhi), not of the tested values around their mean: over a window of 10, a steady creep
// looks like autocorrelation, and their own φ bound took most of the power.
// Neither is below floor, the φ shown pooled over the magnitude's series.
func (opt GateOptions) trendTest(gs *GateSeries, sc SeriesChanges, x []float64, from, n, minSegment int, acked bool, pooled, floor float64) (GateTest, bool) {
	v := finite(x[from:n])
	if len(v) < 2*minSegment {
		return GateTest{}, false
	}
	var tr trend.Serial
	var err error
	phi, known := trendPhi(sc, x, from)
	// Nor below the bound pooled over the magnitude's series: 20 values
	// before the window estimate φ = 0.8 at 0.45–0.7 even raised, and the
	// hinge, a comparison of levels, is far more sensitive to too small a
	// φ than Mann–Kendall (11 payloads sharing φ = 0.8: 2.25 % of 4,000
	// histories failed with each series' own bound).
	phi = max(phi, pooled)
	if known {
		tr, err = trend.TestSerialPhi(v, phi)
	} else {
		tr, err = trend.TestSerial(v)
	}
	if err != nil {
		return GateTest{}, false
	}
	gs.Trend = &tr
	p := tr.P / 2
	// With φ known from before the window, the rise is tested against the
	// values before the window in the same segment (trendBase), which fix
	// the level a creep rises from: a hinge at the window's start, by
	// least squares whitened with φ (trend.TestHinge). Mann–Kendall over
	// the window's 10 values alone barely shows a creep of half the noise
	// per experiment, and over the window with the values before it looks
	// for a line through all of them. A step in the window is still its
	// change point's to name (decisive).
	if known {
		base := trendBase(sc, from, len(v), acked)
		tested := finite(x[base:n])
		if start := len(tested) - len(v); start >= trendHingeBase {
			// φ is the smaller of two upper bounds: from the noise around
			// the best hinge over the values tested, around the change
			// points among them (hingePhi), and from the values before
			// the window (phi). 20 independent values before a window of
			// 20 bound φ at 0.45 to 0.9, which took the power to see three
			// small steps in it; steps that no change point resolves
			// inflate the first as much, which took it in a window of 10.
			// Each bound holds its level; the smaller misses φ at most as
			// often as both together: one series of AR(1) φ 0.8 fails
			// 1.45 % of 4,000 histories (1.15 % with the first alone,
			// 1.50 % with the second alone).
			hphi := phi
			if b, ok := hingePhi(sc, x, base, n, start); ok {
				hphi = min(b, phi)
			}
			hphi = max(hphi, floor)
			hg, err := trend.TestHinge(tested, start, hphi)
			if err != nil {
				return GateTest{}, false
			}
			gs.Hinge = &hg
			p = hg.PUp
			if metricOf(gs.Magnitude).Better == result.HigherIsBetter {
				p = hg.PDown
			}
		}
	}
	c := changepoint.ChangePoint{Index: from, P: p}
	// The size of the trend is the window's own: Sen's line of its
	// values, through the median of the values less the slope.
	slope := tr.Test.Slope
	base := make([]float64, len(v))
	for i, y := range v {
		base[i] = y - slope*float64(i)
	}
	c.Before = stats.Median(base)
	c.After = c.Before + slope*float64(len(v)-1)
	c.Ratio = changepoint.Ratio(c.After, c.Before)
	if !regressed(gs.Magnitude, c.Ratio) || math.Abs(c.Ratio-1) <= opt.MinChange || c.Before <= 0 {
		return GateTest{}, false
	}
	return GateTest{Trend: true, Change: c, RefFrom: from, CurFrom: from, CurTo: n, P: p}, true
}

// trendHingeBase is the fewest values before the window, in its segment,
// that the hinge test of a trend needs (trendTest); with fewer, the
// window's own Mann–Kendall test decides.
const trendHingeBase = 5

// trendBaseShare is how many values before the window, per value of it,
// the trend test takes with it (when φ is known from before the window
// and no change point in the window is tested): enough to fix the level a
// creep rises from, few enough that the test stays about the window.
const trendBaseShare = 3

// trendBase returns the first value of the trend test of a window from
// from with w values: up to trendBaseShare·w values before it, not before
// the start of the segment they are in (the newest change point before
// from, or at from when it is acknowledged, else sc.From), so that an
// older step, or an acknowledged one at the window's start, is not taken
// for a trend. A change point at from that is not acknowledged does not
// cut: it is where a creep that begins with the window is seen to begin.
func trendBase(sc SeriesChanges, from, w int, acked bool) int {
	seg := sc.From
	for _, c := range sc.ChangePoints {
		if (c.Index < from || acked && c.Index == from) && c.Index > seg {
			seg = c.Index
		}
	}
	return max(seg, from-trendBaseShare*w)
}

// trendPhiRaise is the number of standard errors trendPhi raises its
// estimate of φ by, as for pre-whitening. The hinge compares levels, and a
// comparison of levels is far more sensitive to too small a φ than
// Mann–Kendall: raised by 0.5, one AR(1) series of φ 0.6 (30 experiments,
// 4,000 histories) failed 1.8 %, by 1 1.4 %, by 2 0.9 %; in 2 % noise a
// creep of 1 % per experiment still fails 98 % (99 % by 1.5).
const trendPhiRaise = 2

// trendPhiValues is the number of values before a trend's that trendPhi
// needs to estimate φ from them; with fewer the trend test estimates it
// from its own values (trend.TestSerial).
const trendPhiValues = 10

// trendPhi returns an upper bound of the lag-1 autocorrelation φ of the
// noise of series x (change points sc), from its values x[sc.From:from]
// around their segments (changepoint.Lag1.Upper: bias-corrected, raised by
// trendPhiRaise standard errors), and false when they are fewer than
// trendPhiValues.
func trendPhi(sc SeriesChanges, x []float64, from int) (float64, bool) {
	var a changepoint.Lag1
	if addBefore(&a, sc, x, from) < trendPhiValues {
		return 0, false
	}
	return a.Kendall().Upper(trendPhiRaise), true
}

// hingePhi returns an upper bound of the lag-1 autocorrelation φ of the
// noise of the values x[base:n] (gaps left out) whose rise from the
// start-th of them on the hinge tests: the residuals of the best hinge, by
// least squares, that starts there or later, with a level of its own for
// each segment the change points sc among them begin
// (trend.SegmentedHingeResiduals; changepoint.Lag1.AddResiduals with the
// levels, slope and start as parameters; Kendall's bias, raised by
// trendPhiRaise standard errors). A creep that begins later, or a step,
// left in the residuals would look like autocorrelation. When the values
// are too few for that many parameters, the change points are left out;
// false when no hinge fits.
func hingePhi(sc SeriesChanges, x []float64, base, n, start int) (float64, bool) {
	tested := finite(x[base:n])
	var cuts []int
	for _, c := range sc.ChangePoints {
		if c.Index > base && c.Index < n {
			if k := len(finite(x[base:c.Index])); k > 0 && k < len(tested) && (len(cuts) == 0 || k > cuts[len(cuts)-1]) {
				cuts = append(cuts, k)
			}
		}
	}
	if phi, ok := bestHingePhi(tested, start, cuts); ok || cuts == nil {
		return phi, ok
	}
	return bestHingePhi(tested, start, nil)
}

// bestHingePhi is hingePhi around the segments that cuts begin, false when
// no hinge fits or its values are too few for their parameters.
func bestHingePhi(tested []float64, start int, cuts []int) (float64, bool) {
	var r []float64
	best := math.Inf(1)
	for s := start; s < max(start+1, len(tested)-1); s++ {
		if q, err := trend.SegmentedHingeResiduals(tested, s, cuts); err == nil && sumSquares(q) < best {
			r, best = q, sumSquares(q)
		}
	}
	if r == nil {
		return 0, false
	}
	var a changepoint.Lag1
	a.AddResiduals(r, len(cuts)+3)
	if a = a.Kendall(); !a.Enough() {
		return 0, false
	}
	return a.Upper(trendPhiRaise), true
}

// sumSquares returns Σ r_i².
func sumSquares(r []float64) float64 {
	s := 0.0
	for _, v := range r {
		s += v * v
	}
	return s
}

// floorShown is the number of standard errors by which the φ pooled over
// the values before the gate window of a series' others must be shown
// above 0 to floor its φ (pooledTrendPhi): pooled over 11 series sharing φ =
// 0.8, the pooled φ is clear, and the change points' tests, whitened with
// the φ each series' own segmentation left, failed 1.4 % of 4,000 such
// histories; independent series almost never reach it.
const floorShown = 3

// addBefore adds to a the values x[sc.From:from] of a series around their
// segments (its change points sc before from) and returns how many are not
// gaps.
func addBefore(a *changepoint.Lag1, sc SeriesChanges, x []float64, from int) int {
	if from <= sc.From {
		return 0
	}
	a.Add(x[sc.From:from], sc.before(from))
	return len(finite(x[sc.From:from]))
}

// pooledTrendPhi returns, per magnitude judged, the upper bound of φ
// (trendPhiRaise standard errors, Kendall's bias) pooled over the values
// before the gate window of every series of that magnitude the gate
// judges (one machine's noise, as DetectChanges pools it), 0 when they
// hold fewer than trendPhiValues values; and per series, the floor of its
// φ: the bound pooled over the other series of its magnitude when their φ
// is above floorShown standard errors, else 0 (and 0 when they hold fewer
// than trendPhiValues values). A series' own values are not its floor: a
// step that no change point resolves before the window looks like φ, and
// floored the tests of the steps after it (three +4 % steps in 1 % noise,
// window 10: 48 % failed, not 72 %); its own φ is its change points' and
// its trend's already.
func (h *History) pooledTrendPhi(opt GateOptions, n int) (bound map[string]float64, floor map[seriesKey]float64) {
	lags, counts := map[string]*changepoint.Lag1{}, map[string]int{}
	own, owns := map[seriesKey]changepoint.Lag1{}, map[seriesKey]int{}
	h.eachJudged(opt, func(s *SubExperiment, mag string, m, p int) {
		sc := s.Changes[m][p]
		if sc.Reason != "" {
			return
		}
		win := sc.From
		if opt.Window > 0 {
			win = max(win, n-opt.Window)
		}
		if lags[mag] == nil {
			l := changepoint.Lag1{}.Kendall()
			lags[mag] = &l
		}
		var a changepoint.Lag1
		k := seriesKey{s, m, p}
		owns[k] = addBefore(&a, sc, s.Values[m][p], win)
		own[k] = a
		addBefore(lags[mag], sc, s.Values[m][p], win)
		counts[mag] += owns[k]
	})
	bound, floor = map[string]float64{}, map[seriesKey]float64{}
	for mag, a := range lags {
		if counts[mag] >= trendPhiValues {
			bound[mag] = a.Upper(trendPhiRaise)
		}
	}
	for k, a := range own {
		mag := k.s.Mags()[k.m]
		if counts[mag]-owns[k] >= trendPhiValues {
			floor[k] = lags[mag].Without(a).Shown(floorShown, trendPhiRaise)
		}
	}
	return bound, floor
}

// seriesKey names one series of a sub-experiment: its magnitude m and
// payload p.
type seriesKey struct {
	s    *SubExperiment
	m, p int
}

// eachJudged calls f for every series the gate judges, in order: each
// sub-experiment's magnitudes of opt.Metrics (every magnitude of a
// throughput or burst sub-experiment, which are always judged), payload
// by payload; m and p index s.Changes and s.Values.
func (h *History) eachJudged(opt GateOptions, f func(s *SubExperiment, mag string, m, p int)) {
	for _, s := range h.SubExperiments {
		for _, mag := range s.judged(opt.Metrics) {
			m := slices.Index(s.Mags(), mag)
			for p := range s.Payloads {
				f(s, mag, m, p)
			}
		}
	}
}

// judged returns the magnitudes of s the gate judges: metrics (the latency
// ones asked for), or every magnitude of a throughput or burst series.
func (s *SubExperiment) judged(metrics []string) []string {
	if s.Throughput || s.Burst {
		return s.Mags()
	}
	return metrics
}

// decisive sets the series' P (Bonferroni over its tests) and, for a
// candidate, Change and SegmentFrom to its test of the smallest p-value —
// unless that is the trend and a change point's test is significant at
// strict (Alpha/S, the strictest of Holm's levels): the series then fails
// whatever the others' p-values, and it fails on that change point, named
// and with its p-value. The trend's hinge test resolves p-values far below
// a permutation test's, and would otherwise name the window's start for a
// fresh step.
func (gs *GateSeries) decisive(strict float64) {
	if !gs.Candidate {
		return
	}
	best, step := 0, -1
	for i, t := range gs.Tests {
		if t.P/t.Weight < gs.Tests[best].P/gs.Tests[best].Weight || math.IsNaN(gs.Tests[best].P) {
			best = i
		}
		if !t.Trend && t.P/t.Weight <= strict && (step < 0 || t.P/t.Weight < gs.Tests[step].P/gs.Tests[step].Weight) {
			step = i
		}
	}
	if gs.Tests[best].Trend && step >= 0 {
		best = step
	}
	t := &gs.Tests[best]
	gs.P = min(1, t.P/t.Weight)
	c := t.Change
	gs.Change, gs.SegmentFrom, gs.Ack, gs.Decisive = &c, t.RefFrom, nil, t
}

// ackFor returns the acknowledgement covering a change point of gs at
// experiment index, nil for none.
func (opt GateOptions) ackFor(gs *GateSeries, index int, expIndex map[string]int) *Ack {
	for i, a := range opt.Acks {
		if e, ok := expIndex[a.Experiment]; ok && a.covers(gs.Type, gs.Payload, gs.Magnitude) && e >= index-AckSlack && e <= index+AckSlack {
			return &opt.Acks[i]
		}
	}
	return nil
}

// finite returns the values of x that are not NaN gaps.
func finite(x []float64) []float64 { return slices.DeleteFunc(slices.Clone(x), math.IsNaN) }

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
	return fmt.Sprintf("change point rule: a series fails when, after any change point that %s and %s, its level (the newest segment) "+
		"is slower than the segment before that change point by more than %s (--min-change) and a permutation test of the two "+
		"(pre-whitened for lag-1 autocorrelation) finds that significant, or when its values since the window's start rise by more "+
		"than %s along Sen's line and a test of that rise against the values before the window (least squares, or Mann–Kendall over the window; corrected for lag-1 autocorrelation) finds that significant; "+
		"a series' tests share its level (weighted Bonferroni); Holm over N = %d series at family-wise level %g; series by the rule that decided: %s",
		window, acks, numflag.Percent(g.Options.MinChange), numflag.Percent(g.Options.MinChange), len(g.Series), g.Alpha, strings.Join(tally, ", "))
}

// count returns the number of series decided by rule.
func (g *GateResult) count(rule string) int {
	return countFunc(g.Series, func(s GateSeries) bool { return s.Rule == rule })
}

// countFunc returns the number of elements of s that f holds for.
func countFunc[E any](s []E, f func(E) bool) int {
	n := 0
	for _, e := range s {
		if f(e) {
			n++
		}
	}
	return n
}

// changeRule is the gate's rule for one judged series: it fails when the
// series' p-value (GateSeries.P) is rejected by Holm over every
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
	shift, since := shiftText(s.Change.Ratio), r.h.Experiments[s.Change.Index].Label()
	before, after := result.Format3(s.Change.Before), result.Format3(s.Change.After)+" "+result.UnitText(m.Unit)
	c.Message = fmt.Sprintf("%s since %s (median %s -> %s", shift, since, before, after)
	if t := s.Decisive; t != nil {
		if t.Trend {
			how := "Mann–Kendall corrected for lag-1 autocorrelation"
			if hg := s.Hinge; hg != nil {
				how = fmt.Sprintf("a rise from it against the %d experiments before it, least squares corrected for lag-1 autocorrelation", hg.Start)
			}
			c.Message = fmt.Sprintf("%s over the %d experiments since %s (Sen's line %s -> %s, %s",
				shift, t.CurTo-t.CurFrom, r.h.Experiments[t.CurFrom].Label(), before, after, how)
		} else if t.CurFrom != s.Change.Index || t.CurTo != len(r.h.Experiments) {
			c.Message = fmt.Sprintf("%s since %s (median %s before it -> %s since %s", shift, since, before, after,
				r.h.Experiments[t.CurFrom].Label())
		}
		if len(s.Tests) > 1 {
			c.Message += fmt.Sprintf(", the most significant of %d shifts tested", len(s.Tests))
		}
	}
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
		c.Message += fmt.Sprintf("): %s %s", RuleBelowMin, numflag.Percent(r.minChange))
	default:
		c.Message += "): " + s.Rule
	}
	if t := s.Decisive; t != nil {
		nRef := t.Change.Index - t.RefFrom
		if t.Trend {
			nRef = 0
		}
		c.Stats = &gate.Stats{NReference: nRef, NCandidate: t.CurTo - t.CurFrom,
			Estimate: s.Change.Ratio, Low: math.NaN(), High: math.NaN(), Tail: d.Level, PassTail: math.NaN(), Confidence: math.NaN(),
			P: s.P, PAdjusted: d.Adjusted, Dispersion: math.NaN(), NeedRuns: -1, Gateable: true}
	}
	return c
}

// judgedMetrics names the magnitudes of the judged series: the latency
// ones of --gate-metrics when a latency series is judged, then throughput's
// and the burst columns judged. It named --gate-metrics whatever was
// judged: "(Median, 99%)" of a history of burst series alone. With no
// series judged, --gate-metrics.
func (g *GateResult) judgedMetrics() string {
	var latency bool
	var others []string
	for _, s := range g.Series {
		switch {
		case slices.Contains(g.Options.Metrics, s.Magnitude):
			latency = true
		case s.Magnitude == result.MessageRate.Name:
			others = appendNew(others, "throughput "+s.Magnitude)
		default:
			others = appendNew(others, "burst "+s.Magnitude)
		}
	}
	var parts []string
	if latency || len(g.Series) == 0 {
		parts = append(parts, strings.Join(g.Options.Metrics, ", "))
	}
	return strings.Join(append(parts, others...), "; ")
}

// appendNew appends v to list unless it holds it.
func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// Summary is one sentence on the verdict, e.g. "failed: 3 of 44 series
// (Median, 99%) end in a significant slowdown".
func (g *GateResult) Summary() string {
	metrics := g.judgedMetrics()
	cands := countFunc(g.Series, func(s GateSeries) bool { return s.Candidate })
	window := fmt.Sprintf("gate window: newest %d experiments", g.Options.Window)
	if g.Options.Window == 0 {
		window = "gate window: every experiment"
	}
	rules := fmt.Sprintf("%s; min change %s", window, numflag.Percent(g.Options.MinChange))
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
		return fmt.Sprintf("failed: %d of %d series (%s) end in a significant slowdown, against the level before a change point in the window or along its trend (%s; Holm, family-wise level %g, N = %d%s)",
			len(g.Failures()), len(g.Series), metrics, rules, g.Alpha, len(g.Series), short)
	}
	return fmt.Sprintf("passed: no newest segment of %d series (%s) is a significant slowdown, against the level before any change point in the window or along its trend (%d candidate(s) tested; %s; Holm, family-wise level %g, N = %d%s)",
		len(g.Series), metrics, cands, rules, g.Alpha, len(g.Series), short)
}
