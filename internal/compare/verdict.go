package compare

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
)

// Tool is the name of the gate in verdicts and reports.
const Tool = "compare"

// Verdict returns r as a finished gate.Verdict for the report renderers:
// every check of every sub-experiment, and r's warnings.
func (r *Result) Verdict() *gate.Verdict {
	v := &gate.Verdict{
		Tool:          Tool,
		Subject:       dirs(r.Targets),
		Baseline:      dirs(r.References),
		ReferenceName: referenceName,
		AllowMissing:  r.Config.AllowMissing,
		Mode:          r.Mode,
	}
	if r.Mode == gate.ModeStatistical || r.Mode == gate.ModePaired {
		v.FalseFail = r.Config.FalseFail
	}
	for _, s := range r.sections() {
		v.Add(s.checkList()...)
	}
	for _, w := range r.Warnings {
		v.Warn(w)
	}
	v.Finish()
	switch r.Mode {
	case gate.ModePaired:
		v.Decision = r.pairedDecision()
	case gate.ModeStatistical:
		v.Decision = r.unpairedDecision(v)
	}
	if v.Decision != nil && v.Status == gate.Failed && v.Missing > 0 {
		missingDecision(v)
	}
	return v
}

// missingDecision makes the decision of a failed statistical or paired
// verdict say the missing checks that fail it (formats §5: a reference
// sub-experiment the results lack, a run's value ≤ 0 that forms no ratio):
// without a failed check the rule read "fail: Holm's correction rejects a
// check …: 0 check(s) failed", or the paired analysis' "inconclusive", of a
// gate that exited 1.
func missingDecision(v *gate.Verdict) {
	var names []string
	first := ""
	for _, c := range v.Checks {
		if c.Status == gate.Missing {
			names = append(names, fmt.Sprintf("%s %d B %s", c.SubExperiment, c.Payload, c.Metric.Name))
			first = cmp.Or(first, c.Message)
		}
	}
	missing := fmt.Sprintf("%d check(s) missing, each failing the gate: %s (%s)", v.Missing, experiment.JoinNames(names, 5), first)
	d := v.Decision
	if v.Failed > 0 {
		d.Reason += "; and " + missing
		return
	}
	d.Rule = "fail: a check is missing (formats §5), whatever the others' tests"
	if !v.AllowMissing {
		d.Rule += "; --allow-missing passes it"
	}
	d.Reason, d.Open = missing, nil
	d.Check, d.Low, d.High = "", math.NaN(), math.NaN()
}

// dirs lists the experiments' directories, comma-separated.
func dirs(exps []*experiment.Experiment) string {
	d := make([]string, len(exps))
	for i, e := range exps {
		d[i] = e.Dir
	}
	return strings.Join(d, ", ")
}
