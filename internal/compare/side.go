package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// isExperiment reports whether dir is one experiment (it holds summaries or
// raw measurements) rather than a folder of experiments.
func isExperiment(dir string) bool {
	if fs, tps, err := experiment.ResultFiles(dir); err != nil || len(fs) > 0 || len(tps) > 0 {
		return true // Load says what is wrong with it
	}
	if bs, err := experiment.BurstSummaryFiles(dir); err != nil || len(bs) > 0 {
		return true // one of burst summaries: "holds summaries itself" was said of it
	}
	fs, err := experiment.RawFiles(dir)
	return err != nil || len(fs) > 0
}

// LoadSide reads the runs of one side of a comparison: each of dirs is one
// experiment (experiment.Load) or a folder of experiments
// (experiment.LoadRoot, in name order), in the order given. It returns the
// warnings about entries skipped in folders.
func LoadSide(ctx context.Context, dirs []string) ([]*experiment.Experiment, []string, error) {
	var exps []*experiment.Experiment
	var warnings []string
	for _, d := range dirs {
		if exit.Cancelled(ctx) {
			return nil, warnings, ctx.Err()
		}
		if isExperiment(d) {
			e, err := experiment.Load(d)
			if err != nil {
				return nil, warnings, err
			}
			exps = append(exps, e)
			continue
		}
		es, ws, err := experiment.LoadRoot(ctx, d)
		warnings = append(warnings, ws...)
		if err != nil {
			return nil, warnings, err
		}
		exps = append(exps, es...)
	}
	return exps, warnings, nil
}

// sideText names the runs of one side for people: the directory of a single
// run, else "N runs (first … last)".
func (r *Result) sideText(exps []*experiment.Experiment) string {
	if len(exps) == 1 {
		return exps[0].Dir
	}
	return fmt.Sprintf("%d runs (%s … %s)", len(exps), exps[0].Dir, exps[len(exps)-1].Dir)
}

// inconclusiveSummary says how many checks could not be decided and how
// many more runs would decide them, for the error line.
func inconclusiveSummary(v *gate.Verdict) string {
	var more []int
	ungateable, undecidable := 0, 0
	var cols []string
	for _, c := range v.Checks {
		if c.Status != gate.Inconclusive || c.Stats == nil {
			continue
		}
		switch {
		case !c.Stats.Gateable:
			ungateable++
			if !slices.Contains(cols, c.Metric.Name) {
				cols = append(cols, c.Metric.Name)
			}
		case c.Stats.MoreRuns < 0:
			undecidable++
		default:
			more = append(more, c.Stats.MoreRuns)
		}
	}
	msg := fmt.Sprintf("inconclusive: %s could not be decided", plural(v.Inconclusive, "check"))
	var parts []string
	if len(more) > 0 {
		slices.Sort(more)
		half := more[(len(more)-1)/2]
		if half == more[len(more)-1] {
			parts = append(parts, fmt.Sprintf("≈ %d more %s per side would decide %s", half, runWord(half), plural(len(more), "check")))
		} else {
			parts = append(parts, fmt.Sprintf("≈ %d more %s per side would decide half of %s, ≈ %d all", half, runWord(half), plural(len(more), "check"), more[len(more)-1]))
		}
	}
	if undecidable > 0 {
		parts = append(parts, fmt.Sprintf("%s too close to the threshold to decide", plural(undecidable, "check")))
	}
	if ungateable > 0 {
		// --columns takes the latency columns alone: a throughput summary's
		// Messages/s is judged whenever one is compared.
		latency := slices.DeleteFunc(slices.Clone(cols), func(name string) bool {
			return !slices.ContainsFunc(result.CompareMetrics, func(m result.Metric) bool { return m.Name == name })
		})
		hint := "see each check, or leave the column out with --columns"
		switch {
		case len(latency) == 0:
			hint = "see each check: more runs per side"
		case len(latency) < len(cols):
			hint = "see each check, or leave " + strings.Join(latency, ", ") + " out with --columns"
		}
		parts = append(parts, fmt.Sprintf("%s not gateable with these runs (%s: %s)",
			plural(ungateable, "check"), strings.Join(cols, ", "), hint))
	}
	if len(parts) > 0 {
		msg += "; " + strings.Join(parts, "; ")
	}
	return msg
}
