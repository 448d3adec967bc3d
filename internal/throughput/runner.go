package throughput

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Runner searches the best window of every payload of every
// sub-experiment and writes throughput_<type>.csv (Outcome.Row of each
// payload: the rate delivered at the chosen window) and
// throughput_<type>_search.csv (every step, its windows' statistics), and
// meta.json after each sub-experiment.
type Runner struct {
	Config   Config
	Payloads []int
	Dir      string
	Meta     *meta.Meta
	// Progress receives the search, a line per step (nil: quiet).
	Progress io.Writer

	// search is Search unless a test sets it.
	search func(MeasureFunc, Config, func(Step)) (Outcome, []Step, error)
}

// chosenPoint is the point a search of one payload measured again.
type chosenPoint struct {
	typ     string
	payload int
	choice  Choice
}

// choiceText says which point of the bracket the searches done so far
// measured again: the rule before the first, the one choice when all made
// it, else each choice with the payloads that made it.
func choiceText(chosen []chosenPoint) string {
	if len(chosen) == 0 {
		return "the chosen F (" + string(ChoiceMean) + ", or its best point when the bisection stopped within the noise)"
	}
	var order []Choice
	by := map[Choice][]string{}
	for _, c := range chosen {
		if _, ok := by[c.choice]; !ok {
			order = append(order, c.choice)
		}
		by[c.choice] = append(by[c.choice], fmt.Sprintf("%s %d B", c.typ, c.payload))
	}
	if len(order) == 1 {
		return string(order[0])
	}
	parts := make([]string, len(order))
	for i, c := range order {
		parts[i] = fmt.Sprintf("%s for %s", c, strings.Join(by[c], ", "))
	}
	return "the chosen F (" + strings.Join(parts, "; ") + ")"
}

// Run measures subs (their Links; one publisher, one subscriber each).
func (r *Runner) Run(ctx context.Context, subs []load.Sub) error {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	padding := string(cfg.Padding)
	if cfg.Padding == load.PaddingRandom {
		if cfg.PaddingSeed == 0 {
			cfg.PaddingSeed = rand.Uint64() | 1
		}
		padding += fmt.Sprintf(" (seed %d)", cfg.PaddingSeed)
	}
	var chosen []chosenPoint
	setMode := func() {
		r.Meta.Mode = fmt.Sprintf("throughput, bounded in-flight window searched 1, 10, … ≤ %d by the delivered rate (messages / measured time), then bisected to %g%% or until the bracket is within the noise (the scale's best F measured %d times); %s measured again %d times for the reported rate and its prediction interval, the bracket's ends once; windows ≥ %v, %d per measurement; messages padded after the header with %s",
			cfg.MaxF, 100*cfg.Precision, cfg.Periods, choiceText(chosen), cfg.Periods, cfg.MinWindow, cfg.Windows, padding)
	}
	setMode()
	r.Meta.Clock = "Go monotonic clock at delivery"
	return load.RunOneWay(ctx, r.Dir, r.Meta, r.Payloads, subs, "f", func(t *load.Trial) (func() error, error) {
		var best, steps []result.ThroughputRow
		write := func() error {
			if len(steps) > 0 {
				if err := result.WriteThroughputFile(filepath.Join(r.Dir, experiment.SearchFileName(t.Type)), steps); err != nil {
					return err
				}
			}
			if len(best) > 0 {
				return result.WriteThroughputFile(filepath.Join(r.Dir, experiment.ThroughputFileName(t.Type)), best)
			}
			return nil
		}
		for _, payload := range r.Payloads {
			measure := func(f int) (Point, error) {
				return load.WithEnds(t, payload, func(ends *load.Ends) (Point, error) { return Measure(ctx, ends, payload, f, cfg) })
			}
			report := func(st Step) {
				steps = append(steps, RowOf(st.Point))
				if r.Progress != nil {
					fmt.Fprintf(r.Progress, "%-32s %6d B  %-12s F = %-6d  delivered %12s msg/s  %9.3f Mb/s  (%s windows: median %s, mean %s, stdev %s; %s lost)\n",
						t.Type, payload, st.Phase, st.F, result.Thousands(st.DeliveredRate()), result.Mbps(st.DeliveredRate(), payload), result.Count(len(st.Samples)),
						result.Thousands(st.Median), result.Thousands(st.Mean), result.Thousands(st.Stdev), result.Count(st.Lost))
				}
			}
			search := r.search
			if search == nil {
				search = Search
			}
			o, _, err := search(measure, cfg, report)
			if err != nil {
				return write, fmt.Errorf("%s: payload %d B: %w", t.Type, payload, err)
			}
			best = append(best, o.Row())
			chosen = append(chosen, chosenPoint{typ: t.Type, payload: payload, choice: o.Choice})
			setMode()
			if r.Progress != nil {
				fmt.Fprintf(r.Progress, "%-32s %6d B  %s\n", t.Type, payload, o.Summary(payload))
			}
			t.Rec.Payloads = append(t.Rec.Payloads, meta.Payload{Bytes: payload, Samples: len(o.Windows.Samples), Lost: o.Windows.Lost,
				MessagesAcked: o.Windows.Acked, MessagesRefused: o.Windows.Refused, Completed: true})
		}
		return write, nil
	})
}
