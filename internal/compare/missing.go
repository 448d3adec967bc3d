package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/report"
)

// A sub-experiment on one side only is handled the same way in both
// directions: it is an error (or a failure) unless --allow-missing is
// given. One the results lost fails the gate (a Missing check), since what
// was measured before is no longer; with --allow-missing it neither passes
// nor fails. One the results gained (new in the candidate) cannot be
// compared at all: an input error naming -s and --allow-missing as the
// ways forward, or with --allow-missing a note that it is new and not
// compared.

// noReference is what becomes of the results' sub-experiment what (a type,
// or "throughput of <type>"), read from path, whose file name in the
// reference would be file: with AllowMissing it is recorded as new (nil);
// else the input error.
func (r *Result) noReference(what, path, file string) error {
	if r.Config.AllowMissing {
		if !slices.Contains(r.New, what) {
			r.New = append(r.New, what)
			slices.Sort(r.New)
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is new in the results and not compared: the reference %s has no %s (--allow-missing)",
				subText(what), r.Reference.Dir, file))
		}
		return nil
	}
	both := "none"
	if common := commonTypes(r.References, r.Targets); len(common) > 0 {
		both = strings.Join(common, ",")
	}
	return fileerr.New(path, 0, "", "%s has no reference: expected %s in %s; compare only the sub-experiments both sides hold with -s/--subexperiments (both hold: %s), or give --allow-missing to report it as new and not compared",
		subText(what), file, r.Reference.Dir, both)
}

// subText names a sub-experiment, or "throughput of <type>", in messages.
func subText(what string) string {
	if typ, ok := strings.CutPrefix(what, "throughput of "); ok {
		return fmt.Sprintf("throughput of sub-experiment %q", typ)
	}
	return fmt.Sprintf("sub-experiment %q", what)
}

// commonTypes lists, sorted, the sub-experiments that every run of both
// sides holds.
func commonTypes(refs, tgts []*experiment.Experiment) []string {
	var common []string
	for _, typ := range experiment.Types(refs[:1]) {
		all := true
		for _, e := range slices.Concat(refs, tgts) {
			all = all && slices.Contains(experiment.Types([]*experiment.Experiment{e}), typ)
		}
		if all {
			common = append(common, typ)
		}
	}
	return common
}

// selectSubs keeps, on both sides, only the sub-experiments that
// -s/--subexperiments names (all without it); a name neither side holds is
// an error naming those they hold.
func (inv Invocation) selectSubs(refs, targets []*experiment.Experiment) ([]*experiment.Experiment, []*experiment.Experiment, error) {
	if inv.SubExperiments == "" && !inv.Given["subexperiments"] {
		return refs, targets, nil
	}
	names, err := experiment.ParseSubExperiments(inv.SubExperiments)
	if err != nil {
		return nil, nil, fmt.Errorf("--subexperiments %w", err)
	}
	all, err := experiment.Select(slices.Concat(refs, targets), names)
	if err != nil {
		return nil, nil, fmt.Errorf("--subexperiments: %w", err)
	}
	return all[:len(refs)], all[len(refs):], nil
}

// required refuses a call without the flags every mode needs, naming them
// in the order a comparison is read: the runs first (--reference,
// --results), then where its files go (--plots-directory).
func (inv Invocation) required() error {
	var missing []string
	for _, side := range []struct {
		name string
		dirs []string
	}{{"reference", inv.Reference}, {"results", inv.Results}} {
		if len(side.dirs) == 0 && !inv.Calibrate {
			if inv.Plan {
				return exit.Usagef("--plan needs A/A pairs: unchanged runs interleaved as run ab writes them, given with --reference and --results")
			}
			missing = append(missing, "--"+side.name+" DIR")
		}
		for _, d := range side.dirs {
			if d == "" {
				return exit.Usagef("--%s is empty: expected a directory", side.name)
			}
		}
	}
	if inv.PlotsDirectory == "" {
		if inv.Given["plots-directory"] {
			return exit.Usagef("--plots-directory is empty: expected a directory")
		}
		missing = append(missing, "--plots-directory DIR")
	}
	// A file flag given an empty value (an unset variable in a CI script,
	// --junit "$REPORT") read as not given: no report written, exit 0.
	files := map[string]string{"html": inv.HTML, "series": inv.Series}
	for _, f := range report.Formats {
		files[f.Flag] = inv.Reports[f.Flag]
	}
	for _, flag := range slices.Sorted(maps.Keys(files)) {
		if files[flag] == "" && inv.Given[flag] {
			return exit.Usagef("--%s is empty: expected a file (an unset variable?); leave the flag out when there is none", flag)
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return exit.Usagef("%s is required (see 'compare --help')", missing[0])
	}
	return exit.Usagef("%s and %s are required (see 'compare --help')", strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1])
}
