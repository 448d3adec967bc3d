package gate

import (
	"fmt"
	"math"

	"github.com/mqgate/mqgate/internal/result"
)

// Status is the outcome of one check or of a whole gate.
type Status string

// Statuses. The strings are those of the check report CSV (formats §4).
const (
	Passed Status = "passed"
	Failed Status = "failed"
	// Missing: the check could not be made because the reference
	// (requirement) or the measured value is absent.
	Missing Status = "missing"
	// Inconclusive: a statistical gate could not decide; more runs are needed.
	Inconclusive Status = "inconclusive"
)

// NoVerdict is a whole gate's status when it judged nothing: it stopped
// before a verdict (a run that broke, an interruption), or it has not come
// to one yet (Verdict.Error says which). A gate that measures for minutes
// writes it at its report paths when it starts, so that an earlier gate's
// report there is never read as its verdict, and replaces it when it
// ends. No check has it.
const NoVerdict Status = "no_verdict"

// Check is the result of judging one metric of one payload of one
// sub-experiment.
//
// Values that do not exist are NaN: Value and Reference of a Missing check.
// Percent against a Reference of 0 is what IEEE division gives, +Inf (or
// −Inf) when Value is not 0 and NaN when it is; PercentText says it in words.
type Check struct {
	SubExperiment string        `json:"sub_experiment"`
	Payload       int           `json:"payload"`
	Metric        result.Metric `json:"metric"`
	// Reference is the requirement (check) or the reference experiment's
	// value (compare).
	Reference float64 `json:"reference"`
	// Threshold is the relative tolerance allowed beyond Reference (0 for a
	// requirement).
	Threshold float64 `json:"threshold"`
	// Limit is the worst passing value: Metric.Limit(Reference, Threshold).
	Limit float64 `json:"limit"`
	// Value is the measured value.
	Value float64 `json:"value"`
	// Difference is |Reference − Value| (formats §4).
	Difference float64 `json:"difference"`
	// Percent is (Value − Reference)·100/Reference, signed (formats §4
	// "Percentage over requirement"); see PercentText.
	Percent float64 `json:"percent"`
	// Margin is Metric.Worse(Value, Limit): how far beyond the limit Value
	// lies (positive when failed) or, negative, the headroom left.
	Margin float64 `json:"margin"`
	Status Status  `json:"status"`
	// Message says in one sentence what was found, e.g. "99% 120.000 µs
	// exceeds requirement 100.000 µs by 20.000 µs (+20.000%)".
	Message string `json:"message"`
	// Stats is the statistical evidence of a check judged on several runs
	// per side (Judge); nil for a single-run check (Evaluate).
	Stats *Stats `json:"stats,omitempty"`
}

// Evaluate judges value against reference for metric m, allowing the
// relative threshold in m's bad direction. referenceName names the reference
// in the message ("requirement", "reference").
func Evaluate(sub string, payload int, m result.Metric, referenceName string, reference, threshold, value float64) Check {
	if math.IsNaN(reference) || math.IsNaN(value) {
		what := "value"
		if math.IsNaN(reference) {
			what = referenceName
		}
		return MissingCheck(sub, payload, m, reference, value, fmt.Sprintf("%d B %s: no %s", payload, m.Name, what))
	}
	c := measured(sub, payload, m, reference, threshold, value)
	u := result.UnitText(m.Unit)
	limitName := referenceName
	if threshold != 0 {
		limitName = fmt.Sprintf("%s %.3f %s %+g%% =", referenceName, reference, u, signedThreshold(m, threshold)*100)
	}
	if m.Violates(value, c.Limit) {
		c.Status = Failed
		verb := "exceeds"
		if m.Better == result.HigherIsBetter {
			verb = "falls below"
		}
		c.Message = fmt.Sprintf("%d B %s %.3f %s %s %s %.3f %s by %.3f %s (%s)",
			payload, m.Name, value, u, verb, limitName, c.Limit, u, c.Margin, u, percentPhrase(c, referenceName))
	} else {
		c.Status = Passed
		c.Message = fmt.Sprintf("%d B %s %.3f %s within %s %.3f %s (%.3f %s to spare, %s)",
			payload, m.Name, value, u, limitName, c.Limit, u, math.Abs(c.Margin), u, percentPhrase(c, referenceName))
	}
	return c
}

// measured is the check of value against reference before it is judged:
// the limit and how far value is from the reference and the limit.
func measured(sub string, payload int, m result.Metric, reference, threshold, value float64) Check {
	c := Check{SubExperiment: sub, Payload: payload, Metric: m, Reference: reference, Threshold: threshold, Value: value,
		Limit: m.Limit(reference, threshold), Difference: math.Abs(reference - value), Percent: percent(value, reference)}
	c.Margin = m.Worse(value, c.Limit)
	return c
}

// percentPhrase is the percentage part of a message: "+20.000% vs
// requirement", or "no percentage: requirement is 0".
func percentPhrase(c Check, referenceName string) string {
	if c.Reference == 0 {
		return "no percentage: " + referenceName + " is 0"
	}
	return c.PercentText(referenceName) + " vs " + referenceName
}

// PercentText is c.Percent for people: "+20.000%", "n/a" when the value or
// the reference is missing, and "n/a (<referenceName> is 0)" when the
// reference is 0, where a percentage of it means nothing.
func (c Check) PercentText(referenceName string) string {
	switch {
	case math.IsNaN(c.Reference) || math.IsNaN(c.Value):
		return "n/a"
	case c.Reference == 0:
		return "n/a (" + referenceName + " is 0)"
	}
	return fmt.Sprintf("%+.3f%%", c.Percent)
}

// MissingCheck returns a Missing check carrying msg; reference or value may
// be NaN.
func MissingCheck(sub string, payload int, m result.Metric, reference, value float64, msg string) Check {
	nan := math.NaN()
	return Check{SubExperiment: sub, Payload: payload, Metric: m, Reference: reference, Limit: nan, Value: value,
		Difference: nan, Percent: nan, Margin: nan, Status: Missing, Message: msg}
}

// percent is (value − reference)·100/reference, with IEEE semantics for a
// zero reference: ±Inf, or NaN when value is 0 too (what numpy gives the
// Fast-RTPS script, formats §4).
func percent(value, reference float64) float64 {
	return (value - reference) * 100 / reference
}

func signedThreshold(m result.Metric, t float64) float64 {
	if m.Better == result.HigherIsBetter {
		return -t
	}
	return t
}
