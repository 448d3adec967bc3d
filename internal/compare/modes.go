package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/calibrate"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/numflag"
	"github.com/mqgate/mqgate/internal/pairing"
)

// The flags that only some modes use, by their first name.
var (
	thresholdFlags = []string{"fail-threshold", "threshold"}
	marginFlags    = []string{"pass-margin", "fail-margin"}
	calibrateOnly  = []string{"runs-per-side", "splits", "split", "factors", "thresholds"}
)

// given returns the first of flags given on the command line, or "".
func (inv Invocation) given(flags ...string) string {
	if i := slices.IndexFunc(flags, func(f string) bool { return inv.Given[f] }); i >= 0 {
		return flags[i]
	}
	return ""
}

// checkFlags refuses, before anything is read, a flag given explicitly
// that the mode asked for does not use (an explicit flag is never ignored
// silently), and margins that contradict each other. The flags whose use
// depends on the runs (the thresholds of the unpaired gates, the margins
// of the paired one) are checked by checkModeFlags once the runs are read.
func (inv Invocation) checkFlags(cfg Config) error {
	if f := inv.given("regression"); f != "" && !inv.Plan {
		return fmt.Errorf("--%s applies to --plan only (the regression the planned gate must fail); give --plan, or leave it out", f)
	}
	if f := inv.given(calibrateOnly...); f != "" && !inv.Calibrate {
		return fmt.Errorf("--%s applies to --calibrate only; give --calibrate, or leave it out", f)
	}
	if f := inv.given("seed"); f != "" && !inv.Calibrate && !inv.Plan {
		return fmt.Errorf("--%s applies to --calibrate and --plan only (the seed of their random splits or resamples); leave it out", f)
	}
	if inv.Calibrate {
		if err := calibrate.SplitFlagsUsed(inv.Split, inv.given("splits") != "", inv.given("seed") != ""); err != nil {
			return err
		}
		if f := inv.given(append([]string{"paired", "unpaired"}, marginFlags...)...); f != "" {
			return fmt.Errorf("--%s does not go with --calibrate, which calibrates the unpaired statistical gate of the pooled runs (--fail-threshold, --threshold)", f)
		}
	}
	if f := inv.given(marginFlags...); f != "" && inv.Unpaired {
		return fmt.Errorf("--%s does not go with --unpaired: the margins decide the paired gate; the unpaired gate decides by --fail-threshold and --threshold", f)
	}
	if f := inv.given(thresholdFlags...); f != "" && inv.Plan {
		return fmt.Errorf("--%s does not go with --plan: the paired gate it plans decides by --pass-margin and --fail-margin", f)
	}
	if m := cfg.Margins; m.Pass > m.Fail {
		return fmt.Errorf("--pass-margin %s above --fail-margin %s: a change between them would both pass and fail", numflag.Percent(m.Pass), numflag.Percent(m.Fail))
	}
	return nil
}

// checkModeFlags refuses a flag given explicitly that the mode the runs
// gave res does not use: --fail-threshold and --threshold in the paired
// mode (the margins decide it), the margins in the single-run and unpaired
// modes, --false-fail in the single-run mode.
func (inv Invocation) checkModeFlags(res *Result) error {
	switch res.Mode {
	case gate.ModePaired:
		if f := inv.given(thresholdFlags...); f != "" {
			why := "--paired"
			if s := res.Config.Series; s != nil {
				why = "the series file " + s.Path
			}
			return fmt.Errorf("--%s does not apply to the paired gate (the runs are paired by %s), which decides by --pass-margin and --fail-margin: "+
				"give those instead, or --unpaired for the threshold gate", f, why)
		}
	case gate.ModeSingleRun:
		if f := inv.given(append([]string{"false-fail"}, marginFlags...)...); f != "" {
			return fmt.Errorf("--%s does not apply with one run per side, which the single-run threshold rule decides (--fail-threshold, --threshold); "+
				"it applies to several runs per side", f)
		}
	default:
		if f := inv.given(marginFlags...); f != "" {
			return fmt.Errorf("--%s applies to the paired gate only, and these runs are compared unpaired: no series file of run ab (nor --paired) "+
				"says they were interleaved; give --paired or --series FILE if they were, else --fail-threshold and --threshold decide", f)
		}
	}
	return nil
}

// distinctDirs refuses a directory given twice, on one side or both
// (spelled differently or through a symbolic link): the same runs on both
// sides pass whatever they measured, and a run given twice counts twice.
func (inv Invocation) distinctDirs() error {
	seen := map[string]string{}
	for i, dirs := range [][]string{inv.Reference, inv.Results} {
		flag := []string{"--reference", "--results"}[i]
		for _, d := range dirs {
			key := clobber.Canonical(d)
			if prev, dup := seen[key]; dup {
				return fmt.Errorf("%s %s is %s again: compare needs different runs on the two sides, each given once", flag, d, prev)
			}
			seen[key] = flag + " " + d
		}
	}
	return nil
}

// distinctRuns refuses an experiment that is among the runs twice, on one
// side or both: given once directly and once through a folder of
// experiments, say, or copied (pairing.SameRun), which counted one run as
// two. It names the experiment and both sides.
func distinctRuns(refs, targets []*experiment.Experiment) error {
	seen := map[string]string{}
	var all []*experiment.Experiment
	for i, exps := range [][]*experiment.Experiment{refs, targets} {
		side := []string{"reference", "results"}[i]
		for _, e := range exps {
			key := clobber.Canonical(e.Dir)
			prev, dup := seen[key]
			copied := ""
			if j := slices.IndexFunc(all, func(o *experiment.Experiment) bool { return pairing.SameRun(o, e) }); !dup && j >= 0 {
				prev, dup = seen[clobber.Canonical(all[j].Dir)], true
				copied = ", a copy of the same run (the same meta.json: start, host and all)"
			}
			if dup {
				what := "on both sides"
				if strings.HasPrefix(prev, side+" ") {
					what = "twice on the " + side + " side"
				}
				return fmt.Errorf("experiment %s is given %s (%s and %s %s%s): compare needs different runs on the two sides, each given once",
					e.Dir, what, prev, side, e.Dir, copied)
			}
			seen[key] = side + " " + e.Dir
			all = append(all, e)
		}
	}
	return nil
}
