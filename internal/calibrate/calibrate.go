package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/parallel"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// Key names one check of the gate: what gate.Series names, without data.
type Key struct {
	SubExperiment string
	Payload       int
	Metric        result.Metric
	Threshold     float64
}

// Pool is a set of unchanged runs: Values[k][r] is check Keys[k]'s value in
// run r. Runs are in chronological order (the order SplitOrdered uses).
type Pool struct {
	Keys   []Key
	Values [][]float64
	// RunNames name the runs, for reports (may be empty).
	RunNames []string
}

// Runs returns the number of runs in p.
func (p Pool) Runs() int {
	if len(p.Values) == 0 {
		return len(p.RunNames)
	}
	return len(p.Values[0])
}

// Split modes.
const (
	// SplitRandom draws the reference and candidate halves at random
	// (seeded) from the pool, without overlap: the rate measured is the
	// gate's rate when runs are exchangeable.
	SplitRandom = "random"
	// SplitOrdered takes consecutive blocks in run order, reference before
	// candidate, at every offset: as in CI, where the candidate runs later;
	// slow drift of the machine shows up as false fails here.
	SplitOrdered = "ordered"
	// SplitBlocked takes a window of consecutive runs at every offset, as
	// SplitOrdered, and deals it to the sides in alternating blocks, half
	// of each side's runs per block, reference first (ABAB), as runs taken
	// in alternating blocks would be: drift between blocks shows, slow
	// drift across the window mostly cancels.
	SplitBlocked = "blocked"
)

// SplitNote says what a split mode can see of drift, for every report.
func SplitNote(mode string) string {
	switch mode {
	case SplitOrdered:
		return "ordered splits (reference runs before candidate runs, as CI takes them): drift over the pool shows as false fails"
	case SplitBlocked:
		return "blocked splits (alternating blocks of consecutive runs): drift between blocks shows; slow drift across a window mostly cancels, as with interleaved runs"
	}
	return "random splits are exchangeable by construction: they cannot see drift, and report about the level whatever the time structure; --split ordered (as CI takes runs) or blocked shows it"
}

// Options say how to calibrate.
type Options struct {
	// Gate is the gate calibrated; nil means the compare gate,
	// CompareGate{FalseFail}.
	Gate Gate
	// PerSide is the runs per side N of a symmetric split; 0 means half the
	// pool. Reference and Candidate, when set, size the sides apart (a
	// check's baseline and candidate runs).
	PerSide int
	// Reference is the runs of the reference side (the baseline a
	// requirements file is derived from); 0 means PerSide.
	Reference int
	// Candidate is the runs of the candidate side; 0 means PerSide.
	Candidate int
	// Splits is how many random splits to judge (SplitRandom); default 200.
	Splits int
	// Split is SplitRandom (default), SplitOrdered or SplitBlocked.
	Split string
	// Seed seeds the random splits.
	Seed uint64
	// FalseFail is the gate's family-wise level (gate.DefaultFalseFail if 0).
	FalseFail float64
	// Factors are the regressions injected for the power curve: every
	// candidate value is made worse by the factor (latency × f, throughput
	// ÷ f). Default DefaultFactors.
	Factors []float64
	// Power is the detection rate sought (default 0.95).
	Power float64
	// Thresholds, when set, are thresholds (compare --fail-threshold,
	// check --margin) at which the unchanged splits are judged again, for
	// the verdict shares per threshold (Result.Thresholds); the gate must
	// be a Thresholder.
	Thresholds []float64
	// Regressed is how many runs at the end of the pool are runs of a
	// known, real regression (e.g. run --echo-delay) rather than unchanged
	// runs: the false-fail rate and power curve use the others only, and
	// the detection rate of the real regression judges unchanged reference
	// runs against regressed candidate runs (Result.Regression).
	Regressed int
}

// DefaultFactors are the regressions of the power curve: +2 % to +100 %.
var DefaultFactors = []float64{1.02, 1.05, 1.1, 1.15, 1.2, 1.3, 1.5, 1.75, 2}

// Rate is a count of successes out of trials with its Clopper–Pearson 95 %
// interval.
type Rate struct {
	Count  int     `json:"count"`
	Trials int     `json:"trials"`
	Rate   float64 `json:"rate"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// Point is one point of the power curve.
type Point struct {
	Factor float64 `json:"factor"`
	// Gate is the rate at which the whole gate fails (detects the
	// regression); Check the rate at which a single check fails.
	Gate  Rate `json:"gate"`
	Check Rate `json:"check"`
	// Passed and Inconclusive are the rates of the gate's other two
	// verdicts: with Gate they add up to every split.
	Passed       Rate `json:"passed"`
	Inconclusive Rate `json:"inconclusive"`
}

// Result is a calibration.
type Result struct {
	// Gate names the gate calibrated: "compare" or "check".
	Gate string `json:"gate"`
	// Description says how the gate judged, for reports (may be empty).
	Description string `json:"description,omitempty"`
	Runs        int    `json:"runs"`
	// PerSide is the runs per side of a symmetric split, 0 otherwise;
	// Reference and Candidate are the runs of each side.
	PerSide   int `json:"per_side"`
	Reference int `json:"reference_runs"`
	Candidate int `json:"candidate_runs"`
	// Checks is the number of checks a split judges.
	Checks    int     `json:"checks"`
	Split     string  `json:"split"`
	Seed      uint64  `json:"seed"`
	FalseFail float64 `json:"false_fail_level"`
	// Measured on the unchanged splits: the whole gate failing (false
	// fail), inconclusive, passed.
	FalseFails   Rate `json:"false_fails"`
	Inconclusive Rate `json:"inconclusive"`
	Passed       Rate `json:"passed"`
	// Curve is the power curve over the factors; Detect the smallest factor
	// whose gate detection rate reaches Power (NaN when none does), and
	// DetectCheck the same for a single check.
	Power       float64 `json:"power"`
	Curve       []Point `json:"curve"`
	Detect      float64 `json:"detect"`
	DetectCheck float64 `json:"detect_check"`
	// Notes are what the gate says about itself at these runs (e.g. the
	// candidate runs a distribution-free check needs before it can fail).
	Notes []string `json:"notes"`
	// Regressed is the number of runs of a real regression in the pool and
	// Regression the gate's verdicts with their candidate runs drawn from
	// them (Gate: detected); nil without such runs.
	Regressed  int    `json:"regressed_runs"`
	Regression *Point `json:"regression"`
	// ThresholdName names the gate's threshold ("--fail-threshold",
	// "--margin") and Thresholds are the unchanged splits' verdicts at each
	// of Options.Thresholds (Point.Factor is 1, Point.Gate the false fails).
	ThresholdName string           `json:"threshold_name,omitempty"`
	Thresholds    []ThresholdPoint `json:"thresholds,omitempty"`
	// SplitNote says what the split mode can see of drift (SplitNote).
	SplitNote string `json:"split_note"`
	// HeldOut validates the threshold chosen from Thresholds on runs the
	// choice did not see; nil without Thresholds or when the pool is too
	// small to hold runs out (a note says so).
	HeldOut *HeldOut `json:"held_out,omitempty"`
}

// HeldOut is the validation of the threshold a calibration would choose:
// the pool, in run order, is cut in two; the smallest threshold whose
// false-fail rate on the unchanged splits of the first part is at most the
// level is chosen there, and judged again on splits of the later part
// alone. A rate above the level there says the choice fitted the first
// runs' noise (or the machine drifted).
type HeldOut struct {
	// Chosen is the threshold chosen; null (NaN) when none of those tried
	// keeps the first part's false fails within the level.
	Chosen jsonFactor `json:"chosen"`
	// ChooseRuns are the first runs, HeldRuns the later ones.
	ChooseRuns int `json:"choose_runs"`
	HeldRuns   int `json:"held_runs"`
	// Choose and Held are the false fails at Chosen on each part's splits.
	Choose Rate `json:"choose"`
	Held   Rate `json:"held"`
	// Undecided says that no threshold was chosen because at every one
	// tried the gate decided none of the first part's splits (all
	// inconclusive): a gate that cannot fail has no false fails to count.
	Undecided bool `json:"undecided,omitempty"`
}

// ThresholdPoint is the verdicts of the unchanged splits at one threshold.
type ThresholdPoint struct {
	Threshold    float64 `json:"threshold"`
	Failed       Rate    `json:"failed"`
	Inconclusive Rate    `json:"inconclusive"`
	Passed       Rate    `json:"passed"`
}

// Thresholder is a Gate whose threshold can be changed: compare's
// --fail-threshold, check's --margin.
type Thresholder interface {
	Gate
	// ThresholdName names the threshold as the user sets it.
	ThresholdName() string
	// WithThreshold returns the gate judging at threshold t.
	WithThreshold(t float64) Gate
}

// SplitFlagsUsed refuses --splits and --seed (given says which were) with
// ordered or blocked splits, which are the consecutive ones the runs make,
// neither drawn nor counted: the flags were ignored without a word.
func SplitFlagsUsed(split string, splits, seed bool) error {
	flag := ""
	switch {
	case split != SplitOrdered && split != SplitBlocked:
	case splits:
		flag = "splits"
	case seed:
		flag = "seed"
	}
	if flag == "" {
		return nil
	}
	return fmt.Errorf("--%s applies to random splits: --split %s judges the consecutive splits the runs make, neither drawn nor counted; leave it out", flag, split)
}

func rate(k, n int) Rate {
	lo, hi := dist.ClopperPearson(k, n, 0.05)
	r := Rate{Count: k, Trials: n, Low: lo, High: hi, Rate: math.NaN()}
	if n > 0 {
		r.Rate = float64(k) / float64(n)
	}
	return r
}

// split is one reference/candidate division of the runs.
type split struct{ ref, cand []int }

func (o *Options) defaults(runs int) error {
	if o.PerSide == 0 && o.Reference == 0 && o.Candidate == 0 {
		o.PerSide = runs / 2
	}
	o.Reference, o.Candidate = cmp.Or(o.Reference, o.PerSide), cmp.Or(o.Candidate, o.PerSide)
	if o.Reference == 0 && o.Candidate > 0 {
		o.Reference = runs - o.Candidate
	}
	if o.Candidate == 0 && o.Reference > 0 {
		o.Candidate = runs - o.Reference
	}
	if o.Reference == o.Candidate {
		o.PerSide = o.Reference
	} else {
		o.PerSide = 0
	}
	switch {
	case o.PerSide != 0 && o.PerSide < 2:
		return fmt.Errorf("calibration needs at least 2 runs per side, so at least 4 unchanged runs; got %d", runs)
	case o.PerSide != 0 && 2*o.PerSide > runs:
		return fmt.Errorf("%d runs per side need at least %d unchanged runs; the pool has %d", o.PerSide, 2*o.PerSide, runs)
	case o.Reference < 2:
		return fmt.Errorf("calibration needs at least 2 reference runs; got %d (the pool has %d runs)", o.Reference, runs)
	case o.Candidate < 1:
		return fmt.Errorf("calibration needs at least 1 candidate run; got %d (the pool has %d runs)", o.Candidate, runs)
	case o.Reference+o.Candidate > runs:
		return fmt.Errorf("%d reference and %d candidate runs need at least %d unchanged runs; the pool has %d",
			o.Reference, o.Candidate, o.Reference+o.Candidate, runs)
	}
	o.Splits, o.Split = cmp.Or(o.Splits, 200), cmp.Or(o.Split, SplitRandom)
	if o.Split != SplitRandom && o.Split != SplitOrdered && o.Split != SplitBlocked {
		return fmt.Errorf("unknown split %q: expected %s, %s or %s", o.Split, SplitRandom, SplitOrdered, SplitBlocked)
	}
	o.FalseFail = cmp.Or(o.FalseFail, gate.DefaultFalseFail)
	if o.Factors == nil {
		o.Factors = DefaultFactors
	}
	for _, f := range o.Factors {
		if !(f > 1) || math.IsInf(f, 0) {
			return fmt.Errorf("regression factor %v: expected a number above 1 (1.1 = 10 %% worse)", f)
		}
	}
	o.Power = cmp.Or(o.Power, 0.95)
	o.Gate = cmp.Or(o.Gate, Gate(CompareGate{FalseFail: o.FalseFail}))
	return nil
}

func (o Options) splits(runs int) []split {
	var out []split
	n, k := o.Reference, o.Candidate
	if o.Split != SplitRandom {
		for i := 0; i+n+k <= runs; i++ {
			if o.Split == SplitOrdered {
				out = append(out, split{seq(i, n), seq(i+n, k)})
			} else {
				out = append(out, blocked(i, n, k))
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6d71676174650a))
	for i := 0; i < o.Splits; i++ {
		perm := rng.Perm(runs)
		out = append(out, split{perm[:n], perm[n : n+k]})
	}
	return out
}

// regressionSplits draw the reference from the first unchanged runs of the
// pool and the candidate from the regressed runs after them: at random
// (seeded apart from splits), or, ordered, consecutive blocks with the
// candidate block starting where the reference block ends, as runs
// interleaved in time (run ab) would give in CI.
func (o Options) regressionSplits(unchanged int) []split {
	var out []split
	n, k := o.Reference, min(o.Candidate, o.Regressed)
	if o.Split != SplitRandom {
		for i := 0; i+n <= unchanged; i++ {
			from := min(i+n, o.Regressed-k)
			out = append(out, split{seq(i, n), seq(unchanged+from, k)})
		}
		return out
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6d71676174650b))
	for i := 0; i < o.Splits; i++ {
		ref := rng.Perm(unchanged)[:n]
		cand := rng.Perm(o.Regressed)[:k]
		for j := range cand {
			cand[j] += unchanged
		}
		out = append(out, split{ref, cand})
	}
	return out
}

// blocked deals the n+k runs from from on to the sides in alternating
// blocks: half the reference runs (rounded up), half the candidate runs,
// the other reference half, the other candidate half.
func blocked(from, n, k int) split {
	r1, c1 := (n+1)/2, (k+1)/2
	return split{
		ref:  append(seq(from, r1), seq(from+r1+c1, n-r1)...),
		cand: append(seq(from+r1, c1), seq(from+n+c1, k-c1)...),
	}
}

func seq(from, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = from + i
	}
	return s
}

// Outcome is a gate's verdict on one split: its status, and how many of
// its checks failed out of how many it judged.
type Outcome struct {
	Status         gate.Status
	Failed, Checks int
}

// OutcomeOf finishes v and keeps its outcome.
func OutcomeOf(v *gate.Verdict) Outcome {
	v.Finish()
	return Outcome{Status: v.Status, Failed: v.Failed, Checks: len(v.Checks)}
}

// Gate is a gate to calibrate: it judges one split of a pool as a user's
// gate run would judge real runs.
type Gate interface {
	// Name names the gate in reports ("compare", "check").
	Name() string
	// Describe says how the gate judges, in one line for reports.
	Describe() string
	// Judge judges the split whose reference (baseline) runs are ref and
	// candidate runs cand, once per factor: with every candidate value made
	// worse by it (latency × f, throughput ÷ f, see Worse). factors[0] is
	// 1, the unchanged system.
	Judge(pool Pool, ref, cand []int, factors []float64) ([]Outcome, error)
	// Notes says what a user should know about the gate at r's runs, e.g.
	// checks that cannot fail with so few candidate runs.
	Notes(pool Pool, r *Result) []string
}

// Worse returns value v of metric m made worse by factor f: v·f when lower
// is better, v/f when higher is.
func Worse(m result.Metric, v, f float64) float64 {
	if m.Better == result.HigherIsBetter {
		return v / f
	}
	return v * f
}

// CompareGate is the statistical gate of compare (formats §8): gate.Judge
// over every check of the pool at once, Holm's correction at FalseFail.
type CompareGate struct {
	FalseFail float64
	// Threshold, when set, replaces every check's own threshold (the
	// pool's Key.Threshold); nil keeps them.
	Threshold *float64
}

// ThresholdName implements Thresholder.
func (CompareGate) ThresholdName() string { return "--fail-threshold" }

// WithThreshold implements Thresholder: every check at threshold t.
func (g CompareGate) WithThreshold(t float64) Gate {
	g.Threshold = &t
	return g
}

// Name implements Gate.
func (CompareGate) Name() string { return "compare" }

// Describe implements Gate.
func (g CompareGate) Describe() string {
	return fmt.Sprintf("compare: Hodges–Lehmann ratio with its Mann–Whitney interval, p the larger of Mann–Whitney's and Welch's on the log values, Holm at family-wise false-fail level %s", pct(g.FalseFail))
}

// Judge implements Gate.
func (g CompareGate) Judge(pool Pool, ref, cand []int, factors []float64) ([]Outcome, error) {
	out := make([]Outcome, len(factors))
	for f, factor := range factors {
		series := pool.series(split{ref, cand}, factor)
		if g.Threshold != nil {
			for i := range series {
				series[i].Threshold = *g.Threshold
			}
		}
		v := gate.Verdict{}
		v.Add(gate.Judge(series, g.FalseFail, "reference")...)
		out[f] = OutcomeOf(&v)
	}
	return out, nil
}

// Notes implements Gate.
func (CompareGate) Notes(Pool, *Result) []string { return nil }

// Run calibrates a gate (opt.Gate, by default compare's) on pool: it judges
// every split of the unchanged runs into reference and candidate runs as
// the gate would judge a real comparison, counting how often the whole gate
// fails (the false-fail rate), passes or is inconclusive, and again with
// every candidate value made worse by each factor (the power curve).
func Run(ctx context.Context, pool Pool, opt Options) (*Result, error) {
	runs, err := opt.prepare(pool)
	if err != nil {
		return nil, err
	}
	splits := opt.splits(runs)
	factors := append([]float64{1}, opt.Factors...)
	// out[s][f]: the outcome of split s at factor f.
	out, err := judgeAll(ctx, opt.Gate, pool, splits, factors)
	if err != nil {
		return nil, err
	}
	tg, byThreshold, err := opt.judgeThresholds(ctx, pool, splits)
	if err != nil {
		return nil, err
	}
	heldOut, heldNote, err := opt.heldOut(ctx, tg, pool, runs)
	if err != nil {
		return nil, err
	}

	res := &Result{Gate: opt.Gate.Name(), Description: opt.Gate.Describe(), Runs: runs, PerSide: opt.PerSide,
		Reference: opt.Reference, Candidate: opt.Candidate, Checks: len(pool.Keys), Split: opt.Split, Seed: opt.Seed,
		FalseFail: opt.FalseFail, Power: opt.Power, Detect: math.NaN(), DetectCheck: math.NaN(),
		SplitNote: SplitNote(opt.Split), HeldOut: heldOut}
	if len(out) > 0 && len(out[0]) > 0 {
		res.Checks = out[0][0].Checks
	}
	if opt.Split != SplitRandom {
		res.Seed = 0
	}
	res.addCurve(out, factors, opt.Power)
	if opt.Regressed > 0 {
		regression, err := judgeAll(ctx, opt.Gate, pool, opt.regressionSplits(runs), []float64{1})
		if err != nil {
			return nil, err
		}
		p := countAt(regression, 0, 1)
		res.Regressed, res.Regression = opt.Regressed, &p
	}
	if tg != nil {
		res.ThresholdName = tg.ThresholdName()
		for i, t := range opt.Thresholds {
			p := countAt(byThreshold[i], 0, 1)
			res.Thresholds = append(res.Thresholds, ThresholdPoint{Threshold: t, Failed: p.Gate, Inconclusive: p.Inconclusive, Passed: p.Passed})
		}
	}
	res.Notes = opt.Gate.Notes(pool, res)
	if heldNote != "" {
		res.Notes = append(res.Notes, heldNote)
	}
	return res, nil
}

// prepare checks pool against o and fills in o's defaults; runs are the
// pool's unchanged runs.
func (o *Options) prepare(pool Pool) (runs int, err error) {
	runs = pool.Runs()
	if len(pool.Keys) == 0 {
		return 0, errors.New("calibration needs at least one check")
	}
	for k, v := range pool.Values {
		if len(v) != runs {
			return 0, fmt.Errorf("check %d has %d values for %d runs", k, len(v), runs)
		}
	}
	if o.Regressed < 0 || o.Regressed >= runs {
		return 0, fmt.Errorf("%d regressed runs in a pool of %d: expected unchanged runs besides them", o.Regressed, runs)
	}
	runs -= o.Regressed
	if err := o.defaults(runs); err != nil {
		return 0, err
	}
	return runs, nil
}

// judgeThresholds judges every split with the gate at each of
// o.Thresholds (byThreshold[i][s][0]); tg is the gate as a Thresholder,
// nil without thresholds.
func (o Options) judgeThresholds(ctx context.Context, pool Pool, splits []split) (tg Thresholder, byThreshold [][][]Outcome, err error) {
	if len(o.Thresholds) > 0 {
		var ok bool
		if tg, ok = o.Gate.(Thresholder); !ok {
			return nil, nil, fmt.Errorf("the %s gate has no threshold to vary", o.Gate.Name())
		}
	}
	byThreshold = make([][][]Outcome, len(o.Thresholds))
	for i, t := range o.Thresholds {
		if !(t >= 0) || math.IsInf(t, 0) {
			return nil, nil, fmt.Errorf("threshold %v: expected a number ≥ 0 (0.1 = 10 %%)", t)
		}
		if byThreshold[i], err = judgeAll(ctx, tg.WithThreshold(t), pool, splits, []float64{1}); err != nil {
			return nil, nil, err
		}
	}
	return tg, byThreshold, nil
}

// addCurve sets the rates of the unchanged runs (factor index 0 of out) and
// the power curve over the other factors, with the smallest factor the
// gate, and a check, detects at the rate power.
func (res *Result) addCurve(out [][]Outcome, factors []float64, power float64) {
	unchanged := countAt(out, 0, factors[0])
	res.FalseFails, res.Inconclusive, res.Passed = unchanged.Gate, unchanged.Inconclusive, unchanged.Passed
	for f := 1; f < len(factors); f++ {
		p := countAt(out, f, factors[f])
		res.Curve = append(res.Curve, p)
		if math.IsNaN(res.Detect) && p.Gate.Rate >= power {
			res.Detect = p.Factor
		}
		if math.IsNaN(res.DetectCheck) && p.Check.Rate >= power {
			res.DetectCheck = p.Factor
		}
	}
}

// countAt counts the outcomes of every split at factor index f of out (the
// factor, factor, is what the point records).
func countAt(out [][]Outcome, f int, factor float64) Point {
	n, status := len(out), map[gate.Status]int{}
	var checksFailed, checks int
	for _, o := range out {
		status[o[f].Status]++
		checksFailed += o[f].Failed
		checks += o[f].Checks
	}
	return Point{Factor: factor, Gate: rate(status[gate.Failed], n), Check: rate(checksFailed, checks),
		Passed: rate(status[gate.Passed], n), Inconclusive: rate(status[gate.Inconclusive], n)}
}

// heldOut chooses a threshold on the first half of the unchanged runs and
// judges it on the second (HeldOut); a note instead when there are no
// thresholds or too few runs.
func (o Options) heldOut(ctx context.Context, tg Thresholder, pool Pool, runs int) (*HeldOut, string, error) {
	if tg == nil {
		return nil, "", nil
	}
	first := runs / 2
	if o.Reference+o.Candidate > runs-first {
		return nil, fmt.Sprintf("%s not validated on held-out runs: each half of the %d unchanged runs is smaller than the %d reference and %d candidate runs a split needs (ask for fewer to validate the choice)",
			tg.ThresholdName(), runs, o.Reference, o.Candidate), nil
	}
	part := func(from, n int) []split {
		ss := o.splits(n)
		for _, s := range ss {
			for _, side := range [][]int{s.ref, s.cand} {
				for j := range side {
					side[j] += from
				}
			}
		}
		return ss
	}
	choose, held := part(0, first), part(first, runs-first)
	h := &HeldOut{Chosen: jsonFactor(math.NaN()), ChooseRuns: first, HeldRuns: runs - first, Undecided: true}
	for _, t := range slices.Sorted(slices.Values(o.Thresholds)) {
		out, err := judgeAll(ctx, tg.WithThreshold(t), pool, choose, []float64{1})
		if err != nil {
			return nil, "", err
		}
		// A threshold at which every split stayed inconclusive was
		// chosen for its 0 false fails: the gate could not fail there.
		p := countAt(out, 0, 1)
		if p.Inconclusive.Count == p.Inconclusive.Trials {
			continue
		}
		h.Undecided = false
		if p.Gate.Rate <= o.FalseFail {
			h.Chosen, h.Choose = jsonFactor(t), p.Gate
			break
		}
	}
	if math.IsNaN(float64(h.Chosen)) {
		return h, "", nil
	}
	out, err := judgeAll(ctx, tg.WithThreshold(float64(h.Chosen)), pool, held, []float64{1})
	if err != nil {
		return nil, "", err
	}
	h.Held = countAt(out, 0, 1).Gate
	return h, "", nil
}

// judgeAll judges every split at every factor, on every processor;
// out[s][f] is split s's outcome at factors[f].
func judgeAll(ctx context.Context, g Gate, pool Pool, splits []split, factors []float64) ([][]Outcome, error) {
	out := make([][]Outcome, len(splits))
	errs := make([]error, len(splits))
	if err := parallel.Each(ctx, 0, len(splits), func(s int) {
		out[s], errs[s] = g.Judge(pool, splits[s].ref, splits[s].cand, factors)
	}); err != nil {
		return nil, err
	}
	// Splits of one pool mostly fail alike (a rank above the reference
	// runs): each distinct error once, where 200 splits printed it 200
	// times.
	var distinct []error
	seen := map[string]bool{}
	for _, e := range errs {
		if e != nil && !seen[e.Error()] {
			seen[e.Error()] = true
			distinct = append(distinct, e)
		}
	}
	return out, errors.Join(distinct...)
}

// series is the compare gate's input for one split, the candidate made
// worse by factor.
func (p Pool) series(s split, factor float64) []gate.Series {
	ss := make([]gate.Series, len(p.Keys))
	for k, key := range p.Keys {
		se := gate.Series{SubExperiment: key.SubExperiment, Payload: key.Payload, Metric: key.Metric, Threshold: key.Threshold,
			Reference: make([]float64, len(s.ref)), Candidate: make([]float64, len(s.cand))}
		for i, r := range s.ref {
			se.Reference[i] = p.Values[k][r]
		}
		for i, r := range s.cand {
			se.Candidate[i] = Worse(key.Metric, p.Values[k][r], factor)
		}
		ss[k] = se
	}
	return ss
}
