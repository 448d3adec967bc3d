package burst

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// Runner measures every test case of every sub-experiment and writes, after
// each sub-experiment, its measurements, summary and scatter plots, and
// meta.json.
type Runner struct {
	Config   Config
	Payloads []int
	Dir      string
	Meta     *meta.Meta
	// Progress receives a line per test case (nil: quiet).
	Progress io.Writer
}

// Run measures subs (their Links; one publisher, one subscriber each).
func (r *Runner) Run(ctx context.Context, subs []load.Sub) (err error) {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if len(r.Payloads) == 0 {
		return errors.New("no payload sizes")
	}
	for _, p := range r.Payloads {
		if p < load.MinMessage {
			return fmt.Errorf("payload %d B is smaller than the %d-byte message header", p, load.MinMessage)
		}
	}
	m := r.Meta
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	m.Latency = meta.LatencyOneWay // no latency file is written; the clock is the one-way one
	m.Mode = fmt.Sprintf("burst (Fast-RTPS throughput): bursts of %v samples (per payload: a demands file when given), recovery times %v ms, test time %v, in-flight wait %v",
		cfg.Demands, cfg.Recoveries, cfg.TestTime, cfg.Timeout)
	m.Clock = "Go monotonic clock at delivery"
	metaPath, finish, err := load.StartMeta(r.Dir, m)
	if err != nil {
		return err
	}
	defer finish(&err)
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	for _, s := range subs {
		rec := meta.SubExperiment{Type: s.Type, Transport: s.Transport, Reliable: s.Reliable, Echo: "none (one-way)",
			Topic: s.Topic, Params: s.Params, Start: time.Now().UTC(), Payloads: []meta.Payload{}}
		var rows []result.BurstRow
		var runErr error
		step := 0
		measure := func(payload, demand, recovery int) (result.BurstRow, error) {
			step++
			links := s.Links
			links.Publish.Topic = fmt.Sprintf("%s-b%d", links.Publish.Topic, step)
			links.Subscribe.Topic = links.Publish.Topic
			ends, err := links.Open(ctx, tp, payload)
			if err != nil {
				if ctx.Err() != nil {
					return result.BurstRow{}, load.ErrInterrupted
				}
				return result.BurstRow{}, fmt.Errorf("cannot connect: %w", err)
			}
			defer ends.Close()
			if ir, ok := ends.Pubs[0].Senders[0].(driver.InfoReporter); ok && rec.System == nil {
				info := ir.SystemInfo()
				rec.System = &meta.SystemInfo{Product: info.Product, Version: info.Version, URL: driver.RedactURL(info.URL),
					Embedded: s.Embedded || info.Embedded, Extra: info.Extra}
			}
			_, rec.Acknowledged = ends.Pubs[0].Senders[0].(driver.AckSender)
			return Measure(ctx, ends, payload, demand, recovery, cfg)
		}
	payloads:
		for _, payload := range r.Payloads {
			var sent, received int
			for _, demand := range cfg.DemandsOf(payload) {
				for _, recovery := range cfg.Recoveries {
					row, err := measure(payload, demand, recovery)
					if err != nil {
						runErr = fmt.Errorf("%s: payload %d B, demand %d, recovery %d ms: %w", s.Type, payload, demand, recovery, err)
						break payloads
					}
					rows = append(rows, row)
					sent, received = sent+row.Sent, received+row.Received
					if r.Progress != nil {
						fmt.Fprintf(r.Progress, "%-32s %6d B  demand %6d  recovery %3d ms  sent %8d  received %8d  lost %7d  %10.3f Mb/s\n",
							s.Type, payload, demand, recovery, row.Sent, row.Received, row.Lost, row.SubMbps)
					}
				}
			}
			rec.Payloads = append(rec.Payloads, meta.Payload{Bytes: payload, Samples: received, Lost: uint64(sent - received), Completed: true})
		}
		rec.End = time.Now().UTC()
		rec.Completed = runErr == nil
		if runErr != nil {
			rec.Error = runErr.Error()
		}
		m.SubExperiments = append(m.SubExperiments, rec)
		if len(rows) > 0 {
			if err := WriteFiles(r.Dir, s.Type, rows); err != nil {
				return err
			}
		}
		if runErr != nil {
			return runErr
		}
		if err := meta.Write(metaPath, m); err != nil {
			return err
		}
	}
	return nil
}

// WriteFiles writes the measurements of sub-experiment typ into the
// experiment directory dir, their summary, and the scatter plots.
func WriteFiles(dir, typ string, rows []result.BurstRow) error {
	if err := result.WriteBurstFile(filepath.Join(dir, experiment.BurstFileName(typ)), rows); err != nil {
		return err
	}
	if err := result.WriteBurstFile(filepath.Join(dir, experiment.BurstSummaryFileName(typ)), result.BurstSummary(rows)); err != nil {
		return err
	}
	plotDir := experiment.BurstPlotsDir(dir, typ)
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return err
	}
	return plots.WriteBurstScatters(plotDir, rows, plots.FormatPNG)
}
