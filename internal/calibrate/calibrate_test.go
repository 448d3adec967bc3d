package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/aclements/go-moremath/stats"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// synthPool makes runs of k independent checks, log-normal with run-to-run
// dispersion sd; drift makes run r's values worse by factor (1+drift)^r.
func synthPool(seed uint64, runs, k int, sd, threshold, drift float64) Pool {
	rng := rand.New(rand.NewPCG(seed, 1))
	p := Pool{}
	for i := 0; i < k; i++ {
		p.Keys = append(p.Keys, Key{SubExperiment: "s", Payload: 16 << i, Metric: result.Median, Threshold: threshold})
		v := make([]float64, runs)
		for r := range v {
			v[r] = 50 * math.Exp(sd*rng.NormFloat64()) * math.Pow(1+drift, float64(r))
		}
		p.Values = append(p.Values, v)
	}
	return p
}

// exactFalseFail is the true false-fail rate of a gate of k independent
// checks at threshold 0 with n runs per side when runs are exchangeable:
// Holm fails the gate when the smallest of k independent exact p-values is
// ≤ α/k, and a one-sided exact p-value is ≤ a with probability
// P(U ≤ u*) for the largest u* with P(U ≤ u*) ≤ a.
func exactFalseFail(n, k int, alpha float64) float64 {
	d := stats.UDist{N1: n, N2: n}
	q := 0.0
	for u := 0; u <= n*n; u++ {
		c := d.CDF(float64(u))
		if c > alpha/float64(k)*(1+1e-9) {
			break
		}
		q = c
	}
	return 1 - math.Pow(1-q, float64(k))
}

// TestFalseFailRateKnown: on synthetic unchanged runs whose true false-fail
// rate is known in closed form, the measured rate's interval covers it.
func TestFalseFailRateKnown(t *testing.T) {
	for _, tt := range []struct {
		name        string
		runs, n, k  int
		alpha       float64
		splits      int
		wantAtLeast float64 // sanity: the case is not trivially 0
		wantAtMost  float64
	}{
		{"one check 5 per side", 10, 5, 1, 0.05, 2000, 0.04, 0.05},
		{"ten checks 6 per side, larger pool", 30, 6, 10, 0.2, 1000, 0.1, 0.2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pool := synthPool(7, tt.runs, tt.k, 0.05, 0, 0)
			r, err := Run(context.Background(), pool, Options{PerSide: tt.n, Splits: tt.splits, Seed: 3, FalseFail: tt.alpha, Factors: []float64{1.5}})
			if err != nil {
				t.Fatal(err)
			}
			want := exactFalseFail(tt.n, tt.k, tt.alpha)
			if want < tt.wantAtLeast || want > tt.wantAtMost {
				t.Fatalf("true rate %v outside [%v, %v]: the case does not test what it says", want, tt.wantAtLeast, tt.wantAtMost)
			}
			// A 99.9 % binomial band around the true rate: the test fails
			// by chance once in a thousand seeds, never for this one.
			se := math.Sqrt(want * (1 - want) / float64(tt.splits))
			if math.Abs(r.FalseFails.Rate-want) > 3.3*se {
				t.Errorf("measured %v (%d/%d), true %v", r.FalseFails.Rate, r.FalseFails.Count, r.FalseFails.Trials, want)
			}
			if !(r.FalseFails.Low <= r.FalseFails.Rate && r.FalseFails.Rate <= r.FalseFails.High) {
				t.Errorf("interval %+v", r.FalseFails)
			}
			if r.FalseFails.Count+r.Inconclusive.Count+r.Passed.Count != tt.splits {
				t.Errorf("outcomes do not add up: %+v", r)
			}
		})
	}
}

// TestDriftShowsInOrderedSplits: runs that get 1 % slower each are
// exchangeable for random splits (nominal false fails) but not in run
// order, where the candidate is always later: ordered splits fail.
func TestDriftShowsInOrderedSplits(t *testing.T) {
	pool := synthPool(9, 24, 5, 0.01, 0.02, 0.01)
	ordered, err := Run(context.Background(), pool, Options{PerSide: 8, Split: SplitOrdered, FalseFail: 0.01, Factors: []float64{2}})
	if err != nil {
		t.Fatal(err)
	}
	random, err := Run(context.Background(), pool, Options{PerSide: 8, Splits: 300, Seed: 1, FalseFail: 0.01, Factors: []float64{2}})
	if err != nil {
		t.Fatal(err)
	}
	if ordered.FalseFails.Trials != 24-16+1 || ordered.FalseFails.Rate < 0.99 {
		t.Errorf("ordered: %+v; 8 %% drift between blocks should fail every split", ordered.FalseFails)
	}
	if random.FalseFails.Rate > 0.05 {
		t.Errorf("random: %+v", random.FalseFails)
	}
}

// TestBlockedSplits: blocked splits deal windows of consecutive runs to
// the sides in alternating blocks, reference first; on the drifting pool of
// TestDriftShowsInOrderedSplits they fail far less often than ordered ones
// (the drift mostly cancels) and every output names the split and what it
// can see of drift.
func TestBlockedSplits(t *testing.T) {
	o := Options{Reference: 4, Candidate: 4, Split: SplitBlocked}
	ss := o.splits(10)
	if len(ss) != 3 || !slices.Equal(ss[1].ref, []int{1, 2, 5, 6}) || !slices.Equal(ss[1].cand, []int{3, 4, 7, 8}) {
		t.Errorf("blocked splits %v", ss)
	}
	if s := blocked(0, 6, 2); !slices.Equal(s.ref, []int{0, 1, 2, 4, 5, 6}) || !slices.Equal(s.cand, []int{3, 7}) {
		t.Errorf("6 and 2 runs: %+v", s)
	}
	pool := synthPool(9, 24, 5, 0.01, 0.02, 0.01)
	byMode := map[string]*Result{}
	for _, mode := range []string{SplitRandom, SplitOrdered, SplitBlocked} {
		r, err := Run(context.Background(), pool, Options{PerSide: 8, Split: mode, Splits: 100, Seed: 1, FalseFail: 0.01, Factors: []float64{2}})
		if err != nil {
			t.Fatal(err)
		}
		byMode[mode] = r
		var text, js bytes.Buffer
		if err := WriteText(&text, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		note := SplitNote(mode)
		if !strings.Contains(text.String(), "split: "+note) || !strings.Contains(js.String(), `"split_note": "`+note+`"`) || !strings.Contains(js.String(), `"split": "`+mode+`"`) ||
			!strings.Contains(PowerPlot(r).Title.Text, mode+" splits") {
			t.Errorf("%s: the outputs do not name the split:\n%s\n%s", mode, text.String(), js.String())
		}
		if !strings.Contains(note, "drift") {
			t.Errorf("%s: %q says nothing of drift", mode, note)
		}
	}
	if !strings.Contains(SplitNote(SplitRandom), "cannot see drift") {
		t.Errorf("random: %q", SplitNote(SplitRandom))
	}
	t.Logf("1 %% drift per run, 8 per side: false fails random %s, ordered %s, blocked %s",
		pct(byMode[SplitRandom].FalseFails.Rate), pct(byMode[SplitOrdered].FalseFails.Rate), pct(byMode[SplitBlocked].FalseFails.Rate))
	if b := byMode[SplitBlocked].FalseFails; b.Trials != 9 || b.Rate >= byMode[SplitOrdered].FalseFails.Rate {
		t.Errorf("blocked %+v, ordered %+v", b, byMode[SplitOrdered].FalseFails)
	}
}

// TestHeldOut: a threshold chosen on the first half of a pool (ordered
// splits) is judged again on the second. Steady runs: the held-out false
// fails stay near the level. Runs that start drifting 1 % per run in the
// second half (a machine that changed): the threshold chosen on the first
// half fails the later runs far above the level.
func TestHeldOut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		drift float64
		above bool
	}{{"steady", 0, false}, {"drift in the second half", 0.01, true}} {
		pool := synthPool(13, 60, 4, 0.02, 0, 0)
		for k := range pool.Values {
			for r := 30; r < 60; r++ {
				pool.Values[k][r] *= math.Pow(1+tc.drift, float64(r-30))
			}
		}
		r, err := Run(context.Background(), pool, Options{PerSide: 8, Split: SplitOrdered, FalseFail: 0.05, Factors: []float64{2},
			Thresholds: []float64{0, 0.01, 0.02, 0.05, 0.1}})
		if err != nil {
			t.Fatal(err)
		}
		h := r.HeldOut
		if h == nil || h.ChooseRuns != 30 || h.HeldRuns != 30 || math.IsNaN(float64(h.Chosen)) || h.Choose.Rate > 0.05 || h.Held.Trials != 15 {
			t.Fatalf("%s: held out %+v", tc.name, h)
		}
		var text bytes.Buffer
		WriteText(&text, r)
		t.Logf("%s: chosen %s on the first 30 runs (false fails %s); held out: %s", tc.name, pct(float64(h.Chosen)), pct(h.Choose.Rate), rateText(h.Held))
		if got := h.Held.Low > 0.05; got != tc.above || !strings.Contains(text.String(), "held-out validation: --fail-threshold") {
			t.Errorf("%s: held out %+v, above the level %v, want %v\n%s", tc.name, h.Held, got, tc.above, text.String())
		}
	}
	// Too few runs to hold any out: a note says so.
	r, err := Run(context.Background(), synthPool(13, 20, 2, 0.02, 0, 0), Options{PerSide: 8, Splits: 20, Factors: []float64{2}, Thresholds: []float64{0.1}})
	if err != nil || r.HeldOut != nil || !strings.Contains(strings.Join(r.Notes, "\n"), "not validated on held-out runs") {
		t.Errorf("small pool: %+v %v, %v", r.HeldOut, r.Notes, err)
	}
}

// TestPowerCurve: with 2 % noise and a 10 % threshold, +2 % is never a
// failure (it is within the threshold), +50 % always is, and the curve
// does not fall as the regression grows.
func TestPowerCurve(t *testing.T) {
	pool := synthPool(11, 20, 12, 0.02, 0.1, 0)
	r, err := Run(context.Background(), pool, Options{Splits: 100, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.PerSide != 10 || len(r.Curve) != len(DefaultFactors) {
		t.Fatalf("per side %d, curve %d points", r.PerSide, len(r.Curve))
	}
	if r.Curve[0].Gate.Rate != 0 || r.Curve[len(r.Curve)-1].Gate.Rate != 1 {
		t.Errorf("curve from %v to %v", r.Curve[0].Gate.Rate, r.Curve[len(r.Curve)-1].Gate.Rate)
	}
	for i := 1; i < len(r.Curve); i++ {
		if r.Curve[i].Gate.Rate < r.Curve[i-1].Gate.Rate || r.Curve[i].Check.Rate < r.Curve[i-1].Check.Rate {
			t.Errorf("power falls from ×%v to ×%v", r.Curve[i-1].Factor, r.Curve[i].Factor)
		}
	}
	if !(r.Detect >= 1.1 && r.Detect <= 1.3) || r.DetectCheck < r.Detect {
		t.Errorf("detect %v, single check %v", r.Detect, r.DetectCheck)
	}
	if r.FalseFails.Count != 0 {
		t.Errorf("%d false fails with a 10 %% threshold and 2 %% noise", r.FalseFails.Count)
	}
}

func TestRunDeterministic(t *testing.T) {
	pool := synthPool(2, 12, 4, 0.05, 0, 0)
	opt := Options{PerSide: 4, Splits: 50, Seed: 8, FalseFail: 0.2, Factors: []float64{1.2}}
	a, err := Run(context.Background(), pool, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(context.Background(), pool, opt)
	var ja, jb bytes.Buffer
	WriteJSON(&ja, a)
	WriteJSON(&jb, b)
	if ja.String() != jb.String() {
		t.Error("same seed, different results")
	}
}

func TestRunErrors(t *testing.T) {
	pool := synthPool(1, 7, 2, 0.05, 0, 0)
	for _, tt := range []struct {
		opt  Options
		want string
	}{
		{Options{PerSide: 4}, "at least 8 unchanged runs"},
		{Options{Split: "sideways"}, "unknown split"},
		{Options{Factors: []float64{0.9}}, "above 1"},
	} {
		if _, err := Run(context.Background(), pool, tt.opt); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v", tt.opt, err)
		}
	}
	if _, err := Run(context.Background(), synthPool(1, 3, 1, 0.05, 0, 0), Options{}); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("3 runs: %v", err)
	}
}

func TestRenderings(t *testing.T) {
	pool := synthPool(4, 16, 6, 0.03, 0.1, 0)
	r, err := Run(context.Background(), pool, Options{Splits: 40, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"16 unchanged runs, 8 per side, 40 random splits (seed 2), 6 checks", "false fails:  0 of 40 = 0.0% (95% CI 0.0%–8.8%): not shown above the level asked, nor within it",
		"×1.5 ", "smallest regression detected with ≥ 95.0% power at 8 runs per side"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["per_side"] != 8.0 || doc["format_version"] != 1.0 {
		t.Errorf("JSON %s", js.String())
	}
	none := *r
	none.Detect = math.NaN()
	js.Reset()
	if err := WriteJSON(&js, &none); err != nil || !strings.Contains(js.String(), `"detect": null`) {
		t.Errorf("NaN detect: %v %s", err, js.String())
	}
	if p := PowerPlot(r); p.Y.Min != 0 || p.Y.Max != 1 {
		t.Errorf("y axis %v–%v", p.Y.Min, p.Y.Max)
	}
}

// TestAsymmetricSplit: reference and candidate sides of different sizes
// draw disjoint runs, ordered splits slide over the pool, and the verdict
// rates of every factor add up to the splits.
func TestAsymmetricSplit(t *testing.T) {
	pool := synthPool(6, 15, 3, 0.05, 0.1, 0)
	r, err := Run(context.Background(), pool, Options{Reference: 8, Candidate: 4, Splits: 60, Seed: 1, Factors: []float64{1.5, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if r.PerSide != 0 || r.Reference != 8 || r.Candidate != 4 || r.Gate != "compare" {
		t.Fatalf("%+v", r)
	}
	for _, p := range append([]Point{{Gate: r.FalseFails, Passed: r.Passed, Inconclusive: r.Inconclusive}}, r.Curve...) {
		if p.Gate.Count+p.Passed.Count+p.Inconclusive.Count != 60 {
			t.Errorf("×%v: %d + %d + %d", p.Factor, p.Gate.Count, p.Passed.Count, p.Inconclusive.Count)
		}
	}
	if r.Curve[1].Gate.Rate != 1 {
		t.Errorf("×3 at 5 %% noise: %+v", r.Curve[1].Gate)
	}
	var text bytes.Buffer
	WriteText(&text, r)
	if !strings.Contains(text.String(), "8 reference and 4 candidate runs") {
		t.Errorf("text:\n%s", text.String())
	}
	ordered, err := Run(context.Background(), pool, Options{Reference: 8, Candidate: 4, Split: SplitOrdered, Factors: []float64{2}})
	if err != nil || ordered.FalseFails.Trials != 15-12+1 {
		t.Errorf("ordered: %v %+v", err, ordered)
	}
	cand, err := Run(context.Background(), pool, Options{Candidate: 5, Splits: 5})
	if err != nil || cand.Reference != 10 {
		t.Errorf("candidate only: %v %+v", err, cand)
	}
	if _, err := Run(context.Background(), pool, Options{Reference: 1, Candidate: 4}); err == nil || !strings.Contains(err.Error(), "at least 2 reference runs") {
		t.Errorf("1 reference run: %v", err)
	}
	if _, err := Run(context.Background(), pool, Options{Reference: 12, Candidate: 4}); err == nil || !strings.Contains(err.Error(), "need at least 16 unchanged runs") {
		t.Errorf("16 of 15: %v", err)
	}
}

func TestWorse(t *testing.T) {
	if Worse(result.Median, 10, 1.5) != 15 || Worse(result.Metric{Name: "Throughput", Better: result.HigherIsBetter}, 30, 1.5) != 20 {
		t.Error("worse")
	}
}

// TestOutcomePlot: one stacked bar per factor, ×1 first, on a 0–1 axis.
func TestOutcomePlot(t *testing.T) {
	r, err := Run(context.Background(), synthPool(4, 16, 6, 0.03, 0.1, 0), Options{Splits: 20, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	p, err := OutcomePlot(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max != 1 || p.X.Max != float64(len(r.Curve))+0.5 {
		t.Errorf("axes y %v–%v, x to %v", p.Y.Min, p.Y.Max, p.X.Max)
	}
	dir := t.TempDir()
	paths, err := Save(r, "", dir, "cal", "svg")
	if err != nil || len(paths) != 2 || !strings.HasSuffix(paths[1], "cal_outcomes.svg") {
		t.Errorf("%v %v", paths, err)
	}
	if _, err := ParseFactors("1.1, 2"); err != nil {
		t.Error(err)
	}
	if _, err := ParseFactors("1.1,"); err == nil {
		t.Error("empty factor accepted")
	}
}

// TestParseFactorsRange: a factor is above 1 and at most MaxFactor; NaN and
// infinities were refused only once the whole pool had been loaded.
func TestParseFactorsRange(t *testing.T) {
	for in, want := range map[string]string{
		"1":     "1 is out of range: expected factors above 1 and at most 1000",
		"0.5":   "0.5 is out of range",
		"-2":    "-2 is out of range",
		"1001":  "1001 is out of range",
		"1e999": `"1e999" is not a finite number`,
		"NaN":   `"NaN" is not a finite number`,
		"Inf":   `"Inf" is not a finite number`,
		"2,x":   `"x" is not a number`,
	} {
		if _, err := ParseFactors(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFactors(%q) = %v, want %q", in, err, want)
		}
	}
	if fs, err := ParseFactors("1.01, 1000"); err != nil || len(fs) != 2 {
		t.Errorf("ParseFactors(1.01, 1000) = %v, %v", fs, err)
	}
}

// TestRegressedRuns: runs of a real regression at the end of the pool take
// no part in the false-fail rate; as candidates against the unchanged runs
// a ×2 regression is always detected, and "regressed" runs that are in fact
// unchanged fail no more often than the unchanged splits do.
func TestRegressedRuns(t *testing.T) {
	unchanged := synthPool(12, 20, 4, 0.03, 0.05, 0)
	slow := synthPool(13, 10, 4, 0.03, 0.05, 0)
	same := synthPool(14, 10, 4, 0.03, 0.05, 0)
	join := func(a, b Pool) Pool {
		p := Pool{Keys: a.Keys}
		for k := range a.Values {
			p.Values = append(p.Values, append(append([]float64(nil), a.Values[k]...), b.Values[k]...))
		}
		return p
	}
	for k := range slow.Values {
		for r := range slow.Values[k] {
			slow.Values[k][r] *= 2
		}
	}
	for _, split := range []string{SplitRandom, SplitOrdered} {
		r, err := Run(context.Background(), join(unchanged, slow), Options{Reference: 8, Candidate: 5, Splits: 50, Split: split, Regressed: 10, Factors: []float64{1.5}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Runs != 20 || r.Regressed != 10 || r.Regression == nil || r.Regression.Gate.Rate != 1 {
			t.Errorf("%s: runs %d, regressed %d, regression %+v", split, r.Runs, r.Regressed, r.Regression)
		}
		if split == SplitOrdered && (r.FalseFails.Trials != 20-13+1 || r.Regression.Gate.Trials != 20-8+1) {
			t.Errorf("ordered: %d splits, %d regression splits", r.FalseFails.Trials, r.Regression.Gate.Trials)
		}
		var text bytes.Buffer
		WriteText(&text, r)
		if !strings.Contains(text.String(), "real regression: 10 regressed runs as candidates against unchanged reference runs") {
			t.Errorf("text:\n%s", text.String())
		}
		if p, err := OutcomePlot(r); err != nil || p.X.Max != float64(len(r.Curve))+1.5 {
			t.Errorf("outcome plot: %v", err)
		}
	}
	r, err := Run(context.Background(), join(unchanged, same), Options{Reference: 8, Candidate: 5, Splits: 200, Seed: 3, Regressed: 10, FalseFail: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if r.Regression.Gate.Rate > 0.1 {
		t.Errorf("unchanged runs as the regression: detected %+v", r.Regression.Gate)
	}
	if _, err := Run(context.Background(), unchanged, Options{Regressed: 20}); err == nil {
		t.Error("a pool of regressed runs only was accepted")
	}
}

// noThreshold is a gate without a threshold to vary.
type noThreshold struct{ g CompareGate }

func (noThreshold) Name() string       { return "fixed" }
func (n noThreshold) Describe() string { return n.g.Describe() }
func (n noThreshold) Judge(p Pool, ref, cand []int, f []float64) ([]Outcome, error) {
	return n.g.Judge(p, ref, cand, f)
}
func (noThreshold) Notes(Pool, *Result) []string { return nil }

// TestThresholds: the unchanged splits judged again at each threshold pass
// more often as it grows (3 % noise: never at 0, always at 50 %), the
// checks' own thresholds are replaced, and a gate without threshold, or a
// negative one, is refused.
func TestThresholds(t *testing.T) {
	pool := synthPool(15, 16, 5, 0.03, 0.02, 0)
	r, err := Run(context.Background(), pool, Options{Splits: 80, Seed: 4, Factors: []float64{2}, Thresholds: []float64{0, 0.05, 0.2, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if r.ThresholdName != "--fail-threshold" || len(r.Thresholds) != 4 {
		t.Fatalf("%q %+v", r.ThresholdName, r.Thresholds)
	}
	for i, p := range r.Thresholds {
		if p.Passed.Count+p.Inconclusive.Count+p.Failed.Count != 80 {
			t.Errorf("threshold %v: verdicts do not add up", p.Threshold)
		}
		if i > 0 && p.Passed.Rate < r.Thresholds[i-1].Passed.Rate {
			t.Errorf("passed falls from %v to %v", r.Thresholds[i-1].Threshold, p.Threshold)
		}
	}
	if r.Thresholds[0].Passed.Rate != 0 || r.Thresholds[3].Passed.Rate != 1 {
		t.Errorf("passed at 0: %v, at 50 %%: %v", r.Thresholds[0].Passed.Rate, r.Thresholds[3].Passed.Rate)
	}
	var text bytes.Buffer
	WriteText(&text, r)
	if !strings.Contains(text.String(), "unchanged system by --fail-threshold:") || !strings.Contains(text.String(), "50.0%      100.0%") {
		t.Errorf("text:\n%s", text.String())
	}
	paths, err := Save(r, "", t.TempDir(), "cal", "svg")
	if err != nil || len(paths) != 3 || !strings.HasSuffix(paths[2], "cal_thresholds.svg") {
		t.Errorf("%v %v", paths, err)
	}
	if _, err := Run(context.Background(), pool, Options{Gate: noThreshold{}, Thresholds: []float64{0.1}}); err == nil || !strings.Contains(err.Error(), "no threshold") {
		t.Errorf("gate without threshold: %v", err)
	}
	if _, err := Run(context.Background(), pool, Options{Thresholds: []float64{-0.1}}); err == nil || !strings.Contains(err.Error(), "≥ 0") {
		t.Errorf("negative threshold: %v", err)
	}
}

// neverDecides is a gate that finds every split inconclusive, at any
// threshold.
type neverDecides struct{}

func (neverDecides) Name() string     { return "undecided" }
func (neverDecides) Describe() string { return "decides nothing" }
func (neverDecides) Judge(_ Pool, _, _ []int, f []float64) ([]Outcome, error) {
	out := make([]Outcome, len(f))
	for i := range out {
		out[i] = Outcome{Status: gate.Inconclusive, Checks: 1}
	}
	return out, nil
}
func (neverDecides) Notes(Pool, *Result) []string { return nil }
func (neverDecides) ThresholdName() string        { return "--fail-threshold" }
func (n neverDecides) WithThreshold(float64) Gate { return n }

// TestHeldOutUndecided: a gate that decided no split at any threshold has
// no threshold to choose (one was "chosen" for its 0 false fails, the gate
// being unable to fail), and 0 false fails of 1 split is not "within" a
// level of 1 % (95 % CI 0–97.5 %).
func TestHeldOutUndecided(t *testing.T) {
	r, err := Run(context.Background(), synthPool(13, 8, 2, 0.02, 0, 0), Options{PerSide: 2, Split: SplitOrdered, FalseFail: 0.01,
		Factors: []float64{2}, Thresholds: []float64{0.05, 0.1}, Gate: neverDecides{}})
	if err != nil {
		t.Fatal(err)
	}
	if h := r.HeldOut; h == nil || !h.Undecided || !math.IsNaN(float64(h.Chosen)) {
		t.Fatalf("held out %+v", r.HeldOut)
	}
	var text bytes.Buffer
	WriteText(&text, r)
	if !strings.Contains(text.String(), "held-out validation: at every --fail-threshold tried the gate decided none of the splits of the first 4 runs (all inconclusive): none to choose") {
		t.Errorf("text:\n%s", text.String())
	}
	for _, c := range []struct {
		k, n int
		want string
	}{{0, 1, "not shown above"}, {0, 400, "within"}, {10, 40, "ABOVE"}} {
		if got := levelVerdict(rate(c.k, c.n), 0.01); !strings.HasPrefix(got, c.want) {
			t.Errorf("%d of %d at 1 %%: %q", c.k, c.n, got)
		}
	}
}

// failingGate is a gate whose every split fails with the same error, as a
// requirements gate does when --order-rank is above the reference runs.
type failingGate struct{}

func (failingGate) Name() string                 { return "check" }
func (failingGate) Describe() string             { return "fails" }
func (failingGate) Notes(Pool, *Result) []string { return nil }
func (failingGate) Judge(Pool, []int, []int, []float64) ([]Outcome, error) {
	return nil, errors.New("the 11-th largest of 10 runs does not exist")
}

// TestSplitErrorsOnce: an error every split meets is reported once; 200
// splits printed it 200 times, one line each.
func TestSplitErrorsOnce(t *testing.T) {
	pool := synthPool(1, 20, 2, 0.05, 0.1, 0)
	_, err := Run(context.Background(), pool, Options{Gate: failingGate{}, PerSide: 10, Splits: 200, Seed: 1, FalseFail: 0.01})
	if err == nil || err.Error() != "the 11-th largest of 10 runs does not exist" {
		t.Errorf("err = %q, want the split's error once", err)
	}
}
