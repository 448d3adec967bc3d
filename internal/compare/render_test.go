package compare

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/result"
)

func loadPair(t testing.TB, ref, target string) (*experiment.Experiment, *experiment.Experiment) {
	t.Helper()
	r, err := experiment.Load(filepath.Join("testdata", "experiments", ref))
	if err != nil {
		t.Fatal(err)
	}
	g, err := experiment.Load(filepath.Join("testdata", "experiments", target))
	if err != nil {
		t.Fatal(err)
	}
	return r, g
}

func TestFigureSpecs(t *testing.T) {
	ref, got := loadPair(t, "v192", "v193-regressed")
	cfg := DefaultConfig()
	cfg.Metrics = append(cfg.Metrics, result.Mean, result.P9999, result.P90)
	r, err := Compare(ref, got, cfg)
	if err != nil {
		t.Fatal(err)
	}
	specs := r.figureSpecs(&r.Subs[0])
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	want := "interprocess_reliable_min_median interprocess_reliable_max_99% interprocess_reliable_mean_99.99% interprocess_reliable_90%"
	if strings.Join(names, " ") != want {
		t.Fatalf("figures %q, want %q", names, want)
	}
	minMedian := specs[0]
	if len(minMedian.categories) != 11 || minMedian.categories[0] != "16" || minMedian.categories[10] != "16384" {
		t.Errorf("categories %q", minMedian.categories)
	}
	var lineNames []string
	for _, l := range minMedian.lines {
		lineNames = append(lineNames, l.Name)
		if l.Dashed != strings.HasPrefix(l.Name, "Reference") {
			t.Errorf("%s dashed=%v: the reference is dashed, the result solid", l.Name, l.Dashed)
		}
	}
	if got := strings.Join(lineNames, ","); got != "Reference Min,Result Min,Reference Median,Result Median" {
		t.Errorf("lines %s", got)
	}
	// Only the regressed median at 16 B is marked; the min improved at 8192 B.
	for i, l := range minMedian.lines {
		for j, m := range l.Marked {
			if m != (i == 3 && j == 0) {
				t.Errorf("%s point %d marked=%v", l.Name, j, m)
			}
		}
	}
	if !minMedian.marked || !specs[2].marked || specs[3].marked {
		t.Errorf("marked flags: min_median %v, mean_99.99%% %v, 90%% %v; want true, true, false",
			minMedian.marked, specs[2].marked, specs[3].marked)
	}
	// Mean at 64 B regressed by 25 %: marked on the mean plot.
	if mean := specs[2].lines[1]; mean.Name != "Result Mean" || !mean.Marked[2] || mean.Y[2] != 14 {
		t.Errorf("mean line %s marked %v y %v", mean.Name, mean.Marked, mean.Y)
	}
}

func TestFigureSpecsMissing(t *testing.T) {
	ref, got := loadPair(t, "v192", "v193-missing")
	r, err := Compare(ref, got, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	s := &r.Subs[1]
	if !s.Missing() {
		t.Fatalf("%s is not missing", s.Type)
	}
	for _, spec := range r.figureSpecs(s) {
		if len(spec.lines) != 2 || !spec.lines[0].Dashed || !spec.lines[1].Dashed || spec.marked {
			t.Errorf("%s: want the two reference lines only, got %+v", spec.name, spec.lines)
		}
		if !strings.Contains(spec.title, "missing from the results") {
			t.Errorf("title %q does not say the results are missing", spec.title)
		}
	}
}

func TestPage(t *testing.T) {
	ref, got := loadPair(t, "v192", "v193-regressed")
	r, err := Compare(ref, got, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	v := r.Verdict()
	p, err := r.Page(v)
	if err != nil {
		t.Fatal(err)
	}
	if p.Verdict.Status != htmlreport.StatusFailed || len(p.Verdict.Failures.Rows) != 2 {
		t.Errorf("verdict %s with %d failures, want failed with 2", p.Verdict.Status, len(p.Verdict.Failures.Rows))
	}
	if len(p.Sections) != 2 || p.Sections[0].Status != htmlreport.StatusFailed || p.Sections[1].Status != htmlreport.StatusPassed {
		t.Fatalf("sections %+v", p.Sections)
	}
	tab := p.Sections[0].Tables[0]
	if len(tab.Rows) != 11 || len(tab.Header) != 1+3*4 {
		t.Errorf("table %d rows × %d columns, want 11 × 13", len(tab.Rows), len(tab.Header))
	}
	// 16 B: Median change (column 1 + 3·1 + 2) is the failed cell.
	if c := tab.Rows[0][6]; c.Status != htmlreport.StatusFailed || c.Text != "+19.997%" {
		t.Errorf("16 B median change cell %+v", c)
	}
	if n := len(p.Sections[0].Plots); n != 2 {
		t.Errorf("%d plots, want 2", n)
	}
	if err := htmlreport.WriteFile(filepath.Join(t.TempDir(), "compare.html"), p); err != nil {
		t.Fatal(err)
	}
}

func TestVerdictMatchesResult(t *testing.T) {
	ref, got := loadPair(t, "v192", "v193-regressed")
	r, err := Compare(ref, got, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	v := r.Verdict()
	if v.Tool != "compare" || v.Status != gate.Failed || v.Failed != 2 || v.Passed != 54 || v.ExitCode() != 1 {
		t.Errorf("verdict %s %s: %d passed %d failed", v.Tool, v.Status, v.Passed, v.Failed)
	}
	for _, c := range v.Checks {
		if math.IsNaN(c.Limit) {
			t.Errorf("check %s %d B has no limit", c.Metric.Name, c.Payload)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	ref, got := loadPair(b, "v192", "v193-regressed")
	cfg := DefaultConfig()
	cfg.Metrics = result.CompareMetrics
	for b.Loop() {
		r, err := Compare(ref, got, cfg)
		if err != nil {
			b.Fatal(err)
		}
		r.Verdict()
	}
}

func BenchmarkFigures(b *testing.B) {
	ref, got := loadPair(b, "v192", "v193-regressed")
	r, err := Compare(ref, got, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for i := range r.Subs {
			r.Figures(&r.Subs[i])
		}
	}
}

// TestInconclusiveSummaryCounts: the error line counts runs and checks in
// the singular when there is one ("≈ 1 more runs" before).
func TestInconclusiveSummaryCounts(t *testing.T) {
	check := func(more int) gate.Check {
		return gate.Check{Status: gate.Inconclusive, Stats: &gate.Stats{Gateable: true, MoreRuns: more}}
	}
	for _, c := range []struct {
		more []int
		want string
	}{
		{[]int{1}, "inconclusive: 1 check could not be decided; ≈ 1 more run per side would decide 1 check"},
		{[]int{3, 3}, "inconclusive: 2 checks could not be decided; ≈ 3 more runs per side would decide 2 checks"},
		{[]int{1, 4}, "≈ 1 more run per side would decide half of 2 checks, ≈ 4 all"},
	} {
		v := &gate.Verdict{Inconclusive: len(c.more)}
		for _, m := range c.more {
			v.Checks = append(v.Checks, check(m))
		}
		if got := inconclusiveSummary(v); !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.more, got, c.want)
		}
	}
}
