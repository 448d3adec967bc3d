package permessagefile

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
)

// FileName is the per-message CSV of sub-experiment typ.
func FileName(typ string) string { return "permessage_" + typ + ".csv" }

// CPUFileName is the CPU samples of typ.
func CPUFileName(typ string) string { return "permessage_" + typ + "_cpu.csv" }

// SummaryFileName is the summary (the aggregates) of typ.
func SummaryFileName(typ string) string { return "permessage_" + typ + "_summary.csv" }

// Headers of the per-message files, in column order.
var (
	Header    = []string{"Payload [Bytes]", "n", "O [ns]", "I [ns]", "L [µs]", "SO [ns]", "RO [ns]", "ST [msg/s]", "RT [msg/s]"}
	CPUHeader = []string{"Payload [Bytes]", "n", "Sender CPU [%]", "Receiver CPU [%]", "Client CPU [%]", "Broker CPU [%]",
		"Sender CPU [ns/msg]", "Receiver CPU [ns/msg]", "Client CPU [ns/msg]", "Broker CPU [ns/msg]"}
	SummaryHeader = []string{"Payload [Bytes]", "Quantity", "Count", "Mean", "Median", "Lower median", "Robust deviation", "Min", "Max",
		"p50", "p90", "p99", "Bimodality", "Multimodal", "Overall", "Note"}
)

// Table is a CSV of a header, then rows whose cells are numbers (Cell), an
// empty cell for a missing value (NaN), except the text columns.
type Table struct {
	Header []string
	Rows   [][]string
}

// Cell formats v: empty for NaN, else up to 3 decimals.
func Cell(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	// Round first, so a value that prints as a whole number (99.9996) is
	// written as one, and reading a cell back gives the same cell.
	if r := math.Round(v*1000) / 1000; r == math.Trunc(r) && math.Abs(r) < 1e15 {
		return strconv.FormatInt(int64(r), 10)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// WriteTable writes t as CSV.
func WriteTable(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	cw.Write(t.Header)
	return cw.WriteAll(t.Rows) // flushes, and returns the first write that failed
}
