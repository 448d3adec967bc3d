package history

import (
	"context"
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/synth"
)

// TestExperimentAxisThinning draws the history plots of 12, 40 and 200
// experiments and checks the x axis: at most MaxLabels labels, the newest
// experiment among them, and labels that neither overlap their neighbours
// nor leave the figure.
func TestExperimentAxisThinning(t *testing.T) {
	for _, n := range []int{12, 40, 200} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			dir := t.TempDir()
			opt := synth.GenerateOptions{Seed: 1, Meta: true, Types: []string{"interprocess_reliable"}, Payloads: []int{16, 1024}}
			if _, err := synth.Generate(dir, n, opt); err != nil {
				t.Fatal(err)
			}
			h, err := Load(context.Background(), dir, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			labels := h.Labels()
			for _, j := range h.Jobs() {
				checkAxis(t, j.Name, j.Build(), labels)
			}
		})
	}
}

func checkAxis(t *testing.T, name string, p *plot.Plot, labels []string) {
	t.Helper()
	n := len(labels)
	var shown []plot.Tick
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			shown = append(shown, tk)
		}
	}
	if len(shown) == 0 || len(shown) > MaxLabels {
		t.Fatalf("%s: %d labels for %d experiments, want 1..%d", name, len(shown), n, MaxLabels)
	}
	if last := shown[len(shown)-1]; int(last.Value) != n-1 || last.Label != labels[n-1] {
		t.Errorf("%s: newest experiment not labelled: last label %q at %v", name, last.Label, last.Value)
	}
	for _, tk := range shown {
		if tk.Label != labels[int(tk.Value)] {
			t.Errorf("%s: label %q at %v, want %q", name, tk.Label, tk.Value, labels[int(tk.Value)])
		}
	}

	c := draw.New(vgimg.NewWith(vgimg.UseWH(plots.DefaultWidth, plots.DefaultHeight), vgimg.UseDPI(plots.DefaultDPI)))
	da := p.DataCanvas(c)
	x := func(v float64) vg.Length {
		return da.Min.X + vg.Length((v-p.X.Min)/(p.X.Max-p.X.Min))*(da.Max.X-da.Min.X)
	}
	sty := p.X.Tick.Label
	sin, cos := vg.Length(math.Sin(sty.Rotation)), vg.Length(math.Cos(sty.Rotation))
	lineH := sty.Height("Xg")
	for i := 1; i < len(shown); i++ {
		gap := x(shown[i].Value) - x(shown[i-1].Value)
		if sty.Rotation == 0 {
			// Side by side: half of each label on either side of its tick.
			need := (sty.Width(shown[i].Label) + sty.Width(shown[i-1].Label)) / 2
			if gap < need {
				t.Errorf("%s: labels %q and %q overlap: %.1f pt apart, need %.1f", name, shown[i-1].Label, shown[i].Label, gap, need)
			}
			continue
		}
		// Parallel rotated labels: their distance across the text direction.
		if across := gap * sin; across < lineH {
			t.Errorf("%s: rotated labels %q and %q overlap: %.1f pt apart across, need %.1f", name, shown[i-1].Label, shown[i].Label, across, lineH)
		}
	}
	// The first label reaches left of its tick by its width times cos(θ)
	// (plus half a line for its thickness); it must stay in the figure.
	first := shown[0]
	reach := sty.Width(first.Label)*cos + lineH*sin/2
	if sty.Rotation == 0 {
		reach = sty.Width(first.Label) / 2
	}
	if left := x(first.Value) - reach; left < c.Min.X {
		t.Errorf("%s: first label %q starts %.1f pt left of the figure", name, first.Label, c.Min.X-left)
	}
}

// TestRequirementLine checks that a payload plot's y range includes the
// requirement even when every value is far below it, and that the legend
// names it.
func TestRequirementLine(t *testing.T) {
	h := &History{Experiments: []*experiment.Experiment{{Name: "a"}, {Name: "b"}}}
	s := &SubExperiment{
		Type: "intraprocess_reliable", Payloads: []int{16},
		Values:       [][][]float64{{{1, 2}}, {{1, 2}}, {{1, 2}}, {{1, 2}}},
		Requirements: [][]float64{{100}, {200}, {300}},
	}
	h.SubExperiments = []*SubExperiment{s}
	for _, j := range h.Jobs() {
		if j.Kind != KindPayload {
			continue
		}
		p := j.Build()
		want := s.Requirement(j.Magnitude, 0)
		if p.Y.Max < want {
			t.Errorf("%s: y axis ends at %v, below the requirement %v", j.Name, p.Y.Max, want)
		}
		if j.Over != 0 {
			t.Errorf("%s: %d over requirement, want 0", j.Name, j.Over)
		}
	}
}
