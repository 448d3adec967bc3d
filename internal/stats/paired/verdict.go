package paired

import (
	"fmt"
	"math"
	"strings"
)

// Zone is the verdict of a family: one of three.
type Zone int

const (
	// Inconclusive: no check is shown worse than the fail margin, but some
	// check is not shown better than the pass margin.
	Inconclusive Zone = iota
	// Pass: every check is shown worse by less than the pass margin.
	Pass
	// Fail: some check is shown worse by more than the fail margin.
	Fail
)

func (z Zone) String() string {
	return [...]string{"inconclusive", "pass", "fail"}[z]
}

// Verdict is a family's zone, the checks that decided it and why.
type Verdict struct {
	Zone Zone
	// Checks are, for Fail, the checks shown worse than the fail margin;
	// for Inconclusive, the checks that keep it so (not shown better than
	// the pass margin); empty for Pass.
	Checks []string
	// Reason says which rule decided, with the bounds and the family
	// level.
	Reason string
}

// decide reads the zone from the sign tests' bounds on the badness scale:
// fail when some lower bound (at tail/K) exceeds log(1+δ_fail) (fail takes
// precedence when the margins overlap), pass when every upper bound (at
// tail, intersection–union) is below log(1+δ_pass), else inconclusive.
// Ties at a margin decide nothing.
func decide(names []string, low, high []float64, m Margins, tail float64) Verdict {
	var failing, open []string
	var failBy, openBy []string
	worst, worstName := math.Inf(-1), ""
	for k, name := range names {
		if beyondFail(low[k], Worse(m.Fail)) {
			failing = append(failing, name)
			failBy = append(failBy, fmt.Sprintf("%s ≥ %s", name, percent(low[k])))
		}
		if !withinPass(high[k], Worse(m.Pass)) {
			open = append(open, name)
			openBy = append(openBy, fmt.Sprintf("%s up to %s", name, percent(high[k])))
		}
		if high[k] > worst {
			worst, worstName = high[k], name
		}
	}
	level := fmt.Sprintf("median pair ratio; FAIL at family-wise error %g (Bonferroni over %d checks), PASS intersection–union at %g", tail, len(names), tail)
	switch {
	case len(failing) > 0:
		return Verdict{Zone: Fail, Checks: failing, Reason: fmt.Sprintf("worse by more than the fail margin %s (%s): %s",
			percent(Worse(m.Fail)), level, strings.Join(failBy, ", "))}
	case len(open) == 0:
		return Verdict{Zone: Pass, Reason: fmt.Sprintf("every check is worse by less than the pass margin %s (%s): at most %s (%s)",
			percent(Worse(m.Pass)), level, percent(worst), worstName)}
	}
	return Verdict{Zone: Inconclusive, Checks: open, Reason: fmt.Sprintf("not shown within the pass margin %s, nor worse than the fail margin %s (%s): %s",
		percent(Worse(m.Pass)), percent(Worse(m.Fail)), level, strings.Join(openBy, ", "))}
}

// percent writes a badness as the relative change it means: "+8.2 %",
// "−3.0 %" (worse is +).
func percent(bad float64) string {
	if math.IsInf(bad, 0) {
		return fmt.Sprintf("%+v", bad)
	}
	return fmt.Sprintf("%+.1f %%", 100*math.Expm1(bad))
}
