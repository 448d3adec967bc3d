package gate

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// series makes n runs per side of log-normal values with the given
// candidate/reference ratio and run-to-run dispersion.
func series(rng *rand.Rand, m result.Metric, n int, ratio, sd float64) Series {
	s := Series{SubExperiment: "s", Payload: 16, Metric: m, Threshold: 0.1}
	for i := 0; i < n; i++ {
		s.Reference = append(s.Reference, 50*math.Exp(rng.NormFloat64()*sd))
		s.Candidate = append(s.Candidate, 50*ratio*math.Exp(rng.NormFloat64()*sd))
	}
	return s
}

// spread is like series with evenly spread instead of random values: the
// same log offsets on both sides, so the estimate is exactly ratio.
func spread(m result.Metric, n int, ratio, sd float64) Series {
	s := Series{SubExperiment: "s", Payload: 16, Metric: m, Threshold: 0.1}
	for i := 0; i < n; i++ {
		off := sd * 2 * (float64(i)/float64(n-1) - 0.5)
		s.Reference = append(s.Reference, 50*math.Exp(off))
		s.Candidate = append(s.Candidate, 50*ratio*math.Exp(off+sd/float64(4*n)))
	}
	return s
}

func TestJudgeVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tests := []struct {
		name   string
		s      Series
		status Status
		text   string
	}{
		{"unchanged, quiet", series(rng, result.Median, 10, 1, 0.01), Passed, "within ×1.100"},
		{"regressed 50%", series(rng, result.Median, 10, 1.5, 0.01), Failed, "regression beyond ×1.100"},
		{"improved", series(rng, result.P99, 10, 0.7, 0.01), Passed, "within"},
		{"regressed 5%, within threshold", series(rng, result.Median, 10, 1.05, 0.005), Passed, "within"},
		{"noisy max", series(rng, result.Max, 10, 1, 1.0), Inconclusive, "not gateable with 10 runs: needs ≈"},
		{"two runs", series(rng, result.Median, 2, 1, 0.01), Inconclusive, "not gateable with 2 runs"},
		{"throughput dropped", series(rng, result.MessageRate, 10, 0.5, 0.01), Failed, "regression beyond ×0.900"},
		{"throughput rose", series(rng, result.MessageRate, 10, 1.5, 0.01), Passed, "within ×0.900"},
		{"near threshold", spread(result.Median, 10, 1.05, 0.08), Inconclusive, "more runs per side would decide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Judge([]Series{tt.s}, 0.01, "reference")[0]
			if c.Status != tt.status || !strings.Contains(c.Message, tt.text) {
				t.Errorf("%s %q; want %s containing %q", c.Status, c.Message, tt.status, tt.text)
			}
			st := c.Stats
			if st == nil || st.NReference != len(tt.s.Reference) || st.NCandidate != len(tt.s.Candidate) ||
				!(st.Low <= st.Estimate && st.Estimate <= st.High) || st.Tail != 0.01 || math.IsNaN(st.P) {
				t.Errorf("stats %+v", st)
			}
			if !strings.Contains(c.Message, "interval") || !strings.Contains(c.Message, "p ") || !strings.Contains(c.Message, "runs ") {
				t.Errorf("message %q lacks estimate, interval, p or runs", c.Message)
			}
		})
	}
}

func TestJudgeMissing(t *testing.T) {
	cs := Judge([]Series{
		{SubExperiment: "s", Payload: 16, Metric: result.Median, Threshold: 0.1, Reference: []float64{1, 2}},
		{SubExperiment: "s", Payload: 32, Metric: result.Median, Threshold: 0.1, Reference: []float64{1, 2}, Candidate: []float64{0, 1}},
	}, 0.01, "reference")
	if cs[0].Status != Missing || cs[0].Message != "16 B Median: no runs" {
		t.Errorf("%s %q", cs[0].Status, cs[0].Message)
	}
	if cs[1].Status != Missing || !strings.Contains(cs[1].Message, "positive") {
		t.Errorf("%s %q", cs[1].Status, cs[1].Message)
	}
}

// TestJudgeHolmLevels: with K checks and nothing failing, every interval is
// at the Bonferroni tail α/K; a gross regression among them is still failed.
func TestJudgeHolmLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var ss []Series
	for i := 0; i < 20; i++ {
		ss = append(ss, series(rng, result.Median, 10, 1, 0.02))
	}
	ss = append(ss, series(rng, result.Median, 10, 2, 0.02))
	cs := Judge(ss, 0.01, "reference")
	if cs[20].Status != Failed || math.Abs(cs[20].Stats.Tail-0.01/21) > 1e-15 {
		t.Errorf("regression: %s tail %v", cs[20].Status, cs[20].Stats.Tail)
	}
	for _, c := range cs[:20] {
		if c.Status == Failed || math.Abs(c.Stats.Tail-0.01/20) > 1e-15 {
			t.Errorf("unchanged: %s tail %v (%s)", c.Status, c.Stats.Tail, c.Message)
		}
	}
}

// TestJudgeFalseFailRate: an unchanged system judged many times over 30
// checks fails at most at the family-wise level asked (binomial slack).
func TestJudgeFalseFailRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const trials, alpha = 400, 0.2
	fails := 0
	for i := 0; i < trials; i++ {
		var ss []Series
		for j := 0; j < 30; j++ {
			s := series(rng, result.Median, 8, 1, 0.05)
			s.Threshold = 0 // the test alone decides
			ss = append(ss, s)
		}
		for _, c := range Judge(ss, alpha, "reference") {
			if c.Status == Failed {
				fails++
				break
			}
		}
	}
	// Holm at 0.2 over independent checks: ≈ 0.18; 400 trials put
	// the count within ≈ 72 ± 16.
	if rate := float64(fails) / trials; rate > alpha+0.05 {
		t.Errorf("false-fail rate %.3f > %.2f", rate, alpha)
	}
	if fails == 0 {
		t.Error("no false fail at all at level 0.2: the test is not reaching its level")
	}
}

func TestStatsJSONRoundTrip(t *testing.T) {
	c := Judge([]Series{series(rand.New(rand.NewPCG(1, 1)), result.Median, 2, 1, 0.01)}, 0.01, "reference")[0]
	if !math.IsInf(c.Stats.High, 1) {
		t.Fatalf("two runs at tail 0.01 should give an unbounded interval, got %v", c.Stats.High)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"high":null`) {
		t.Errorf("infinite high end not null: %s", b)
	}
	var got Check
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Stats == nil || *got.Stats != *c.Stats {
		t.Errorf("round trip %+v, want %+v", got.Stats, c.Stats)
	}
}

func TestConfidenceText(t *testing.T) {
	for c, want := range map[float64]string{0.95: "95%", 0.98: "98%", 1 - 2*0.01/88: "99.98%", 0.99999: "99.999%", 1: "100%", 1 - 2*0.01/3: "99.3%"} {
		if got := ConfidenceText(c); got != want {
			t.Errorf("ConfidenceText(%v) = %q, want %q", c, got, want)
		}
	}
}

// TestRunsNeededFollowsTheInterval: runs whose bulk agrees within 1 % but
// with outliers have a small robust dispersion and a wide interval; the
// runs needed follow the interval, so an inconclusive check never claims
// that the runs it has almost suffice.
func TestRunsNeededFollowsTheInterval(t *testing.T) {
	ref := []float64{50, 50.2, 49.9, 50.1, 49.8, 50.3, 80, 30, 95, 20}
	cand := []float64{52, 52.2, 51.9, 52.1, 51.8, 52.3, 25, 90, 33, 70}
	c := Judge([]Series{{SubExperiment: "s", Payload: 16, Metric: result.Median, Threshold: 0.1, Reference: ref, Candidate: cand}}, 0.01, "reference")[0]
	if c.Status != Inconclusive {
		t.Fatalf("%s: %s", c.Status, c.Message)
	}
	w := math.Log(c.Stats.High) - math.Log(c.Stats.Low)
	if c.Stats.Dispersion > 0.02 || w < 0.1 {
		t.Fatalf("case does not test what it says: dispersion %v, interval width %v", c.Stats.Dispersion, w)
	}
	if c.Stats.Gateable && c.Stats.MoreRuns < 5 {
		t.Errorf("≈ %d more runs claimed for an interval [%v, %v]: %s", c.Stats.MoreRuns, c.Stats.Low, c.Stats.High, c.Message)
	}
	if !c.Stats.Gateable && c.Stats.NeedRuns <= 10 {
		t.Errorf("not gateable but needs %d", c.Stats.NeedRuns)
	}
}

// TestRunsToReach: the runs an interval end needs are the dispersion's
// (runsNeeded) or, when the interval found is wider, its half-width scaled
// as 1/√n; too many to say is −1.
func TestRunsToReach(t *testing.T) {
	const tail = 0.05
	for _, c := range []struct {
		name               string
		sd, half, distance float64
		n, want            int
	}{
		{"no interval: the dispersion's", 0.01, math.Inf(1), 0.05, 10, runsNeeded(0.01, 0.05, tail)},
		{"twice too wide: 4 n", 0, 0.1, 0.05, 10, 40},
		{"narrow: the dispersion's", 0.05, 0.001, 0.05, 10, runsNeeded(0.05, 0.05, tail)},
		{"far too wide", 0, 10, 0.05, 10, -1},
		{"no distance", 0, 0.1, 0, 10, -1},
	} {
		if got := runsToReach(c.sd, tail, c.n, c.half, c.distance); got != c.want {
			t.Errorf("%s: runsToReach(sd %v, n %d, half %v, distance %v) = %d, want %d", c.name, c.sd, c.n, c.half, c.distance, got, c.want)
		}
	}
}

// TestIntervalEnds: the "no regression" end of the interval is at the Holm
// tail (false fails, family-wise), the threshold end at the false-fail
// level itself (false passes, per check), for either direction.
func TestIntervalEnds(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	var ss []Series
	for i := 0; i < 10; i++ {
		ss = append(ss, series(rng, result.Median, 10, 1, 0.05), series(rng, result.MessageRate, 10, 1, 0.05))
	}
	const alpha = 0.01
	for i, c := range Judge(ss, alpha, "reference") {
		holm, _ := dist.Compare(ss[i].Reference, ss[i].Candidate, ss[i].Metric.Better == result.HigherIsBetter, c.Stats.Tail)
		pass, _ := dist.Compare(ss[i].Reference, ss[i].Candidate, ss[i].Metric.Better == result.HigherIsBetter, alpha)
		wantLow, wantHigh := holm.Low, pass.High
		if ss[i].Metric.Better == result.HigherIsBetter {
			wantLow, wantHigh = pass.Low, holm.High
		}
		if c.Stats.Low != wantLow || c.Stats.High != wantHigh || c.Stats.PassTail != alpha ||
			math.Abs(c.Stats.Confidence-(1-alpha-c.Stats.Tail)) > 1e-15 || c.Stats.Tail >= alpha {
			t.Errorf("%s: stats %+v, want low %v high %v", ss[i].Metric.Name, c.Stats, wantLow, wantHigh)
		}
	}
}
