package history

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/synth"
)

var twoTypes = []string{"interprocess_best_effort", "interprocess_reliable"}

// fourPayloads keep the gate tests quick: a gate's permutations grow with
// the number of series it judges.
var fourPayloads = []int{16, 1024, 4096, 16384}

// generated loads n generated experiments (two sub-experiments, four
// payloads) with opt's seed, steadiness and slowdown.
func generated(t *testing.T, n int, opt synth.GenerateOptions) *History {
	t.Helper()
	dir := t.TempDir()
	opt.Types, opt.Payloads, opt.Meta = twoTypes, fourPayloads, true
	if _, err := synth.Generate(dir, n, opt); err != nil {
		t.Fatal(err)
	}
	h, err := Load(context.Background(), dir, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestChangesFindSlowdown: a 20 % slowdown from experiment 20 of 30 is a
// change point at experiment 20 in every Median and Min series (the
// percentiles carry more noise), with the ratio of the medians, the
// experiment's commit in the JSON report and the change on its CSV row; the
// gate fails on (nearly) every judged series.
func TestChangesFindSlowdown(t *testing.T) {
	h := generated(t, 30, synth.GenerateOptions{Seed: 5, Steady: true, Slowdown: 1.2, SlowFrom: 20})
	if err := h.DetectChanges(context.Background(), ChangeOptions{Options: changepoint.Options{Seed: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, s := range h.SubExperiments {
		for _, mag := range []string{"Min", "Median"} {
			m := slices.Index(Magnitudes, mag)
			for p, b := range s.Payloads {
				cps := s.Changes[m][p].ChangePoints
				if len(cps) != 1 || cps[0].Index != 20 {
					t.Errorf("%s %d %s: change points %+v, want one at 20", s.Type, b, mag, cps)
					continue
				}
				if math.Abs(cps[0].Ratio-1.2) > 0.07 {
					t.Errorf("%s %d %s: ratio %.3f, want ≈ 1.2", s.Type, b, mag, cps[0].Ratio)
				}
			}
		}
	}
	g, err := h.Gate(context.Background(), GateOptions{Metrics: DefaultGateMetrics, MinChange: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	// 16 series, each change point tested at 0.8 of its series' share
	// (its trend has the rest): p-values resolve to half of 0.01·0.8/16.
	if !g.Failed() || len(g.Failures()) < 15 || len(g.Series) != 16 || g.Permutations != 3999 {
		t.Errorf("gate: failed %v, %d of %d series failed with %d permutations; want ≥ 15 of 16, 3999: %s",
			g.Failed(), len(g.Failures()), len(g.Series), g.Permutations, g.Summary())
	}
	for _, f := range g.Failures() {
		// The 99th percentiles are noisier: within one experiment.
		if f.Change.Index < 19 || f.Change.Index > 21 || f.Magnitude == "Median" && f.Change.Index != 20 || !(f.P <= f.Level) {
			t.Errorf("failure %s %d %s at %d, p %v level %v", f.Type, f.Payload, f.Magnitude, f.Change.Index, f.P, f.Level)
		}
	}

	var buf bytes.Buffer
	if err := WriteJSON(&buf, h.JSONDoc(g)); err != nil {
		t.Fatal(err)
	}
	var doc JSON
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Gate == nil || doc.Gate.Verdict != "failed" || doc.Gate.Correction != "holm" {
		t.Errorf("JSON gate %+v", doc.Gate)
	}
	found := false
	for _, c := range doc.ChangePoints {
		if c.SubExperiment == "interprocess_reliable" && c.Payload == 16 && c.Metric == "Median" {
			found = true
			if c.Experiment != h.Experiments[20].Name || c.Commit != h.Experiments[20].Commit || c.Commit == "" || c.Direction != "slower" {
				t.Errorf("JSON change point %+v, want experiment %s commit %s", c, h.Experiments[20].Name, h.Experiments[20].Commit)
			}
		}
	}
	if !found {
		t.Error("JSON lacks the interprocess_reliable 16 B Median change point")
	}

	buf.Reset()
	if err := h.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	row := h.Experiments[20].Name + ",interprocess_reliable,16,Median,"
	var line string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, row) {
			line = l
		}
	}
	f := strings.Split(line, ",")
	if len(f) != 9 || f[6] != "slower" || !strings.HasPrefix(f[7], "1.") || f[8] != "0.005" {
		t.Errorf("history.csv row %q: want change slower, ratio ≈ 1.2, p 0.005", line)
	}
}

// syntheticHistory builds in memory a history of n experiments of two
// sub-experiments, eleven payloads, log-normal noise of 4 % around fixed
// medians (tails noisier), times slowdown from experiment slowFrom on when
// slowdown > 0.
func syntheticHistory(seed uint64, n int, slowdown float64, slowFrom int) *History {
	exps := make([]*experiment.Experiment, n)
	for e := range exps {
		exps[e] = &experiment.Experiment{Name: "e" + string(rune('A'+e%26)) + string(rune('a'+e/26))}
	}
	h := &History{Experiments: exps}
	rng := newRand(seed)
	for _, typ := range twoTypes {
		s := &SubExperiment{Type: typ, Payloads: synth.DefaultPayloads}
		s.Requirements = make([][]float64, len(Checks))
		for c := range s.Requirements {
			s.Requirements[c] = nanSlice(len(synth.DefaultPayloads))
		}
		s.Values = make([][][]float64, len(Magnitudes))
		for m := range Magnitudes {
			s.Values[m] = make([][]float64, len(synth.DefaultPayloads))
			for p, b := range synth.DefaultPayloads {
				v := make([]float64, n)
				for e := range v {
					f := 1.0
					if slowdown > 0 && e >= slowFrom {
						f = slowdown
					}
					sd := 0.04
					if Magnitudes[m] == "Max" || Magnitudes[m] == "99%" {
						sd = 0.15
					}
					v[e] = synth.BaseLatency(typ, b) * f * math.Exp(sd*rng.NormFloat64())
				}
				s.Values[m][p] = v
			}
		}
		h.SubExperiments = append(h.SubExperiments, s)
	}
	return h
}

// TestChangesShortAndWindow: with 8 experiments no series is tested and
// the summary says so; with a window of 12 of 30 experiments only the
// newest 12 are analysed and the plots say where analysis starts.
func TestChangesShortAndWindow(t *testing.T) {
	h := syntheticHistory(1, 8, 0, 0)
	if err := h.DetectChanges(context.Background(), ChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	if series, short := h.ChangeSummary(); series != 88 || short != 88 {
		t.Errorf("8 experiments: %d series, %d short; want 88, 88", series, short)
	}
	if !strings.Contains(h.SubExperiments[0].Changes[1][0].Reason, "fewer than 2 × the minimum segment length") {
		t.Errorf("reason %q", h.SubExperiments[0].Changes[1][0].Reason)
	}
	g, err := h.Gate(context.Background(), GateOptions{Metrics: []string{"Median"}})
	if err != nil || g.Failed() || g.Short != 22 || len(g.Series) != 0 {
		t.Errorf("gate on short series: %+v, %v", g, err)
	}

	h = syntheticHistory(2, 30, 1.5, 5) // a slowdown before the window
	if err := h.DetectChanges(context.Background(), ChangeOptions{Window: 12}); err != nil {
		t.Fatal(err)
	}
	if h.ChangeFrom != 18 {
		t.Errorf("ChangeFrom = %d, want 18", h.ChangeFrom)
	}
	for _, c := range h.Changes() {
		if c.Index < 18 {
			t.Errorf("change point at %d, before the window", c.Index)
		}
	}
	jobs := h.Jobs()
	for _, j := range jobs[:5] {
		if p := j.Build(); !legendHas(p, "change points looked for from here (newest 12)") {
			t.Errorf("%s: legend lacks the window", j.Name)
		}
	}
}

// TestChangesOnPlots: payload plots carry the segment medians and a legend
// entry per direction of change; magnitude plots count the triangles; the
// plots render.
func TestChangesOnPlots(t *testing.T) {
	h := syntheticHistory(3, 30, 1.3, 15)
	if err := h.DetectChanges(context.Background(), ChangeOptions{}); err != nil {
		t.Fatal(err)
	}
	var mag, pay *Job
	jobs := h.Jobs()
	for i := range jobs {
		j := &jobs[i]
		if j.Kind == KindMagnitude && j.Magnitude == "Median" && mag == nil {
			mag = j
		}
		if j.Kind == KindPayload && j.Magnitude == "Median" && j.Payload == 1024 && pay == nil {
			pay = j
		}
	}
	if p := pay.Build(); !legendHas(p, "slower +") || !legendHas(p, " from "+h.Experiments[15].Label()) || !legendHas(p, "segment median") {
		t.Errorf("payload plot legend lacks the change point or segment medians")
	}
	if p := mag.Build(); !legendHas(p, "change point: slower (11)") {
		t.Errorf("magnitude plot legend lacks 11 slower change points")
	}
	dir := t.TempDir()
	if err := RenderPlots(context.Background(), []Job{*mag, *pay}, RenderOptions{Dir: dir, Format: "png"}); err != nil {
		t.Fatal(err)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "*", "*.png")); err != nil {
		t.Fatal(err)
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x68697374)) }

// legendHas reports whether the plot's SVG shows text.
func legendHas(p *plot.Plot, text string) bool {
	svg, err := plots.SVG(p)
	if err != nil {
		return false
	}
	return bytes.Contains(svg, []byte(html.EscapeString(text)))
}
