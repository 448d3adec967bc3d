package requirements

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// DefaultThroughputFileName is the throughput requirements CSV requirements
// writes beside the latency one (formats §4). Its name does not start with
// "throughput_", which names the throughput summaries of an experiment.
const DefaultThroughputFileName = "min_throughput_requirements.csv"

// ThroughputColumns are the columns of a throughput requirements CSV in
// percentile mode; a statistical file adds ThroughputStatColumns.
var ThroughputColumns = []string{"Experiment type", "Bytes", "Load", "Offered", "Median [msg/s]"}

// ThroughputStatColumns follow ThroughputColumns in a statistical file.
var ThroughputStatColumns = []string{"Mode", "Runs", "False fail", "Check level",
	"Median [msg/s] method", "Median [msg/s] log sd", "Median [msg/s] normality p"}

// KeyedRow is one row of a latency, a throughput or a burst requirements
// file: for the row with key Key of sub-experiment Type's results, the
// limit of each metric, by name; the metric's direction says whether it is
// an upper or a lower limit. A latency row limits the Median, 99% and Max
// (result.RequirementMetrics), a throughput row the Median [msg/s]
// (result.MessageRate), a burst row the lost samples and the subscription
// throughput (formats §4, §9).
type KeyedRow struct {
	Type   string
	Key    result.Key
	Limits map[string]float64
	// Latency is, for a latency row, the latency definition
	// (meta.LatencyHalfRTT, ...) its limits measure; "" means half-rtt.
	Latency string
	// Stat is the model of a statistical requirement (written by
	// requirements --false-fail, formats §11); nil in percentile mode. A
	// latency row has one fit per result.RequirementMetrics. A throughput
	// row's Fits[0] is the fit of the run values' reciprocals (s/msg), a
	// lower-is-better quantity, so that every rule of formats §11 applies
	// as it does to latency; LogSD and the Shapiro–Wilk p-value are those
	// of the log run values themselves (a sign does not change them).
	Stat *Model
}

// Limit returns the limit of r on metric m; its fit is m's in a latency
// row, the only one otherwise.
func (r KeyedRow) Limit(m result.Metric) Limit {
	return Limit{Metric: m, Value: r.Limits[m.Name], Stat: r.Stat, Fit: max(slices.Index(result.RequirementMetrics, m), 0)}
}

// throughputRow is the throughput requirement of at least limit msg/s.
func throughputRow(typ string, k result.Key, limit float64, st *Model) KeyedRow {
	return KeyedRow{Type: typ, Key: k, Limits: map[string]float64{result.MessageRate.Name: limit}, Stat: st}
}

// ThroughputObservation is one run's Median [msg/s] at one row.
type ThroughputObservation struct {
	Experiment string
	Type       string
	Key        result.Key
	Median     float64
}

// ThroughputObservations returns the Median [msg/s] of every throughput row
// of every experiment.
func (in *Input) ThroughputObservations() []ThroughputObservation {
	var obs []ThroughputObservation
	for _, e := range in.Experiments {
		for _, t := range e.Throughputs {
			for _, r := range t.Rows {
				obs = append(obs, ThroughputObservation{Experiment: e.Name, Type: t.Type, Key: r.Key(), Median: r.Median})
			}
		}
	}
	return obs
}

// ThroughputRequirement is a derived throughput row and the evidence
// behind it.
type ThroughputRequirement struct {
	KeyedRow
	N int
	// FailChance is, in percentile mode, the chance that a new run of an
	// unchanged system falls below the limit (see Derivation, mirrored):
	// the low percentile q = 100 − P sits at rank r = 1 + (N−1)·q/100, and a
	// new run falls below the r-th smallest with chance r/(N+1). In
	// statistical mode, the chance that one run fails the check.
	FailChance float64
	// NeedRuns is the candidate runs a statistical check needs before it
	// can fail at all (1 in percentile mode).
	NeedRuns int
}

type tputKey struct {
	typ string
	key result.Key
}

// groupThroughput groups observations by row, sorted by sub-experiment,
// payload, mode and offered rate.
func groupThroughput(obs []ThroughputObservation) (map[tputKey][]float64, []tputKey) {
	groups := map[tputKey][]float64{}
	var keys []tputKey
	for _, o := range obs {
		k := tputKey{o.Type, o.Key}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], o.Median)
	}
	slices.SortFunc(keys, func(a, b tputKey) int {
		return cmp.Or(strings.Compare(a.typ, b.typ), cmp.Compare(a.key.Payload, b.key.Payload),
			strings.Compare(b.key.Mode, a.key.Mode), // window first
			cmp.Compare(a.key.Offered, b.key.Offered))
	})
	return groups, keys
}

// deriveThroughput sets each throughput requirement to the (100 −
// percentile)-th percentile (numpy's linear method) of the runs' Median
// [msg/s]: the low end, mirroring the latency requirements' high one.
func deriveThroughput(obs []ThroughputObservation, percentile float64) ([]ThroughputRequirement, error) {
	if !(percentile > 0 && percentile <= 100) {
		return nil, fmt.Errorf("percentile %v is outside (0, 100]", percentile)
	}
	groups, keys := groupThroughput(obs)
	var reqs []ThroughputRequirement
	for _, k := range keys {
		v := slices.Sorted(slices.Values(groups[k]))
		n := len(v)
		rank := 1 + float64(n-1)*(100-percentile)/100
		reqs = append(reqs, ThroughputRequirement{KeyedRow: throughputRow(k.typ, k.key, stats.Percentile(v, 100-percentile), nil),
			N: n, FailChance: rank / float64(n+1), NeedRuns: 1})
	}
	return reqs, nil
}

// DeriveThroughputStatistical sets each throughput requirement so that an
// unchanged system fails the check with chance level (formats §11,
// mirrored for a lower limit): order, the smallest run value; lognormal,
// the one-sided lower prediction bound exp(ȳ − t·s·√(1 + 1/n)). Both are
// computed as the latency limits of the reciprocals. level is the check's
// share of cfg.FalseFail (see CheckLevelFor). Every row needs 2 runs.
func DeriveThroughputStatistical(obs []ThroughputObservation, cfg StatConfig, level float64) ([]ThroughputRequirement, []string, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	groups, keys := groupThroughput(obs)
	var reqs []ThroughputRequirement
	var few, fewRank, atRank, warnings []string
	for _, k := range keys {
		v := groups[k]
		n := len(v)
		name := result.ThroughputLabel(k.typ, k.key) + " " + strconv.Itoa(k.key.Payload) + " B"
		switch {
		case n < 2:
			few = append(few, name)
			continue
		case n < cfg.OrderRank:
			// The rank was not checked here: order:J of fewer runs was
			// written, its limit the best run, a file check refuses.
			fewRank = append(fewRank, name)
			continue
		case n == cfg.OrderRank:
			atRank = append(atRank, name)
			continue
		}
		limit, fit, why := fitLimit(reciprocals(v), cfg, level)
		if why != "" {
			warnings = append(warnings, fmt.Sprintf("%s %d B Median [msg/s] falls back to the distribution-free bound (%s)", result.ThroughputLabel(k.typ, k.key), k.key.Payload, why))
		}
		model := &Model{Method: cfg.Method, Runs: n, FalseFail: cfg.FalseFail, CheckLevel: level}
		model.Fits[0] = fit
		reqs = append(reqs, ThroughputRequirement{KeyedRow: throughputRow(k.typ, k.key, 1/limit, model),
			N: n, FailChance: fit.Chance(n, 1, level), NeedRuns: fit.RunsNeeded(n, level)})
	}
	switch {
	case len(few) > 0:
		return nil, nil, fmt.Errorf("statistical requirements need at least 2 runs per throughput row; %s %s only one (take more runs, or use --percentile)",
			listSome(few), map[bool]string{true: "has", false: "have"}[len(few) == 1])
	case len(fewRank) > 0:
		return nil, nil, fmt.Errorf("distribution-free limits at the %d-th largest run need at least %d runs per throughput row; %s %s fewer",
			cfg.OrderRank, cfg.OrderRank, listSome(fewRank), map[bool]string{true: "has", false: "have"}[len(fewRank) == 1])
	case len(atRank) > 0:
		return nil, nil, rankOfAll(cfg.OrderRank, atRank)
	}
	return reqs, warnings, nil
}

// CheckLevelFor is each check's share of falseFail when a derivation makes
// latencyRows latency requirements (3 checks each) and throughputRows
// throughput ones (1 check each): Bonferroni over all of them, so that a
// check against both files fails an unchanged system with chance at most
// falseFail.
func CheckLevelFor(falseFail float64, latencyRows, throughputRows int) float64 {
	return falseFail / float64(checksPerRequirement*latencyRows+throughputRows)
}

// WriteThroughput writes rows as a throughput requirements CSV (formats
// §4, §11): limits with 3 decimals, the Offered column as the throughput
// CSV writes it (0 for window rows, whose F is not matched).
func WriteThroughput(w io.Writer, rows []KeyedRow) error {
	cw := csv.NewWriter(w)
	header := slices.Clone(ThroughputColumns)
	stat := Statistical(rows)
	if stat {
		header = append(header, ThroughputStatColumns...)
	}
	cw.Write(header)
	for _, r := range rows {
		rec := []string{r.Type, strconv.Itoa(r.Key.Payload), r.Key.Mode, result.FormatOffered(r.Key.Offered), f3(r.Limits[result.MessageRate.Name])}
		if stat {
			// A latency model's columns with the one fit.
			rec = append(rec, formatModel(r.Stat)[:len(ThroughputStatColumns)]...)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// ReadThroughputFile reads a throughput requirements CSV.
func ReadThroughputFile(path string) ([]KeyedRow, error) {
	f, err := fileerr.OpenRegular(path, "a throughput requirements CSV")
	if err != nil {
		return nil, fileerr.Unreadable(path, "the throughput requirements", err)
	}
	defer f.Close()
	return readThroughput(f, path)
}

// readThroughput reads a throughput requirements CSV; errors name file,
// line and column and say what was expected.
func readThroughput(r io.Reader, file string) ([]KeyedRow, error) {
	cr := csvfile.NewReader(r)
	statHeader := slices.Concat(ThroughputColumns, ThroughputStatColumns)
	header, err := csvfile.ReadHeaderOf(cr, file, fmt.Sprintf("%q or, statistical, %q", strings.Join(ThroughputColumns, ","),
		strings.Join(statHeader, ",")), ThroughputColumns, statHeader)
	if err != nil {
		return nil, err
	}
	stat := len(header) == len(statHeader)
	seen := map[tputKey]bool{}
	var first *Model // the first row's, in a statistical file
	rows, err := csvfile.ReadRecords(cr, file, header, "%d columns, expected %d (%s)", func(rec []string, line int) (KeyedRow, error) {
		row, err := parseThroughputRow(rec, header, file, line)
		if err != nil {
			return row, err
		}
		if stat {
			// The model columns are a latency file's with one fit: its
			// parser reads them with that fit given for all three columns.
			m, err := parseModel(append(slices.Concat(rec[5:], rec[9:12]), rec[9:12]...), file, line)
			if err != nil {
				return row, err
			}
			if first != nil && (m.Method != first.Method || m.FalseFail != first.FalseFail || m.CheckLevel != first.CheckLevel) {
				return row, fileerr.New(file, line, "Mode", "the mode and levels differ from line 2: one file holds one derivation")
			}
			first = cmp.Or(first, m)
			row.Stat = m
		}
		k := tputKey{row.Type, row.Key}
		if seen[k] {
			return row, fileerr.New(file, line, "", "%s %s repeats an earlier row: expected one row per sub-experiment, payload and offered load", row.Type, row.Key)
		}
		seen[k] = true
		return row, nil
	})
	if err == nil && len(rows) == 0 {
		return nil, fileerr.New(file, 2, "", "no requirements: expected one row per sub-experiment, payload and offered load")
	}
	return rows, err
}

// parseThroughputRow parses the key and limit of record rec, at line of
// file.
func parseThroughputRow(rec, header []string, file string, line int) (KeyedRow, error) {
	var err error
	row := KeyedRow{Limits: map[string]float64{}}
	if err := experiment.ValidateType(rec[0]); err != nil {
		return row, fileerr.New(file, line, header[0], "%v", err)
	}
	row.Type = rec[0]
	if row.Key.Payload, err = strconv.Atoi(rec[1]); err != nil || row.Key.Payload < 1 {
		return row, fileerr.New(file, line, header[1], "%q is not a positive byte count", rec[1])
	}
	if rec[2] != result.ModeWindow && rec[2] != result.ModeRate {
		return row, fileerr.New(file, line, header[2], "%q: expected %s or %s", rec[2], result.ModeWindow, result.ModeRate)
	}
	row.Key.Mode = rec[2]
	if row.Key.Offered, err = strconv.ParseFloat(rec[3], 64); err != nil || !(row.Key.Offered >= 0) || math.IsInf(row.Key.Offered, 0) {
		return row, fileerr.New(file, line, header[3], "%q is not an offered rate ≥ 0 in msg/s", rec[3])
	}
	if row.Key.Mode == result.ModeWindow {
		row.Key.Offered = 0
	}
	v, err := strconv.ParseFloat(rec[4], 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return row, fileerr.New(file, line, header[4], "%q is not a throughput > 0 in msg/s", rec[4])
	}
	row.Limits[result.MessageRate.Name] = v
	return row, nil
}
