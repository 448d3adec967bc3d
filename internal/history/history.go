package history

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// Magnitudes are the summary columns drawn in the magnitude history plots,
// in plot order, by their summary header names.
var Magnitudes = []string{"Min", "Median", "Max", "99%"}

// Checks are the summary columns that have a requirement (formats §4), drawn in
// the payload history plots.
var Checks = []string{"Median", "99%", "Max"}

// ThroughputMagnitudes are what a throughput series holds: the Median
// [msg/s] of each experiment's throughput row, named as the gate metric
// (result.MessageRate), higher is better (formats §7).
var ThroughputMagnitudes = []string{result.MessageRate.Name}

// BurstMagnitudes are what a burst series holds, the burst summary columns
// the Fast-RTPS throughput history plots, in its order: lost samples (lower
// is better) and subscription throughput (higher is better).
var BurstMagnitudes = []string{result.BurstLost, result.BurstThroughput}

// metricOf is the metric of magnitude mag, burst columns included.
func metricOf(mag string) result.Metric {
	m, _ := result.Lookup(mag)
	return m
}

// worseThan reports whether v is worse than the requirement req for magnitude
// mag: above it, or below it when higher is better; false for a gap.
func worseThan(mag string, v, req float64) bool {
	if metricOf(mag).Better == result.HigherIsBetter {
		return v < req
	}
	return v > req
}

// worseWord says where a value worse than its requirement lies: over it,
// or below it for a metric whose higher values are better (throughput).
func worseWord(magnitude string) string {
	if metricOf(magnitude).Better == result.HigherIsBetter {
		return "below"
	}
	return "over"
}

// History is every experiment's summaries, arranged for plotting.
type History struct {
	// Experiments in chronological order; every series has one value per
	// experiment, in this order.
	Experiments []*experiment.Experiment
	// Latency is the latency definition the experiments share (formats §2).
	Latency string
	// SubExperiments sorted by type.
	SubExperiments []*SubExperiment
	// Warnings are about gaps and missing requirements: worth reading, not
	// worth failing for.
	Warnings []string
	// ChangeOptions and ChangeFrom (the first experiment analysed) are
	// those of DetectChanges.
	ChangeOptions   ChangeOptions
	ChangeFrom      int
	changesDetected bool
}

// SubExperiment is the history of one sub-experiment type.
type SubExperiment struct {
	// Type is the sub-experiment; for a throughput series
	// "throughput_<type>_<load>" (result.ThroughputSeriesName), one per
	// offered load.
	Type string
	// Throughput marks a throughput series: its magnitudes are
	// ThroughputMagnitudes, in msg/s, higher is better.
	Throughput bool
	// Burst marks a burst series (formats §9): Type is the sub-experiment
	// of burst_<type>_summary.csv, its magnitudes BurstMagnitudes.
	Burst bool
	// Payloads in bytes, ascending: every payload any experiment measured.
	Payloads []int
	// Values[m][p][e] is magnitude Mags()[m] of payload Payloads[p] in
	// experiment e; NaN when the experiment lacks it.
	Values [][][]float64
	// Requirements[c][p] is the requirement of check ChecksOf()[c] for payload
	// Payloads[p]; NaN when there is none.
	Requirements [][]float64
	// Changes[m][p] are the change points of Values[m][p], once
	// History.DetectChanges ran; nil before.
	Changes [][]SeriesChanges
}

// Series returns the values of magnitude (a Magnitudes entry) for payload
// index p, one per experiment, or nil for an unknown magnitude.
func (s *SubExperiment) Series(magnitude string, p int) []float64 {
	m := indexOf(s.Mags(), magnitude)
	if m < 0 {
		return nil
	}
	return s.Values[m][p]
}

// Requirement returns the requirement of check (a Checks entry) for payload
// index p, NaN when there is none.
func (s *SubExperiment) Requirement(check string, p int) float64 {
	c := indexOf(s.ChecksOf(), check)
	if c < 0 {
		return math.NaN()
	}
	return s.Requirements[c][p]
}

// Mags are the magnitudes of s: Magnitudes, or ThroughputMagnitudes.
func (s *SubExperiment) Mags() []string {
	switch {
	case s.Throughput:
		return ThroughputMagnitudes
	case s.Burst:
		return BurstMagnitudes
	}
	return Magnitudes
}

// ChecksOf are the magnitudes of s drawn in its payload history plots:
// Checks, or ThroughputMagnitudes.
func (s *SubExperiment) ChecksOf() []string {
	if s.Throughput || s.Burst {
		return s.Mags()
	}
	return Checks
}

// Unit is the unit of s's values.
func (s *SubExperiment) Unit() string {
	if s.Throughput {
		return "msg/s"
	}
	return "us"
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Load reads the experiments under root (experiment.LoadRoot), admits them
// together (experiment.Admit: an incomplete run is an error unless
// allowIncomplete, and so are experiments with different latency
// definitions), orders them chronologically (experiment.SortChronological)
// and builds their History against reqs. It fails on a missing or empty
// root and on an unreadable, malformed or stale summary, naming the file.
func Load(ctx context.Context, root string, reqs []requirements.KeyedRow, allowIncomplete bool) (*History, error) {
	exps, warnings, err := experiment.LoadRoot(ctx, root)
	if err != nil {
		return nil, err
	}
	for _, e := range exps {
		warnings = append(warnings, e.Warnings...)
	}
	latency, admitted, err := experiment.Admit(exps, allowIncomplete)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, admitted...)
	experiment.SortChronological(exps)
	var undated []string
	for _, e := range exps {
		if e.Start.IsZero() {
			undated = append(undated, e.Name)
		}
	}
	if len(undated) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d experiment(s) have no start time (no %s, folder name not %s): ordered by name after the dated ones: %s",
			len(undated), meta.FileName, "YYYY-MM-DD_HH-MM-SS", list(undated, 5)))
	}
	h := Build(exps, reqs)
	h.Latency = latency
	h.Warnings = append(warnings, h.Warnings...)
	return h, nil
}

// Build arranges the summaries of exps, in their order, into a History,
// with reqs as requirements. Gaps (an experiment without a sub-experiment or
// payload the others have) and missing requirements become warnings.
func Build(exps []*experiment.Experiment, reqs []requirements.KeyedRow) *History {
	h := &History{Experiments: exps, Latency: meta.LatencyHalfRTT}
	n := len(exps)
	sums := make([]map[string][]result.SummaryRow, n)
	for e, x := range exps {
		sums[e] = make(map[string][]result.SummaryRow, len(x.Summaries))
		for _, s := range x.Summaries {
			sums[e][s.Type] = s.Rows
		}
	}

	// Payloads of each type, over all experiments.
	payloads := map[string]map[int]bool{}
	for _, m := range sums {
		for typ, rows := range m {
			if payloads[typ] == nil {
				payloads[typ] = map[int]bool{}
			}
			for _, r := range rows {
				payloads[typ][r.Bytes] = true
			}
		}
	}
	types := make([]string, 0, len(payloads))
	for typ := range payloads {
		types = append(types, typ)
	}
	sort.Strings(types)

	reqOf := map[string]map[int]requirements.KeyedRow{}
	for _, r := range reqs {
		if reqOf[r.Type] == nil {
			reqOf[r.Type] = map[int]requirements.KeyedRow{}
		}
		reqOf[r.Type][r.Key.Payload] = r
	}

	// Sub-experiments missing in the same experiments share one warning: an
	// old experiment that ran one sub-experiment of ten is one line, not nine.
	missingTypes := map[string][]string{}
	var missingOrder []string
	var typeWarnings []string

	for _, typ := range types {
		s := &SubExperiment{Type: typ}
		for b := range payloads[typ] {
			s.Payloads = append(s.Payloads, b)
		}
		sort.Ints(s.Payloads)
		pIndex := make(map[int]int, len(s.Payloads))
		for i, b := range s.Payloads {
			pIndex[b] = i
		}
		s.Values = make([][][]float64, len(Magnitudes))
		for m := range s.Values {
			s.Values[m] = make([][]float64, len(s.Payloads))
			for p := range s.Values[m] {
				s.Values[m][p] = nanSlice(n)
			}
		}

		var missingType []string
		missingPayload := map[int][]string{}
		for e, m := range sums {
			rows, ok := m[typ]
			if !ok {
				missingType = append(missingType, exps[e].Name)
				continue
			}
			seen := make([]bool, len(s.Payloads))
			for _, r := range rows {
				p := pIndex[r.Bytes]
				seen[p] = true
				for mi, col := range Magnitudes {
					if v, ok := r.Get(col); ok {
						s.Values[mi][p][e] = v
					}
				}
			}
			for p, ok := range seen {
				if !ok {
					missingPayload[s.Payloads[p]] = append(missingPayload[s.Payloads[p]], exps[e].Name)
				}
			}
		}
		if len(missingType) > 0 {
			k := strings.Join(missingType, "\x00")
			if _, ok := missingTypes[k]; !ok {
				missingOrder = append(missingOrder, k)
			}
			missingTypes[k] = append(missingTypes[k], typ)
		}
		for _, b := range s.Payloads {
			if names := missingPayload[b]; len(names) > 0 {
				typeWarnings = append(typeWarnings, fmt.Sprintf("%s: payload %d bytes missing in %d of %d experiment(s), drawn as gaps: %s",
					typ, b, len(names), n, list(names, 5)))
			}
		}

		s.Requirements = make([][]float64, len(Checks))
		for c := range s.Requirements {
			s.Requirements[c] = nanSlice(len(s.Payloads))
		}
		var noReq []string
		for p, b := range s.Payloads {
			r, ok := reqOf[typ][b]
			if !ok {
				noReq = append(noReq, strconv.Itoa(b))
				continue
			}
			for c, m := range result.RequirementMetrics {
				s.Requirements[c][p] = r.Limits[m.Name]
			}
		}
		switch {
		case len(noReq) == len(s.Payloads):
			typeWarnings = append(typeWarnings, fmt.Sprintf("%s: no requirements: payload plots drawn without a requirement line", typ))
		case len(noReq) > 0:
			typeWarnings = append(typeWarnings, fmt.Sprintf("%s: no requirements for payload(s) %s bytes: drawn without a requirement line",
				typ, list(noReq, 10)))
		}
		h.SubExperiments = append(h.SubExperiments, s)
	}
	for _, k := range missingOrder {
		exps, types := strings.Split(k, "\x00"), missingTypes[k]
		h.Warnings = append(h.Warnings, fmt.Sprintf("%s: missing in %d of %d experiment(s), drawn as gaps: %s",
			list(types, 10), len(exps), n, list(exps, 5)))
	}
	h.Warnings = append(h.Warnings, typeWarnings...)
	h.addThroughput()
	h.addBursts()
	return h
}

// addThroughput adds a throughput series per sub-experiment and offered
// load of the experiments' throughput summaries (formats §9), the Median
// [msg/s] of each payload; rows match on (type, payload, mode, offered
// rate), a window row on (type, payload, mode), as in every gate.
func (h *History) addThroughput() {
	h.addSeries("", func(add func(SubExperiment, int, int, ...float64)) {
		for e, x := range h.Experiments {
			for _, t := range x.Throughputs {
				for _, r := range t.Rows {
					add(SubExperiment{Type: result.ThroughputSeriesName(t.Type, r.Key()), Throughput: true}, e, r.Payload, r.Median)
				}
			}
		}
	})
}

// addBursts adds a burst series per sub-experiment of the experiments'
// burst summaries (formats §9): per payload, the lost samples and
// subscription throughput of its first row (a summary keeps every row tied
// for the greatest throughput, in file order).
func (h *History) addBursts() {
	h.addSeries("burst ", func(add func(SubExperiment, int, int, ...float64)) {
		for e, x := range h.Experiments {
			for _, b := range x.Bursts {
				for _, r := range b.Rows {
					add(SubExperiment{Type: b.Type, Burst: true}, e, r.Payload, float64(r.Lost), r.SubMbps)
				}
			}
		}
	})
}

// addSeries adds the series rows gives, row by row: add(s, e, payload, v)
// says that experiment e measured v, a value per magnitude of series s
// (named by its Type), for payload; the first row of a payload in an
// experiment counts. Payloads an experiment lacks are gaps, each said in
// a warning, what naming the kind of payload.
func (h *History) addSeries(what string, rows func(add func(s SubExperiment, e, payload int, v ...float64))) {
	n := len(h.Experiments)
	byType := map[string]*SubExperiment{}
	var added []*SubExperiment
	values := map[*SubExperiment]map[int][][]float64{}
	rows(func(proto SubExperiment, e, payload int, v ...float64) {
		s := byType[proto.Type]
		if s == nil {
			s = &proto
			byType[s.Type], values[s] = s, map[int][][]float64{}
			added = append(added, s)
		}
		vs, ok := values[s][payload]
		if !ok {
			vs = make([][]float64, len(v))
			for m := range vs {
				vs[m] = nanSlice(n)
			}
			values[s][payload] = vs
			s.Payloads = append(s.Payloads, payload)
		}
		if math.IsNaN(vs[len(v)-1][e]) {
			for m, x := range v {
				vs[m][e] = x
			}
		}
	})
	for _, s := range added {
		sort.Ints(s.Payloads)
		mags := len(s.Mags())
		s.Values, s.Requirements = make([][][]float64, mags), make([][]float64, mags)
		for m := range s.Values {
			s.Values[m], s.Requirements[m] = make([][]float64, len(s.Payloads)), nanSlice(len(s.Payloads))
		}
		for p, b := range s.Payloads {
			v := values[s][b]
			for m := range v {
				s.Values[m][p] = v[m]
			}
			var missing []string
			for e, x := range v[mags-1] {
				if math.IsNaN(x) {
					missing = append(missing, h.Experiments[e].Name)
				}
			}
			if len(missing) > 0 {
				h.Warnings = append(h.Warnings, fmt.Sprintf("%s: %spayload %d bytes missing in %d of %d experiment(s), drawn as gaps: %s",
					s.Type, what, b, len(missing), n, list(missing, 5)))
			}
		}
		h.SubExperiments = append(h.SubExperiments, s)
	}
	sort.SliceStable(h.SubExperiments, func(i, j int) bool { return h.SubExperiments[i].Type < h.SubExperiments[j].Type })
}

// setBurstRequirements draws reqs (a burst requirements file, formats §9)
// as the requirement lines of the burst series.
func (h *History) setBurstRequirements(reqs []requirements.KeyedRow) {
	for _, s := range h.SubExperiments {
		if !s.Burst {
			continue
		}
		for _, r := range reqs {
			if p := indexOfInt(s.Payloads, r.Key.Payload); r.Type == s.Type && p >= 0 {
				for i, mag := range BurstMagnitudes {
					s.Requirements[i][p] = r.Limits[mag]
				}
			}
		}
	}
}

// list joins at most max names, saying how many more there are.
func list(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// hasLatency reports whether h holds a latency sub-experiment.
func (h *History) hasLatency() bool {
	for _, s := range h.SubExperiments {
		if !s.Throughput && !s.Burst {
			return true
		}
	}
	return false
}
