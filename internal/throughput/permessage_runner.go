package throughput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// PerMessageRunner runs the per-message method over every payload of
// every sub-experiment and writes permessage_<type>.csv (O_n, I_n, L_n,
// ST_n, RT_n), permessage_<type>_cpu.csv, permessage_<type>_summary.csv,
// throughput_<type>.csv (the RT_n samples, mode rate, unpaced) and, unless
// NoPlots, the figures under permessage/.
type PerMessageRunner struct {
	Config   PerMessageConfig
	Payloads []int
	Dir      string
	Meta     *meta.Meta
	NoPlots  bool
	Progress io.Writer
}

// Run measures subs (one publisher, one subscriber each).
func (r *PerMessageRunner) Run(ctx context.Context, subs []load.Sub) error {
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
	return load.RunOneWay(ctx, r.Dir, r.Meta, r.Payloads, subs, "pm", func(t *load.Trial) (func() error, error) {
		c := cfg
		src := BrokerCPU(t.Links.URL)
		c.Broker = &src
		var pms []*PerMessage
		write := func() error {
			if len(pms) == 0 {
				return nil
			}
			return r.write(t.Type, pms)
		}
		for _, payload := range r.Payloads {
			pm, err := load.WithEnds(t, payload, func(ends *load.Ends) (*PerMessage, error) { return MeasurePerMessage(ctx, ends, payload, c) })
			// A run with negative latencies is written, for the raw O_n
			// and I_n, then fails.
			if pm != nil && (err == nil || errors.Is(err, ErrNegativeLatency)) {
				pms = append(pms, pm)
				t.Rec.Payloads = append(t.Rec.Payloads, meta.Payload{Bytes: payload, Samples: cfg.Count - pm.Lost - pm.Negative, Lost: uint64(pm.Lost), Completed: err == nil})
				if r.Progress != nil {
					progress(r.Progress, t.Type, pm)
				}
			}
			if err != nil {
				return write, fmt.Errorf("%s: payload %d B: %w", t.Type, payload, err)
			}
		}
		return write, nil
	})
}

func (r *PerMessageRunner) write(typ string, pms []*PerMessage) error {
	for name, t := range map[string]Table{
		PerMessageFileName(typ):        PerMessageTable(pms),
		PerMessageCPUFileName(typ):     CPUTable(pms),
		PerMessageSummaryFileName(typ): AggregateTable(pms),
	} {
		if err := atomicfile.Write(filepath.Join(r.Dir, name), func(w io.Writer) error { return WriteTable(w, t) }); err != nil {
			return err
		}
	}
	var rows []result.ThroughputRow
	for _, pm := range pms {
		_, rt := finite(pm.RT())
		p := Point{Payload: pm.Payload, Samples: rt}
		p.Summarise()
		rows = append(rows, RowOf(p))
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
		if _, err := PlotPerMessage(dir, typ, pm); err != nil {
			return err
		}
	}
	_, err := PlotVsSize(dir, typ, pms)
	return err
}

// progress prints one payload's medians beside the overall rates, and says
// plainly when they disagree and why.
func progress(w io.Writer, typ string, pm *PerMessage) {
	a := Aggregates(pm)
	fmt.Fprintf(w, "%-32s %6d B  %s messages, %s lost  L median %s  ST median %s msg/s (overall %s)  RT median %s msg/s (overall %s; %.3f Mb/s)  RT bimodality %.2f  broker CPU median %.1f %% (%s ns/msg)\n",
		typ, pm.Payload, result.Count(len(pm.O)), result.Count(pm.Lost), result.Micros(a[qL].Median), result.Thousands(a[qST].Median), result.Thousands(a[qST].Overall),
		result.Thousands(a[qRT].Median), result.Thousands(a[qRT].Overall), a[qRTMbps].Median, a[qRT].Bimodality, a[qSenderCPU+2].Median, result.Thousands(a[qSenderCPU+5].Median))
	for _, c := range []struct {
		q          int
		what, when string
	}{{qST, "ST median disagrees with the overall send rate", "the send call returned in bursts (a client library that buffers sends accepts them faster than the link carries them, then blocks)"},
		{qRT, "RT median disagrees with the overall receive rate", "the messages were delivered in bursts (queued on the way, then handed over together)"}} {
		if s := a[c.q]; s.disagrees() {
			fmt.Fprintf(w, "    %s: %.2f× it, beyond the robust deviation: %s, so the median of M-message windows is the rate within a burst; the overall rate is what the link carried. Pace the sender below the link's capacity (--rate) for a steady run.\n",
				c.what, s.Median/s.Overall, c.when)
		}
	}
	if note := pm.Broker.Note(); note != "" {
		fmt.Fprintf(w, "    broker CPU (%s): %s\n", pm.BrokerWhat, note)
	}
}
