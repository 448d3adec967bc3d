package throughput

import (
	"bufio"
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/mqgate/mqgate/internal/result"
)

// File names of the per-message method (formats §9).
func PerMessageFileName(typ string) string { return "permessage_" + typ + ".csv" }

// PerMessageCPUFileName is the CPU samples of typ.
func PerMessageCPUFileName(typ string) string { return "permessage_" + typ + "_cpu.csv" }

// PerMessageSummaryFileName is the aggregates of typ.
func PerMessageSummaryFileName(typ string) string { return "permessage_" + typ + "_summary.csv" }

// Headers of the per-message files.
var (
	PerMessageHeader = []string{"Payload [Bytes]", "n", "O [ns]", "I [ns]", "L [us]", "ST [msg/s]", "RT [msg/s]"}
	CPUHeader        = []string{"Payload [Bytes]", "n", "Sender CPU [ns/msg]", "Receiver CPU [ns/msg]", "Broker CPU [ns/msg]"}
	AggregateHeader  = []string{"Payload [Bytes]", "Quantity", "Count", "Mean", "Median", "Lower median", "Robust deviation", "Min", "Max", "Bimodality", "Multimodal"}
)

// Table is a CSV of a header, then rows whose cells are numbers, an empty
// cell for a missing value (NaN), except the text columns named in Text.
type Table struct {
	Header []string
	Rows   [][]string
}

// cell formats v: empty for NaN or a negative "not available", else up to
// 3 decimals.
func cell(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// optional is v, or NaN when v < 0 (not available).
func optional(v float64) float64 {
	if v < 0 {
		return math.NaN()
	}
	return v
}

// PerMessageTable is the per-message CSV of the payloads pms.
func PerMessageTable(pms []*PerMessage) Table {
	t := Table{Header: PerMessageHeader}
	for _, pm := range pms {
		l, st, rt := pm.L(), pm.ST(), pm.RT()
		for n := range pm.O {
			in := float64(pm.I[n])
			if pm.I[n] < 0 {
				in = math.NaN()
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(pm.Payload), strconv.Itoa(n), cell(float64(pm.O[n])), cell(in), cell(l[n] / 1000), cell(st[n]), cell(rt[n])})
		}
	}
	return t
}

// CPUTable is the CPU samples CSV of pms.
func CPUTable(pms []*PerMessage) Table {
	t := Table{Header: CPUHeader}
	for _, pm := range pms {
		for _, c := range pm.CPU {
			t.Rows = append(t.Rows, []string{strconv.Itoa(pm.Payload), strconv.Itoa(c.N), cell(optional(c.Sender)), cell(optional(c.Receiver)), cell(optional(c.Broker))})
		}
	}
	return t
}

// Quantities of the aggregates CSV, in order.
var Quantities = []string{"L [us]", "ST [msg/s]", "RT [msg/s]", "RT [Mb/s]", "Sender CPU [ns/msg]", "Receiver CPU [ns/msg]", "Broker CPU [ns/msg]"}

// Aggregates returns the aggregates of one payload, by Quantities.
func Aggregates(pm *PerMessage) []Aggregate {
	l := pm.L()
	for i := range l {
		l[i] /= 1000
	}
	rt := pm.RT()
	mb := make([]float64, len(rt))
	for i, v := range rt {
		mb[i] = result.Mbps(v, pm.Payload)
	}
	var s, r, b []float64
	for _, c := range pm.CPU {
		s, r, b = append(s, optional(c.Sender)), append(r, optional(c.Receiver)), append(b, optional(c.Broker))
	}
	return []Aggregate{Aggregated(l), Aggregated(pm.ST()), Aggregated(rt), Aggregated(mb), Aggregated(s), Aggregated(r), Aggregated(b)}
}

// AggregateTable is the aggregates CSV of pms.
func AggregateTable(pms []*PerMessage) Table {
	t := Table{Header: AggregateHeader}
	for _, pm := range pms {
		for i, a := range Aggregates(pm) {
			mm := "no"
			if a.Multimodal {
				mm = "yes"
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(pm.Payload), Quantities[i], strconv.Itoa(a.Count), cell(a.Mean), cell(a.Median),
				cell(a.LowerMedian), cell(a.RobustDev), cell(a.Min), cell(a.Max), cell(a.Bimodality), mm})
		}
	}
	return t
}

// WriteTable writes t as CSV.
func WriteTable(w io.Writer, t Table) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.Write(t.Header)
	cw.WriteAll(t.Rows)
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
