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

// ThroughputHeader is the throughput summary CSV's header (formats §9).
const ThroughputHeader = "Payload [Bytes],Mode,Offered,Samples,Median [msg/s],Mean [msg/s],Stdev [msg/s],Median [Mb/s],Mean [Mb/s],Stdev [Mb/s]"

// Modes of a row: how the load was offered.
const (
	ModeWindow = "window" // Offered is F, the messages kept in flight
	ModeRate   = "rate"   // Offered is the open-loop rate per publisher, msg/s (0: unpaced)
)

// ThroughputRow is one line of a throughput summary CSV. Higher is better
// for every throughput column (formats §7).
type ThroughputRow struct {
	Payload int
	Mode    string
	Offered float64
	Samples int
	Median  float64 // msg/s
	Mean    float64
	Stdev   float64
	// The Mb/s columns are derived: msg/s × payload × 8 / 10^6.
}

// Mbps converts msg/s of payload-byte messages into 10^6 bit/s.
func Mbps(msgs float64, payload int) float64 { return msgs * float64(payload) * 8 / 1e6 }

// WriteThroughput writes rows with 3 decimals (formats §3's convention).
func WriteThroughput(w io.Writer, rows []ThroughputRow) error {
	return writeRows(w, ThroughputHeader, rows)
}

// Record returns r's fields in ThroughputHeader order, as WriteThroughput
// writes them: msg/s and the Mb/s derived from them with 3 decimals.
func (r ThroughputRow) Record() []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	return []string{strconv.Itoa(r.Payload), r.Mode, FormatOffered(r.Offered), strconv.Itoa(r.Samples),
		f(r.Median), f(r.Mean), f(r.Stdev), f(Mbps(r.Median, r.Payload)), f(Mbps(r.Mean, r.Payload)), f(Mbps(r.Stdev, r.Payload))}
}

// WriteThroughputFile writes rows to path atomically.
func WriteThroughputFile(path string, rows []ThroughputRow) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteThroughput(w, rows) })
}

// ReadThroughput reads a throughput summary CSV; errors name file, line
// and column. The Mb/s columns must agree with the msg/s ones.
func ReadThroughput(r io.Reader, file string) ([]ThroughputRow, error) {
	cols := strings.Split(ThroughputHeader, ",")
	return csvfile.ReadRows(r, file, cols, "%d columns, expected %d (%s)", func(rec []string, line int) (ThroughputRow, error) {
		payload, err := strconv.Atoi(rec[0])
		if err != nil || payload < 1 {
			return ThroughputRow{}, fileerr.New(file, line, cols[0], "%q is not a positive byte count", rec[0])
		}
		if rec[1] != ModeWindow && rec[1] != ModeRate {
			return ThroughputRow{}, fileerr.New(file, line, cols[1], "%q: expected %s or %s", rec[1], ModeWindow, ModeRate)
		}
		row := ThroughputRow{Payload: payload, Mode: rec[1]}
		num := func(i int) (float64, error) {
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return 0, fileerr.New(file, line, cols[i], "%q is not a finite number ≥ 0", rec[i])
			}
			return v, nil
		}
		if row.Offered, err = num(2); err != nil {
			return ThroughputRow{}, err
		}
		if row.Samples, err = strconv.Atoi(rec[3]); err != nil || row.Samples < 0 {
			return ThroughputRow{}, fileerr.New(file, line, cols[3], "%q is not a count", rec[3])
		}
		var v [6]float64
		for i := range v {
			if v[i], err = num(4 + i); err != nil {
				return ThroughputRow{}, err
			}
		}
		row.Median, row.Mean, row.Stdev = v[0], v[1], v[2]
		for i := range 3 {
			want := Mbps(v[i], row.Payload)
			if math.Abs(v[3+i]-want) > 0.0005+Mbps(0.0005, row.Payload)+1e-9*want {
				return ThroughputRow{}, fileerr.New(file, line, cols[7+i], "%s disagrees with %s × %d B × 8 / 10^6 = %.3f",
					rec[7+i], cols[4+i], row.Payload, want)
			}
		}
		return row, nil
	})
}
