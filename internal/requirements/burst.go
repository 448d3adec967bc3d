package requirements

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// BurstColumns are the columns of a burst requirements CSV, the Fast-RTPS
// throughput pipeline's (formats §9).
var BurstColumns = []string{"Experiment type", "Payload [Bytes]", result.BurstLost, result.BurstThroughput}

// BurstPercentile is how far toward the worse runs each burst requirement
// is set: the lost samples (at most) at this percentile of the runs, the
// subscription throughput (at least) at 100 − it, the 1st, as the
// throughput requirements (deriveThroughput). The Fast-RTPS script sets
// both at the 99th, a lower limit on throughput that about 99 % of an
// unchanged system's runs fall below.
const BurstPercentile = 99

// BurstMetrics are what a burst requirement limits, in the order of its
// columns: at most the lost samples, at least the subscription throughput.
var BurstMetrics = []result.Metric{result.BurstLostMetric, result.BurstThroughputMetric}

// IsBurstFile reports whether the file at path starts with the burst
// requirements header: check takes such a --requirements file as burst
// requirements, as the Fast-RTPS throughput check script does.
func IsBurstFile(path string) bool {
	f, err := fileerr.OpenRegular(path, "a requirements file")
	if err != nil {
		return false // the requirements reader says why
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimPrefix(strings.TrimRight(line, "\r\n"), "\ufeff") == strings.Join(BurstColumns, ",")
}

// ReadBurstFile reads a burst requirements CSV; errors name file, line and
// column.
func ReadBurstFile(path string) ([]KeyedRow, error) {
	f, err := fileerr.OpenRegular(path, "a requirements file")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := csvfile.ReadRows(f, path, BurstColumns, "%d columns, expected %d (%s)", func(rec []string, line int) (KeyedRow, error) {
		p, err := strconv.ParseFloat(rec[1], 64)
		if err != nil || p < 1 || p != math.Trunc(p) || p > math.MaxInt32 {
			return KeyedRow{}, fileerr.New(path, line, BurstColumns[1], "%q is not a positive byte count", rec[1])
		}
		r := KeyedRow{Type: rec[0], Key: result.Key{Payload: int(p)}, Limits: map[string]float64{}}
		for i, m := range BurstMetrics {
			v, err := strconv.ParseFloat(rec[2+i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return r, fileerr.New(path, line, BurstColumns[2+i], "%q is not a finite number ≥ 0", rec[2+i])
			}
			r.Limits[m.Name] = v
		}
		return r, nil
	})
	if err == nil && len(out) == 0 {
		return nil, fileerr.New(path, 0, "", "no requirement after the header")
	}
	return out, err
}

// WriteBurst writes rows under BurstColumns, values with 3 decimals.
func WriteBurst(w io.Writer, rows []KeyedRow) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(BurstColumns, ",") + "\n")
	for _, r := range rows {
		bw.WriteString(r.Type + "," + strconv.Itoa(r.Key.Payload))
		for _, m := range BurstMetrics {
			bw.WriteString("," + f3(r.Limits[m.Name]))
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// BurstSummary is one experiment's burst summary of one sub-experiment.
type BurstSummary struct {
	Type string
	Rows []result.BurstRow
}

// DeriveBurst sets, per sub-experiment (in order of first appearance) and
// payload, the lost samples at the BurstPercentile-th percentile (numpy's)
// of the runs' values and the subscription throughput at the
// (100 − BurstPercentile)-th: each limit on the worse side of the runs.
func DeriveBurst(runs []BurstSummary) []KeyedRow {
	var keys []groupKey
	lost, mbps := map[groupKey][]float64{}, map[groupKey][]float64{}
	for _, s := range runs {
		for _, r := range s.Rows {
			k := groupKey{s.Type, r.Payload}
			if _, seen := lost[k]; !seen {
				keys = append(keys, k)
			}
			lost[k] = append(lost[k], float64(r.Lost))
			mbps[k] = append(mbps[k], r.SubMbps)
		}
	}
	// Sub-experiments stay together, in order of first appearance.
	var types []string
	for _, k := range keys {
		if !slices.Contains(types, k.typ) {
			types = append(types, k.typ)
		}
	}
	slices.SortStableFunc(keys, func(a, b groupKey) int { return slices.Index(types, a.typ) - slices.Index(types, b.typ) })
	var out []KeyedRow
	for _, k := range keys {
		out = append(out, KeyedRow{Type: k.typ, Key: result.Key{Payload: k.bytes}, Limits: map[string]float64{
			result.BurstLost: stats.PercentileOf(lost[k], BurstPercentile), result.BurstThroughput: stats.PercentileOf(mbps[k], 100-BurstPercentile)}})
	}
	return out
}

// ReadBurstSummary reads one burst summary file.
func ReadBurstSummary(typ, path string) (BurstSummary, error) {
	f, err := fileerr.OpenRegular(path, "a burst summary")
	if err != nil {
		return BurstSummary{}, err
	}
	defer f.Close()
	rows, err := result.ReadBurst(f, path)
	return BurstSummary{Type: typ, Rows: rows}, err
}
