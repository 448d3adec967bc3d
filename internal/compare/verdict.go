package compare

import (
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
	return v
}

// dirs lists the experiments' directories, comma-separated.
func dirs(exps []*experiment.Experiment) string {
	d := make([]string, len(exps))
	for i, e := range exps {
		d[i] = e.Dir
	}
	return strings.Join(d, ", ")
}
