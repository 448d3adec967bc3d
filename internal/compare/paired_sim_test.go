//go:build !race

package compare

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
)

// outcomes counts the verdicts of repeats simulated comparisons of s, by
// mode.
func outcomes(t *testing.T, s driftSpec, pairing Pairing, repeats int, seed uint64) map[gate.Status]int {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	n := map[gate.Status]int{}
	for range repeats {
		refs, cands := s.simulate(rng)
		res, err := CompareRuns(refs, cands, Config{Threshold: DefaultThreshold, Pairing: pairing})
		if err != nil {
			t.Fatal(err)
		}
		n[res.Verdict().Status]++
	}
	return n
}

// TestSimPairedCancelsDrift: 50 interleaved pairs on a machine that drifts by
// 2 % per run (×7.4 over the 100 runs, common to both sides). The paired
// gate passes the unchanged system and fails a 10 % regression; the
// unpaired gate, which sees the drift as run-to-run spread, decides
// neither. The paired gate's sign tests need more pairs than a t test
// would: the pairs' spread here is about 3.5 % (2.8 % of noise and the
// ±2 % the drift puts between a pair's two adjacent runs), and 18 checks
// at 1 % need 11 pairs for any decision. With 40 pairs the serial-
// dependence test's false alarms (at 5 %) refused 3 verdicts of 30, as
// blocks of 4 would leave 10; with 50, blocks of 2 or 4 remain enough
// (200 of 200 passed and 200 of 200 failed; docs/methods.md: 98.7 % PASS
// and 96.2 % FAIL at 60 pairs of spread 5 %). Run with -v for the rates.
//
// MQGATE_SIM_REPEATS raises the repeats for the figures of the docs
// (scripts/paired-drift-sim.sh).
func TestSimPairedCancelsDrift(t *testing.T) {
	repeats := 30
	if n, err := strconv.Atoi(os.Getenv("MQGATE_SIM_REPEATS")); err == nil && n > 0 {
		repeats = n
	}
	base := driftSpec{pairs: 50, payloads: 6, factor: 1, drift: 0.02, sd: 0.02}
	slow := base
	slow.factor = 1.10
	still := base
	still.drift = 0
	ci := base
	ci.ciOrder, ci.drift = true, 0.005
	for _, tt := range []struct {
		name    string
		s       driftSpec
		pairing Pairing
		want    gate.Status
		atLeast int
	}{
		{"unchanged paired", base, PairAlways, gate.Passed, repeats * 9 / 10},
		{"regressed paired", slow, PairAlways, gate.Failed, repeats * 9 / 10},
		{"unchanged unpaired", base, PairNever, gate.Inconclusive, repeats * 9 / 10},
		{"regressed unpaired", slow, PairNever, gate.Inconclusive, repeats * 9 / 10},
		// Without drift both decide; baseline runs before candidate runs
		// (0.5 % per run) fool the unpaired gate.
		{"no drift, paired", still, PairAlways, gate.Passed, repeats * 9 / 10},
		{"no drift, unpaired", still, PairNever, gate.Passed, 0},
		{"CI order, unpaired", ci, PairNever, gate.Failed, repeats / 2},
	} {
		n := outcomes(t, tt.s, tt.pairing, repeats, 1)
		t.Logf("%-20s pass %5d, fail %5d, inconclusive %5d of %d", tt.name, n[gate.Passed], n[gate.Failed], n[gate.Inconclusive], repeats)
		if tt.s.ciOrder {
			continue
		}
		if n[tt.want] < tt.atLeast {
			t.Errorf("%s: %s %d of %d times, want at least %d (%v)", tt.name, tt.want, n[tt.want], repeats, tt.atLeast, n)
		}
		if tt.s.factor == 1 && n[gate.Failed] > 1 {
			t.Errorf("%s: an unchanged system failed %d of %d times", tt.name, n[gate.Failed], repeats)
		}
	}
}
