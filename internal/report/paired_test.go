package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// TestPairedFactsInEveryReport: a paired verdict's decision states its
// estimand, N, the minimum pairs for a decision and the serial-dependence
// diagnostic in the text, Markdown and JUnit reports, filled from the
// analysis by one call.
func TestPairedFactsInEveryReport(t *testing.T) {
	c := paired.Check{Name: "tcp 16 B p50", A: []float64{100, 101, 99}, B: []float64{130, 131, 129}}
	a, err := paired.Analyze([]paired.Check{c}, paired.Pairs, paired.Config{})
	if err != nil {
		t.Fatal(err)
	}
	d := &gate.Decision{Rule: "inconclusive", Reason: a.Verdict.Reason, Level: 0.01}
	d.SetPaired(&a)
	v := &gate.Verdict{Tool: "compare", Mode: gate.ModePaired, FalseFail: 0.01, Decision: d}
	v.Add(gate.Check{SubExperiment: "tcp", Payload: 16, Status: gate.Inconclusive, Message: "16 B p50: inconclusive"})
	v.Finish()
	for _, f := range []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"text", func(b *bytes.Buffer) error { return Text(b, v) }},
		{"markdown", func(b *bytes.Buffer) error { return Markdown(b, v) }},
		{"junit", func(b *bytes.Buffer) error { return JUnit(b, v) }},
	} {
		var b bytes.Buffer
		if err := f.render(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"median of the pairs", "N = 3", "7", "serial dependence", "autocorrelation"} {
			if f.name == "junit" && want == "N = 3" {
				want = `"n" value="3"`
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", f.name, want, out)
			}
		}
	}
	if d.MinPairs != 7 || d.N != 3 {
		t.Errorf("decision %+v", d)
	}
}
