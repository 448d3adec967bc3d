package history

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/pairing"
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
	m := slices.Index(s.Mags(), magnitude)
	if m < 0 {
		return nil
	}
	return s.Values[m][p]
}

// Requirement returns the requirement of check (a Checks entry) for payload
// index p, NaN when there is none.
func (s *SubExperiment) Requirement(check string, p int) float64 {
	c := slices.Index(s.ChecksOf(), check)
	if c < 0 {
		return math.NaN()
	}
	return s.Requirements[c][p]
}

// seriesKind is what one kind of series holds and how its plots say it.
type seriesKind struct {
	mags   []string // its magnitudes
	checks []string // those drawn in its payload history plots
	word   string   // what its plots follow
	yLabel string   // their value axis; "" for the magnitude itself
}

// The kinds of series: latency, throughput and burst (a burst column is its
// own axis label, as in the Fast-RTPS plots).
var (
	latencySeries    = seriesKind{Magnitudes, Checks, "latency history", yLabel}
	throughputSeries = seriesKind{ThroughputMagnitudes, ThroughputMagnitudes, "throughput history (higher is better)", "Throughput [msg/s]"}
	burstSeries      = seriesKind{BurstMagnitudes, BurstMagnitudes, "burst history", ""}
)

func (s *SubExperiment) kind() seriesKind {
	switch {
	case s.Throughput:
		return throughputSeries
	case s.Burst:
		return burstSeries
	}
	return latencySeries
}

// Mags are the magnitudes of s: Magnitudes, ThroughputMagnitudes or
// BurstMagnitudes.
func (s *SubExperiment) Mags() []string { return s.kind().mags }

// ChecksOf are the magnitudes of s drawn in its payload history plots:
// Checks, or all its Mags.
func (s *SubExperiment) ChecksOf() []string { return s.kind().checks }

// Load reads the experiments under root (experiment.LoadRoot), keeps the
// sub-experiments subs alone when given, and their requirements alone (a
// name no experiment holds is a usage error naming those they hold),
// admits them together (experiment.Admit: an incomplete run is an error
// unless allowIncomplete, and so are experiments with different latency
// definitions), orders them chronologically (experiment.SortChronological)
// and builds their History against reqs. It fails on a missing or empty
// root and on an unreadable, malformed or stale summary, naming the file.
func Load(ctx context.Context, root string, reqs []requirements.KeyedRow, allowIncomplete bool, subs ...string) (*History, error) {
	exps, warnings, err := experiment.LoadRoot(ctx, root)
	if err != nil {
		return nil, err
	}
	if len(subs) > 0 {
		if exps, err = experiment.Select(exps, subs); err != nil {
			return nil, exit.Usagef("--subexperiments: %v", err)
		}
		reqs = selectedRows(reqs, subs)
	}
	for _, e := range exps {
		warnings = append(warnings, e.Warnings...)
	}
	latency, admitted, err := experiment.Admit(exps, allowIncomplete)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, admitted...)
	if err := copiedRun(exps); err != nil {
		return nil, err
	}
	experiment.SortChronological(exps)
	warnings = append(warnings, orderWarnings(exps, time.Now())...)
	h := Build(exps, reqs)
	h.Latency = latency
	h.Warnings = append(warnings, h.Warnings...)
	return h, nil
}

// selectedRows returns the requirement rows of the sub-experiments subs
// (every row when subs is empty).
func selectedRows(rows []requirements.KeyedRow, subs []string) []requirements.KeyedRow {
	if len(subs) == 0 || rows == nil {
		return rows
	}
	return slices.DeleteFunc(slices.Clone(rows), func(r requirements.KeyedRow) bool { return !slices.Contains(subs, r.Type) })
}

// copiedRun refuses two experiments that hold one run (pairing.SameRun: a
// folder copied, a CI artifact downloaded twice): drawn twice, its values
// counted twice in every change point's test.
func copiedRun(exps []*experiment.Experiment) error {
	byStart := map[time.Time][]*experiment.Experiment{}
	for _, e := range exps {
		if e.Meta == nil || e.Meta.Start.IsZero() {
			continue
		}
		start := e.Meta.Start.UTC()
		for _, prev := range byStart[start] {
			if pairing.SameRun(prev, e) {
				return fileerr.New(e.Dir, 0, "", "the same run as %s (the same meta.json: start %s, host %s and all), a copy counted twice in the history; keep one of them",
					prev.Dir, start.Format(time.RFC3339Nano), e.Meta.Host.Hostname)
			}
		}
		byStart[start] = append(byStart[start], e)
	}
	return nil
}

// futureSlack is how far after now an experiment may start before history
// warns: clocks of the hosts that measured differ by seconds, not hours.
const futureSlack = time.Hour

// orderWarnings warns of what the chronological order of exps (sorted)
// rests on that may be wrong: experiments without a start time, ordered by
// name after the dated ones, and experiments that start after now (a wrong
// clock, or a wrong 'process --start'), ordered as the newest, where every
// later experiment will come before them and the gate window judges them.
func orderWarnings(exps []*experiment.Experiment, now time.Time) []string {
	var undated, future []string
	for _, e := range exps {
		switch {
		case e.Start.IsZero():
			undated = append(undated, e.Name)
		case e.Start.After(now.Add(futureSlack)):
			future = append(future, fmt.Sprintf("%s (%s)", e.Name, e.Start.UTC().Format(time.RFC3339)))
		}
	}
	var warnings []string
	if len(undated) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d experiment(s) have no start time (no %s, folder name not %s): ordered by name after the dated ones: %s",
			len(undated), meta.FileName, "YYYY-MM-DD_HH-MM-SS", experiment.JoinNames(undated, 5)))
	}
	if len(future) > 0 {
		warnings = append(warnings, fmt.Sprintf("%d experiment(s) start in the future (after %s): ordered as the newest, so that every later experiment comes before them; check the clock of the host that ran them, or the --start given to process: %s",
			len(future), now.UTC().Format(time.RFC3339), experiment.JoinNames(future, 5)))
	}
	return warnings
}

// Build arranges the summaries of exps, in their order, into a History,
// with reqs as requirements. Gaps (an experiment without a sub-experiment or
// payload the others have) and missing requirements become warnings.
func Build(exps []*experiment.Experiment, reqs []requirements.KeyedRow) *History {
	h := &History{Experiments: exps, Latency: meta.LatencyHalfRTT}
	h.addLatency(reqs)
	h.addThroughput()
	h.addBursts()
	return h
}

// addLatency adds a latency series per sub-experiment of the experiments'
// summaries, the Magnitudes of each payload, with reqs as requirements;
// sub-experiments missing in the same experiments share one warning (an
// old experiment that ran one sub-experiment of ten is one line, not nine),
// and so do the payloads of one without a requirement.
func (h *History) addLatency(reqs []requirements.KeyedRow) {
	types := map[string]bool{}
	for _, x := range h.Experiments {
		for _, s := range x.Summaries {
			types[s.Type] = true
		}
	}
	h.addSeries(seriesSource{
		rows: func(add func(SubExperiment, int, int, ...float64)) {
			for _, typ := range slices.Sorted(maps.Keys(types)) {
				for e, x := range h.Experiments {
					if t := x.Summary(typ); t != nil {
						for _, r := range t.Rows {
							v := make([]float64, len(Magnitudes))
							for m, col := range Magnitudes {
								v[m], _ = r.Get(col)
							}
							add(SubExperiment{Type: typ}, e, r.Bytes, v...)
						}
					}
				}
			}
		},
		whole: true,
		done: func(s *SubExperiment) {
			noReq := s.setRequirements(reqs)
			switch {
			case len(noReq) == len(s.Payloads):
				h.Warnings = append(h.Warnings, fmt.Sprintf("%s: no requirements: payload plots drawn without a requirement line", s.Type))
			case len(noReq) > 0:
				h.Warnings = append(h.Warnings, fmt.Sprintf("%s: no requirements for payload(s) %s bytes: drawn without a requirement line",
					s.Type, experiment.JoinNames(noReq, 10)))
			}
		},
	})
}

// addThroughput adds a throughput series per sub-experiment and offered
// load of the experiments' throughput summaries (formats §9), the Median
// [msg/s] of each payload; rows match on (type, payload, mode, offered
// rate), a window row on (type, payload, mode), as in every gate.
func (h *History) addThroughput() {
	h.addSeries(seriesSource{rows: func(add func(SubExperiment, int, int, ...float64)) {
		for e, x := range h.Experiments {
			for _, t := range x.Throughputs {
				for _, r := range t.Rows {
					add(SubExperiment{Type: result.ThroughputSeriesName(t.Type, r.Key()), Throughput: true}, e, r.Payload, r.Median)
				}
			}
		}
	}})
}

// addBursts adds a burst series per sub-experiment of the experiments'
// burst summaries (formats §9): per payload, the lost samples and
// subscription throughput of its first row (a summary keeps every row tied
// for the greatest throughput, in file order).
func (h *History) addBursts() {
	h.addSeries(seriesSource{what: "burst ", rows: func(add func(SubExperiment, int, int, ...float64)) {
		for e, x := range h.Experiments {
			for _, b := range x.Bursts {
				for _, r := range b.Rows {
					add(SubExperiment{Type: b.Type, Burst: true}, e, r.Payload, float64(r.Lost), r.SubMbps)
				}
			}
		}
	}})
}

// seriesSource is one kind of series for addSeries.
type seriesSource struct {
	// rows gives the series row by row: add(s, e, payload, v) says that
	// experiment e measured v, a value per magnitude of series s (named by
	// its Type), for payload; the first row of a payload in an experiment
	// counts.
	rows func(add func(s SubExperiment, e, payload int, v ...float64))
	// what names the kind of payload in the warnings about gaps.
	what string
	// whole: an experiment without any row of a series is not a gap of
	// each payload; series missing in the same experiments share one
	// warning.
	whole bool
	// done, when set, is called with each series once its values are in,
	// after the warnings about its gaps.
	done func(s *SubExperiment)
}

// addSeries adds the series src gives. Payloads an experiment lacks are
// gaps, each said in a warning.
func (h *History) addSeries(src seriesSource) {
	n := len(h.Experiments)
	byType := map[string]*SubExperiment{}
	var added []*SubExperiment
	values := map[*SubExperiment]map[int][][]float64{}
	has := map[*SubExperiment][]bool{}
	src.rows(func(proto SubExperiment, e, payload int, v ...float64) {
		s := byType[proto.Type]
		if s == nil {
			s = &proto
			byType[s.Type], values[s], has[s] = s, map[int][][]float64{}, make([]bool, n)
			added = append(added, s)
		}
		has[s][e] = true
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
	if src.whole {
		h.warnMissing(added, has)
	}
	for _, s := range added {
		sort.Ints(s.Payloads)
		mags := len(s.Mags())
		s.Values, s.Requirements = make([][][]float64, mags), make([][]float64, len(s.ChecksOf()))
		for c := range s.Requirements {
			s.Requirements[c] = nanSlice(len(s.Payloads))
		}
		for _, b := range s.Payloads {
			v := values[s][b]
			for m := range v {
				s.Values[m] = append(s.Values[m], v[m])
			}
			var missing []string
			for e, x := range v[mags-1] {
				if math.IsNaN(x) && (has[s][e] || !src.whole) {
					missing = append(missing, h.Experiments[e].Name)
				}
			}
			if len(missing) > 0 {
				h.Warnings = append(h.Warnings, fmt.Sprintf("%s: %spayload %d bytes missing in %d of %d experiment(s), drawn as gaps: %s",
					s.Type, src.what, b, len(missing), n, experiment.JoinNames(missing, 5)))
			}
		}
		if src.done != nil {
			src.done(s)
		}
		h.SubExperiments = append(h.SubExperiments, s)
	}
	sort.SliceStable(h.SubExperiments, func(i, j int) bool { return h.SubExperiments[i].Type < h.SubExperiments[j].Type })
}

// warnMissing says in one warning per set of experiments which of series
// (in their order) are missing in them: has[s][e] says whether experiment
// e has series s.
func (h *History) warnMissing(series []*SubExperiment, has map[*SubExperiment][]bool) {
	byExps := map[string][]string{}
	var order []string
	for _, s := range series {
		var missing []string
		for e, ok := range has[s] {
			if !ok {
				missing = append(missing, h.Experiments[e].Name)
			}
		}
		if len(missing) == 0 {
			continue
		}
		k := strings.Join(missing, "\x00")
		if _, ok := byExps[k]; !ok {
			order = append(order, k)
		}
		byExps[k] = append(byExps[k], s.Type)
	}
	for _, k := range order {
		exps, types := strings.Split(k, "\x00"), byExps[k]
		h.Warnings = append(h.Warnings, fmt.Sprintf("%s: missing in %d of %d experiment(s), drawn as gaps: %s",
			experiment.JoinNames(types, 10), len(exps), len(h.Experiments), experiment.JoinNames(exps, 5)))
	}
}

// setRequirements draws reqs (matched on type and payload, the limits
// named as its ChecksOf) as the requirement lines of s, and returns its
// payloads without one.
func (s *SubExperiment) setRequirements(reqs []requirements.KeyedRow) (none []string) {
	for p, b := range s.Payloads {
		found := false
		for _, r := range reqs {
			if r.Type == s.Type && r.Key.Payload == b {
				for c, mag := range s.ChecksOf() {
					s.Requirements[c][p] = r.Limits[mag]
				}
				found = true
			}
		}
		if !found {
			none = append(none, strconv.Itoa(b))
		}
	}
	return none
}

func nanSlice(n int) []float64 { return slices.Repeat([]float64{math.NaN()}, n) }

// hasLatency reports whether h holds a latency sub-experiment.
func (h *History) hasLatency() bool {
	return slices.ContainsFunc(h.SubExperiments, func(s *SubExperiment) bool { return !s.Throughput && !s.Burst })
}
