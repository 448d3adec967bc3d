package requirements

import (
	"context"

	"github.com/mqgate/mqgate/internal/experiment"
)

// Input is what requirements are derived from: the experiments under a
// results root, admitted together (experiment.Admit).
type Input struct {
	// Experiments in name order.
	Experiments []*experiment.Experiment
	// Latency is the latency definition they share (formats §2).
	Latency string
	// Warnings name the entries skipped and the incomplete experiments
	// admitted.
	Warnings []string
}

// Load reads every experiment folder under root (experiment.LoadRoot) and
// admits them together: an incomplete run is an error unless
// allowIncomplete, and so are experiments with different latency
// definitions.
func Load(ctx context.Context, root string, allowIncomplete bool) (*Input, error) {
	exps, warnings, err := experiment.LoadRoot(ctx, root)
	if err != nil {
		return nil, err
	}
	for _, e := range exps {
		warnings = append(warnings, e.Warnings...)
	}
	latency, more, err := experiment.Admit(exps, allowIncomplete)
	if err != nil {
		return nil, err
	}
	return &Input{Experiments: exps, Latency: latency, Warnings: append(warnings, more...)}, nil
}

// Observations returns the Median, 99% and Max of every payload of every
// summary, experiment by experiment.
func (in *Input) Observations() []Observation {
	var obs []Observation
	for _, e := range in.Experiments {
		for _, s := range e.Summaries {
			for _, r := range s.Rows {
				obs = append(obs, Observation{Experiment: e.Name, Type: s.Type, Bytes: r.Bytes, Median: r.Median, P99: r.P99, Max: r.Max})
			}
		}
	}
	return obs
}
