package gate

import (
	"cmp"
	"math"
	"reflect"
	"slices"

	"github.com/mqgate/mqgate/internal/exit"
)

// Verdict is the result of one gate run: every check made, the counts by
// status and the overall status. Build it with Add and Warn, then call
// Finish; renderers only read it.
type Verdict struct {
	// Tool is the gate that produced the verdict: "check", "compare" or
	// "history".
	Tool string `json:"tool"`
	// Subject is what was judged (an experiment directory).
	Subject string `json:"subject,omitempty"`
	// Baseline is what it was judged against (a requirements file, a
	// reference experiment).
	Baseline string `json:"baseline,omitempty"`
	// ReferenceName says what a check's Reference is, for reports:
	// "requirement" (check) or "reference" (compare, and when empty).
	ReferenceName string `json:"reference_name,omitempty"`
	// Mode says how the checks were judged: ModeStatistical or
	// ModeSingleRun; empty for a gate with only one way (check against
	// requirements).
	Mode string `json:"mode,omitempty"`
	// FalseFail is the family-wise false-fail level of a statistical gate
	// run (formats §8): the probability, at most, that an unchanged system
	// fails it.
	FalseFail float64 `json:"false_fail,omitempty"`
	// Decision says how a family-level rule decided the verdict; nil when
	// each check was decided on its own (single run, requirements).
	Decision *Decision `json:"decision,omitempty"`
	// AllowMissing makes Missing checks count as neither passed nor failed.
	AllowMissing bool    `json:"allow_missing"`
	Checks       []Check `json:"checks"`

	Passed       int    `json:"passed"`
	Failed       int    `json:"failed"`
	Missing      int    `json:"missing"`
	Inconclusive int    `json:"inconclusive"`
	Status       Status `json:"status"`
	// Error says why a gate gave no verdict (Status NoVerdict).
	Error string `json:"error,omitempty"`
	// Warnings are things the user should know that do not change the
	// status, e.g. "experiments ran on different hosts".
	Warnings []string `json:"warnings"`
}

// Decision is how a gate run was decided at the family level, for every
// report: the rule that decided, the interval it read, the family-wise
// level and the number of units.
type Decision struct {
	// Rule names the rule that decided, e.g. "fail: a lower bound beyond
	// the fail margin".
	Rule string `json:"rule"`
	// Reason is the rule's finding in one sentence, with its numbers.
	Reason string `json:"reason"`
	// Check names the check whose interval decided (Low, High); empty when
	// none did.
	Check string `json:"check,omitempty"`
	// Low and High bound the ratio candidate/reference of Check,
	// simultaneously with every other check's bounds at Level; null (NaN)
	// without a Check.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Level is the family-wise error of the rule: per side of the bounds
	// for a paired comparison, the false-fail level for Holm's.
	Level float64 `json:"level"`
	// N is the number of pairs (paired) or of runs per side.
	N int `json:"n"`
	// Units names what N counts when it is not pairs or runs per side:
	// "blocks" for a paired comparison of A B B A blocks.
	Units string `json:"units,omitempty"`
	// Open names the checks that keep an inconclusive verdict so.
	Open []string `json:"open,omitempty"`
	// Drift says what is known of drift over the run order: controlled
	// by the pairs, or a trend test of each side's runs.
	Drift string `json:"drift,omitempty"`
	// Estimand names what a paired verdict is about (the median of the
	// pairs' ratios, per check).
	Estimand string `json:"estimand,omitempty"`
	// MinPairs is the fewest pairs (units) with which a paired verdict can
	// be FAIL or PASS at all; 0 when not stated.
	MinPairs int `json:"min_pairs,omitempty"`
	// Dependence is the serial-dependence diagnostic of the pairs in
	// measured order and what the verdict did about it (blocked, refused).
	Dependence string `json:"dependence,omitempty"`
}

// MarshalJSON encodes d with bounds that do not exist as null.
func (d Decision) MarshalJSON() ([]byte, error) { return marshalFinite(reflect.ValueOf(d)) }

// UnmarshalJSON decodes what MarshalJSON encodes.
func (d *Decision) UnmarshalJSON(b []byte) error {
	return unmarshalFinite(b, reflect.ValueOf(d).Elem())
}

// RefName returns v.ReferenceName, "reference" when it is empty.
func (v *Verdict) RefName() string { return cmp.Or(v.ReferenceName, "reference") }

// Thresholded reports whether any check allows a threshold beyond its
// reference; when none does, every Limit equals its Reference and reports
// need not show both.
func (v *Verdict) Thresholded() bool {
	return slices.ContainsFunc(v.Checks, func(c Check) bool { return c.Threshold != 0 && !math.IsNaN(c.Threshold) })
}

// Add appends checks to v.
func (v *Verdict) Add(c ...Check) { v.Checks = append(v.Checks, c...) }

// Warn appends a warning to v.
func (v *Verdict) Warn(msg string) { v.Warnings = append(v.Warnings, msg) }

// Finish counts the checks by status and sets v.Status:
//   - Failed when a check failed, or when one is Missing and !AllowMissing,
//     or when checks were asked for but none could be evaluated (all
//     missing, allowed or not): a gate never passes on no data;
//   - else Inconclusive when a check is inconclusive;
//   - else Passed (also when there are no checks at all; tools that must
//     refuse an empty gate say so as an input error before this point).
func (v *Verdict) Finish() {
	v.Passed, v.Failed, v.Missing, v.Inconclusive = 0, 0, 0, 0
	for _, c := range v.Checks {
		switch c.Status {
		case Passed:
			v.Passed++
		case Failed:
			v.Failed++
		case Missing:
			v.Missing++
		case Inconclusive:
			v.Inconclusive++
		}
	}
	switch {
	case v.Failed > 0 || (v.Missing > 0 && !v.AllowMissing):
		v.Status = Failed
	case v.Missing > 0 && v.Passed+v.Inconclusive == 0:
		v.Status = Failed
		v.Warn("no check could be evaluated: every requirement or value is missing, so --allow-missing cannot pass the gate")
	case v.Inconclusive > 0:
		v.Status = Inconclusive
	default:
		v.Status = Passed
	}
	if v.Warnings == nil {
		v.Warnings = []string{}
	}
	if v.Checks == nil {
		v.Checks = []Check{}
	}
}

// Counts reports whether c makes the gate fail: a failed check, or a missing
// one when missing checks are not allowed.
func (v *Verdict) Counts(c Check) bool {
	return c.Status == Failed || (c.Status == Missing && !v.AllowMissing)
}

// ExitCode maps v.Status to the exit-code contract (formats §5), the one
// mapping of every gate.
func (v *Verdict) ExitCode() int {
	switch v.Status {
	case Passed:
		return exit.OK
	case Inconclusive:
		return exit.Inconclusive
	case NoVerdict:
		return exit.Usage // could not judge: never a verdict
	}
	return exit.GateFailed
}

// Unjudged is the verdict of a gate that judged nothing (NoVerdict), and
// why.
func Unjudged(tool, subject, baseline, why string) *Verdict {
	return &Verdict{Tool: tool, Subject: subject, Baseline: baseline, Status: NoVerdict, Error: why,
		Checks: []Check{}, Warnings: []string{}}
}

// SubExperiments returns the sub-experiments of v's checks in order of first
// appearance.
func (v *Verdict) SubExperiments() []string {
	var subs []string
	for _, c := range v.Checks {
		if !slices.Contains(subs, c.SubExperiment) {
			subs = append(subs, c.SubExperiment)
		}
	}
	return subs
}

// SubStatus returns the status of one sub-experiment's checks, by the rules
// of Finish.
func (v *Verdict) SubStatus(sub string) Status {
	return v.StatusOf(slices.DeleteFunc(slices.Clone(v.Checks), func(c Check) bool { return c.SubExperiment != sub }))
}

// StatusOf returns the status of checks, by the rules of Finish: failed
// when one counts against v, else inconclusive when one is, else passed.
func (v *Verdict) StatusOf(checks []Check) Status {
	s := Passed
	for _, c := range checks {
		if v.Counts(c) {
			return Failed
		}
		if c.Status == Inconclusive {
			s = Inconclusive
		}
	}
	return s
}
