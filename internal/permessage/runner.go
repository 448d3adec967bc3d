package permessage

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/throughput"
)

// Runner runs the per-message method over every payload of
// every sub-experiment and writes permessage_<type>.csv (O_n, I_n, L_n,
// ST_n, RT_n), permessage_<type>_cpu.csv, permessage_<type>_summary.csv,
// throughput_<type>.csv (Row: mode rate, unpaced) and, unless
// NoPlots, the figures under permessage/.
type Runner struct {
	Config   Config
	Payloads []int
	Dir      string
	Meta     *meta.Meta
	NoPlots  bool
	Progress io.Writer
}

// Run measures subs (one publisher, one subscriber each).
func (r *Runner) Run(ctx context.Context, subs []load.Sub) error {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	pace := "back to back"
	if cfg.Rate > 0 {
		pace = fmt.Sprintf("paced at %g msg/s", cfg.Rate)
	}
	r.Meta.Mode = fmt.Sprintf("per-message throughput (ZeroMQ method): %d messages %s per payload, M = %d, CPU every %d", cfg.Count, pace, cfg.Window, cfg.CPUEvery)
	r.Meta.Clock = "Go monotonic clock: O_n just before the message is handed to Send, I_n at delivery; a message delivered before it was sent fails the run"
	pp := &progressPrinter{w: r.Progress}
	return load.RunOneWay(ctx, r.Dir, r.Meta, r.Payloads, subs, "pm", func(t *load.Trial) (func() error, error) {
		c := cfg
		src := LinkCPU(t.Links)
		c.Broker = &src
		var pms []*Record
		write := func() error {
			if len(pms) == 0 {
				return nil
			}
			return r.write(t.Type, pms)
		}
		for _, payload := range r.Payloads {
			pm, err := load.WithEnds(t, payload, func(ends *load.Ends) (*Record, error) { return Measure(ctx, ends, payload, c) })
			// A run with negative latencies is written, for the raw O_n
			// and I_n, then fails; so is what a run interrupted or
			// stopped by a broken link measured (Measure kept the
			// messages sent), its payload marked incomplete.
			if pm != nil && len(pm.O) > 0 {
				pms = append(pms, pm)
				t.Rec.Payloads = append(t.Rec.Payloads, meta.Payload{Bytes: payload, Samples: len(pm.O) - pm.Lost - pm.Negative, Lost: uint64(pm.Lost),
					MessagesAcked: pm.Acked, MessagesRefused: pm.Refused, Completed: err == nil})
				if r.Progress != nil {
					pp.print(t.Type, pm)
				}
			}
			if err != nil {
				return write, fmt.Errorf("%s: payload %d B: %w", t.Type, payload, err)
			}
		}
		return write, nil
	})
}

func (r *Runner) write(typ string, pms []*Record) error {
	for name, t := range map[string]permessagefile.Table{
		permessagefile.FileName(typ):        MessageTable(pms),
		permessagefile.CPUFileName(typ):     CPUTable(pms),
		permessagefile.SummaryFileName(typ): AggregateTable(pms),
	} {
		if err := atomicfile.Write(filepath.Join(r.Dir, name), func(w io.Writer) error { return permessagefile.WriteTable(w, t) }); err != nil {
			return err
		}
	}
	var rows []result.ThroughputRow
	for _, pm := range pms {
		rows = append(rows, Row(pm))
	}
	if err := result.WriteThroughputFile(filepath.Join(r.Dir, experiment.ThroughputFileName(typ)), rows); err != nil {
		return err
	}
	if r.NoPlots {
		return nil
	}
	dir := filepath.Join(r.Dir, PlotsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, pm := range pms {
		if _, err := Plot(dir, typ, pm); err != nil {
			return err
		}
	}
	_, err := PlotVsSize(dir, typ, pms)
	return err
}

// Row is the throughput row of one payload: the median of the
// RT_n windows when it agrees with the overall receive rate, else the
// overall rate itself, one sample (the windows then measured the rate
// within bursts, not what the link carried).
func Row(pm *Record) result.ThroughputRow {
	p := throughput.Point{Payload: pm.Payload}
	if rt := Aggregates(pm)[qRT]; !rt.Agrees() && !math.IsNaN(rt.Overall) {
		p.Samples = []float64{rt.Overall}
	} else {
		_, p.Samples = finite(pm.RT())
	}
	p.Summarise()
	return throughput.RowOf(p)
}

// progressPrinter prints one line per payload; the reason a median
// disagrees with the overall rate is printed the first time only.
type progressPrinter struct {
	w         io.Writer
	explained map[int]bool
}

// rateText is a rate quantity of the progress line: the overall rate
// leads, and the median of the windows is beside it, labelled as the
// rate within bursts when it disagrees.
func rateText(name string, s permessagefile.Summary, m, payload int) string {
	if s.Agrees() {
		return fmt.Sprintf("%s median %s msg/s (overall %s, agrees within ±%g %%; %s Mb/s)", name, orDash(result.Thousands, s.Median),
			orDash(result.Thousands, s.Overall), 100*permessagefile.AgreementTolerance, orDash(mbps, result.Mbps(s.Median, payload)))
	}
	return fmt.Sprintf("%s overall %s msg/s (%s Mb/s; within bursts, the median of %d-message windows: %s, %s×)", name, orDash(result.Thousands, s.Overall),
		orDash(mbps, result.Mbps(s.Overall, payload)), m, orDash(result.Thousands, s.Median), orDash(times, s.Median/s.Overall))
}

// orDash gives "—" for a missing value, as run throughput does.
var orDash = throughput.OrDash

func mbps(v float64) string  { return fmt.Sprintf("%.3f", v) }
func times(v float64) string { return fmt.Sprintf("%.2f", v) }

// cpuText is the CPU time per message of each participant over the whole
// run (from the first reading to the last, so that a window of a burst,
// in which a broker had nothing to do, weighs no more than its share),
// each named by what it covers.
func cpuText(pm *Record, a []permessagefile.Summary) string {
	ns := func(q int) string { return orDash(result.Thousands, a[q].Overall) + " ns/msg" }
	client := ns(qSenderCPUPerMessage + 2)
	if pm.BrokerInProcess && !pm.NoBroker {
		client += ", the broker's included"
	}
	brokerWhat := cmp.Or(pm.BrokerWhat, "not read")
	return fmt.Sprintf("CPU per message over the run: sender thread %s, receiver thread %s, client process (all threads) %s, %s (%s) %s",
		ns(qSenderCPUPerMessage), ns(qSenderCPUPerMessage+1), client, pm.brokerLabel(), brokerWhat, ns(qSenderCPUPerMessage+3))
}

// cpuReasons are the lines saying why CPU figures are missing ("—"), one
// per reason, naming the participants it applies to: "no CPU figure for
// the sender thread, receiver thread, client process and broker: no
// sample: 300 messages sent, fewer than --cpu-every 1000, so no CPU
// sample was taken".
func cpuReasons(pm *Record) []string {
	names := []string{"sender thread", "receiver thread", "client process", pm.brokerLabel()}
	if pm.BrokerWhat != "" && !pm.BrokerInProcess {
		names[3] += " (" + pm.BrokerWhat + ")"
	}
	reasons := pm.cpuReasons()
	var out []string
	for i, r := range reasons {
		if r == "" || slices.Contains(reasons[:i], r) {
			continue
		}
		var who []string
		for j := i; j < len(reasons); j++ {
			if reasons[j] == r {
				who = append(who, names[j])
			}
		}
		list := who[len(who)-1]
		if len(who) > 1 {
			list = strings.Join(who[:len(who)-1], ", ") + " and " + list
		}
		out = append(out, fmt.Sprintf("no CPU figure for the %s: %s", list, r))
	}
	return out
}

// print prints one payload's figures, and says once per run why a median
// disagrees with the overall rate.
func (p *progressPrinter) print(typ string, pm *Record) {
	a := Aggregates(pm)
	fmt.Fprintf(p.w, "%-32s %6d B  %s messages, %s lost  L median %s  %s  %s  RT bimodality %s\n",
		typ, pm.Payload, result.Count(len(pm.O)), result.Count(pm.Lost), orDash(result.Micros, a[qL].Median),
		rateText("ST", a[qST], pm.M, pm.Payload), rateText("RT", a[qRT], pm.M, pm.Payload), orDash(times, a[qRT].Bimodality))
	fmt.Fprintf(p.w, "    %s\n", cpuText(pm, a))
	if p.explained == nil {
		p.explained = map[int]bool{}
	}
	for _, c := range []struct {
		q          int
		what, when string
	}{{qST, "ST: the median of the send windows disagrees with the overall send rate", "the send call returned in bursts (a client library that buffers sends accepts them faster than the link carries them, then blocks)"},
		{qRT, "RT: the median of the receive windows disagrees with the overall receive rate", "the messages were delivered in bursts (queued on the way, then handed over together)"}} {
		if s := a[c.q]; s.Disagrees() && !p.explained[c.q] {
			p.explained[c.q] = true
			fmt.Fprintf(p.w, "    %s (beyond ±%g %%): %s, so the median of M-message windows is the rate within a burst, and the overall rate, what the link carried, is the figure reported and written to the throughput file. Pace the sender below the link's capacity (--rate) for a steady run.\n",
				c.what, 100*permessagefile.AgreementTolerance, c.when)
		}
	}
	for _, r := range cpuReasons(pm) {
		fmt.Fprintf(p.w, "    %s\n", r)
	}
}
