package burst

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
func (r *Runner) Run(ctx context.Context, subs []load.Sub) error {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	r.Meta.Mode = fmt.Sprintf("burst (Fast-RTPS throughput): bursts of %s, recovery times %v ms, test time %v, in-flight wait %v",
		demandsText(cfg, r.Payloads), cfg.Recoveries, cfg.TestTime, cfg.Timeout)
	r.Meta.Clock = "Go monotonic clock at delivery"
	return load.RunOneWay(ctx, r.Dir, r.Meta, r.Payloads, subs, "b", func(t *load.Trial) (func() error, error) {
		var rows []result.BurstRow
		write := func() error {
			if len(rows) == 0 {
				return nil
			}
			return WriteFiles(r.Dir, t.Type, rows)
		}
		for _, payload := range r.Payloads {
			var sent, received int
			for _, demand := range cfg.DemandsOf(payload) {
				for _, recovery := range cfg.Recoveries {
					row, err := load.WithEnds(t, payload, func(ends *load.Ends) (result.BurstRow, error) {
						return Measure(ctx, ends, payload, demand, recovery, cfg)
					})
					if err != nil {
						return write, fmt.Errorf("%s: payload %d B, demand %d, recovery %d ms: %w", t.Type, payload, demand, recovery, err)
					}
					rows = append(rows, row)
					sent, received = sent+row.Sent, received+row.Received
					if r.Progress != nil {
						fmt.Fprintf(r.Progress, "%-32s %6d B  demand %6d  recovery %3d ms  sent %10s  received %10s  lost %9s  %10.3f Mb/s\n",
							t.Type, payload, demand, recovery, result.Count(row.Sent), result.Count(row.Received), result.Count(row.Lost), row.SubMbps)
					}
				}
			}
			t.Rec.Payloads = append(t.Rec.Payloads, meta.Payload{Bytes: payload, Samples: received, Lost: uint64(sent - received), Completed: true})
		}
		return write, nil
	})
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

// demandsText names the bursts measured: per payload when a demands file
// gave them (the defaults were named, which were not measured), else the
// list every payload uses.
func demandsText(cfg Config, payloads []int) string {
	if len(cfg.PayloadDemands) == 0 {
		return fmt.Sprint(cfg.Demands) + " samples"
	}
	parts := make([]string, len(payloads))
	for i, p := range payloads {
		parts[i] = fmt.Sprintf("%v samples at %d B", cfg.DemandsOf(p), p)
	}
	return strings.Join(parts, ", ")
}
