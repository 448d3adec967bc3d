package requirements

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

// simTrials is the number of simulated derivations per case:
// MQGATE_SIM_TRIALS, else def (small, so that go test stays quick; the
// figures of docs/methods.md are from MQGATE_SIM_TRIALS=10000).
func simTrials(def int) int {
	if n, err := strconv.Atoi(os.Getenv("MQGATE_SIM_TRIALS")); err == nil && n > 0 {
		return n
	}
	return def
}

// ar1Logs fills x with AR(1) normal values of correlation phi and standard
// deviation sd (independent when phi is 0).
func ar1Logs(rng *rand.Rand, x []float64, phi, sd float64) {
	prev := rng.NormFloat64()
	for i := range x {
		if i > 0 {
			prev = phi*prev + math.Sqrt(1-phi*phi)*rng.NormFloat64()
		}
		x[i] = sd * prev
	}
}

// rate is a simulated share with its 95 % Clopper–Pearson interval.
type rate struct{ k, n int }

func (r rate) p() float64 { return float64(r.k) / float64(r.n) }
func (r rate) ci() (lo, hi float64) {
	return dist.ClopperPearson(r.k, r.n, 0.05)
}
func (r rate) String() string {
	lo, hi := r.ci()
	return fmt.Sprintf("%.2f %% [%.2f, %.2f]", 100*r.p(), 100*lo, 100*hi)
}

// above says a is significantly above b: their 95 % intervals do not
// overlap.
func above(a, b rate) bool {
	lo, _ := a.ci()
	_, hi := b.ci()
	return lo > hi
}

// checkRates derives statistical requirements (distribution-free, false
// fail 1 %, one row: 3 checks, 0.333 % each) from n reference runs and
// judges k candidate runs, made worse by factor, on the Median check, as
// requirements and check do: the shares failed and passed. The runs are
// log-normal with log standard deviation sd, consecutive runs (reference
// first, then candidate) AR(1)-correlated with phi.
func checkRates(rng *rand.Rand, trials, n, k int, sd, phi, factor float64, rank int) (fail, pass rate) {
	fail.n, pass.n = trials, trials
	x := make([]float64, n+k)
	obs := make([]Observation, n)
	cand := make([]float64, k)
	cfg := StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05, OrderRank: rank}
	for range trials {
		ar1Logs(rng, x, phi, sd)
		for i := range obs {
			v := 100 * math.Exp(x[i])
			obs[i] = Observation{Experiment: strconv.Itoa(i), Type: "a_b", Bytes: 16, Median: v, P99: v, Max: v}
		}
		d, err := DeriveStatistical(obs, cfg)
		if err != nil {
			panic(err)
		}
		for i := range cand {
			cand[i] = factor * 100 * math.Exp(x[n+i])
		}
		switch Judge(d.Requirements[0].Limit(result.Median), cand, 0).Status {
		case gate.Failed:
			fail.k++
		case gate.Passed:
			pass.k++
		}
	}
	return fail, pass
}

// TestBaselineRunsDoNotLoosen: statistical requirements and the multi-run
// check, through DeriveStatistical and Judge, on log-normal runs of CV
// 30 % with 10 candidate runs. Before (the limit the largest reference
// run, --order-rank 1) more reference runs made the check more lenient: a
// 1.5× regression passed 4.7 % of the time at 10 runs, 8.8 % at 20 and
// 16 % at 40. By default the limit is now the orderRankFor(n)-th largest
// run, the reference runs' 90th percentile: an unchanged system still
// fails a check at most at its level (the exchangeability formula,
// orderTail, is exact for every rank), and the regression's pass rate does
// not grow with the reference runs, nor its fail rate fall. Run with -v
// for the table of docs/methods.md.
func TestBaselineRunsDoNotLoosen(t *testing.T) {
	trials := simTrials(1500)
	sd := math.Sqrt(math.Log(1 + 0.3*0.3))
	const k, level = 10, 0.01 / 3
	type row struct{ fail0, pass0, fail15, pass15 rate }
	runs := []int{10, 20, 40}
	var before, after []row
	rng := rand.New(rand.NewPCG(21, 22))
	for _, rank := range []int{1, 0} {
		for _, n := range runs {
			var r row
			r.fail0, r.pass0 = checkRates(rng, trials, n, k, sd, 0, 1, rank)
			r.fail15, r.pass15 = checkRates(rng, trials, n, k, sd, 0, 1.5, rank)
			if rank == 1 {
				before = append(before, r)
			} else {
				after = append(after, r)
			}
		}
	}
	var tab strings.Builder
	fmt.Fprintf(&tab, "| reference runs | limit | unchanged: fails (level %.3g %%) | unchanged: passes | 1.5×: fails | 1.5×: passes |\n|---|---|---|---|---|---|\n", 100*level)
	for i, n := range runs {
		for _, side := range []struct {
			name string
			r    row
		}{{"largest run (before)", before[i]}, {largest(orderRankFor(n)) + " run (now)", after[i]}} {
			fmt.Fprintf(&tab, "| %d | %s | %s | %s | %s | %s |\n", n, side.name, side.r.fail0, side.r.pass0, side.r.fail15, side.r.pass15)
		}
	}
	t.Logf("CV 30 %%, %d candidate runs, %d derivations per cell:\n%s", k, trials, tab.String())

	// The simulation sees the problem it is for: before, the pass rate of
	// the regression grew from 10 to 40 reference runs.
	if !above(before[2].pass15, before[0].pass15) {
		t.Errorf("before: 1.5× passes %v at 10 runs and %v at 40: the simulation does not show the loosening", before[0].pass15, before[2].pass15)
	}
	for i, n := range runs {
		if lo, _ := after[i].fail0.ci(); lo > level {
			t.Errorf("%d runs: an unchanged system fails %v, above the check level %.3g %%", n, after[i].fail0, 100*level)
		}
		if i == 0 {
			continue
		}
		// Not growing: the later pass rate is not significantly above the
		// earlier one (the two intervals overlap, or it is lower), and the
		// fail rate not significantly below.
		prev, cur := after[i-1], after[i]
		if above(cur.pass15, prev.pass15) || cur.pass15.p() > prev.pass15.p()+0.01 {
			t.Errorf("1.5× passes %v at %d runs, %v at %d: more reference runs made the check more lenient", prev.pass15, runs[i-1], cur.pass15, n)
		}
		if above(prev.fail15, cur.fail15) || cur.fail15.p() < prev.fail15.p()-0.02 {
			t.Errorf("1.5× fails %v at %d runs, %v at %d: more reference runs made the check weaker", prev.fail15, runs[i-1], cur.fail15, n)
		}
	}
}

// ar1Input is n experiments of one sub-experiment and payload in start
// order, each column's log value an AR(1) series of correlation phi and
// standard deviation sd, without trend, the columns independent.
func ar1Input(rng *rand.Rand, n int, phi, sd float64) *Input {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var cols [checksPerRequirement][]float64
	for i := range cols {
		cols[i] = make([]float64, n)
		ar1Logs(rng, cols[i], phi, sd)
	}
	in := &Input{}
	for i := range n {
		row := result.SummaryRow{Bytes: 16}
		row.Median, row.P99, row.Max = 10*math.Exp(cols[0][i]), 30*math.Exp(cols[1][i]), 100*math.Exp(cols[2][i])
		in.Experiments = append(in.Experiments, &experiment.Experiment{
			Name: fmt.Sprintf("run-%02d", i), Start: start.Add(time.Duration(i) * time.Minute), StartFrom: "meta.json",
			Summaries: []experiment.Summary{{Type: "a_b", Rows: []result.SummaryRow{row}}},
		})
	}
	return in
}
