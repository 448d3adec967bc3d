package gate

import (
	"math"

	"github.com/mqgate/mqgate/internal/stats"
)

// Corrections: the multiple-comparison control of a gate run.
const (
	// Holm: Holm's step-down correction over the p-values of the gate run
	// (compare, history --gate).
	Holm = "Holm"
	// Bonferroni: each check at a level fixed in advance, FalseFail/m for
	// the m checks of a statistical requirements file (check).
	Bonferroni = "Bonferroni"
)

// Rule is one check's decision rule: the shift test of several runs per
// side (Judge), a limit fixed in advance (Judged: the single-run threshold,
// a statistical requirement's order or log-normal limit), history's newest
// change point. P is the p-value the family step corrects, NaN when the
// rule has none; Decide makes the check given the family's decision on it.
type Rule interface {
	P() float64
	Decide(stats.Decision) Check
}

// Family is the family step of a gate run: the multiple-comparison control
// its verdict uses, at family-wise level Alpha.
type Family struct {
	Correction string
	Alpha      float64
	// Level is Bonferroni's per-check level (Alpha/m).
	Level float64
}

// Judge corrects the p-values of rules together and decides each rule,
// in order.
func (f Family) Judge(rules []Rule) []Check {
	p := make([]float64, len(rules))
	for i, r := range rules {
		p[i] = r.P()
	}
	d := stats.Holm(p, f.Alpha)
	if f.Correction == Bonferroni {
		d = stats.Bonferroni(p, f.Alpha, f.Level)
	}
	checks := make([]Check, len(rules))
	for i, r := range rules {
		checks[i] = r.Decide(d[i])
	}
	return checks
}

// Judged is a check decided against a limit fixed in advance, whose Stats
// (when it has them) carry the p-value: the family step sets their
// adjusted p-value and nothing else. A check without Stats (single-run,
// missing) takes no part.
type Judged Check

// P is the check's p-value, NaN without Stats.
func (j Judged) P() float64 {
	if j.Stats == nil {
		return math.NaN()
	}
	return j.Stats.P
}

// Decide sets the adjusted p-value of the check's Stats, in place: they
// are shared with the check the rule was made from.
func (j Judged) Decide(d stats.Decision) Check {
	if j.Stats != nil {
		j.Stats.PAdjusted = d.Adjusted
	}
	return Check(j)
}

// JudgedAll is checks as rules.
func JudgedAll(checks []Check) []Rule {
	rules := make([]Rule, len(checks))
	for i, c := range checks {
		rules[i] = Judged(c)
	}
	return rules
}

// Correction names the multiple-comparison control s's adjusted p-value
// comes from: Bonferroni for a check against statistical requirements
// (Method set), whose file fixed each check's level, and for a paired
// check (its sign test's p times the number of checks); Holm for the
// shift test.
func (s *Stats) Correction() string {
	if s.Method == "" {
		return Holm
	}
	return Bonferroni
}
