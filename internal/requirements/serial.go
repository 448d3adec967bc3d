package requirements

import (
	"fmt"
	"slices"

	"github.com/mqgate/mqgate/internal/stats/paired"
)

// serialLevel is the level of the pooled serial-correlation test of the
// reference runs (pooledSerial) at which statistical requirements are
// refused: their false-fail level rests on exchangeable runs, and runs that
// wander together make an unchanged system fail several times as often.
const serialLevel = 0.05

// serialPhi is the lag-1 correlation of the runs, corrected for the bias of
// its estimate from few runs (Pooled.Phi), from which significant
// correlation refuses statistical requirements. Below it the false-fail
// level holds: 11 payloads whose 12 runs share an AR(1) wander of φ 0.1,
// 0.15 and 0.2 failed an unchanged system's check 0.03, 0.03 and 0.00 % of
// 4,000 derivations (level 0.03 %), φ 0.3 0.10 % [0.03, 0.26]; and a
// pooled test over 66 checks finds φ 0.15 significant one time in six.
const serialPhi = 0.25

// serialOrders is the number of random orders behind pooledSerial.
const serialOrders = 999

// Pooled is the serial-correlation test of the reference runs pooled over
// the checks: the lag-1 autocorrelation of every check's log run values in
// run order, averaged over the checks, against random orders of the runs
// (the same order for every check, so that what the checks of one run
// share is kept; paired.SerialDependence). A slow spell of the machine
// moves every payload of the runs it spans, so the pooled test sees a
// correlation that each check's own test (Drift's Correlated, Holm over
// the checks) misses.
type Pooled struct {
	// Tested says the test ran: 3 runs or more in Checks series of Runs
	// values each (the series with the most common number of runs).
	Tested       bool
	Checks, Runs int
	R, P         float64
	// Phi is R corrected for the bias of a lag-1 autocorrelation
	// estimated from n runs (about −(1 + 3φ)/n): (R + 1/n)/(1 − 3/n).
	Phi float64
	// Significant says P ≤ serialLevel; Refuse that the correlation is
	// also strong enough to void the false-fail level: Phi ≥ serialPhi.
	Significant, Refuse bool
}

// pooledSerial tests series, each one check's log run values in run order,
// for positive lag-1 autocorrelation pooled over the checks. Only the
// series with the most common number of values take part.
func pooledSerial(series [][]float64) Pooled {
	count := map[int]int{}
	most := 0
	for _, s := range series {
		count[len(s)]++
		if c := count[len(s)]; c > count[most] || (c == count[most] && len(s) > most) {
			most = len(s)
		}
	}
	use := slices.DeleteFunc(slices.Clone(series), func(s []float64) bool { return len(s) != most })
	p := Pooled{Checks: len(use), Runs: most, P: 1}
	if most < 3 {
		return p
	}
	r, pv, ok := paired.SerialDependence(use, serialOrders, 1)
	if !ok {
		return p
	}
	p.Tested, p.R, p.P, p.Significant = true, r, pv, pv <= serialLevel
	n := float64(most)
	p.Phi = (r + 1/n) / max(1-3/n, 0.1)
	p.Refuse = p.Significant && p.Phi >= serialPhi
	return p
}

// Text says what the test found, in one sentence.
func (p Pooled) Text() string {
	if !p.Tested {
		return "serial correlation of the runs not tested (fewer than 3 runs, or no check that varies)"
	}
	text := fmt.Sprintf("lag-1 autocorrelation of the runs in run order %+.2f (%+.2f corrected for the bias of %d runs), pooled over %d checks, randomisation p %.3g over %d orders",
		p.R, p.Phi, p.Runs, p.Checks, p.P, serialOrders)
	if p.Significant && !p.Refuse {
		text += fmt.Sprintf(": significant at %g, but below %g, where the false-fail level still holds", serialLevel, serialPhi)
	}
	return text
}

// refuseCorrelated is the error of statistical requirements from runs
// that pooledSerial finds correlated.
func refuseCorrelated(p Pooled) error {
	return fmt.Errorf("the reference runs are serially correlated (%s, significant at %g and at least %g): statistical requirements rest on exchangeable runs, "+
		"and from runs that wander together an unchanged system fails far more often than --false-fail; nothing was written. "+
		"Take the runs further apart in time, with other work between them, or derive percentile limits (the Fast-RTPS mode: --percentile, without --false-fail, --method, --normality-level and --order-rank), which claim no false-fail level",
		p.Text(), serialLevel, serialPhi)
}
