package history

import (
	"context"
	"fmt"
	"math"
	"runtime"
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
// do not depend on the order series are analysed in.
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
	type job struct{ s, m, p int }
	var jobs []job
	for si, s := range h.SubExperiments {
		s.Changes = make([][]SeriesChanges, len(s.Mags()))
		for m := range s.Mags() {
			s.Changes[m] = make([]SeriesChanges, len(s.Payloads))
			for p := range s.Payloads {
				jobs = append(jobs, job{si, m, p})
			}
		}
	}
	var (
		mu       sync.Mutex
		firstErr error
	)
	err := parallel.Each(ctx, opt.Workers, len(jobs), func(i int) {
		j := jobs[i]
		s := h.SubExperiments[j.s]
		o := opt.Options
		o.Seed = seriesSeed(opt.Seed, i)
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
	h.changesDetected = true
	return nil
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

// GateOptions say what history --gate judges.
type GateOptions struct {
	// Metrics are the magnitudes judged (Magnitudes entries).
	Metrics []string
	// Threshold is the least relative slowdown that fails, e.g. 0.05: a
	// newest segment 3 % slower than the one before passes at 0.05.
	Threshold float64
}

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
	// Candidate: the newest segment is slower than the one before by more
	// than the threshold, so it was tested.
	Candidate bool
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
		if indexOf(Magnitudes, m) < 0 {
			return nil, fmt.Errorf("gate metric %q: expected one of %s", m, strings.Join(Magnitudes, ", "))
		}
	}
	co := h.ChangeOptions
	g := &GateResult{Options: opt, Alpha: co.Alpha}
	n := len(h.Experiments)
	for _, s := range h.SubExperiments {
		metrics := opt.Metrics
		if s.Throughput || s.Burst {
			// Throughput and burst series are always judged.
			metrics = s.Mags()
		}
		for _, mag := range metrics {
			m := indexOf(s.Mags(), mag)
			for p, b := range s.Payloads {
				sc := s.Changes[m][p]
				if sc.Reason != "" {
					g.Short++
					continue
				}
				gs := GateSeries{Type: s.Type, Payload: b, Magnitude: mag, P: math.NaN()}
				if k := len(sc.ChangePoints); k > 0 {
					c := sc.ChangePoints[k-1]
					gs.Change = &c
					gs.SegmentFrom = sc.From
					if k > 1 {
						gs.SegmentFrom = sc.ChangePoints[k-2].Index
					}
					gs.Candidate = regressed(mag, c.Ratio) && math.Abs(c.Ratio-1) > opt.Threshold
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
		x := s.Values[indexOf(s.Mags(), gs.Magnitude)][indexOfInt(s.Payloads, gs.Payload)]
		// Any p-value above Alpha is never rejected by Holm: stop there.
		p, err := changepoint.LocalTest(x, gs.SegmentFrom, n, co.MinSegment, g.Permutations, seriesSeed(co.Seed^0x6761746500000000, k), co.Alpha)
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
		rules[i] = changeRule{h, &g.Series[i], opt.Threshold}
	}
	g.Verdict = &gate.Verdict{Tool: "history", Baseline: "each series' previous segment", ReferenceName: "previous segment", FalseFail: co.Alpha,
		Mode: fmt.Sprintf("change point (the newest segment of each series against the one before, permutation test; Holm over %d series at family-wise level %g)", S, co.Alpha)}
	g.Verdict.Add(gate.Family{Correction: gate.Holm, Alpha: co.Alpha}.Judge(rules)...)
	g.Verdict.Finish()
	if S == 0 {
		need := 2 * co.MinSegment
		g.Verdict.Status = gate.Inconclusive
		g.Verdict.Warn(fmt.Sprintf("no series has the %d values a test needs: take at least %d experiments", need, need))
	}
	return g, nil
}

// changeRule is the gate's rule for one judged series: its newest segment
// fails when the permutation test's p-value is rejected by Holm over every
// judged series; those that are not candidates (or whose test did not run)
// belong to the family with p = 1.
type changeRule struct {
	h         *History
	s         *GateSeries
	threshold float64
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
		c.Status, c.Threshold = gate.Passed, r.threshold
		return c
	}
	c := gate.Evaluate(s.Type, s.Payload, m, "previous segment", s.Change.Before, r.threshold, s.Change.After)
	c.Status = gate.Passed
	c.Message = fmt.Sprintf("%s since %s (median %s -> %s %s", shiftText(s.Change.Ratio), r.h.Experiments[s.Change.Index].Label(),
		result.Format3(s.Change.Before), result.Format3(s.Change.After), m.Unit)
	switch {
	case s.Failed:
		c.Status = gate.Failed
		what := ""
		if m.Better == result.HigherIsBetter {
			what = ", a throughput drop (higher is better)"
		}
		c.Message += fmt.Sprintf(", p = %s <= %s%s)", formatP(s.P), formatP(s.Level), what)
	case s.Candidate:
		c.Message += fmt.Sprintf(", p = %s > %s): not significant", formatP(s.P), formatP(s.Level))
	default:
		c.Message += "): not a slowdown beyond the threshold"
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
		if s.Type == typ && indexOf(s.Mags(), magnitude) >= 0 {
			return s
		}
	}
	return nil
}

func indexOfInt(list []int, v int) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
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
	short := ""
	if g.Short > 0 {
		short = fmt.Sprintf("; %d series too short to test", g.Short)
	}
	if len(g.Series) == 0 {
		return fmt.Sprintf("inconclusive: no series (%s) long enough to test%s", metrics, short)
	}
	if g.Failed() {
		return fmt.Sprintf("failed: %d of %d series (%s) end in a significant slowdown (Holm, family-wise level %g%s)",
			len(g.Failures()), len(g.Series), metrics, g.Alpha, short)
	}
	return fmt.Sprintf("passed: no newest segment of %d series (%s) is a significant slowdown (%d candidate(s) tested; Holm, family-wise level %g%s)",
		len(g.Series), metrics, cands, g.Alpha, short)
}
