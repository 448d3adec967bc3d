package report

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mqgate/mqgate/internal/browser"
	"github.com/mqgate/mqgate/internal/htmlreport"
)

// TestVerdictTableFits opens a statistical verdict's page in Chromium at
// a laptop's and a phone's width: the verdict table does not scroll
// sideways, and the verdict is on the first screen.
func TestVerdictTableFits(t *testing.T) {
	browser.Require(t)
	v := verdicts()["statistical"]
	page := filepath.Join(t.TempDir(), "verdict.html")
	p := htmlreport.Page{Title: "Comparison", Verdict: HTMLVerdict(v),
		Sections: []htmlreport.Section{{ID: "tcp", Title: "tcp", Tables: []htmlreport.Table{HTMLTable(v, v.Checks, false)}}}}
	if err := htmlreport.WriteFile(page, p); err != nil {
		t.Fatal(err)
	}
	const js = `var w = document.querySelector("#verdict .table-wrap");
return {vh: innerHeight, top: document.getElementById("verdict").getBoundingClientRect().top,
	scroll: w.scrollWidth, client: w.clientWidth, notes: document.querySelectorAll(".verdict-note").length};`
	for _, w := range []int{1280, 400} {
		out, err := browser.Eval(context.Background(), page, w, 800, js)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			VH, Top, Scroll, Client float64
			Notes                   int
		}
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if m.Scroll > m.Client {
			t.Errorf("%d px: the verdict table is %g px wide in a %g px container", w, m.Scroll, m.Client)
		}
		if m.Top < 0 || m.Top >= m.VH {
			t.Errorf("%d px: verdict at %g, want on the first screen (%g px)", w, m.Top, m.VH)
		}
		if m.Notes == 0 {
			t.Errorf("%d px: no notes under the verdict table", w)
		}
	}
}
