package requirements

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// lognormalObservations are runs of rows independent (sub-experiment,
// payload) rows whose Median, 99% and Max are independent and log-normal
// from run to run with log standard deviation sd.
func lognormalObservations(seed uint64, runs, rows int, sd float64) []Observation {
	rng := rand.New(rand.NewPCG(seed, 2))
	var obs []Observation
	for r := 0; r < runs; r++ {
		for b := 0; b < rows; b++ {
			v := func(mu float64) float64 { return mu * math.Exp(sd*rng.NormFloat64()) }
			obs = append(obs, Observation{Experiment: fmt.Sprintf("run-%03d", r), Type: "intraprocess_reliable", Bytes: 16 << b,
				Median: v(10), P99: v(30), Max: v(100)})
		}
	}
	return obs
}

// TestCheckGateFalseFailKnown: on log-normal runs the log-normal check of
// one row (m = 3 independent checks at level P/3 each) fails an unchanged
// system with chance 1 − (1 − P/3)³ (a little less where Shapiro–Wilk
// sends a check to the distribution-free bound, which fails at most as
// often). A pool much larger than a split keeps the splits nearly
// independent, so the measured rate must lie within the binomial spread of
// it; the distribution-free method stays at or below P.
func TestCheckGateFalseFailKnown(t *testing.T) {
	pool, err := CheckPool(lognormalObservations(5, 600, 1, 0.1))
	if err != nil {
		t.Fatal(err)
	}
	const p, splits = 0.3, 1500
	want := 1 - math.Pow(1-p/3, 3)
	for _, method := range []string{gate.MethodLogNormal, gate.MethodOrder} {
		t.Run(method, func(t *testing.T) {
			g := CheckGate{Config: StatConfig{FalseFail: p, Method: method, NormalityLevel: DefaultNormalityLevel}}
			r, err := calibrate.Run(context.Background(), pool, calibrate.Options{Gate: g, Reference: 10, Candidate: 5, Splits: splits, Seed: 4,
				FalseFail: p, Factors: []float64{2}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Checks != 3 || r.Reference != 10 || r.Candidate != 5 || r.PerSide != 0 || r.Gate != "check" {
				t.Fatalf("result %+v", r)
			}
			se := math.Sqrt(want * (1 - want) / splits)
			got := r.FalseFails.Rate
			switch method {
			case gate.MethodLogNormal:
				// Shapiro–Wilk rejects 5 % of fits; those fail at ≤ P/3.
				if got < want-3.3*se-0.05*want || got > want+3.3*se {
					t.Errorf("log-normal false fails %v (%d/%d), expected %v ± %v", got, r.FalseFails.Count, splits, want, 3.3*se)
				}
			case gate.MethodOrder:
				// ≥ 2 of 5 above the largest of 10 has chance
				// C(5,2)/C(15,2) = 0.095 ≤ P/3 per check.
				order := 1 - math.Pow(1-orderChance(10, 5, 2), 3)
				if math.Abs(got-order) > 3.3*math.Sqrt(order*(1-order)/splits) {
					t.Errorf("order false fails %v, expected %v", got, order)
				}
			}
			if got := r.Curve[0].Gate.Rate; got < 0.99 {
				t.Errorf("×2 with log sd 0.1 detected in %v of splits", got)
			}
			sum := r.FalseFails.Count + r.Inconclusive.Count + r.Passed.Count
			if sum != splits || r.Curve[0].Gate.Count+r.Curve[0].Passed.Count+r.Curve[0].Inconclusive.Count != splits {
				t.Errorf("verdicts do not add up to the splits: %+v", r)
			}
		})
	}
}

// TestCheckGatePower: with 11 rows at log sd 0.02, ×1.05 is not always
// caught by ten log-normal checks of 5 runs, ×1.25 always is; the power
// curve does not fall; a margin of 30 % hides ×1.25.
func TestCheckGatePower(t *testing.T) {
	pool, err := CheckPool(lognormalObservations(8, 60, 11, 0.02))
	if err != nil {
		t.Fatal(err)
	}
	cfg := StatConfig{FalseFail: 0.01, Method: gate.MethodLogNormal, NormalityLevel: DefaultNormalityLevel}
	opt := calibrate.Options{Gate: CheckGate{Config: cfg}, Reference: 20, Candidate: 5, Splits: 100, Seed: 1, FalseFail: 0.01, Factors: DefaultCheckFactors}
	r, err := calibrate.Run(context.Background(), pool, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(r.Curve); i++ {
		if r.Curve[i].Gate.Rate < r.Curve[i-1].Gate.Rate {
			t.Errorf("power falls from ×%v to ×%v", r.Curve[i-1].Factor, r.Curve[i].Factor)
		}
	}
	if r.Curve[2].Gate.Rate != 1 || r.Detect > 1.25 {
		t.Errorf("×1.25: %+v, detect %v", r.Curve[2].Gate, r.Detect)
	}
	if r.FalseFails.Count > 5 {
		t.Errorf("%d false fails of 100 at 1 %%", r.FalseFails.Count)
	}
	opt.Gate = CheckGate{Config: cfg, Margin: 0.3, Columns: []result.Metric{result.Median}}
	m, err := calibrate.Run(context.Background(), pool, opt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Curve[2].Gate.Rate != 0 || m.Checks != 11 {
		t.Errorf("margin 30 %%, Median only: ×1.25 fails %v of splits, %d checks", m.Curve[2].Gate.Rate, m.Checks)
	}
	if !strings.Contains(m.Description, "--columns Median, --margin 30%") {
		t.Errorf("description %q", m.Description)
	}
}

// TestCheckGateNotes: the notes say what the distribution-free limits need
// and what the log-normal ones detect.
func TestCheckGateNotes(t *testing.T) {
	pool, err := CheckPool(lognormalObservations(3, 20, 2, 0.05))
	if err != nil {
		t.Fatal(err)
	}
	r, err := calibrate.Run(context.Background(), pool, calibrate.Options{Gate: CheckGate{Config: StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}},
		Reference: 10, Candidate: 4, Splits: 10, FalseFail: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	// 0.01/6 per check: 1/C(14, 4) = 0.001 ≤ 0.00167, so 4 runs can fail;
	// 3 cannot (1/C(13, 3) = 0.0035).
	text := strings.Join(r.Notes, "\n")
	for _, want := range []string{"0 checked limit(s) are log-normal and 6 distribution-free", "a distribution-free limit (the largest of 10 reference runs) fails when ≥ 4 of the 4 candidate runs exceed it (fewest runs that can: 4)"} {
		if !strings.Contains(text, want) {
			t.Errorf("notes lack %q:\n%s", want, text)
		}
	}
	if r.FalseFails.Count != 0 {
		t.Errorf("%d false fails", r.FalseFails.Count)
	}
	r, _ = calibrate.Run(context.Background(), pool, calibrate.Options{Gate: CheckGate{Config: StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}},
		Reference: 10, Candidate: 3, Splits: 10, FalseFail: 0.01, Factors: []float64{3}})
	if !strings.Contains(strings.Join(r.Notes, "\n"), "with 3 candidate runs those checks cannot fail") || r.Curve[0].Gate.Count != 0 {
		t.Errorf("3 candidate runs: %v; ×3 failed %d", r.Notes, r.Curve[0].Gate.Count)
	}
}

// TestLogNormalDetectable compares with the closed form computed by scipy:
// exp((t.ppf(1-0.01/66, 9) + norm.ppf(0.95)) * 0.03 * sqrt(1/10 + 1/10)).
func TestLogNormalDetectable(t *testing.T) {
	got := logNormalDetectable(0.03, 10, 10, 0.01/66, 0.95, 0)
	if want := 1.1032193125663576; math.Abs(got-want) > 1e-6 {
		t.Errorf("detectable %v, scipy %v", got, want)
	}
	if k := logNormalRunsFor(0.03, 10, 0.01/66, 0.95, 0, 1.1); k != 12 {
		t.Errorf("runs for ×1.1: %d", k)
	}
	if k := logNormalRunsFor(0.3, 10, 0.01/66, 0.95, 0, 1.1); k != -1 {
		t.Errorf("runs for ×1.1 at log sd 0.3: %d", k)
	}
}

func TestCheckPoolErrors(t *testing.T) {
	obs := lognormalObservations(1, 4, 2, 0.1)
	if _, err := CheckPool(obs[:len(obs)-1]); err == nil || !strings.Contains(err.Error(), "run-003 has no 32-byte row of intraprocess_reliable") {
		t.Errorf("lacking row: %v", err)
	}
	pool, _ := CheckPool(obs)
	pool.Keys[0].Metric = result.Min
	if _, err := (CheckGate{Config: StatConfig{FalseFail: 0.01, Method: gate.MethodOrder, NormalityLevel: 0.05}}).Judge(pool, []int{0, 1}, []int{2}, []float64{1}); err == nil {
		t.Error("a Min check was accepted")
	}
}

// TestCheckGateRareMode: runs with a rare slow mode (one run in ten 40 %
// slower, as a machine's scheduler makes them) are exchangeable but not
// log-normal. Shapiro–Wilk on 10 runs rarely sees the mode, so a log-normal
// bound kept by that pretest failed unchanged systems far more often than
// asked; 10 runs cannot back a bound at the check level (below 1/(n+1)),
// so the log-normal method refuses it, and both methods keep their level.
func TestCheckGateRareMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 3))
	var obs []Observation
	for r := 0; r < 200; r++ {
		for b := 0; b < 4; b++ {
			v := func(mu float64) float64 {
				x := mu * math.Exp(0.01*rng.NormFloat64())
				if rng.Float64() < 0.1 {
					x *= 1.4
				}
				return x
			}
			obs = append(obs, Observation{Experiment: fmt.Sprintf("run-%03d", r), Type: "intraprocess_reliable", Bytes: 16 << b, Median: v(10), P99: v(30), Max: v(100)})
		}
	}
	pool, err := CheckPool(obs)
	if err != nil {
		t.Fatal(err)
	}
	rates := map[string]*calibrate.Result{}
	for _, method := range []string{gate.MethodOrder, gate.MethodLogNormal} {
		g := CheckGate{Config: StatConfig{FalseFail: 0.05, Method: method, NormalityLevel: DefaultNormalityLevel}}
		r, err := calibrate.Run(context.Background(), pool, calibrate.Options{Gate: g, Reference: 10, Candidate: 10, Splits: 400, Seed: 2, FalseFail: 0.05, Factors: []float64{2}})
		if err != nil {
			t.Fatal(err)
		}
		rates[method] = r
	}
	t.Logf("order %+v, log-normal %+v", rates[gate.MethodOrder].FalseFails, rates[gate.MethodLogNormal].FalseFails)
	if o := rates[gate.MethodOrder].FalseFails; o.Low > 0.05 {
		t.Errorf("order: %+v above 5 %%", o)
	}
	l := rates[gate.MethodLogNormal]
	if l.FalseFails.Low > 0.05 {
		t.Errorf("log-normal on a bimodal pool: %+v above 5 %%", l.FalseFails)
	}
	if !strings.Contains(strings.Join(l.Notes, "\n"), "0 checked limit(s) are log-normal") {
		t.Errorf("notes: %v", l.Notes)
	}
	if strings.Contains(strings.Join(rates[gate.MethodOrder].Notes, "\n"), "does not hold") {
		t.Errorf("order notes: %v", rates[gate.MethodOrder].Notes)
	}
}
