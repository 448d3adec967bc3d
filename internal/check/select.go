package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/requirements"
)

// selectSubs keeps, in the runs and the requirements, only the
// sub-experiments of cfg.SubExperiments (everything without it). A name
// that neither the runs nor the requirements hold is a usage error naming
// those they hold: a requirement the runs lack stays, so that it is a
// missing check as without -s.
func selectSubs(cfg Config, exps []*experiment.Experiment, reqs ...*[]requirements.KeyedRow) ([]*experiment.Experiment, error) {
	if len(cfg.SubExperiments) == 0 {
		return exps, nil
	}
	if err := checkSelection(cfg, experiment.Types(exps), "the runs", reqs...); err != nil {
		return nil, err
	}
	for _, rs := range reqs {
		if *rs != nil {
			*rs = slices.DeleteFunc(*rs, func(r requirements.KeyedRow) bool { return !slices.Contains(cfg.SubExperiments, r.Type) })
		}
	}
	return experiment.Only(exps, cfg.SubExperiments), nil
}

// plotsFolder returns, when dir is not an experiment but a plots folder
// (one that process or check wrote plots into), the error saying which
// folder to give instead; nil otherwise.
func plotsFolder(dir string) error {
	if holdsResults(dir) {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	parent := filepath.Dir(abs)
	if experiment.PlotsDir(parent) == abs && holdsResults(parent) {
		return exit.Usagef("%s is the plots folder of the experiment %s: give the experiment folder itself (--experiment-directory %s), which holds the summaries",
			dir, parent, filepath.Dir(filepath.Clean(dir)))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && (strings.HasPrefix(name, "measurements_") || strings.HasPrefix(name, "burst_") || strings.HasPrefix(name, "throughput_")) {
			return exit.Usagef("%s holds plots (%s/), not results: give the experiment folder that holds the summaries (measurements_<type>_summary.csv), not its plots folder",
				dir, name)
		}
	}
	return nil
}

// holdsResults reports whether dir holds meta.json or a raw file, summary,
// throughput or burst file: an experiment folder, processed or not.
func holdsResults(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, meta.FileName)); err == nil {
		return true
	}
	for _, list := range []func(string) ([]experiment.File, error){experiment.RawFiles, experiment.SummaryFiles, experiment.ThroughputFiles, experiment.BurstFiles} {
		if files, err := list(dir); err == nil && len(files) > 0 {
			return true
		}
	}
	return false
}

// checkSelection refuses a name of cfg.SubExperiments that is not among
// the sub-experiments known, which what (the runs, the burst summaries)
// holds, and those of reqs.
func checkSelection(cfg Config, known []string, what string, reqs ...*[]requirements.KeyedRow) error {
	for _, rs := range reqs {
		for _, r := range *rs {
			known = append(known, r.Type)
		}
	}
	slices.Sort(known)
	if err := experiment.CheckSelection(cfg.SubExperiments, slices.Compact(known)); err != nil {
		return exit.Usagef("--subexperiments: %v (in %s and the requirements)", err, what)
	}
	return nil
}
