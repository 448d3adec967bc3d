package check

import (
	"cmp"
	"slices"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/report"
)

// Page is the HTML report of a check: the verdict first, then per
// sub-experiment its checks and, when given, its plots.
func Page(v *gate.Verdict, figures map[string][]htmlreport.Plot) htmlreport.Page {
	p := htmlreport.Page{
		Title:    "mqgate check",
		Subtitle: v.Subject,
		Meta: []htmlreport.KV{
			{Key: "Experiment", Value: v.Subject},
			{Key: "Requirements", Value: v.Baseline},
		},
		Verdict: report.HTMLVerdict(v),
		Notes:   v.Warnings,
	}
	for _, sub := range v.SubExperiments() {
		checks := slices.DeleteFunc(slices.Clone(v.Checks), func(c gate.Check) bool { return c.SubExperiment != sub })
		s := htmlreport.Section{
			ID:     sub,
			Title:  sub,
			Status: report.HTMLStatus(v.SubStatus(sub)),
			Tables: []htmlreport.Table{report.HTMLTable(v, checks, false)},
			Plots:  figures[sub],
		}
		s.Tables[0].Caption = cmp.Or(s.Tables[0].Caption, "Checks against "+v.Baseline)
		p.Sections = append(p.Sections, s)
	}
	return p
}
