package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
)

// The JUnit XML schema as read by Jenkins (junit plugin), GitLab and the
// GitHub test-reporter actions: testsuites > testsuite > testcase, a test case
// failing with <failure> and skipped with <skipped>.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Time       string           `xml:"time,attr"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Cases      []junitCase      `xml:"testcase"`
	}
	junitProperties struct {
		Property []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
		Error     *junitFailure `xml:"error,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",cdata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// JUnit writes v as JUnit XML: one test suite per sub-experiment, one test
// case per check named "<payload> B <metric>". A failed check, and a missing
// one unless missing checks are allowed, is a <failure> whose message gives
// the value, the limit and the margin; an inconclusive or allowed-missing
// check is <skipped>. Warnings become "warning" properties of every suite.
// A gate with no verdict (gate.NoVerdict) is one test case in <error>.
func JUnit(w io.Writer, v *gate.Verdict) error {
	doc := junitSuites{Name: "mqgate " + v.Tool}
	props := junitProps(v)
	for _, sub := range v.SubExperiments() {
		s := junitSubSuite(v, sub, props)
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
	}
	if v.Status == gate.NoVerdict {
		// One test case in error: a test report shows the gate as broken,
		// not as passed for want of failed checks.
		doc.Tests, doc.Errors = 1, 1
		doc.Suites = []junitSuite{{Name: v.Tool, Tests: 1, Errors: 1, Time: "0", Properties: props,
			Cases: []junitCase{{Name: "verdict", ClassName: v.Tool, Time: "0",
				Error: &junitFailure{Message: v.Error, Type: string(gate.NoVerdict), Text: v.Error}}}}}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitProps is the verdict's run-level facts (subject, baseline, mode, the
// decision and the warnings) as properties shared by every suite, or nil when
// there are none, so that an empty <properties> is left out.
func junitProps(v *gate.Verdict) *junitProperties {
	var props *junitProperties
	add := func(name, value string) {
		if props == nil {
			props = &junitProperties{}
		}
		props.Property = append(props.Property, junitProperty{name, value})
	}
	// set adds a property that has a value.
	set := func(name, value string) {
		if value != "" {
			add(name, value)
		}
	}
	set("subject", v.Subject)
	set("baseline", v.Baseline)
	set("mode", v.Mode)
	if v.Mode == gate.ModeStatistical || v.Mode == gate.ModePaired {
		add("false_fail", strconv.FormatFloat(v.FalseFail, 'g', -1, 64))
	}
	if d := v.Decision; d != nil {
		add("rule", d.Rule)
		add("reason", d.Reason)
		if d.Check != "" {
			add("interval", fmt.Sprintf("%s: [%s, %s]", d.Check, f3(d.Low), f3(d.High)))
		}
		add("level", strconv.FormatFloat(d.Level, 'g', -1, 64))
		add("n", strconv.Itoa(d.N))
		set("drift", d.Drift)
		set("estimand", d.Estimand)
		if d.MinPairs > 0 {
			add("min_pairs", strconv.Itoa(d.MinPairs))
		}
		set("dependence", d.Dependence)
	}
	for _, msg := range v.Warnings {
		add("warning", msg)
	}
	return props
}

// junitSubSuite is the test suite of one sub-experiment: a test case per
// check of that sub-experiment, counted as failed, passed or skipped.
func junitSubSuite(v *gate.Verdict, sub string, props *junitProperties) junitSuite {
	s := junitSuite{Name: v.Tool + "." + sub, Time: "0", Properties: props}
	for _, c := range v.Checks {
		if c.SubExperiment != sub {
			continue
		}
		tc := junitCase{
			Name:      bytesText(c.Payload) + " " + c.Metric.Name,
			ClassName: v.Tool + "." + sub,
			Time:      "0",
		}
		switch outcome(v, c) {
		case gate.Failed:
			tc.Failure = &junitFailure{Message: c.Message, Type: string(c.Status), Text: details(v, c)}
			s.Failures++
		case gate.Passed:
			tc.SystemOut = c.Message
		default:
			tc.Skipped = &junitSkipped{Message: checkStatus(v, c) + ": " + c.Message}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
	}
	return s
}

// details lists a check's numbers, one per line, for the failure body. The
// threshold and limit lines are left out when the limit is the reference
// itself (a requirement).
func details(v *gate.Verdict, c gate.Check) string {
	u, name := c.Metric.Unit, v.RefName()
	var b strings.Builder
	fmt.Fprintf(&b, "sub-experiment: %s\npayload: %s\nmetric: %s (%s)\nvalue: %s\n%s: %s\n",
		c.SubExperiment, bytesText(c.Payload), c.Metric.Name, c.Metric.Better, valueText(c, c.Value), name, valueText(c, c.Reference))
	_, over := limitNames(v, []gate.Check{c})
	if v.Thresholded() {
		fmt.Fprintf(&b, "threshold: %s\nlimit: %s\n", f3(c.Threshold), valueText(c, c.Limit))
	}
	fmt.Fprintf(&b, "%s: %s\npercentage over %s: %s\n", strings.ToLower(over), withUnit(signed3(c.Margin), u), name, c.PercentText(name))
	if s := c.Stats; s != nil {
		format := "ratio (Hodges–Lehmann): %s\ninterval: %s\np (one-sided Mann–Whitney): %s\nruns: %s\n"
		if s.Method == gate.MethodPaired {
			format = "ratio (median of the pairs' ratios): %s\ninterval (sign-test bounds: the fail side at level/checks, " +
				"the pass side at level): %s\np (one-sided sign test): %s\npairs: %s\n"
		}
		fmt.Fprintf(&b, format, "×"+f3(s.Estimate), intervalText(s), pText(s), runsText(s))
	}
	return b.String()
}
