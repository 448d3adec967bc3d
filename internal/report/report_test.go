package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/goldenfile"
	"github.com/mqgate/mqgate/internal/result"

	"github.com/mqgate/mqgate/internal/gate"
)

// golden compares got with testdata/<test name>.<ext>, rewriting it under
// -update.
func golden(t *testing.T, ext string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", strings.ReplaceAll(t.Name(), "/", "_")+"."+ext), got)
}

// verdicts are the cases every renderer is tested on.
func verdicts() map[string]*gate.Verdict {
	mixed := &gate.Verdict{Tool: "check", Subject: "results/2024-01-01_00-00-00", Baseline: "latency_requirements.csv", ReferenceName: "requirement"}
	mixed.Add(
		gate.Evaluate("interprocess_reliable", 16, result.Median, "requirement", 100, 0, 90),
		gate.Evaluate("interprocess_reliable", 16, result.P99, "requirement", 100, 0, 120.5),
		gate.Evaluate("interprocess_reliable", 16, result.Max, "requirement", 100, 0, 100),
		gate.MissingCheck("interprocess_reliable", 1024, result.Median, math.NaN(), 42, "1024 B Median: no requirement for this payload"),
		gate.Evaluate("intraprocess_best_effort", 16, result.Median, "requirement", 10, 0, 9.5),
	)
	mixed.Warn(`requirements file has "a|b" in it`)
	mixed.Finish()

	allowed := &gate.Verdict{Tool: "check", AllowMissing: true, ReferenceName: "requirement"}
	allowed.Add(
		gate.Evaluate("interprocess_reliable", 16, result.Median, "requirement", 100, 0, 90),
		gate.MissingCheck("interprocess_reliable", 64, result.Max, 7, math.NaN(), "64 B Max: no data for this payload"),
	)
	allowed.Finish()

	compare := &gate.Verdict{Tool: "compare", Subject: "b", Baseline: "a", ReferenceName: "reference"}
	compare.Add(
		gate.Evaluate("mqtt_best_effort", 64, result.P99, "reference", 100, 0.1, 109),
		gate.Evaluate("mqtt_best_effort", 64, result.MessageRate, "reference", 1000, 0.1, 850),
		gate.Check{SubExperiment: "mqtt_best_effort", Payload: 64, Metric: result.Median, Reference: 10, Threshold: 0.1,
			Limit: 11, Value: 10.5, Difference: 0.5, Percent: 5, Margin: -0.5, Status: gate.Inconclusive,
			Message: "64 B Median: the difference is within noise; more runs are needed"},
	)
	compare.Finish()

	empty := &gate.Verdict{Tool: "check"}
	empty.Finish()

	statistical := &gate.Verdict{Tool: "compare", Subject: "b1, b2, b3, b4, b5, b6", Baseline: "a1, a2, a3, a4, a5, a6",
		ReferenceName: "reference", Mode: gate.ModeStatistical, FalseFail: 0.01}
	ref := []float64{100.1, 99.5, 101.2, 100.7, 98.9, 100.3}
	scaled := func(f float64, x []float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = v * f
		}
		return out
	}
	statistical.Add(gate.Judge([]gate.Series{
		{SubExperiment: "tcp", Payload: 16, Metric: result.Median, Threshold: 0.1, Reference: ref, Candidate: scaled(1.01, ref[1:])},
		{SubExperiment: "tcp", Payload: 16, Metric: result.P99, Threshold: 0.1, Reference: ref, Candidate: scaled(1.5, ref)},
		{SubExperiment: "tcp", Payload: 16, Metric: result.Max, Threshold: 0.1, Reference: ref, Candidate: []float64{80, 400, 90, 1200, 95, 300}},
		{SubExperiment: "tcp", Payload: 16, Metric: result.Min, Threshold: 0.1, Reference: ref[:2], Candidate: ref[2:4]},
	}, 0.01, "reference")...)
	statistical.Finish()
	return map[string]*gate.Verdict{"mixed": mixed, "allowed": allowed, "compare": compare, "empty": empty, "statistical": statistical}
}

var renderers = map[string]struct {
	ext    string
	render func(io.Writer, *gate.Verdict) error
}{
	"Text":     {"txt", Text},
	"JUnit":    {"xml", JUnit},
	"Markdown": {"md", Markdown},
	"JSON":     {"json", JSON},
}

// TestZeroReference: a requirement (or reference) of 0 has no percentage;
// every renderer says so instead of printing NaN or Inf.
func TestZeroReference(t *testing.T) {
	for _, name := range []string{"requirement", "reference"} {
		v := &gate.Verdict{Tool: "check", ReferenceName: name}
		v.Add(gate.Evaluate("a", 16, result.Max, name, 0, 0, 1.5), gate.Evaluate("a", 32, result.Max, name, 0, 0, 0))
		v.Finish()
		outputs := map[string]string{}
		for rname, r := range renderers {
			var b bytes.Buffer
			if err := r.render(&b, v); err != nil {
				t.Fatal(err)
			}
			outputs[rname] = b.String()
		}
		var html strings.Builder
		for _, row := range HTMLTable(v, v.Checks, true).Rows {
			for _, c := range row {
				html.WriteString(c.Text + "|")
			}
		}
		outputs["HTML"] = html.String()
		for rname, out := range outputs {
			if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
				t.Errorf("%s, %s of 0: NaN or Inf in\n%s", rname, name, out)
			}
			want := "n/a (" + name + " is 0)"
			if rname == "Text" || rname == "JSON" { // messages only
				want = "no percentage: " + name + " is 0"
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s, %s of 0: no %q in\n%s", rname, name, want, out)
			}
		}
	}
}

// TestCheckWording: a check's reports speak of the requirement, show it once
// (its limit is the requirement), and never say "reference" (but for the JSON
// field names, which are the schema's, with "reference_name" saying what
// "reference" holds).
func TestCheckWording(t *testing.T) {
	v := verdicts()["mixed"]
	for rname, r := range renderers {
		if rname == "JSON" {
			continue
		}
		var b bytes.Buffer
		if err := r.render(&b, v); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "reference") || strings.Contains(b.String(), "Reference") {
			t.Errorf("%s report of a check says reference:\n%s", rname, b.String())
		}
	}
	tab := HTMLTable(v, v.Checks, false)
	if got := strings.Join(tab.Header, ","); got != "Status,Bytes,Metric,Value,Requirement,Over requirement,vs requirement,Message" {
		t.Errorf("HTML header %s", got)
	}
	cv := verdicts()["compare"]
	if got := strings.Join(HTMLTable(cv, cv.Checks, false).Header, ","); got != "Status,Bytes,Metric,Value,Reference,Limit,Worse than limit,vs reference,Message" {
		t.Errorf("HTML header of a comparison %s", got)
	}
}

// TestMarginColumnByDirection: the column of how far a value lies beyond its
// limit is named for the checks' direction, so that a throughput below its
// limit (the failure, higher is better) reads as below it by a positive
// amount, not as over it: "Below requirement" for throughput alone, "Over
// requirement" for latency alone, "Worse than requirement" for both.
func TestMarginColumnByDirection(t *testing.T) {
	tput := gate.Evaluate("throughput_mqtt_best_effort (window)", 64, result.MessageRate, "requirement", 1000, 0, 850)
	lat := gate.Evaluate("mqtt_best_effort", 64, result.P99, "requirement", 100, 0, 120)
	for _, tc := range []struct {
		name   string
		checks []gate.Check
		header string
		cells  []string
	}{
		{"throughput", []gate.Check{tput}, "Below requirement", []string{"+150.000"}},
		{"latency", []gate.Check{lat}, "Over requirement", []string{"+20.000"}},
		{"both", []gate.Check{lat, tput}, "Worse than requirement", []string{"+20.000", "+150.000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &gate.Verdict{Tool: "check", ReferenceName: "requirement"}
			v.Add(tc.checks...)
			v.Finish()
			var b bytes.Buffer
			if err := Markdown(&b, v); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			if !strings.Contains(md, "| Requirement | "+tc.header+" | vs requirement |") {
				t.Errorf("Markdown header lacks %q:\n%s", tc.header, md)
			}
			tab := HTMLTable(v, v.Checks, false)
			col := -1
			for i, h := range tab.Header {
				if h == tc.header {
					col = i
				}
			}
			if col < 0 {
				t.Fatalf("HTML header %v lacks %q", tab.Header, tc.header)
			}
			for i, want := range tc.cells {
				if !strings.Contains(md, " | "+want+" | ") {
					t.Errorf("Markdown lacks margin %s:\n%s", want, md)
				}
				if got := tab.Rows[i][col].Text; !strings.HasPrefix(got, want+" ") {
					t.Errorf("HTML row %d %s = %q, want %s with its unit", i, tc.header, got, want)
				}
			}
			b.Reset()
			if err := JUnit(&b, v); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), strings.ToLower(tc.header)+": ") && tc.name != "both" {
				t.Errorf("JUnit failure lacks %q:\n%s", strings.ToLower(tc.header), b.String())
			}
		})
	}
}

func TestGolden(t *testing.T) {
	for rname, r := range renderers {
		for vname, v := range verdicts() {
			t.Run(rname+"/"+vname, func(t *testing.T) {
				var b bytes.Buffer
				if err := r.render(&b, v); err != nil {
					t.Fatal(err)
				}
				golden(t, r.ext, b.Bytes())
			})
		}
	}
}

func TestJUnitParsesWithCounts(t *testing.T) {
	for name, v := range verdicts() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JUnit(&b, v); err != nil {
				t.Fatal(err)
			}
			var doc junitSuites
			if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatalf("JUnit output does not parse: %v\n%s", err, b.Bytes())
			}
			var failures, skipped, tests int
			for _, c := range v.Checks {
				tests++
				switch {
				case v.Counts(c):
					failures++
				case c.Status != gate.Passed:
					skipped++
				}
			}
			if doc.Tests != tests || doc.Failures != failures || doc.Skipped != skipped {
				t.Errorf("testsuites counts tests=%d failures=%d skipped=%d, want %d %d %d",
					doc.Tests, doc.Failures, doc.Skipped, tests, failures, skipped)
			}
			var sumTests, sumFailures, sumSkipped int
			for _, s := range doc.Suites {
				if s.Tests != len(s.Cases) {
					t.Errorf("suite %s: tests=%d but %d test cases", s.Name, s.Tests, len(s.Cases))
				}
				var f, sk int
				for _, c := range s.Cases {
					if c.Failure != nil {
						f++
						if c.Failure.Message == "" {
							t.Errorf("%s %s: failure without message", s.Name, c.Name)
						}
					}
					if c.Skipped != nil {
						sk++
					}
				}
				if s.Failures != f || s.Skipped != sk {
					t.Errorf("suite %s: failures=%d skipped=%d, counted %d %d", s.Name, s.Failures, s.Skipped, f, sk)
				}
				sumTests += s.Tests
				sumFailures += s.Failures
				sumSkipped += s.Skipped
			}
			if sumTests != doc.Tests || sumFailures != doc.Failures || sumSkipped != doc.Skipped {
				t.Errorf("suite sums %d %d %d differ from testsuites %d %d %d",
					sumTests, sumFailures, sumSkipped, doc.Tests, doc.Failures, doc.Skipped)
			}
		})
	}
}

func TestJUnitFailureGivesValuesAndMargin(t *testing.T) {
	v := verdicts()["mixed"]
	var b bytes.Buffer
	if err := JUnit(&b, v); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, c := range doc.Suites[0].Cases {
		if c.Name == "16 B 99%" && c.Failure != nil {
			msg = c.Failure.Message
		}
	}
	for _, want := range []string{"120.500", "100.000", "20.500", "+20.500%"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message %q lacks %q", msg, want)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	v := verdicts()["mixed"]
	var b bytes.Buffer
	if err := JSON(&b, v); err != nil {
		t.Fatal(err)
	}
	var got struct {
		FormatVersion int `json:"format_version"`
		gate.Verdict
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.FormatVersion != FormatVersion {
		t.Errorf("format_version = %d, want %d", got.FormatVersion, FormatVersion)
	}
	if got.Status != v.Status || got.Failed != v.Failed || got.Missing != v.Missing || len(got.Checks) != len(v.Checks) {
		t.Errorf("decoded verdict %+v differs from %+v", got.Verdict, *v)
	}
	miss := got.Checks[3]
	if miss.Status != gate.Missing || !math.IsNaN(miss.Reference) || miss.Value != 42 {
		t.Errorf("missing check decoded as %+v, want NaN reference and value 42", miss)
	}
}

func TestMarkdownFailuresFirst(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, verdicts()["mixed"]); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	failed, passed := strings.Index(s, "❌ failed"), strings.Index(s, "✅ passed")
	if failed < 0 || passed < 0 || failed > passed {
		t.Errorf("failures are not listed before passes:\n%s", s)
	}
	if !strings.HasPrefix(s, "### ❌ check FAILED") {
		t.Errorf("heading is not the verdict:\n%s", s)
	}
}

func TestHTMLTable(t *testing.T) {
	v := verdicts()["mixed"]
	tab := HTMLTable(v, v.Checks, true)
	if len(tab.Rows) != len(v.Checks) || tab.Header[0] != "Sub-experiment" || tab.Header[len(tab.Header)-1] != "Message" {
		t.Fatalf("header %v, %d rows", tab.Header, len(tab.Rows))
	}
	for i, r := range tab.Rows {
		if len(r) != len(tab.Header) {
			t.Errorf("row %d has %d cells for %d columns", i, len(r), len(tab.Header))
		}
	}
	if got := tab.Rows[1][1]; got.Text != "failed" || got.Status != "failed" {
		t.Errorf("status cell %+v", got)
	}
	hv := HTMLVerdict(v)
	if hv.Status != "failed" || len(hv.Failures.Rows) != 2 {
		t.Errorf("verdict %+v", hv)
	}
	passedOnly := HTMLTable(v, v.Checks[:1], false)
	if passedOnly.Header[len(passedOnly.Header)-1] == "Message" {
		t.Errorf("a table of passed checks has a Message column")
	}
}

// TestNoVerdictReports: a gate that judged nothing (gate.Unjudged) says so
// in every format, with why: a headline, not "0 of 0 checks passed"; a
// JUnit test case in error, which a test report shows as broken; the JSON
// status no_verdict with the error; and no exit code of a verdict.
func TestNoVerdictReports(t *testing.T) {
	why := "round 5: the echo end of ab/candidate/run died: exit status 1 <&>"
	v := gate.Unjudged("run ab", "ab/candidate/run", "ab/reference/run", why)
	if v.ExitCode() != exit.Usage {
		t.Errorf("exit code %d, want %d", v.ExitCode(), exit.Usage)
	}
	var md, ju, js bytes.Buffer
	if err := Markdown(&md, v); err != nil {
		t.Fatal(err)
	}
	if got := md.String(); !strings.HasPrefix(got, "### ⛔ run ab: NO VERDICT\n") || !strings.Contains(got, "exit status 1") || strings.Contains(got, "checks passed") {
		t.Errorf("Markdown:\n%s", got)
	}
	if err := JUnit(&ju, v); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, ju.String())
	}
	if doc.Tests != 1 || doc.Errors != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 ||
		doc.Suites[0].Cases[0].Error == nil || doc.Suites[0].Cases[0].Error.Message != why {
		t.Errorf("JUnit: %+v\n%s", doc, ju.String())
	}
	if err := JSON(&js, v); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["status"] != "no_verdict" || got["error"] != why {
		t.Errorf("JSON: %s", js.String())
	}
}

// TestAllPayloads: a check over every payload at once (payload 0, run
// ab's echo CPU time per message) is written "all", not "0 B", in every
// table.
func TestAllPayloads(t *testing.T) {
	cpu := result.Metric{Name: "Echo CPU/message", Unit: "ns", Better: result.LowerIsBetter}
	v := &gate.Verdict{Tool: "run ab", Subject: "b", Baseline: "a"}
	v.Add(gate.Evaluate("interprocess_reliable_tcp", 0, cpu, "reference", 1000, 0.05, 1200))
	v.Finish()
	var md, ju bytes.Buffer
	if err := Markdown(&md, v); err != nil {
		t.Fatal(err)
	}
	if err := JUnit(&ju, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| interprocess_reliable_tcp | all |") {
		t.Errorf("Markdown:\n%s", md.String())
	}
	if !strings.Contains(ju.String(), `name="all payloads Echo CPU/message"`) || !strings.Contains(ju.String(), "payload: all payloads") {
		t.Errorf("JUnit:\n%s", ju.String())
	}
	if strings.Contains(md.String()+ju.String(), " 0 B") {
		t.Errorf("a check of every payload written as one of 0 B:\n%s\n%s", md.String(), ju.String())
	}
}
