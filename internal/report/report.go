package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// rank orders checks for people: what fails the gate first, then what could
// not be decided, then what was skipped, then what passed.
func rank(v *gate.Verdict, c gate.Check) int {
	switch {
	case v.Counts(c):
		return 0
	case c.Status == gate.Inconclusive:
		return 1
	case c.Status == gate.Missing:
		return 2
	}
	return 3
}

// ordered returns v's checks, failures first, otherwise in v's order.
func ordered(v *gate.Verdict) []gate.Check {
	cs := append([]gate.Check(nil), v.Checks...)
	sort.SliceStable(cs, func(i, j int) bool { return rank(v, cs[i]) < rank(v, cs[j]) })
	return cs
}

// f3 formats x with 3 decimals, "n/a" when it does not exist.
func f3(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// signed3 is f3 with a sign.
func signed3(x float64) string {
	s := f3(x)
	if x >= 0 && s != "n/a" {
		s = "+" + s
	}
	return s
}

// upper is f3 for the upper bound of an interval: "∞" when it has none.
func upper(x float64) string {
	if math.IsInf(x, 1) {
		return "∞"
	}
	return f3(x)
}

// outcome is how c counts for the gate, as the reports mark it: Failed,
// Passed or, for anything else, Inconclusive.
func outcome(v *gate.Verdict, c gate.Check) gate.Status {
	switch {
	case v.Counts(c):
		return gate.Failed
	case c.Status == gate.Passed:
		return gate.Passed
	}
	return gate.Inconclusive
}

// limitNames names the limit column and the margin column: "Limit" and
// "Over limit" when a threshold lies between reference and limit, else the
// reference's own name ("Requirement", "Over requirement"). The margin
// column is named for the direction of the checks cs (marginName).
func limitNames(v *gate.Verdict, cs []gate.Check) (limit, over string) {
	limit = "limit"
	if !v.Thresholded() {
		limit = v.RefName()
	}
	return strings.ToUpper(limit[:1]) + limit[1:], marginName(limit, cs)
}

// marginName names the column of the checks' margins (gate.Check.Margin,
// positive when a check fails) after the limit so that its numbers read
// right: "Over limit" when lower is better for every check (latency),
// "Below limit" when higher is better for every check (throughput, where a
// value under the limit fails), and "Worse than limit" for a mix, positive
// meaning worse in each check's own direction, as its metric column says.
func marginName(limit string, cs []gate.Check) string {
	var lower, higher bool
	for _, c := range cs {
		if c.Metric.Better == result.HigherIsBetter {
			higher = true
		} else {
			lower = true
		}
	}
	switch {
	case higher && lower:
		return "Worse than " + limit
	case higher:
		return "Below " + limit
	}
	return "Over " + limit
}

// statusWord is the upper-case status used in headings and console lines.
func statusWord(s gate.Status) string {
	switch s {
	case gate.Passed, gate.Failed, gate.Missing, gate.Inconclusive:
		return strings.ToUpper(string(s))
	case gate.NoVerdict:
		return "NO VERDICT"
	}
	return string(s)
}

// checkStatus is a check's status as it affects the gate: a missing check
// that is not allowed is a failure.
func checkStatus(v *gate.Verdict, c gate.Check) string {
	if c.Status == gate.Missing && v.AllowMissing {
		return "missing (allowed)"
	}
	return string(c.Status)
}

// percentPassed is the share of checks that passed, in percent.
func percentPassed(v *gate.Verdict) float64 {
	if len(v.Checks) == 0 {
		return 100
	}
	return float64(v.Passed) * 100 / float64(len(v.Checks))
}

// statistical reports whether any check of v was judged on several runs per
// side and so carries an estimate, interval, p-value and runs (formats §8).
func statistical(v *gate.Verdict) bool {
	return slices.ContainsFunc(v.Checks, func(c gate.Check) bool { return c.Stats != nil })
}

// modeLine says how v judged its checks, for every report: the mode and,
// for a statistical gate, its family-wise false-fail level and method.
// Empty when v does not say (a requirements check).
func modeLine(v *gate.Verdict) string {
	switch v.Mode {
	case "":
		return ""
	case gate.ModeStatistical:
		return fmt.Sprintf("mode: %s (Hodges–Lehmann ratio, Mann–Whitney interval and one-sided p, Holm correction; family-wise false-fail level %s)",
			v.Mode, percentText(v.FalseFail))
	case gate.ModeSingleRun:
		return "mode: " + v.Mode + " (one run per side: no allowance for run-to-run noise; give ≥ 2 runs per side for the statistical gate)"
	case gate.ModePaired:
		return fmt.Sprintf("mode: %s (one log ratio per interleaved pair of runs and check, so drift common to a pair cancels; exact sign tests "+
			"of each check's median pair ratio, three zones; FAIL at family-wise error %s, PASS intersection–union at %s)", v.Mode,
			percentText(v.FalseFail), percentText(v.FalseFail))
	}
	return "mode: " + v.Mode
}

// Basis says how v was judged, one line each, for a report written outside
// this package (compare's HTML page): the mode line and the decision lines
// every report of this package shows.
func Basis(v *gate.Verdict) []string {
	var lines []string
	if m := modeLine(v); m != "" {
		lines = append(lines, m)
	}
	return append(lines, decisionLines(v)...)
}

// decisionLines say how v was decided at the family level, for every
// report: the rule and its finding, the interval read with the family
// level and N, and what is known of drift. None when v has no Decision.
func decisionLines(v *gate.Verdict) []string {
	d := v.Decision
	if d == nil {
		return nil
	}
	lines := []string{"rule: " + d.Rule + ": " + d.Reason}
	units := "runs per side"
	if v.Mode == gate.ModePaired {
		units = "pairs"
	}
	if d.Units != "" {
		units = d.Units
	}
	iv := "no interval"
	if d.Check != "" {
		iv = fmt.Sprintf("interval of %s: [%s, %s]", d.Check, f3(d.Low), upper(d.High))
	}
	lines = append(lines, fmt.Sprintf("%s; family level %s; N = %d %s", iv, percentText(d.Level), d.N, units))
	if d.Estimand != "" {
		lines = append(lines, "estimand: "+d.Estimand)
	}
	if d.MinPairs > 0 {
		lines = append(lines, fmt.Sprintf("minimum for a decision: %d %s (N = %d)", d.MinPairs, units, d.N))
	}
	if d.Dependence != "" {
		lines = append(lines, "serial dependence: "+d.Dependence)
	}
	if u := Undecided(v); u != "" {
		lines = append(lines, u)
	}
	if d.Drift != "" {
		lines = append(lines, "drift: "+d.Drift)
	}
	return lines
}

// The statistical columns of a check judged on several runs (s = c.Stats),
// with the interval in full: why there is none, or its confidence.
func intervalText(s *gate.Stats) string {
	if none := s.NoInterval(); none != "" {
		return none
	}
	return fmt.Sprintf("[%s, %s] (%s)", f3(s.Low), upper(s.High), gate.ConfidenceText(s.Confidence))
}

func pText(s *gate.Stats) string {
	if s.Method == gate.MethodPaired && math.IsNaN(s.P) {
		return "crossed" // a group-sequential boundary decides by counts, with no p-value
	}
	return fmt.Sprintf("%s (%s %s)", pValue(s.P), s.Correction(), pValue(s.PAdjusted))
}

func pValue(p float64) string {
	if p < 0.0001 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

func runsText(s *gate.Stats) string {
	return fmt.Sprintf("%d/%d", s.NCandidate, s.NReference)
}

// percentText writes a fraction as a percentage with up to 6 significant
// digits: 0.01 → "1%", 0.001 → "0.1%".
func percentText(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 6, 64) + "%"
}

// Undecided names the checks that keep v inconclusive, from its
// Decision, as "inconclusive on: tcp 16 B Max, …"; "" when there are none.
func Undecided(v *gate.Verdict) string {
	if v.Decision == nil || len(v.Decision.Open) == 0 {
		return ""
	}
	return "inconclusive on: " + strings.Join(v.Decision.Open, ", ")
}

// BannerBasis is Basis for a page's verdict banner: the undecided checks
// first, where a reader of an inconclusive verdict looks, then the rest.
func BannerBasis(v *gate.Verdict) []string {
	u := Undecided(v)
	var lines []string
	if u != "" {
		lines = append(lines, u)
	}
	for _, l := range Basis(v) {
		if l != u {
			lines = append(lines, l)
		}
	}
	return lines
}

// Notes are what statistical checks add to their table rows, one line
// each, written under the table rather than in it: why a check has no
// interval (the interval cell says "none") and why it is inconclusive.
func Notes(cs []gate.Check) []string {
	var lines []string
	for _, c := range cs {
		if c.Stats == nil {
			continue
		}
		var parts []string
		if none := c.Stats.NoInterval(); strings.HasPrefix(none, "none (") {
			parts = append(parts, "interval "+none)
		}
		if n := note(c); n != "" {
			parts = append(parts, n)
		}
		if len(parts) > 0 {
			lines = append(lines, checkName(c)+": "+strings.Join(parts, "; "))
		}
	}
	return lines
}

// checkName names c in notes: sub-experiment, payload and metric.
func checkName(c gate.Check) string {
	return fmt.Sprintf("%s %d B %s", c.SubExperiment, c.Payload, metricText(c.Metric))
}

// note is what a statistical check's message adds to its numbers: the
// reason it is inconclusive, or "" when it passed or failed.
func note(c gate.Check) string {
	if c.Stats == nil || c.Status != gate.Inconclusive {
		return ""
	}
	for _, sep := range []string{"runs " + runsText(c.Stats) + ": ", "pairs " + strconv.Itoa(c.Stats.NCandidate) + ": "} {
		if _, after, ok := strings.Cut(c.Message, sep); ok {
			return after
		}
	}
	return c.Message
}

// Evidence returns the statistical columns of a check judged on several
// runs per side, as every report writes them: the ratio ("×1.052"), its
// interval with confidence ("[0.980, 1.130] (99.9%)", "none" without one:
// Notes say why), the p-value with its
// adjusted value, named after the correction decided on ("(Holm 0.0043)"),
// and the runs per side ("10/10", results/reference).
// All are "" for a single-run check.
func Evidence(c gate.Check) (ratio, interval, p, runs string) {
	s := c.Stats
	if s == nil {
		return "", "", "", ""
	}
	interval = intervalText(s)
	if s.NoInterval() != "" {
		interval = "none"
	}
	return "×" + f3(s.Estimate), interval, pText(s), runsText(s)
}

// payloadText is a check's payload in bytes for a report, "all" for payload
// 0: a check over every payload at once (run ab's echo CPU time per
// message), not one of 0 bytes.
func payloadText(p int) string {
	if p == 0 {
		return "all"
	}
	return strconv.Itoa(p)
}

// bytesText is payloadText with its unit: "64 B", or "all payloads".
func bytesText(p int) string {
	if p == 0 {
		return "all payloads"
	}
	return strconv.Itoa(p) + " B"
}
