//go:build !race

package history

// The gate's statistical simulations: hundreds of histories each, pure
// arithmetic that the race detector slows several times over and has nothing
// to find in (the gate's goroutines run under it in TestChangesFindSlowdown,
// TestGateStaleRegression and TestGateWarnsUnmatchedAcks). go test -race
// leaves them out; make test runs them in a go test of their own, without
// -race (every test named TestSim…, in files built only without it).

import (
	"context"
	"flag"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/synth"
)

var gateRuns = flag.Int("gate-runs", 60, "unchanged histories TestSimGateFalseFailRate gates")

// TestSimGateFalseFailRate: unchanged systems (noise only, 30 experiments,
// 44 judged series each) fail the gate in at most the family-wise level of
// the histories, give or take three standard errors. The rate is logged.
func TestSimGateFalseFailRate(t *testing.T) {
	if testing.Short() {
		t.Skip("many histories")
	}
	runs := uint64(*gateRuns)
	exps, fails, withChanges := 0, 0, 0
	for seed := uint64(0); seed < runs; seed++ {
		h := syntheticHistory(seed, 30, 0, 0)
		if err := h.DetectChanges(context.Background(), ChangeOptions{Options: changepoint.Options{Seed: seed}}); err != nil {
			t.Fatal(err)
		}
		if len(h.Changes()) > 0 {
			withChanges++
		}
		g, err := h.Gate(context.Background(), GateOptions{Metrics: DefaultGateMetrics})
		if err != nil {
			t.Fatal(err)
		}
		exps++
		if g.Failed() {
			fails++
		}
	}
	rate := float64(fails) / float64(runs)
	t.Logf("%d of %d unchanged histories failed the gate (%.3f); %d had at least one change point in 88 series", fails, runs, rate, withChanges)
	if alpha := changepoint.DefaultAlpha; rate > alpha+3*math.Sqrt(alpha*(1-alpha)/float64(runs)) {
		t.Errorf("false-fail rate %.3f", rate)
	}
}

// TestSimGateWindow: 1,000 series (500 histories of two) with a 20 %
// step at experiment 10 of 40, 30 experiments old: judging every age (the
// gate before windows) fails nearly all of them; the default window of 10
// fails none on that step (every series whose newest change point is it is
// outside the window), and fails histories only at the false-fail level
// (a chance change point inside the window); the same step at experiment
// 33, 7 experiments old, fails at least 95 % of series.
func TestSimGateWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 series")
	}
	const histories = 500
	staleHist := 0
	staleOld, staleNew, fresh := 0, 0, 0
	for seed := uint64(0); seed < histories; seed++ {
		g := gateSim(t, simHistory(seed, 40, twoPayloads, 0.04, 0, 1.2, 10), seed,
			GateOptions{Window: 0}, GateOptions{Window: DefaultGateWindow})
		staleOld += len(g[0].Failures())
		staleNew += len(g[1].Failures())
		if g[1].Failed() {
			staleHist++
		}
		for _, s := range g[1].Series {
			if s.Change != nil && s.Change.Index <= 12 && s.Rule != RuleOutside {
				t.Errorf("seed %d: change at %d decided by %q, want %q", seed, s.Change.Index, s.Rule, RuleOutside)
			}
		}
		g = gateSim(t, simHistory(seed, 40, twoPayloads, 0.04, 0, 1.2, 33), seed, GateOptions{Window: DefaultGateWindow})
		fresh += len(g[0].Failures())
	}
	n := 2 * histories
	t.Logf("20 %% step 30 experiments old: %d of %d series fail judging every age, %d with --gate-window %d (%d of %d histories); 7 old: %d fail",
		staleOld, n, staleNew, DefaultGateWindow, staleHist, histories, fresh)
	alpha := changepoint.DefaultAlpha
	if float64(staleHist)/histories > alpha+3*math.Sqrt(alpha*(1-alpha)/histories) || staleOld < n*9/10 || fresh < n*95/100 {
		t.Errorf("stale: %d failed in %d histories (every age: %d), fresh: %d of %d failed", staleNew, staleHist, staleOld, fresh, n)
	}
}

// TestSimGateAutocorrelated: 1,012 series (92 histories of eleven
// payloads, 30 experiments) with AR(1) noise of φ = 0.6 and no change get a
// change point in at most the level of them, give or take three standard
// errors, and fail the gate in at most as many histories; tested as they
// are, without pre-whitening (as before), the same series get one in over
// a fifth of them.
func TestSimGateAutocorrelated(t *testing.T) {
	if testing.Short() {
		t.Skip("1,012 series")
	}
	const histories = 92
	series, withChange, plain, fails := 0, 0, 0, 0
	for seed := uint64(0); seed < histories; seed++ {
		h := simHistory(seed, 30, synth.DefaultPayloads, 0.04, 0.6, 1, 30)
		g := gateSim(t, h, seed, GateOptions{Window: DefaultGateWindow})
		if g[0].Failed() {
			fails++
		}
		s := h.SubExperiments[0]
		m := slices.Index(Magnitudes, "Median")
		for p := range s.Payloads {
			series++
			if len(s.Changes[m][p].ChangePoints) > 0 {
				withChange++
			}
			res, err := changepoint.Detect(s.Values[m][p], changepoint.Options{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ChangePoints) > 0 {
				plain++
			}
		}
	}
	alpha := changepoint.DefaultAlpha
	rate := float64(withChange) / float64(series)
	t.Logf("AR(1) φ = 0.6, 30 experiments: %d of %d series have a change point (%.4f; tested as they are: %d, %.4f); %d of %d histories fail the gate",
		withChange, series, rate, plain, float64(plain)/float64(series), fails, histories)
	if rate > alpha+3*math.Sqrt(alpha*(1-alpha)/float64(series)) || plain < series/5 {
		t.Errorf("false change-point rate %.4f (tested as they are: %d of %d)", rate, plain, series)
	}
	if float64(fails)/histories > alpha+3*math.Sqrt(alpha*(1-alpha)/histories) {
		t.Errorf("%d of %d histories failed the gate", fails, histories)
	}
}

// TestSimGateAcknowledged: 1,000 series (500 histories of two) with a
// fresh 20 % step at experiment 33 of 40; the 16-byte series' step is
// acknowledged at experiment 33 (the 1024-byte one's is not): no 16-byte
// series fails, each with a change within 2 of 33 is shown acknowledged,
// and the 1024-byte series still fail (at least 95 % of them; an
// acknowledged series stays in Holm's family with p = 1, so the other's
// level is never more lenient than without it). An acknowledgement 5
// experiments away covers nothing: every decision is as without it.
func TestSimGateAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 series")
	}
	const histories = 500
	ack := Ack{SubExperiment: "interprocess_reliable", Payload: 16, Metric: "Median", Experiment: "e033", Note: "accepted", File: "acks.csv", Line: 2}
	far := ack
	far.Experiment = "e028"
	acked, other, otherNoAck, farFails, noAckFails := 0, 0, 0, 0, 0
	for seed := uint64(0); seed < histories; seed++ {
		g := gateSim(t, simHistory(seed, 40, twoPayloads, 0.04, 0, 1.2, 33), seed,
			GateOptions{Window: DefaultGateWindow},
			GateOptions{Window: DefaultGateWindow, Acks: []Ack{ack}, AcksFile: "acks.csv"},
			GateOptions{Window: DefaultGateWindow, Acks: []Ack{far}, AcksFile: "acks.csv"})
		for i, s := range g[1].Series {
			without := g[0].Series[i]
			switch s.Payload {
			case 16:
				if s.Failed {
					t.Errorf("seed %d: acknowledged series failed", seed)
				}
				near := s.Change != nil && s.Change.Index >= 31 && s.Change.Index <= 35
				if near != (s.Rule == RuleAcknowledged) || near && (s.Ack == nil || s.Ack.Note != "accepted") {
					t.Errorf("seed %d: change %+v decided by %q", seed, s.Change, s.Rule)
				}
				if near {
					acked++
				}
				if without.Failed {
					noAckFails++
				}
				if g[2].Series[i].Failed {
					farFails++
				}
				if g[2].Series[i].Failed != without.Failed || g[2].Series[i].Rule == RuleAcknowledged {
					t.Errorf("seed %d: an acknowledgement 5 away changed the decision", seed)
				}
			default:
				if s.Failed {
					other++
				}
				if without.Failed {
					otherNoAck++
				}
			}
		}
	}
	t.Logf("%d of %d 16-byte series acknowledged (%d fail without); 1024-byte series failed %d (%d without); acknowledged 5 away: %d fail",
		acked, histories, noAckFails, other, otherNoAck, farFails)
	if acked < histories*95/100 || other < histories*95/100 || farFails != noAckFails {
		t.Errorf("acknowledged %d, other failed %d, far acknowledgement failed %d (want %d)", acked, other, farFails, noAckFails)
	}
}

// TestSimGateMinChange: 1,000 series (500 histories of two) with a
// fresh 3 % step at experiment 33 of 40 and noise of 0.5 %: the step is a
// change point in nearly every series, fails the gate with --min-change 0
// in at least 95 % of them, and fails none with the default 5 %, where each
// is reported as below the minimum.
func TestSimGateMinChange(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 series")
	}
	const histories = 500
	found, failZero, failDefault := 0, 0, 0
	for seed := uint64(0); seed < histories; seed++ {
		g := gateSim(t, simHistory(seed, 40, twoPayloads, 0.005, 0, 1.03, 33), seed,
			GateOptions{Window: DefaultGateWindow}, GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange})
		failZero += len(g[0].Failures())
		failDefault += len(g[1].Failures())
		for _, s := range g[1].Series {
			if s.Change != nil && s.Change.Index >= 31 {
				found++
				if s.Rule != RuleBelowMin {
					t.Errorf("seed %d: decided by %q, want %q", seed, s.Rule, RuleBelowMin)
				}
			}
		}
	}
	n := 2 * histories
	t.Logf("3 %% step: a change point in %d of %d series; %d fail with --min-change 0, %d with %g", found, n, failZero, failDefault, DefaultMinChange)
	if found < n*95/100 || failZero < n*95/100 || failDefault != 0 {
		t.Errorf("found %d, failed %d (min change 0) and %d (5 %%) of %d", found, failZero, failDefault, n)
	}
}

// mixedHistory is simHistory(seed, 30, synth.DefaultPayloads, 0.04, 0, 1,
// 30) with payloads 2, 5 and 8 given AR(1) noise of φ = 0.8 instead.
func mixedHistory(seed uint64) *History {
	h := simHistory(seed, 30, synth.DefaultPayloads, 0.04, 0, 1, 30)
	s := h.SubExperiments[0]
	m := slices.Index(Magnitudes, "Median")
	rng := newRand(seed ^ 0x6d69786564)
	for _, p := range []int{2, 5, 8} {
		e := rng.NormFloat64() / math.Sqrt(1-0.64)
		for i := range s.Values[m][p] {
			if i > 0 {
				e = 0.8*e + rng.NormFloat64()
			}
			s.Values[m][p][i] = synth.BaseLatency(s.Type, s.Payloads[p]) * math.Exp(0.04*e*0.6)
		}
	}
	return h
}

// TestSimGateMixedAutocorrelation: 300 histories of 11 payloads and 30
// experiments without a change, 3 payloads with AR(1) noise of φ = 0.8 and
// 8 independent, fail the gate (defaults) in at most its level, give or
// take three standard errors. With φ pooled over all 11 series the 3 were
// whitened too little and 11.5 % of such histories failed (history-proof).
func TestSimGateMixedAutocorrelation(t *testing.T) {
	if testing.Short() {
		t.Skip("3,300 series")
	}
	const histories = 300
	fails := 0
	for seed := uint64(0); seed < histories; seed++ {
		g := gateSim(t, mixedHistory(seed), seed, GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange})
		if g[0].Failed() {
			fails++
		}
	}
	alpha := changepoint.DefaultAlpha
	t.Logf("%d of %d histories fail the gate", fails, histories)
	if float64(fails)/histories > alpha+3*math.Sqrt(alpha*(1-alpha)/histories) {
		t.Errorf("%d of %d histories failed the gate", fails, histories)
	}
}

// TestSimGateLoneAutocorrelated: 4,000 histories of one series, 30
// experiments without a change, AR(1) noise of φ = 0.8 and 4 %, fail the
// gate (defaults) with a 95 % Clopper–Pearson upper bound of at most
// 1.5 %. With no other series to pool φ from, the detector's segments
// absorbed the wander and their tests, unwhitened, failed 1.45 % of such
// histories (history-proof, upper bound 1.87 %); now a series no φ is
// shown for weighs an AR(1) fit against its segments (changepoint.Wander).
func TestSimGateLoneAutocorrelated(t *testing.T) {
	if testing.Short() {
		t.Skip("4,000 series")
	}
	const histories = 4000
	fails := 0
	for seed := uint64(0); seed < histories; seed++ {
		h := simHistory(seed, 30, []int{1024}, 0.04, 0.8, 1, 30)
		if g := gateSim(t, h, seed, GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange}); g[0].Failed() {
			fails++
		}
	}
	_, hi := dist.ClopperPearson(fails, histories, 0.05)
	t.Logf("%d of %d histories fail the gate (upper bound %.2f %%)", fails, histories, 100*hi)
	if hi > 0.015 {
		t.Errorf("%d of %d histories failed the gate: upper bound %.2f %%, want at most 1.5 %%", fails, histories, 100*hi)
	}
}

// shapeHistory is simHistory(seed, 40, twoPayloads, sigma, 0, 1, 40) with
// every value times level(experiment).
func shapeHistory(seed uint64, sigma float64, level func(int) float64) *History {
	h := simHistory(seed, 40, twoPayloads, sigma, 0, 1, 40)
	for _, series := range h.SubExperiments[0].Values {
		for _, v := range series {
			for i := range v {
				v[i] *= level(i)
			}
		}
	}
	return h
}

// TestSimGateRecoveryCannotHide: 200 series (100 histories of two, noise 2 %)
// that rise 20 % at experiment 30 of 40 and fall back 8 % at 35 are still
// 10.4 % slower than before: at least 95 % of them fail, on the change
// point at 30 (judging the newest change point alone, a speed-up, failed
// 17.5 %). The same rise fully undone (−1/6 at 35) fails at most 2.
func TestSimGateRecoveryCannotHide(t *testing.T) {
	if testing.Short() {
		t.Skip("400 series")
	}
	const histories = 100
	partial, full := 0, 0
	for seed := uint64(0); seed < histories; seed++ {
		for _, back := range []float64{0.92, 1 / 1.2} {
			h := shapeHistory(seed, 0.02, func(i int) float64 {
				switch {
				case i >= 35:
					return 1.2 * back
				case i >= 30:
					return 1.2
				}
				return 1
			})
			g := gateSim(t, h, seed, GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange})
			for _, s := range g[0].Series {
				switch {
				case !s.Failed:
				case back == 0.92:
					partial++
					// +10.4 % against the newest segment, or about +15 %
					// when the fall at 35 is not a change point of its own.
					if s.Change.Index < 28 || s.Change.Index > 32 || s.Change.Ratio < 1.05 || s.Change.Ratio > 1.25 {
						t.Errorf("seed %d: failed on %+v, want the change at 30, +10 to +20 %%", seed, *s.Change)
					}
				default:
					full++
				}
			}
		}
	}
	t.Logf("+20 %% then −8 %%: %d of %d series fail; fully undone: %d", partial, 2*histories, full)
	if partial < 2*histories*95/100 || full > 2 {
		t.Errorf("partial recovery failed %d of %d series, full recovery %d", partial, 2*histories, full)
	}
}

// TestSimGateSmallSteps: three steps of +4 % at experiments 25, 30 and 35 of
// 40 (noise 1 %), each below --min-change, are 12.5 % together: with a gate
// window that holds them (--gate-window 20) at least 95 % of 200 series
// fail, against the level before the first.
func TestSimGateSmallSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("200 series")
	}
	const histories = 100
	fails := 0
	for seed := uint64(0); seed < histories; seed++ {
		h := shapeHistory(seed, 0.01, func(i int) float64 {
			l := 1.0
			for _, at := range []int{25, 30, 35} {
				if i >= at {
					l *= 1.04
				}
			}
			return l
		})
		g := gateSim(t, h, seed, GateOptions{Window: 20, MinChange: DefaultMinChange})
		fails += len(g[0].Failures())
	}
	t.Logf("three +4 %% steps: %d of %d series fail", fails, 2*histories)
	if fails < 2*histories*95/100 {
		t.Errorf("three +4 %% steps: %d of %d series failed", fails, 2*histories)
	}
}

// TestSimGateSmallStepsInNoise: the three +4 % steps of TestSimGateSmallSteps
// in noise of 4 % (each step one standard deviation), gated with
// --gate-window 20: at least 91 % of 600 series (300 histories of two)
// fail. The hinge's φ bounded from the 20 values before the window alone
// (0.45 at best for independent values) failed 85 %; from the noise around
// the best hinge over all 40 values (hingePhi) 93 %.
func TestSimGateSmallStepsInNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("600 series")
	}
	const histories = 300
	fails := threeStepFailures(t, histories, 0.04, 20)
	lo, hi := dist.ClopperPearson(fails, 2*histories, 0.05)
	t.Logf("three +4 %% steps in noise of 4 %%: %d of %d series fail [%.2f, %.2f %%]", fails, 2*histories, 100*lo, 100*hi)
	if fails < 2*histories*91/100 {
		t.Errorf("three +4 %% steps in noise of 4 %%: %d of %d series failed", fails, 2*histories)
	}
}

// TestSimGateSmallStepsDefaultWindow: the three +4 % steps of
// TestSimGateSmallSteps in noise of 1 % (each step four standard
// deviations), gated with the default window of 10, which holds the steps
// at 30 and 35: at least 56 % of 800 series (400 histories of two) fail.
// A series' own values before the window floored its change points' φ,
// and the hinge's φ came from the noise around the best hinge alone: both
// take the steps that no change point resolves for autocorrelation, and
// 44 % failed; with the floor from the other series only and the hinge's
// φ the smaller of that bound (around the change points, too) and the
// values' before the window, 63 %.
func TestSimGateSmallStepsDefaultWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("800 series")
	}
	const histories = 400
	fails := threeStepFailures(t, histories, 0.01, DefaultGateWindow)
	lo, hi := dist.ClopperPearson(fails, 2*histories, 0.05)
	t.Logf("three +4 %% steps in noise of 1 %%, window 10: %d of %d series fail [%.2f, %.2f %%]", fails, 2*histories, 100*lo, 100*hi)
	if fails < 2*histories*56/100 {
		t.Errorf("three +4 %% steps in noise of 1 %%, window 10: %d of %d series failed", fails, 2*histories)
	}
}

// TestSimGateCreep: histories of one series that creeps up 1 % per
// experiment over the newest 10 of 40 fail with the default gate in a
// share whose 95 % Clopper–Pearson lower bound is at least 95 %, in noise
// of 1 % and of 2 % (400 histories each; in 2 %, 88.9 % of 4,000 failed
// when the trend was Mann–Kendall over the window and up to 30 values
// before it, which looks for a line through all of them). The trend is the
// hinge at the window's start against the values before it
// (trend.TestHinge), with φ from those values (trendPhi); a change point
// in the window does not keep it from them. MQGATE_SIM_TRIALS sets the
// number of histories per noise.
func TestSimGateCreep(t *testing.T) {
	if testing.Short() {
		t.Skip("800 series")
	}
	histories := simTrials(400)
	for _, sigma := range []float64{0.01, 0.02} {
		fails, byTrend := 0, 0
		for seed := uint64(0); seed < uint64(histories); seed++ {
			h := simHistory(seed, 40, []int{1024}, sigma, 0, 1, 40)
			for _, v := range h.SubExperiments[0].Values {
				for _, x := range v {
					for i := range x {
						x[i] *= math.Pow(1.01, float64(max(0, i-29)))
					}
				}
			}
			g := gateSim(t, h, seed, GateOptions{Window: DefaultGateWindow, MinChange: DefaultMinChange})
			for _, s := range g[0].Failures() {
				fails++
				if s.Decisive.Trend {
					byTrend++
				}
			}
		}
		lo, hi := dist.ClopperPearson(fails, histories, 0.05)
		t.Logf("creep, noise %g %%: %d of %d histories fail [%.2f, %.2f %%], %d on the trend", 100*sigma, fails, histories, 100*lo, 100*hi, byTrend)
		if lo < 0.95 || byTrend == 0 {
			t.Errorf("creep, noise %g %%: %d of %d histories failed [%.4f, %.4f], %d on the trend", 100*sigma, fails, histories, lo, hi, byTrend)
		}
	}
}

// simTrials is the number of histories of a simulation: MQGATE_SIM_TRIALS,
// else def (kept small so that go test stays quick).
func simTrials(def int) int {
	if n, err := strconv.Atoi(os.Getenv("MQGATE_SIM_TRIALS")); err == nil && n > 0 {
		return n
	}
	return def
}

// TestSimGateSyntheticRegression: the same synthetic histories with a 10 %
// slowdown in the newest 8 of 30 experiments fail a gate on the Medians.
func TestSimGateSyntheticRegression(t *testing.T) {
	for seed := uint64(0); seed < 3; seed++ {
		h := syntheticHistory(seed, 30, 1.1, 22)
		if err := h.DetectChanges(context.Background(), ChangeOptions{Options: changepoint.Options{Seed: seed}}); err != nil {
			t.Fatal(err)
		}
		g, err := h.Gate(context.Background(), GateOptions{Metrics: []string{"Median"}})
		if err != nil {
			t.Fatal(err)
		}
		if !g.Failed() {
			t.Errorf("seed %d: gate passed a 10 %% slowdown: %s", seed, g.Summary())
		}
	}
}

// threeStepFailures gates histories of two series rising +4 % at 25, 30
// and 35 in noise of sigma, with the gate window given, and counts the
// series that failed.
func threeStepFailures(t *testing.T, histories int, sigma float64, window int) int {
	fails := 0
	for seed := uint64(0); seed < uint64(histories); seed++ {
		h := shapeHistory(seed, sigma, func(i int) float64 {
			l := 1.0
			for _, at := range []int{25, 30, 35} {
				if i >= at {
					l *= 1.04
				}
			}
			return l
		})
		g := gateSim(t, h, seed, GateOptions{Window: window, MinChange: DefaultMinChange})
		fails += len(g[0].Failures())
	}
	return fails
}
