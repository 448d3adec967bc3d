package history

import (
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
)

// JSON is the document history --json writes: the experiments in history
// order, how change points were looked for, every change point, and the
// gate's verdict when --gate was given.
type JSON struct {
	Experiments  []JSONExperiment  `json:"experiments"`
	Method       JSONMethod        `json:"change_point_method"`
	Series       int               `json:"series"`
	ShortSeries  int               `json:"series_too_short"`
	ChangePoints []JSONChangePoint `json:"change_points"`
	Gate         *JSONGate         `json:"gate,omitempty"`
	Warnings     []string          `json:"warnings"`
}

// JSONExperiment is one experiment, in history order.
type JSONExperiment struct {
	Name    string `json:"name"`
	Start   string `json:"start,omitempty"`
	Version string `json:"version,omitempty"`
	Commit  string `json:"commit,omitempty"`
}

// JSONMethod says how change points were looked for.
type JSONMethod struct {
	Name         string  `json:"name"`
	Significance float64 `json:"significance"`
	Permutations int     `json:"permutations"`
	MinSegment   int     `json:"min_segment"`
	Seed         uint64  `json:"seed"`
	// Window is the number of newest experiments analysed (-1: all);
	// FirstExperiment the first one analysed.
	Window          int    `json:"window"`
	FirstExperiment string `json:"first_experiment"`
}

// JSONChangePoint is one change point: where a series' new segment
// begins, and how far it moved.
type JSONChangePoint struct {
	SubExperiment string `json:"sub_experiment"`
	Payload       int    `json:"payload"`
	Metric        string `json:"metric"`
	// Experiment is the first experiment of the new segment, with the
	// system's version and commit from its meta.json.
	Experiment string `json:"experiment"`
	Version    string `json:"version,omitempty"`
	Commit     string `json:"commit,omitempty"`
	// Index of Experiment in Experiments.
	Index int `json:"index"`
	// Before and After are the segment medians, Ratio After/Before
	// (null when Before is 0).
	Before    float64  `json:"median_before"`
	After     float64  `json:"median_after"`
	Ratio     *float64 `json:"ratio"`
	Direction string   `json:"direction"`
	P         float64  `json:"p_value"`
	// Order in which the divisive procedure accepted it (1 first).
	Order int `json:"order"`
}

// JSONGate is the verdict of history --gate.
type JSONGate struct {
	// Verdict is passed, failed or inconclusive (no series long enough).
	Verdict      string   `json:"verdict"`
	Metrics      []string `json:"metrics"`
	Threshold    float64  `json:"threshold"`
	FamilyLevel  float64  `json:"family_wise_level"`
	Correction   string   `json:"correction"`
	Permutations int      `json:"permutations"`
	SeriesJudged int      `json:"series_judged"`
	SeriesShort  int      `json:"series_too_short"`
	// Window is --gate-window (0: every experiment), Experiments the
	// history's length; Acknowledgements the --acknowledged file.
	Window           int    `json:"window"`
	Experiments      int    `json:"experiments"`
	Acknowledgements string `json:"acknowledgements,omitempty"`
	// Rule is the sentence saying how the gate decides (GateResult.Rules).
	Rule string `json:"rule"`
	// Candidates are the judged series with a tested shift (a change
	// point in the window, not acknowledged, after which the level is
	// slower than before by more than the threshold, --min-change; or the
	// window's trend), each named by its shift of the smallest p/weight.
	Candidates []JSONGateSeries `json:"candidates"`
	// Changes are the judged series with a change point (or tested
	// trend) that decided them, and the rule that decided each.
	Changes []JSONGateChange `json:"newest_changes"`
}

// JSONGateChange is the change point (or trend) that decided a judged
// series and what the gate made of it.
type JSONGateChange struct {
	JSONSeriesShift
	// Rule is what decided the series (GateSeries.Rule).
	Rule string `json:"rule"`
	// Acknowledged is the file:line of the acknowledgement covering it,
	// Note its note.
	Acknowledged string `json:"acknowledged,omitempty"`
	Note         string `json:"note,omitempty"`
	// Autocorrelation is the lag-1 autocorrelation the series was
	// pre-whitened with.
	Autocorrelation float64 `json:"autocorrelation"`
}

// JSONSeriesShift names a judged series and the experiment (with its
// commit) where the shift that decided it begins, and the shift's ratio.
type JSONSeriesShift struct {
	SubExperiment string   `json:"sub_experiment"`
	Payload       int      `json:"payload"`
	Metric        string   `json:"metric"`
	Experiment    string   `json:"experiment"`
	Commit        string   `json:"commit,omitempty"`
	Ratio         *float64 `json:"ratio"`
}

// JSONGateSeries is one candidate of the gate.
type JSONGateSeries struct {
	JSONSeriesShift
	P      float64 `json:"p_value"`
	Level  float64 `json:"holm_level"`
	Failed bool    `json:"failed"`
	// Rule is what decided it: significant slowdown or not significant.
	Rule string `json:"rule"`
}

// JSONDoc returns h's JSON document; g is nil without --gate.
func (h *History) JSONDoc(g *GateResult) JSON {
	doc := JSON{Warnings: append([]string{}, h.Warnings...), ChangePoints: []JSONChangePoint{}}
	for _, e := range h.Experiments {
		je := JSONExperiment{Name: e.Name, Version: e.Version, Commit: e.Commit}
		if !e.Start.IsZero() {
			je.Start = e.Start.UTC().Format(time.RFC3339)
		}
		doc.Experiments = append(doc.Experiments, je)
	}
	o := h.ChangeOptions
	doc.Method = JSONMethod{Name: "e-divisive means, permutation test of pre-whitened values", Significance: o.Alpha, Permutations: o.Permutations,
		MinSegment: o.MinSegment, Seed: o.Seed, Window: o.Window}
	if h.ChangeFrom < len(h.Experiments) {
		doc.Method.FirstExperiment = h.Experiments[h.ChangeFrom].Name
	}
	doc.Series, doc.ShortSeries = h.ChangeSummary()
	for _, c := range h.Changes() {
		e := h.Experiments[c.Index]
		doc.ChangePoints = append(doc.ChangePoints, JSONChangePoint{SubExperiment: c.Type, Payload: c.Payload, Metric: c.Magnitude,
			Experiment: e.Name, Version: e.Version, Commit: e.Commit, Index: c.Index, Before: c.Before, After: c.After,
			Ratio: finiteRatio(c.Ratio), Direction: c.Direction(), P: c.P, Order: c.Order})
	}
	if g != nil {
		jg := &JSONGate{Verdict: string(g.Verdict.Status), Metrics: g.Options.Metrics, Threshold: g.Options.MinChange, FamilyLevel: g.Alpha,
			Correction: "holm", Permutations: g.Permutations, SeriesJudged: len(g.Series), SeriesShort: g.Short,
			Window: g.Options.Window, Experiments: g.Experiments, Acknowledgements: g.Options.AcksFile, Rule: g.Rules(),
			Candidates: []JSONGateSeries{}, Changes: []JSONGateChange{}}
		for _, s := range g.Series {
			if s.Change == nil {
				continue
			}
			e := h.Experiments[s.Change.Index]
			shift := JSONSeriesShift{SubExperiment: s.Type, Payload: s.Payload, Metric: s.Magnitude, Experiment: e.Name, Commit: e.Commit,
				Ratio: finiteRatio(s.Change.Ratio)}
			jc := JSONGateChange{JSONSeriesShift: shift, Rule: s.Rule, Autocorrelation: s.Autocorrelation}
			if s.Ack != nil {
				jc.Acknowledged, jc.Note = s.Ack.Where(), s.Ack.Note
			}
			jg.Changes = append(jg.Changes, jc)
			if !s.Candidate {
				continue
			}
			jg.Candidates = append(jg.Candidates, JSONGateSeries{JSONSeriesShift: shift, P: s.P, Level: s.Level, Failed: s.Failed, Rule: s.Rule})
		}
		doc.Gate = jg
	}
	return doc
}

// finiteRatio is r, nil when it is infinite (JSON has no infinity).
func finiteRatio(r float64) *float64 {
	if math.IsInf(r, 0) {
		return nil
	}
	return &r
}

// WriteJSON writes doc, indented, to w.
func WriteJSON(w io.Writer, doc JSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteJSONFile writes doc atomically to path.
func WriteJSONFile(path string, doc JSON) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteJSON(w, doc) })
}
