package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ParseSubExperiments reads a comma-separated list of sub-experiment names,
// as the tools' -s/--subexperiments flag takes it: names trimmed, each once,
// in the order given. An empty list, or an empty name in it, is an error.
func ParseSubExperiments(list string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, fmt.Errorf("%q: expected comma-separated sub-experiment names, e.g. interprocess_reliable,intraprocess_reliable", list)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// Types lists, sorted, the sub-experiments of which exps hold a summary,
// throughput summary or burst summary.
func Types(exps []*Experiment) []string {
	types := map[string]bool{}
	for _, e := range exps {
		for _, s := range e.Summaries {
			types[s.Type] = true
		}
		for _, t := range e.Throughputs {
			types[t.Type] = true
		}
		for _, b := range e.Bursts {
			types[b.Type] = true
		}
	}
	return slices.Sorted(maps.Keys(types))
}

// CheckSelection reports the first of names that is not among known (the
// sub-experiments found), naming those found.
func CheckSelection(names, known []string) error {
	for _, n := range names {
		if slices.Contains(known, n) {
			continue
		}
		found := "none"
		if len(known) > 0 {
			found = strings.Join(known, ", ")
		}
		return fmt.Errorf("unknown sub-experiment %q: the sub-experiments found are %s", n, found)
	}
	return nil
}

// Select returns exps with only the files of the sub-experiments named
// (every file when names is empty), as copies: exps are left as they are.
// A name that no experiment holds is an error naming those they hold.
func Select(exps []*Experiment, names []string) ([]*Experiment, error) {
	if len(names) == 0 {
		return exps, nil
	}
	if err := CheckSelection(names, Types(exps)); err != nil {
		return nil, err
	}
	return Only(exps, names), nil
}

// Only returns copies of exps holding only the files of the sub-experiments
// named; exps are left as they are.
func Only(exps []*Experiment, names []string) []*Experiment {
	out := make([]*Experiment, len(exps))
	for i, e := range exps {
		c := *e
		c.Summaries = keep(e.Summaries, names, func(s Summary) string { return s.Type })
		c.Throughputs = keep(e.Throughputs, names, func(t Throughput) string { return t.Type })
		c.Bursts = keep(e.Bursts, names, func(b Burst) string { return b.Type })
		out[i] = &c
	}
	return out
}

// keep returns the tables whose type is among names, in their order.
func keep[T any](tables []T, names []string, typ func(T) string) []T {
	var out []T
	for _, t := range tables {
		if slices.Contains(names, typ(t)) {
			out = append(out, t)
		}
	}
	return out
}
