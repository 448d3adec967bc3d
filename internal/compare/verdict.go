package compare

import "github.com/mqgate/mqgate/internal/gate"

// Tool is the name of the gate in verdicts and reports.
const Tool = "compare"

// Verdict returns r as a finished gate.Verdict for the report renderers:
// every check of every sub-experiment, and r's warnings.
func (r *Result) Verdict() *gate.Verdict {
	v := &gate.Verdict{
		Tool:          Tool,
		Subject:       r.Target.Dir,
		Baseline:      r.Reference.Dir,
		ReferenceName: referenceName,
		AllowMissing:  r.Config.AllowMissing,
	}
	for _, s := range r.Subs {
		v.Add(s.Checks...)
	}
	for _, w := range r.Warnings {
		v.Warn(w)
	}
	v.Finish()
	return v
}
