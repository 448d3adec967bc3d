package result

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// BurstHeader is the header of the burst measurements CSV and of its
// summary (formats §9), the Fast-RTPS throughput pipeline's, byte for byte.
const BurstHeader = "Payload [Bytes],Demand [sample/burst],Recovery time [ms],Sent [samples],Publication time [us]," +
	"Publication sample rate [Sample/s],Publication throughput [Mb/s],Received [samples],Lost [samples]," +
	"Subscription time [us],Subscription sample rate [Sample/s],Subscription throughput [Mb/s]"

// Column names of the burst files that requirements and checks name.
const (
	BurstLost       = "Lost [samples]"                 // lower is better
	BurstThroughput = "Subscription throughput [Mb/s]" // higher is better
)

// BurstRow is one line of a burst measurements CSV: one payload, demand
// and recovery time. Rates are samples per second and throughputs 10^6
// bit/s (bits per microsecond) of payload, over each side's time.
type BurstRow struct {
	Payload, Demand, RecoveryMs int
	Sent                        int
	PubTimeUs, PubRate, PubMbps float64
	Received, Lost              int
	SubTimeUs, SubRate, SubMbps float64
}

// NewBurstRow fills the derived columns of a measurement: the lost
// samples, and each side's rate and throughput over its time (0 over no
// time).
func NewBurstRow(payload, demand, recoveryMs, sent int, pubTimeUs float64, received int, subTimeUs float64) BurstRow {
	rate := func(n int, us float64) (float64, float64) {
		if us <= 0 {
			return 0, 0
		}
		return float64(n) / us * 1e6, float64(n) * float64(payload) * 8 / us
	}
	r := BurstRow{Payload: payload, Demand: demand, RecoveryMs: recoveryMs, Sent: sent, PubTimeUs: pubTimeUs,
		Received: received, Lost: max(sent-received, 0), SubTimeUs: subTimeUs}
	r.PubRate, r.PubMbps = rate(sent, pubTimeUs)
	r.SubRate, r.SubMbps = rate(received, subTimeUs)
	return r
}

// Record returns r's fields in BurstHeader order: counts as integers,
// every other value with 3 decimals.
func (r BurstRow) Record() []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	i := strconv.Itoa
	return []string{i(r.Payload), i(r.Demand), i(r.RecoveryMs), i(r.Sent), f(r.PubTimeUs), f(r.PubRate), f(r.PubMbps),
		i(r.Received), i(r.Lost), f(r.SubTimeUs), f(r.SubRate), f(r.SubMbps)}
}

// WriteBurst writes rows under BurstHeader.
func WriteBurst(w io.Writer, rows []BurstRow) error {
	return writeRows(w, BurstHeader, rows)
}

// WriteBurstFile writes rows to path atomically.
func WriteBurstFile(path string, rows []BurstRow) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteBurst(w, rows) })
}

// ReadBurst reads a burst measurements CSV or summary; errors name file,
// line and column. Counts are non-negative integers (a float written by
// pandas, "16.0", is read too), every other field a finite number ≥ 0;
// Received is at most Sent and Lost at most Sent − Received.
func ReadBurst(r io.Reader, file string) ([]BurstRow, error) {
	cols := strings.Split(BurstHeader, ",")
	return csvfile.ReadRows(r, file, cols, "%d columns, expected %d (%s)", func(rec []string, line int) (BurstRow, error) {
		var v [12]float64
		for i, s := range rec {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return BurstRow{}, fileerr.New(file, line, cols[i], "%q is not a finite number ≥ 0", s)
			}
			if isCount := i <= 3 || i == 7 || i == 8; isCount && (x != math.Trunc(x) || x > math.MaxInt32) {
				return BurstRow{}, fileerr.New(file, line, cols[i], "%q is not a count", s)
			}
			v[i] = x
		}
		if v[0] < 1 {
			return BurstRow{}, fileerr.New(file, line, cols[0], "%q is not a positive byte count", rec[0])
		}
		if err := checkBurstCounts(file, line, int(v[3]), int(v[7]), int(v[8])); err != nil {
			return BurstRow{}, err
		}
		return BurstRow{Payload: int(v[0]), Demand: int(v[1]), RecoveryMs: int(v[2]), Sent: int(v[3]),
			PubTimeUs: v[4], PubRate: v[5], PubMbps: v[6], Received: int(v[7]), Lost: int(v[8]),
			SubTimeUs: v[9], SubRate: v[10], SubMbps: v[11]}, nil
	})
}

// checkBurstCounts refuses a row whose counts no writer produces: more
// received than sent, or more lost than sent − received. Fewer lost is read:
// Fast-DDS ThroughputTest before eProsima/Fast-DDS#3309 (2023), whose header
// is BurstHeader, wrote the sequence gaps before the last arrival as Lost and
// the last sequence number less them as Received, so messages lost after the
// last arrival are in neither column; run burst and later ThroughputTest
// write Lost = Sent − Received exactly.
func checkBurstCounts(file string, line, sent, received, lost int) error {
	if received > sent {
		return fileerr.New(file, line, "", "received %d is more than sent %d", received, sent)
	}
	if lost > sent-received {
		return fileerr.New(file, line, "", "lost %d is more than sent %d − received %d = %d", lost, sent, received, sent-received)
	}
	return nil
}

// BurstSummary returns, per payload in order of first appearance, the rows
// of greatest subscription throughput, compared as written (3 decimals):
// a tie keeps every tied row, in file order, as the Fast-RTPS script does.
func BurstSummary(rows []BurstRow) []BurstRow {
	written := func(v float64) float64 { x, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 3, 64), 64); return x }
	best := map[int]float64{}
	var payloads []int
	for _, r := range rows {
		b, seen := best[r.Payload]
		if !seen {
			payloads = append(payloads, r.Payload)
		}
		if v := written(r.SubMbps); !seen || v > b {
			best[r.Payload] = v
		}
	}
	var out []BurstRow
	for _, p := range payloads {
		for _, r := range rows {
			if r.Payload == p && written(r.SubMbps) == best[p] {
				out = append(out, r)
			}
		}
	}
	return out
}

// The metrics of burst requirements and checks (formats §9).
var (
	BurstLostMetric       = Metric{BurstLost, "samples", LowerIsBetter}
	BurstThroughputMetric = Metric{BurstThroughput, UnitMegabitsPerS, HigherIsBetter}
)

// Value returns the lost samples (BurstLostMetric) or the subscription
// throughput (BurstThroughputMetric) of r.
func (r BurstRow) Value(m Metric) (float64, bool) {
	switch m {
	case BurstLostMetric:
		return float64(r.Lost), true
	case BurstThroughputMetric:
		return r.SubMbps, true
	}
	return 0, false
}
