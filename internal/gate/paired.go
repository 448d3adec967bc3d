package gate

import (
	"cmp"
	"math"

	"github.com/mqgate/mqgate/internal/stats/paired"
	"github.com/mqgate/mqgate/internal/stats/seq"
)

// SetPaired fills the facts every paired verdict states (estimand, minimum
// pairs, serial-dependence diagnostic) from a fixed-N analysis, and N when
// it is unset.
func (d *Decision) SetPaired(a *paired.Analysis) {
	d.Estimand, d.MinPairs, d.Dependence = a.Estimand, a.MinPairs, a.Dependence.Text()
	d.N = cmp.Or(d.N, a.Units)
}

// SetSequential fills the same facts from a sequential gate's decision.
func (d *Decision) SetSequential(s seq.Decision) {
	d.Estimand, d.MinPairs = s.Estimand, s.MinPairs
	d.Dependence = "not yet tested: it runs when a decision is due"
	if s.Dependence.Tested || s.Dependence.Perms > 0 {
		d.Dependence = s.Dependence.Text()
	}
	d.N = cmp.Or(d.N, s.Pairs)
}

// SequentialDecision is the Decision of a sequential paired gate (run ab
// --max-runs) stopped at s, at family level level: the rule of its status,
// its reason, the checks that keep it open, and the facts of SetSequential.
// units names what the pairs are ("pairs", "blocks").
func SequentialDecision(s seq.Decision, level float64, units string) *Decision {
	d := &Decision{Reason: s.Reason, Level: level, N: s.Pairs, Units: units, Low: math.NaN(), High: math.NaN()}
	// The rule names the construction that decided (s.Method): the
	// group-sequential boundaries, the mixture of sign bets, or the held
	// fixed design; never one the gate did not compute.
	method := cmp.Or(s.Method, "sign tests of the median pair ratio")
	switch s.Status {
	case seq.Fail:
		d.Rule = "fail: a check's sign test reached its fail boundary at level/checks (median pair ratio beyond the fail margin; " + method + ")"
	case seq.Pass:
		d.Rule = "pass: every check's sign test reached its pass boundary at level (intersection–union; median pair ratio within the pass margin; " + method + ")"
	case seq.Refused:
		d.Rule = "inconclusive: the verdict is refused, the pairs being serially dependent"
		d.Open = s.Checks
	default:
		d.Rule = "inconclusive: no check shown beyond the fail margin, some not shown within the pass margin (" + method + ")"
		d.Open = s.Checks
	}
	d.SetSequential(s)
	return d
}
