package throughput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Runner searches the best window of every payload of every
// sub-experiment and writes throughput_<type>.csv (the best window of each
// payload) and throughput_<type>_search.csv (every step), and meta.json
// after each sub-experiment.
type Runner struct {
	Config   Config
	Payloads []int
	Dir      string
	Meta     *meta.Meta
	// Progress receives the search, a line per step (nil: quiet).
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
	m.Mode = fmt.Sprintf("throughput, bounded in-flight window searched 1, 10, … ≤ %d then bisected to %g%%, the bracket's mean and ends measured again for the reported figure; windows ≥ %v, %d per measurement",
		cfg.MaxF, 100*cfg.Precision, cfg.MinWindow, cfg.Windows)
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
		var best []result.ThroughputRow
		var steps []result.ThroughputRow
		var runErr error
		for _, payload := range r.Payloads {
			step := 0
			measure := func(f int) (Point, error) {
				step++
				links := s.Links
				links.Publish.Topic = fmt.Sprintf("%s-f%d", links.Publish.Topic, step)
				links.Subscribe.Topic = links.Publish.Topic
				ends, err := links.Open(ctx, tp, payload)
				if err != nil {
					if ctx.Err() != nil {
						return Point{}, load.ErrInterrupted
					}
					return Point{}, fmt.Errorf("cannot connect: %w", err)
				}
				defer ends.Close()
				if ir, ok := ends.Pubs[0].Senders[0].(driver.InfoReporter); ok && rec.System == nil {
					info := ir.SystemInfo()
					rec.System = &meta.SystemInfo{Product: info.Product, Version: info.Version, URL: driver.RedactURL(info.URL),
						Embedded: s.Embedded || info.Embedded, Extra: info.Extra}
				}
				_, rec.Acknowledged = ends.Pubs[0].Senders[0].(driver.AckSender)
				return Measure(ctx, ends, payload, f, cfg)
			}
			report := func(st Step) {
				steps = append(steps, RowOf(st.Point))
				if r.Progress != nil {
					fmt.Fprintf(r.Progress, "%-32s %6d B  %-12s F = %-6d  median %12.0f msg/s  %9.3f Mb/s  (mean %.0f, stdev %.0f, %d windows, %d lost)\n",
						s.Type, payload, st.Phase, st.F, st.Median, result.Mbps(st.Median, payload), st.Mean, st.Stdev, len(st.Samples), st.Lost)
				}
			}
			o, _, err := Search(measure, cfg, report)
			if err != nil {
				runErr = fmt.Errorf("%s: payload %d B: %w", s.Type, payload, err)
				break
			}
			b := o.Confirmed
			best = append(best, RowOf(b))
			if r.Progress != nil {
				fmt.Fprintf(r.Progress, "%-32s %6d B  %s\n", s.Type, payload, o.Summary(payload))
			}
			rec.Payloads = append(rec.Payloads, meta.Payload{Bytes: payload, Samples: len(b.Samples), Lost: b.Lost, Completed: true})
		}
		rec.End = time.Now().UTC()
		rec.Completed = runErr == nil
		if runErr != nil {
			rec.Error = runErr.Error()
		}
		m.SubExperiments = append(m.SubExperiments, rec)
		if len(steps) > 0 {
			if err := result.WriteThroughputFile(filepath.Join(r.Dir, SearchFileName(s.Type)), steps); err != nil {
				return err
			}
		}
		if len(best) > 0 {
			if err := result.WriteThroughputFile(filepath.Join(r.Dir, experiment.ThroughputFileName(s.Type)), best); err != nil {
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
