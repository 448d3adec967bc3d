package throughput

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

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
	PerMessageHeader = []string{"Payload [Bytes]", "n", "O [ns]", "I [ns]", "L [µs]", "SO [ns]", "RO [ns]", "ST [msg/s]", "RT [msg/s]"}
	CPUHeader        = []string{"Payload [Bytes]", "n", "Sender CPU [%]", "Receiver CPU [%]", "Client CPU [%]", "Broker CPU [%]",
		"Sender CPU [ns/msg]", "Receiver CPU [ns/msg]", "Client CPU [ns/msg]", "Broker CPU [ns/msg]"}
	AggregateHeader = []string{"Payload [Bytes]", "Quantity", "Count", "Mean", "Median", "Lower median", "Robust deviation", "Min", "Max",
		"p50", "p90", "p99", "Bimodality", "Multimodal", "Overall", "Note"}
)

// Table is a CSV of a header, then rows whose cells are numbers, an empty
// cell for a missing value (NaN), except the text columns named in Text.
type Table struct {
	Header []string
	Rows   [][]string
}

// cell formats v: empty for NaN, else up to 3 decimals.
func cell(v float64) string {
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

// PerMessageTable is the per-message CSV of the payloads pms.
func PerMessageTable(pms []*PerMessage) Table {
	t := Table{Header: PerMessageHeader}
	for _, pm := range pms {
		l, so, ro := pm.L(), pm.SO(), pm.RO()
		for n := range pm.O {
			in := float64(pm.I[n])
			if pm.I[n] == Never {
				in = math.NaN()
			}
			t.Rows = append(t.Rows, []string{strconv.Itoa(pm.Payload), strconv.Itoa(n), cell(float64(pm.O[n])), cell(in), cell(l[n] / 1000),
				cell(so[n]), cell(ro[n]), cell(1e9 / so[n]), cell(1e9 / ro[n])})
		}
	}
	return t
}

// CPUTable is the CPU samples CSV of pms: one row per k-message window,
// n its last message.
func CPUTable(pms []*PerMessage) Table {
	t := Table{Header: CPUHeader}
	for _, pm := range pms {
		w := [][]CPUUse{pm.Sender.Windows(pm.CPUEvery), pm.Receiver.Windows(pm.CPUEvery), pm.Client.Windows(pm.CPUEvery), pm.Broker.Windows(pm.CPUEvery)}
		for j := range w[0] {
			for i := range w {
				if len(w[i]) <= j { // a series never read
					w[i] = append(w[i], noUse)
				}
			}
			row := []string{strconv.Itoa(pm.Payload), strconv.Itoa((j + 1) * pm.CPUEvery)}
			for _, perMessage := range []bool{false, true} {
				for _, s := range w {
					row = append(row, cell(pick(s[j], perMessage)))
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// Quantities of the aggregates CSV, in order.
var Quantities = []string{"L [µs]", "SO [ns]", "RO [ns]", "ST [msg/s]", "RT [msg/s]", "RT [Mb/s]",
	"Sender CPU [%]", "Receiver CPU [%]", "Client CPU [%]", "Broker CPU [%]",
	"Sender CPU [ns/msg]", "Receiver CPU [ns/msg]", "Client CPU [ns/msg]", "Broker CPU [ns/msg]"}

// Indexes of Quantities.
const (
	qL = iota
	qSO
	qRO
	qST
	qRT
	qRTMbps
	qSenderCPU
	qReceiverCPU
	qClientCPU
	qBrokerCPU
	qSenderCPUPerMessage
)

// Summary is the aggregate of one quantity of a payload beside its value
// over the whole run (NaN for latency), and a note: whether the median
// agrees with the overall value within AgreementTolerance, or why a CPU
// figure is missing.
type Summary struct {
	Aggregate
	Overall float64
	Note    string
}

// AgreementTolerance is how far, relative to the overall value, the median
// of a window rate (or overhead) may be and still agree with it: ±10 %.
// The robust deviation is no bound for that: windows that spread widely
// would let a median 1.4× the overall rate "agree".
const AgreementTolerance = 0.10

// Agrees reports whether the median is within AgreementTolerance of the
// overall value.
func (s Summary) Agrees() bool {
	return s.Overall > 0 && math.Abs(s.Median/s.Overall-1) <= AgreementTolerance
}

// Aggregates returns the summaries of one payload, by Quantities.
func Aggregates(pm *PerMessage) []Summary {
	l := pm.L()
	for i := range l {
		if l[i] < 0 { // an error of the run (Negative), not a sample
			l[i] = math.NaN()
		}
		l[i] /= 1000
	}
	st, rt := pm.ST(), pm.RT()
	mb := make([]float64, len(rt))
	for i, v := range rt {
		mb[i] = result.Mbps(v, pm.Payload)
	}
	send, recv := pm.OverallSend(), pm.OverallReceive()
	out := []Summary{
		{Aggregated(l), math.NaN(), ""},
		{Aggregated(pm.SO()), 1e9 / send, ""},
		{Aggregated(pm.RO()), 1e9 / recv, ""},
		{Aggregated(st), send, ""},
		{Aggregated(rt), recv, ""},
		{Aggregated(mb), result.Mbps(recv, pm.Payload), ""},
	}
	// An overhead and its rate are one measurement: they agree when both do.
	for _, same := range [][]int{{qSO, qST}, {qRO, qRT, qRTMbps}} {
		agree := true
		for _, q := range same {
			agree = agree && out[q].Agrees()
		}
		for _, q := range same {
			out[q].Note = rateNote(out[q], agree)
		}
	}
	series := []CPUSeries{pm.Sender, pm.Receiver, pm.Client, pm.Broker}
	for _, perMessage := range []bool{false, true} {
		for _, s := range series {
			var v []float64
			for _, u := range s.Windows(pm.CPUEvery) {
				v = append(v, pick(u, perMessage))
			}
			out = append(out, Summary{Aggregated(v), pick(s.Overall(pm.CPUEvery), perMessage), s.Note()})
		}
	}
	return out
}

func pick(u CPUUse, perMessage bool) float64 {
	if perMessage {
		return u.PerMessage
	}
	return u.Percent
}

// rateNote says whether the median of a window rate (or overhead) agrees
// with the overall one, and when it does not, how far off it is: the
// median of M-message windows is the rate within bursts when the messages
// go or come in bursts.
func rateNote(s Summary, agree bool) string {
	switch {
	case s.Count == 0 || math.IsNaN(s.Overall):
		return ""
	case agree:
		return fmt.Sprintf("agrees with overall within ±%g %%", 100*AgreementTolerance)
	}
	return fmt.Sprintf("disagrees with overall: median %.2f× overall, beyond ±%g %% (bursts)", s.Median/s.Overall, 100*AgreementTolerance)
}

// disagrees reports whether the Note of s says that its median disagrees
// with the overall value.
func (s Summary) disagrees() bool { return strings.HasPrefix(s.Note, "disagrees") }

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
				cell(a.LowerMedian), cell(a.RobustDev), cell(a.Min), cell(a.Max), cell(a.P50), cell(a.P90), cell(a.P99),
				cell(a.Bimodality), mm, cell(a.Overall), a.Note})
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
