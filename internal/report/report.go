package report

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
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

// signed3 formats x with a sign and 3 decimals, "n/a" when it does not exist.
func signed3(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(x, 'f', 3, 64)
	if x >= 0 {
		s = "+" + s
	}
	return s
}

// limitNames names the limit column and the margin column: "Limit" and
// "Over limit" when a threshold lies between reference and limit, else the
// reference's own name ("Requirement", "Over requirement").
func limitNames(v *gate.Verdict) (limit, over string) {
	if v.Thresholded() {
		return "Limit", "Over limit"
	}
	name := v.RefName()
	return strings.ToUpper(name[:1]) + name[1:], "Over " + name
}

// statusWord is the upper-case status used in headings and console lines.
func statusWord(s gate.Status) string {
	switch s {
	case gate.Passed:
		return "PASSED"
	case gate.Failed:
		return "FAILED"
	case gate.Missing:
		return "MISSING"
	case gate.Inconclusive:
		return "INCONCLUSIVE"
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
