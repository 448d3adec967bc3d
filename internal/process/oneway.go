package process

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/htmlreport"
	"github.com/mqgate/mqgate/internal/loadsummary"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/subexp"
)

// Load is one sub-experiment's run load summary (load_<type>_summary.json).
type Load struct {
	Type string
	Path string
	loadsummary.Summary
	// Figures are the plots as SVG, when asked for: latency and rates by
	// payload.
	Figures []htmlreport.Plot
}

func (l *Load) figures() *[]htmlreport.Plot { return &l.Figures }

// printLoadNotes prints what run load said of l on its console: the
// error that stopped it and each payload's notes (publishers that did not
// keep up, send delay, queueing), in run load's words, so that a summary
// read again says as much as the run did.
func (j *invocation) printLoadNotes(l Load) {
	if !l.Completed {
		j.printf("  %s: incomplete: %s\n", l.Type, cmp.Or(l.Error, "the run did not complete"))
	}
	for _, p := range l.Payloads {
		for _, n := range p.Notes {
			j.printf("  %s %6d B  note: %s\n", l.Type, p.Payload, n)
		}
	}
}

// PerMessage is one sub-experiment's run permessage summary
// (permessage_<type>_summary.csv).
type PerMessage struct {
	Type    string
	Path    string
	Rows    []permessagefile.Row
	Figures []htmlreport.Plot // latency, rates and CPU by payload, when asked for
}

func (pm *PerMessage) figures() *[]htmlreport.Plot { return &pm.Figures }

// readSummaries reads with read each file prefix<type>suffix of experiment
// dir, in name order, refusing a malformed one, so that process can check
// them all before it writes anything.
func readSummaries[T any](dir, prefix, suffix string, read func(typ, path string) (T, error)) ([]T, error) {
	paths, err := filepath.Glob(filepath.Join(dir, prefix+"*"+suffix))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var out []T
	for _, path := range paths {
		t := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), prefix), suffix)
		if t == "" || !subexp.Valid(t) {
			continue
		}
		v, err := read(t, path)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// readLoads reads the run load summaries of experiment dir
// (load_<type>_summary.json). A summary whose subexperiment is not the one
// its name says (a file renamed, or copied over another's) is refused: it
// would be drawn, and checked against meta.json, as the other.
func readLoads(dir string) ([]Load, error) {
	return readSummaries(dir, "load_", "_summary.json", func(typ, path string) (Load, error) {
		s, err := loadsummary.ReadFile(path)
		if err == nil && s.SubExperiment != typ {
			err = fileerr.New(path, 0, "", "field \"subexperiment\" is %q, but the file name says %s: expected the summary of %s "+
				"(a file renamed, or copied from another sub-experiment?)", s.SubExperiment, typ, typ)
		}
		return Load{Type: typ, Path: path, Summary: s}, err
	})
}

// loadPlots are the figures of l: its one-way latency by payload
// (load_<type>_latency: p50 to max of the HDR histogram of every measured
// message) and its rates by payload (load_<type>_rates: offered, sent,
// received).
func loadPlots(l Load) []namedPlot {
	typ, s := l.Type, l.Summary
	cats := make([]string, len(s.Payloads))
	var p50, p99, p999, mx, offered, sent, recv []float64
	us := func(ns int64) float64 { return float64(ns) / 1000 }
	o := math.NaN() // unpaced: no schedule
	if s.Parameters.Rate > 0 {
		o = s.Parameters.Rate * float64(s.Parameters.Publishers)
	}
	for j, p := range s.Payloads {
		cats[j] = strconv.Itoa(p.Payload)
		us := us
		if p.Latency.Count == 0 {
			us = func(int64) float64 { return math.NaN() } // none measured: a gap, not 0
		}
		p50, p99, p999, mx = append(p50, us(p.Latency.P50Ns)), append(p99, us(p.Latency.P99Ns)), append(p999, us(p.Latency.P999Ns)), append(mx, us(p.Latency.MaxNs))
		offered, sent, recv = append(offered, o), append(sent, p.SendRate), append(recv, p.ReceiveRate)
	}
	return []namedPlot{
		{"load_" + typ + "_latency", plots.CategoryLines(typ+": one-way latency by payload (every measured message)", "Payload [Bytes]", "Latency [µs]", cats,
			[]plots.Line{{Name: "p50", Y: p50}, {Name: "p99", Y: p99}, {Name: "p99.9", Y: p999}, {Name: "max", Y: mx}})},
		{"load_" + typ + "_rates", plots.CategoryLines(typ+": rates by payload (all publishers)", "Payload [Bytes]", "Messages per second", cats,
			[]plots.Line{{Name: "offered (schedule)", Y: offered, Dashed: true}, {Name: "sent", Y: sent}, {Name: "received (unique)", Y: recv}})},
	}
}

// readPerMessages reads the run permessage summaries of experiment dir
// (permessage_<type>_summary.csv).
func readPerMessages(dir string) ([]PerMessage, error) {
	return readSummaries(dir, "permessage_", "_summary.csv", func(typ, path string) (PerMessage, error) {
		rows, err := permessagefile.ReadSummaryFile(path)
		return PerMessage{Type: typ, Path: path, Rows: rows}, err
	})
}

// perMessagePlots are the figures of pm by payload: latency L
// (permessage_<type>_latency), the median rates of the M-message windows
// beside the overall rates (permessage_<type>_rates) and, when measured,
// the CPU time per message of the sender, the receiver, the client process
// and the broker (permessage_<type>_cpu). The curves against the message
// number are run's (permessage/).
func perMessagePlots(pm PerMessage) []namedPlot {
	typ := pm.Type
	payloads := pm.payloads()
	cats := make([]string, len(payloads))
	for j, p := range payloads {
		cats[j] = strconv.Itoa(p)
	}
	col := func(q string, v func(permessagefile.Row) float64) []float64 {
		y := slices.Repeat([]float64{math.NaN()}, len(payloads))
		for j, p := range payloads {
			if r, ok := pm.row(p, q); ok {
				y[j] = v(r)
			}
		}
		return y
	}
	med := func(r permessagefile.Row) float64 { return r.Median }
	all := func(r permessagefile.Row) float64 { return r.Overall }
	figs := []namedPlot{
		{"permessage_" + typ + "_latency", plots.CategoryLines(typ+": latency L_n by payload", "Payload [Bytes]", "Latency [µs]", cats,
			[]plots.Line{{Name: "p50", Y: col("L [µs]", med)}, {Name: "p90", Y: col("L [µs]", func(r permessagefile.Row) float64 { return r.P90 })},
				{Name: "p99", Y: col("L [µs]", func(r permessagefile.Row) float64 { return r.P99 })},
				{Name: "max", Y: col("L [µs]", func(r permessagefile.Row) float64 { return r.Max })}})},
		{"permessage_" + typ + "_rates", plots.CategoryLines(typ+": throughput by payload, median of the windows and overall",
			"Payload [Bytes]", "Throughput [msg/s]", cats,
			[]plots.Line{{Name: "RT_n median (receiver)", Y: col("RT [msg/s]", med)}, {Name: "RT overall", Y: col("RT [msg/s]", all), Dashed: true},
				{Name: "ST_n median (sender)", Y: col("ST [msg/s]", med)}, {Name: "ST overall", Y: col("ST [msg/s]", all), Dashed: true}})},
	}
	// The client is the whole measuring process, all threads (the
	// client libraries' own goroutines too), which summaries of
	// earlier versions lack.
	var cpu []plots.Line
	for _, end := range []struct{ col, name string }{{"Sender", "sender"}, {"Receiver", "receiver"}, {"Client", "client process"}, {"Broker", "broker"}} {
		y := col(end.col+" CPU [ns/msg]", all)
		if slices.ContainsFunc(y, func(v float64) bool { return !math.IsNaN(v) }) {
			cpu = append(cpu, plots.Line{Name: end.name, Y: y})
		}
	}
	if len(cpu) > 0 {
		figs = append(figs, namedPlot{"permessage_" + typ + "_cpu", plots.CategoryLines(typ+": CPU time per message by payload (whole run)",
			"Payload [Bytes]", "CPU [ns/msg]", cats, cpu)})
	}
	return figs
}

// drawEach draws the figures (figs) of each of items into dir unless it is
// "", adding the number of plot files written to *n, and, with svg,
// appends them as SVG to the item's Figures (kept).
func drawEach[T any](n *int, items []T, figs func(T) []namedPlot, kept func(*T) *[]htmlreport.Plot, dir string, f plots.Format,
	svg bool) error {
	for i := range items {
		for _, fig := range figs(items[i]) {
			b, err := fig.draw(dir, f, svg)
			if err != nil {
				return err
			}
			if dir != "" {
				*n++
			}
			if svg {
				*kept(&items[i]) = append(*kept(&items[i]), htmlreport.Plot{Title: fig.p.Title.Text, SVG: b})
			}
		}
	}
	return nil
}

// payloads returns the payloads of pm, in file order.
func (pm PerMessage) payloads() []int {
	var out []int
	for _, r := range pm.Rows {
		if !slices.Contains(out, r.Payload) {
			out = append(out, r.Payload)
		}
	}
	return out
}

// row returns the row of quantity q at payload p.
func (pm PerMessage) row(p int, q string) (permessagefile.Row, bool) {
	for _, r := range pm.Rows {
		if r.Payload == p && r.Quantity == q {
			return r, true
		}
	}
	return permessagefile.Row{}, false
}

// rate prints a rate in msg/s, whole.
func rate(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// LoadTable is the headline of one-way load results: per sub-experiment and
// payload the rates offered (the publishers' schedule), sent and received,
// and the share of the offered schedule delivered, marked under 99 % (of
// the schedule or of what was sent). The latency of the same messages is
// in the latency table (the raw file) and in each load section (every
// measured message).
func LoadTable(ls []Load) htmlreport.Table {
	t := htmlreport.Table{RowHeaders: true, Caption: "One-way load per sub-experiment and payload, msg/s of all publishers (marked: under 99 % delivered)",
		Header: []string{"Sub-experiment", "Payload", "Offered", "Sent", "Received", "Delivered"}}
	for _, l := range ls {
		offered := "unpaced"
		if r := l.Parameters.Rate; r > 0 {
			offered = compactRate(r * float64(l.Parameters.Publishers))
		}
		for _, p := range l.Payloads {
			d := htmlreport.Num(fmt.Sprintf("%.1f %%", 100*p.DeliveryRate))
			if p.DeliveryRate < 0.99 || p.DeliveryRatio < 0.99 {
				d.Status = htmlreport.StatusInconclusive
			}
			t.Rows = append(t.Rows, []htmlreport.Cell{{Text: l.Type}, htmlreport.Num(strconv.Itoa(p.Payload) + " B"), htmlreport.Num(offered),
				htmlreport.Num(compactRate(p.SendRate)), htmlreport.Num(compactRate(p.ReceiveRate)), d})
		}
	}
	return t
}

// compactRate prints a rate in msg/s with three significant digits and a
// k or M: 950, 90.0 k, 4.01 M.
func compactRate(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "–"
	case a >= 999.5e3:
		return strconv.FormatFloat(v/1e6, 'f', max(0, 2-int(math.Floor(math.Log10(a/1e6)))), 64) + " M"
	case a >= 999.5:
		return strconv.FormatFloat(v/1e3, 'f', max(0, 2-int(math.Floor(math.Log10(a/1e3)))), 64) + " k"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// LoadSection is a load sub-experiment's section: its parameters and
// notes, a table of every payload's counts, rates and latency, and its
// figures.
func LoadSection(l Load) htmlreport.Section {
	par := l.Parameters
	pacing := "unpaced"
	if par.Rate > 0 {
		pacing = fmt.Sprintf("%g msg/s per publisher, open loop", par.Rate)
	}
	sec := htmlreport.Section{ID: "load-" + l.Type, Title: l.Type + " (one-way load)", Plots: l.Figures,
		Notes: []string{fmt.Sprintf("%s: %d publisher(s), %d subscriber(s), %d topic(s); %s; %g s measured per payload after %g s of warm-up. "+
			"Latency over time and rates per interval: load/%s_<payload>_*.png (run load).",
			par.Scenario, par.Publishers, par.Subscribers, par.Topics, pacing, par.DurationS, par.WarmupS, l.Type)}}
	if !l.Completed {
		sec.Notes = append(sec.Notes, "The run did not complete: "+l.Error)
	}
	t := htmlreport.Table{Caption: filepath.Base(l.Path) + " (latency from the HDR histogram)",
		Header: []string{"Payload", "Sent", "Received", "Lost", "Duplicates", "Out of order", "Sent msg/s", "Received msg/s", "Mb/s",
			"p50", "p95", "p99", "p99.9", "Max", "Send delay p99"}}
	for _, p := range l.Payloads {
		n := func(v uint64) htmlreport.Cell { return htmlreport.Num(strconv.FormatUint(v, 10)) }
		// A statistic of no value (no latency measured; no send delay
		// unpaced) is "—", never 0 µs.
		us := func(s loadsummary.Stats, ns int64) htmlreport.Cell {
			if s.Count == 0 {
				return htmlreport.Num("—")
			}
			return htmlreport.Num(result.Micros(float64(ns) / 1000))
		}
		l := p.Latency
		t.Rows = append(t.Rows, []htmlreport.Cell{htmlreport.Num(strconv.Itoa(p.Payload)), n(p.Counters.MessagesSent), n(p.Received), n(p.Lost),
			n(p.Duplicates), n(p.OutOfOrder), htmlreport.Num(rate(p.SendRate)), htmlreport.Num(rate(p.ReceiveRate)),
			htmlreport.Num(strconv.FormatFloat(p.ReceiveMbps, 'f', 2, 64)), us(l, l.P50Ns), us(l, l.P95Ns), us(l, l.P99Ns),
			us(l, l.P999Ns), us(l, l.MaxNs), us(p.SendDelay, p.SendDelay.P99Ns)})
		for _, note := range p.Notes {
			sec.Notes = append(sec.Notes, fmt.Sprintf("%d B: %s", p.Payload, note))
		}
	}
	sec.Tables = []htmlreport.Table{t}
	return sec
}

// PerMessageTable is the headline of per-message results: per
// sub-experiment and payload the messages delivered (marked when more than
// a window's worth were lost), the latency's median, and the receiver's
// throughput over the whole run beside the median of its M-message
// windows, marked when the two disagree (messages delivered in bursts).
func PerMessageTable(pms []PerMessage) htmlreport.Table {
	t := htmlreport.Table{RowHeaders: true, Caption: "Per-message latency and receiver throughput (msg/s) per sub-experiment and payload " +
		"(marked: messages lost beyond a window; the windows' median disagreeing with the overall rate, bursts)",
		Header: []string{"Sub-experiment", "Payload", "Delivered", "L p50", "RT overall", "RT median"}}
	for _, pm := range pms {
		for _, p := range pm.payloads() {
			l, _ := pm.row(p, "L [µs]")
			rt, ok := pm.row(p, "RT [msg/s]")
			if !ok {
				rt.Median, rt.Overall = math.NaN(), math.NaN()
			}
			med := htmlreport.Num(compactRate(rt.Median))
			if rt.Disagrees() {
				med.Status = htmlreport.StatusInconclusive
			}
			// Every message sent is in the latency's count when delivered;
			// the sender's window rates count all but the first window.
			st, _ := pm.row(p, "ST [msg/s]")
			got := htmlreport.Num(strconv.Itoa(l.Count))
			if l.Count < st.Count {
				got.Status = htmlreport.StatusInconclusive
			}
			t.Rows = append(t.Rows, []htmlreport.Cell{{Text: pm.Type}, htmlreport.Num(strconv.Itoa(p) + " B"), got,
				htmlreport.Num(result.Micros(l.Median)), htmlreport.Num(compactRate(rt.Overall)), med})
		}
	}
	return t
}

// PerMessageSection is a per-message sub-experiment's section: its summary
// as in the file and its figures.
func PerMessageSection(pm PerMessage) htmlreport.Section {
	t := htmlreport.Table{Caption: filepath.Base(pm.Path), Header: permessagefile.SummaryHeader}
	f := func(v float64) htmlreport.Cell {
		if math.IsNaN(v) {
			return htmlreport.Num("")
		}
		return htmlreport.Num(strconv.FormatFloat(v, 'f', 3, 64))
	}
	for _, r := range pm.Rows {
		mm := "no"
		if r.Multimodal {
			mm = "yes"
		}
		t.Rows = append(t.Rows, []htmlreport.Cell{htmlreport.Num(strconv.Itoa(r.Payload)), {Text: r.Quantity}, htmlreport.Num(strconv.Itoa(r.Count)),
			f(r.Mean), f(r.Median), f(r.LowerMedian), f(r.RobustDev), f(r.Min), f(r.Max), f(r.P50), f(r.P90), f(r.P99), f(r.Bimodality),
			{Text: mm}, f(r.Overall), {Text: r.Note}})
	}
	return htmlreport.Section{ID: "permessage-" + pm.Type, Title: pm.Type + " (per-message)", Tables: []htmlreport.Table{t}, Plots: pm.Figures,
		Notes: []string{"Curves against the message number (L_n, ST_n and RT_n, CPU) and histograms: permessage/" + pm.Type + "_<payload>_*.png (run permessage)."}}
}
