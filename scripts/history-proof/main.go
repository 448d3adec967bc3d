// Command history-proof measures, by simulation through the history tool's
// own code paths (history.DetectChanges, then History.Gate), what history's
// change points and --gate do (issue: history that CI can live with), and
// prints each rate with its 95 % Clopper–Pearson interval:
//
//   - false change points in series without a change, 30 experiments,
//     independent and AR(1) φ = 0.6 noise, pre-whitened as history does
//     (φ estimated per magnitude over one series, or pooled over 11
//     payloads) and tested as they are (changepoint.Detect, φ = 0);
//   - for one series of 30 AR(1) values, the false change points when
//     whitened with the true φ and with φ estimated as if there were no
//     change, and that estimate's cost in power (docs/methods.md);
//   - a 10 % and a 20 % step 7 experiments old in 40: found, and failing
//     the gate;
//   - a 20 % step 30 experiments old: gated with --gate-window 10 (should
//     be 0) and when every age is judged (--gate-window 0);
//   - a fresh 20 % step acknowledged (--acknowledged): gated (should be 0);
//   - a fresh 3 % step in 0.5 % noise: gated with --min-change 0 and with
//     the default 5 % (should be 0);
//   - 11 payloads without a change, 3 of them AR(1) with φ = 0.8 and 8
//     independent, and one series or 11 payloads sharing φ = 0.6 or 0.8:
//     the gate's false FAIL;
//   - in noise of 4, 2 and 1 %, with --gate-window 10 and 20: a 20 % rise
//     followed by a fall of 8 %, a creep of 1 % per experiment over the
//     newest 10, and three steps of 4 %: failed;
//   - a 20 % step never acknowledged, 5 to 20 experiments old: failed.
//
// Values are log-normal around synth.BaseLatency with 4 % noise (0.5 % for
// the --min-change case); each history is one sub-experiment, gated on its
// Median at --significance 0.01.
//
//	go run ./scripts/history-proof            # 1,000 series per case (about 45 s)
//	go run ./scripts/history-proof -n 200     # quicker, wider intervals
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/stats/dist"
	"github.com/mqgate/mqgate/internal/synth"
)

func main() {
	n := flag.Int("n", 1000, "series per case (histories of one series; the pooled case rounds up to histories of 11)")
	seed := flag.Uint64("seed", 1, "first seed")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "history-proof: -n must be at least 1")
		os.Exit(2)
	}
	start := time.Now()
	if _, err := run(context.Background(), os.Stdout, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "history-proof:", err)
		os.Exit(1)
	}
	fmt.Printf("took %s\n", time.Since(start).Round(time.Second))
}

// Rate is k of n series.
type Rate struct {
	Name string
	K, N int
}

// count adds a series to r, and to its k when hit.
func (r *Rate) count(hit bool) {
	r.N++
	if hit {
		r.K++
	}
}

func (r Rate) String() string {
	if r.N == 0 {
		return fmt.Sprintf("%-80s %5d / %-5d (none)", r.Name, r.K, r.N)
	}
	lo, hi := dist.ClopperPearson(r.K, r.N, 0.05)
	return fmt.Sprintf("%-80s %5d / %-5d %6.2f %% [%.2f, %.2f]", r.Name, r.K, r.N, 100*float64(r.K)/float64(r.N), 100*lo, 100*hi)
}

const sub = "interprocess_reliable"

// simHistory returns a history of n experiments of sub and payloads with
// Median values only: log-normal noise of sd sigma, AR(1) of lag-1
// autocorrelation phi across experiments, times step from experiment
// stepAt on.
func simHistory(rng *rand.Rand, n int, payloads []int, sigma, phi, step float64, stepAt int) *history.History {
	return simLevels(rng, n, payloads, sigma, slices.Repeat([]float64{phi}, len(payloads)), func(i int) float64 {
		if i >= stepAt {
			return step
		}
		return 1
	})
}

// simLevels returns a history of n experiments of sub and payloads with
// Median values only: log-normal noise of sd sigma, AR(1) of lag-1
// autocorrelation phis[p] for payload p, times level(i) at experiment i.
func simLevels(rng *rand.Rand, n int, payloads []int, sigma float64, phis []float64, level func(i int) float64) *history.History {
	exps := make([]*experiment.Experiment, n)
	for e := range exps {
		exps[e] = &experiment.Experiment{Name: fmt.Sprintf("e%03d", e)}
	}
	s := &history.SubExperiment{Type: sub, Payloads: payloads}
	s.Requirements = make([][]float64, len(history.Checks))
	for c := range s.Requirements {
		s.Requirements[c] = gaps(len(payloads))
	}
	s.Values = make([][][]float64, len(history.Magnitudes))
	for m, mag := range history.Magnitudes {
		s.Values[m] = make([][]float64, len(payloads))
		for p, b := range payloads {
			v := gaps(n)
			if mag == "Median" {
				phi := phis[p]
				e := rng.NormFloat64() / math.Sqrt(1-phi*phi)
				for i := range v {
					if i > 0 {
						e = phi*e + rng.NormFloat64()
					}
					v[i] = synth.BaseLatency(sub, b) * math.Exp(sigma*e*math.Sqrt(1-phi*phi)) * level(i)
				}
			}
			s.Values[m][p] = v
		}
	}
	return &history.History{Experiments: exps, SubExperiments: []*history.SubExperiment{s}}
}

// mixedPhis is the lag-1 autocorrelation of each of synth.DefaultPayloads
// in the mixed case: 0.8 for three payloads, 0 for the other eight.
func mixedPhis() []float64 {
	phis := make([]float64, len(synth.DefaultPayloads))
	for _, p := range []int{2, 5, 8} {
		phis[p] = 0.8
	}
	return phis
}

// shapes are the regressions the gate must catch in 40 experiments
// (history gate window): the level at experiment i.
var shapes = []struct {
	name  string
	level func(i int) float64
}{
	{"+20 % at 30, then −8 % at 35", func(i int) float64 {
		switch {
		case i >= 35:
			return 1.2 * 0.92
		case i >= 30:
			return 1.2
		}
		return 1
	}},
	{"creeping +1 % per experiment over the last 10", func(i int) float64 { return math.Pow(1.01, float64(max(0, i-29))) }},
	{"three +4 % steps at 25, 30 and 35", func(i int) float64 {
		l := 1.0
		for _, at := range []int{25, 30, 35} {
			if i >= at {
				l *= 1.04
			}
		}
		return l
	}},
}

// shapesRun gates the mixed-φ histories and the regressions of shapes and
// the stale regression.
func shapesRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	fmt.Fprintln(w, "\n11 payloads, 30 experiments without a change, AR(1) φ = 0.8 for 3 payloads and independent for 8 (--gate-window 10, --min-change 5 %):")
	mixed, mixedFP := Rate{Name: "  histories the gate fails"}, Rate{Name: "  series with a change point"}
	for i := 0; i < n; i++ {
		s := seed + uint64(i)
		h := simLevels(rand.New(rand.NewPCG(s, 7)), 30, synth.DefaultPayloads, 0.04, mixedPhis(), func(int) float64 { return 1 })
		g, err := gate(ctx, h, s, defaultGate)
		if err != nil {
			return err
		}
		mixed.count(g[0].Failed())
		_, changes := medians(h)
		for _, c := range changes {
			mixedFP.count(len(c.ChangePoints) > 0)
		}
	}
	add(mixed, mixedFP)
	wide := defaultGate
	wide.Window = 20
	for _, sigma := range []float64{0.04, 0.02, 0.01} {
		fmt.Fprintf(w, "\nregressions in the newest experiments of 40, independent noise of %g %%, --min-change 5 %%:\n", 100*sigma)
		for k, sh := range shapes {
			r := Rate{Name: fmt.Sprintf("  %s: the gate fails (noise %g %%)", sh.name, 100*sigma)}
			r20 := Rate{Name: fmt.Sprintf("    with --gate-window 20 (noise %g %%)", 100*sigma)}
			for i := 0; i < n; i++ {
				s := seed + uint64(i)
				h := simLevels(rand.New(rand.NewPCG(s, uint64(8+k))), 40, []int{1024}, sigma, []float64{0}, sh.level)
				g, err := gate(ctx, h, s, defaultGate, wide)
				if err != nil {
					return err
				}
				r.count(g[0].Failed())
				r20.count(g[1].Failed())
			}
			add(r, r20)
		}
	}
	fmt.Fprintln(w, "\na 20 % step never acknowledged, independent noise of 4 %, 40 experiments, --gate-window 10: the gate fails when it is k experiments old")
	for _, age := range []int{5, 9, 10, 11, 20} {
		r := Rate{Name: fmt.Sprintf("  %d experiments old", age)}
		for i := 0; i < n; i++ {
			s := seed + uint64(i)
			h := simLevels(rand.New(rand.NewPCG(s, 11)), 40, []int{1024}, 0.04, []float64{0}, func(j int) float64 {
				if j >= 40-age {
					return 1.2
				}
				return 1
			})
			g, err := gate(ctx, h, s, defaultGate)
			if err != nil {
				return err
			}
			r.count(g[0].Failed())
		}
		add(r)
	}
	return nil
}

// gaps returns n NaN values: a series without any value yet.
func gaps(n int) []float64 { return slices.Repeat([]float64{math.NaN()}, n) }

// medians returns the Median series of h's payloads with their change
// points.
func medians(h *history.History) ([][]float64, []history.SeriesChanges) {
	s, m := h.SubExperiments[0], slices.Index(history.Magnitudes, "Median")
	return s.Values[m], s.Changes[m]
}

// gate detects h's change points and gates its Medians with each of opts.
func gate(ctx context.Context, h *history.History, seed uint64, opts ...history.GateOptions) ([]*history.GateResult, error) {
	if err := h.DetectChanges(ctx, history.ChangeOptions{Options: changepoint.Options{Seed: seed}, Workers: 1}); err != nil {
		return nil, err
	}
	var out []*history.GateResult
	for _, o := range opts {
		o.Metrics = []string{"Median"}
		g, err := h.Gate(ctx, o)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// changeWithin reports whether one of cps is at experiment lo to hi.
func changeWithin(cps []changepoint.ChangePoint, lo, hi int) bool {
	return slices.ContainsFunc(cps, func(c changepoint.ChangePoint) bool { return c.Index >= lo && c.Index <= hi })
}

// failedNear counts the series of g that failed on a change point within 2
// experiments of at.
func failedNear(g *history.GateResult, at int) int {
	k := 0
	for _, s := range g.Series {
		if s.Failed && s.Change != nil && s.Change.Index >= at-2 && s.Change.Index <= at+2 {
			k++
		}
	}
	return k
}

// defaultGate is history's gate by default: --gate-window 10, --min-change 5 %.
var defaultGate = history.GateOptions{Window: history.DefaultGateWindow, MinChange: history.DefaultMinChange}

// one is the payloads of a history of one series.
var one = []int{1024}

// run simulates every case with n series each and prints the rates.
func run(ctx context.Context, w io.Writer, n int, seed uint64) ([]Rate, error) {
	var rates []Rate
	add := func(rs ...Rate) {
		for _, r := range rs {
			rates = append(rates, r)
			fmt.Fprintln(w, r)
		}
	}
	fmt.Fprintf(w, "history-proof: %d series per case, --significance %g, %d permutations, --min-segment %d; rates with 95 %% Clopper–Pearson intervals\n\n",
		n, changepoint.DefaultAlpha, changepoint.DefaultPermutations, changepoint.MinSegmentFloor)
	for _, c := range []func(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error{
		falseChangesRun, whiteningRun, estimateCostRun, falseFailsRun, freshStepsRun, stepsRun, shapesRun,
	} {
		if err := c(ctx, w, add, n, seed); err != nil {
			return nil, err
		}
	}
	return rates, nil
}

// falseChangesRun counts the false change points of series without a
// change, independent or AR(1), one series or 11 payloads pooled: as
// history finds them (pre-whitened) and as they are (changepoint.Detect).
func falseChangesRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	fmt.Fprintln(w, "false change points, 30 experiments without a change (a series with any change point counts):")
	for _, c := range []struct {
		name     string
		phi      float64
		payloads []int
	}{
		{"independent, one series", 0, one},
		{"independent, 11 payloads pooled", 0, synth.DefaultPayloads},
		{"AR(1) φ = 0.6, one series (φ estimated from it alone)", 0.6, one},
		{"AR(1) φ = 0.6, 11 payloads (φ pooled)", 0.6, synth.DefaultPayloads},
	} {
		whitened, plain := Rate{Name: "  " + c.name + ", pre-whitened"}, Rate{Name: "  " + c.name + ", as they are"}
		for i := 0; whitened.N < n; i++ {
			s := seed + uint64(i)
			h := simHistory(rand.New(rand.NewPCG(s, 1)), 30, c.payloads, 0.04, c.phi, 1, 30)
			if _, err := gate(ctx, h, s); err != nil {
				return err
			}
			vals, changes := medians(h)
			for p := range vals {
				whitened.count(len(changes[p].ChangePoints) > 0)
				res, err := changepoint.Detect(vals[p], changepoint.Options{Seed: s})
				if err != nil {
					return err
				}
				plain.count(len(res.ChangePoints) > 0)
			}
		}
		add(whitened, plain)
	}
	return nil
}

// whiteningRun shows where the false change points of one AR(1) series
// without a change come from: how often it is whitened, its change points
// whitened or not, with the true φ and with φ estimated as if there were
// no change, and how often the gate fails.
func whiteningRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	fmt.Fprintln(w, "\none series of 30, AR(1) φ = 0.6 without a change: where its false change points come from (docs/methods.md):")
	known, h0, gated := Rate{Name: "  whitened with the true φ = 0.6"}, Rate{Name: "  whitened with φ estimated as if there were no change"},
		Rate{Name: "  the gate fails (--gate-window 10, --min-change 5 %)"}
	unwhitened := Rate{Name: "  not whitened: φ estimated at most 1.5 standard errors"}
	fpUnwhitened, fpWhitened := Rate{Name: "    a change point, among those not whitened"}, Rate{Name: "    a change point, among those whitened"}
	for i := 0; i < n; i++ {
		s := seed + uint64(i)
		h := simHistory(rand.New(rand.NewPCG(s, 1)), 30, one, 0.04, 0.6, 1, 30)
		g, err := gate(ctx, h, s, defaultGate)
		if err != nil {
			return err
		}
		gated.count(g[0].Failed())
		vals, changes := medians(h)
		fp := &fpWhitened
		unwhitened.N++
		if changes[0].Autocorrelation == 0 {
			unwhitened.K++
			fp = &fpUnwhitened
		}
		fp.count(len(changes[0].ChangePoints) > 0)
		var a changepoint.Lag1
		a.Add(vals[0], changepoint.Result{})
		for _, r := range []struct {
			rate *Rate
			phi  float64
		}{{&known, 0.6}, {&h0, a.Estimate()}} {
			res, err := changepoint.Detect(vals[0], changepoint.Options{Seed: s, Autocorrelation: r.phi})
			if err != nil {
				return err
			}
			r.rate.count(len(res.ChangePoints) > 0)
		}
	}
	add(unwhitened, fpUnwhitened, fpWhitened, known, h0, gated)
	return nil
}

// estimateCostRun measures what estimating φ as if there were no change
// costs in power: a 4 sd step found near it, with φ estimated around the
// plain segmentation (as history does) and with that estimate.
func estimateCostRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	fmt.Fprintln(w, "  and the cost of estimating φ as if there were no change: a 4 sd step at 20 of 30 independent values found within 1 of it")
	stepAsIs, stepH0 := Rate{Name: "    φ estimated around the plain segmentation (as history does)"}, Rate{Name: "    φ estimated as if there were no change"}
	for i := 0; i < n; i++ {
		s := seed + uint64(i)
		h := simHistory(rand.New(rand.NewPCG(s, 6)), 30, one, 0.04, 0, math.Exp(4*0.04), 20)
		if _, err := gate(ctx, h, s); err != nil {
			return err
		}
		vals, changes := medians(h)
		var a changepoint.Lag1
		a.Add(vals[0], changepoint.Result{})
		res, err := changepoint.Detect(vals[0], changepoint.Options{Seed: s, Autocorrelation: a.Estimate()})
		if err != nil {
			return err
		}
		stepAsIs.count(changeWithin(changes[0].ChangePoints, 19, 21))
		stepH0.count(changeWithin(res.ChangePoints, 19, 21))
	}
	add(stepAsIs, stepH0)
	return nil
}

// falseFailsRun counts the gate's false fails in AR(1) histories without
// a change: one series, and 11 payloads sharing φ.
func falseFailsRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	fmt.Fprintln(w, "\nhistories of 30 experiments without a change, AR(1) noise of 4 %: the gate fails (--gate-window 10, --min-change 5 %)")
	for _, c := range []struct {
		name     string
		phi      float64
		payloads []int
		stream   uint64
	}{
		{"one series, φ = 0.8", 0.8, one, 12},
		{"11 payloads sharing φ = 0.6", 0.6, synth.DefaultPayloads, 13},
		{"11 payloads sharing φ = 0.8", 0.8, synth.DefaultPayloads, 14},
	} {
		r := Rate{Name: "  " + c.name}
		for i := 0; i < n; i++ {
			s := seed + uint64(i)
			h := simHistory(rand.New(rand.NewPCG(s, c.stream)), 30, c.payloads, 0.04, c.phi, 1, 30)
			g, err := gate(ctx, h, s, defaultGate)
			if err != nil {
				return err
			}
			r.count(g[0].Failed())
		}
		add(r)
	}
	return nil
}

// freshStepsRun counts the steps 7 experiments old that a change point
// finds and that the gate fails on.
func freshStepsRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	fmt.Fprintln(w, "\nsteps 7 experiments old (at experiment 33 of 40), independent noise of 4 %, --gate-window 10, --min-change 5 %:")
	for _, step := range []float64{1.10, 1.20} {
		pct := math.Round(100 * (step - 1))
		found, failed := Rate{Name: fmt.Sprintf("  %g %% step: a change point within 2 of it", pct)}, Rate{Name: fmt.Sprintf("  %g %% step: the gate fails on it", pct)}
		for i := 0; i < n; i++ {
			s := seed + uint64(i)
			h := simHistory(rand.New(rand.NewPCG(s, 2)), 40, one, 0.04, 0, step, 33)
			g, err := gate(ctx, h, s, defaultGate)
			if err != nil {
				return err
			}
			_, changes := medians(h)
			found.count(changeWithin(changes[0].ChangePoints, 31, 35))
			failed.N++
			failed.K += failedNear(g[0], 33)
		}
		add(found, failed)
	}
	return nil
}

// gatedStep is a case of stepsRun: a step in histories of one series of
// 40 experiments, in independent noise of sigma, gated with each of opts.
type gatedStep struct {
	heading     string
	stream      uint64
	sigma, step float64
	at          int
	names       [2]string
	opts        [2]history.GateOptions
}

// stepsRun counts the gates that fail on a step when they should not: 30
// experiments old (beside every age judged), acknowledged (beside not),
// and below --min-change (beside --min-change 0).
func stepsRun(ctx context.Context, w io.Writer, add func(...Rate), n int, seed uint64) error {
	ack := history.Ack{SubExperiment: sub, Payload: one[0], Metric: "Median", Experiment: "e033", Note: "accepted", File: "acks.csv", Line: 2}
	acked := defaultGate
	acked.Acks, acked.AcksFile = []history.Ack{ack}, "acks.csv"
	for _, c := range []gatedStep{
		{"\na 20 % step 30 experiments old (at experiment 10 of 40), independent noise of 4 %:", 3, 0.04, 1.2, 10,
			[2]string{"  gated on it with --gate-window 10 (expected 0)", "  gated on it judging every age (--gate-window 0)"},
			[2]history.GateOptions{defaultGate, {Window: 0, MinChange: history.DefaultMinChange}}},
		{"\na fresh 20 % step (at experiment 33 of 40) acknowledged at its experiment (--acknowledged):", 4, 0.04, 1.2, 33,
			[2]string{"  gated on it, acknowledged (expected 0)", "  gated on it, not acknowledged"},
			[2]history.GateOptions{acked, defaultGate}},
		{"\na fresh 3 % step (at experiment 33 of 40) in noise of 0.5 %:", 5, 0.005, 1.03, 33,
			[2]string{"  gated on it with --min-change 0", fmt.Sprintf("  gated on it with --min-change %g %% (expected 0)", 100*history.DefaultMinChange)},
			[2]history.GateOptions{{Window: history.DefaultGateWindow}, defaultGate}},
	} {
		fmt.Fprintln(w, c.heading)
		rates := [2]Rate{{Name: c.names[0]}, {Name: c.names[1]}}
		for i := 0; i < n; i++ {
			s := seed + uint64(i)
			h := simHistory(rand.New(rand.NewPCG(s, c.stream)), 40, one, c.sigma, 0, c.step, c.at)
			g, err := gate(ctx, h, s, c.opts[:]...)
			if err != nil {
				return err
			}
			for k := range rates {
				rates[k].N++
				rates[k].K += failedNear(g[k], c.at)
			}
		}
		add(rates[:]...)
	}
	return nil
}
