package experiment

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mqgate/mqgate/internal/meta"
)

// AllowIncompleteFlag is the flag, common to every tool that reads
// experiments, that admits incomplete runs.
const AllowIncompleteFlag = "--allow-incomplete"

// Admit applies the rules every tool shares to exps, the experiments it is
// about to use together, and returns their common latency definition and
// warnings:
//
//   - a run that did not complete (meta.json "completed": false) is an error,
//     or, with allowIncomplete, a warning naming it: an interrupted run may
//     lack sub-experiments, payloads or samples, and must not pass a gate or
//     feed a requirement unnoticed;
//   - experiments with different latency definitions (formats §2) are an
//     error: half a round trip against a whole one is not a regression.
func Admit(exps []*Experiment, allowIncomplete bool) (latency string, warnings []string, err error) {
	warnings, err = Incomplete(exps, allowIncomplete)
	if err == nil {
		latency, err = SameLatency(exps)
	}
	if err != nil {
		return "", nil, err
	}
	return latency, warnings, nil
}

// Incomplete returns an error naming every incomplete experiment of exps,
// or, with allow, one warning for each.
func Incomplete(exps []*Experiment, allow bool) (warnings []string, err error) {
	var errs []error
	for _, e := range exps {
		why := e.Incompleteness()
		if why == "" {
			continue
		}
		if allow {
			warnings = append(warnings, fmt.Sprintf("experiment %s is incomplete (%s), used anyway because of %s: its values may lack sub-experiments, payloads or samples",
				e.Dir, why, AllowIncompleteFlag))
			continue
		}
		errs = append(errs, fmt.Errorf("experiment %s is incomplete (%s): its summaries may lack sub-experiments, payloads or samples; run it again, or pass %s to use it anyway",
			e.Dir, why, AllowIncompleteFlag))
	}
	return warnings, errors.Join(errs...)
}

// SameLatency returns the latency definition all of exps share, or an error
// listing which experiments use which. Experiments without latency
// summaries (throughput only) have no latencies to mix and are left out;
// when no experiment has any, it is the first one's definition.
func SameLatency(exps []*Experiment) (string, error) {
	if len(exps) == 0 {
		return meta.LatencyHalfRTT, nil
	}
	var defs []string
	by := map[string][]string{}
	for _, e := range exps {
		if len(e.Summaries) == 0 {
			continue
		}
		if _, ok := by[e.Latency]; !ok {
			defs = append(defs, e.Latency)
		}
		name := e.Dir
		switch {
		case e.LatencyStated:
		case e.Meta == nil:
			name += " (no meta.json: half-rtt, as Fast-RTPS)"
		default:
			name += " (meta.json states no latency: half-rtt)"
		}
		by[e.Latency] = append(by[e.Latency], name)
	}
	switch len(defs) {
	case 0:
		return exps[0].Latency, nil
	case 1:
		return defs[0], nil
	}
	parts := make([]string, len(defs))
	for i, d := range defs {
		parts[i] = fmt.Sprintf("%s (%s): %s", d, LatencyMeaning(d), JoinNames(by[d], 5))
	}
	return "", fmt.Errorf("the experiments measure latency differently, so their values cannot be compared (formats §2): %s; use experiments run with the same --latency",
		strings.Join(parts, "; "))
}

// MatchLatency returns an error when the latency definition of what
// (e.g. "the requirements file x.csv") differs from that of the
// experiments, which is latency.
func MatchLatency(what, theirs, latency string) error {
	if theirs == latency {
		return nil
	}
	return fmt.Errorf("%s holds %s latencies (%s) but the experiments measure %s (%s), so their values cannot be compared (formats §2)",
		what, theirs, LatencyMeaning(theirs), latency, LatencyMeaning(latency))
}

// LatencyMeaning says in words what a latency definition measures.
func LatencyMeaning(def string) string {
	switch def {
	case meta.LatencyHalfRTT:
		return "half the round trip"
	case meta.LatencyRTT:
		return "the whole round trip"
	case meta.LatencyOneWay:
		return "sender to receiver"
	}
	return "unknown"
}

// JoinNames joins at most max names, saying how many more there are
// ("a, b and 3 more").
func JoinNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}
