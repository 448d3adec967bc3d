package permessage

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/result"
)

// cell formats v as the per-message files do (permessagefile.Cell).
func cell(v float64) string { return permessagefile.Cell(v) }

// MessageTable is the per-message CSV of the payloads pms.
func MessageTable(pms []*Record) permessagefile.Table {
	t := permessagefile.Table{Header: permessagefile.Header}
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
func CPUTable(pms []*Record) permessagefile.Table {
	t := permessagefile.Table{Header: permessagefile.CPUHeader}
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

// Indexes of permessagefile.Quantities.
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

// Aggregates returns the summaries of one payload, by permessagefile.Quantities.
func Aggregates(pm *Record) []permessagefile.Summary {
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
	out := []permessagefile.Summary{
		{Aggregate: Aggregated(l), Overall: math.NaN()},
		{Aggregate: Aggregated(pm.SO()), Overall: 1e9 / send},
		{Aggregate: Aggregated(pm.RO()), Overall: 1e9 / recv},
		{Aggregate: Aggregated(st), Overall: send},
		{Aggregate: Aggregated(rt), Overall: recv},
		{Aggregate: Aggregated(mb), Overall: result.Mbps(recv, pm.Payload)},
	}
	// An overhead and its rate are one measurement: they agree when both do.
	for _, same := range [][]int{{qSO, qST}, {qRO, qRT, qRTMbps}} {
		agree := !slices.ContainsFunc(same, func(q int) bool { return !out[q].Agrees() })
		for _, q := range same {
			out[q].Note = rateNote(out[q], agree)
		}
	}
	series, notes := []CPUSeries{pm.Sender, pm.Receiver, pm.Client, pm.Broker}, pm.cpuNotes()
	for _, perMessage := range []bool{false, true} {
		for i, s := range series {
			var v []float64
			for _, u := range s.Windows(pm.CPUEvery) {
				v = append(v, pick(u, perMessage))
			}
			out = append(out, permessagefile.Summary{Aggregate: Aggregated(v), Overall: pick(s.Overall(pm.CPUEvery), perMessage), Note: notes[i]})
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
func rateNote(s permessagefile.Summary, agree bool) string {
	switch {
	case s.Count == 0 || math.IsNaN(s.Overall):
		return ""
	case agree:
		return fmt.Sprintf("agrees with overall within ±%g %%", 100*permessagefile.AgreementTolerance)
	}
	return fmt.Sprintf("disagrees with overall: median %.2f× overall, beyond ±%g %% (bursts)", s.Median/s.Overall, 100*permessagefile.AgreementTolerance)
}

// AggregateTable is the aggregates CSV of pms.
func AggregateTable(pms []*Record) permessagefile.Table {
	var rows []permessagefile.Row
	for _, pm := range pms {
		for i, a := range Aggregates(pm) {
			rows = append(rows, permessagefile.Row{Payload: pm.Payload, Quantity: permessagefile.Quantities[i], Summary: a})
		}
	}
	return permessagefile.SummaryTable(rows)
}
