package requirements

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// PrintThroughputTable writes throughput requirements for people: the
// lower limits, the runs behind them and the chance that an unchanged
// system falls below each on its next run.
func PrintThroughputTable(w io.Writer, reqs []ThroughputRequirement, percentile bool, p float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-58s %8s %16s %5s  %s\n", "Throughput (higher is better)", "Bytes", "Min [msg/s]", "Runs", "Chance an unchanged run fails the check; candidate runs needed to fail")
	for _, r := range reqs {
		fmt.Fprintf(bw, "%-58s %8d %16.3f %5d  %.3g%%; %s\n", result.ThroughputLabel(r.Type, r.Key), r.Key.Payload, r.Limits[result.MessageRate.Name], r.N,
			100*r.FailChance, needText(r.NeedRuns))
	}
	if percentile {
		fmt.Fprintf(bw, "Mode: percentile: each limit is the %s percentile of the runs' Median [msg/s] (the low end, as latency takes the %s).\n", Ordinal(100-p), Ordinal(p))
	} else if len(reqs) > 0 {
		st := reqs[0].Stat
		fmt.Fprintf(bw, "Mode: statistical (%s), %s per check; with the latency requirements derived with them, an unchanged system fails a whole check with chance ≤ %s.\n",
			st.Method, pct(st.CheckLevel), pct(st.FalseFail))
	}
	return bw.Flush()
}

// PrintTable writes d for people: the requirements with their backing and
// failure chances, then the chance that a whole check fails.
func PrintTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %12s %12s %12s %5s %6s  %s\n",
		"Experiment type", "Bytes", "Median [µs]", "99% [µs]", "Max [µs]", "Runs", "Rank", "Chance an unchanged system fails each check")
	for _, r := range d.Requirements {
		chance := fmt.Sprintf("%5.1f%% (1 run in %.1f)", r.FailChance*100, 1/r.FailChance)
		if r.FailChanceMin != r.FailChanceMax {
			chance += fmt.Sprintf(", between %.1f%% and %.1f%%", r.FailChanceMin*100, r.FailChanceMax*100)
		}
		fmt.Fprintf(bw, "%-40s %8d %12.3f %12.3f %12.3f %5d %6.2f  %s\n",
			r.Type, r.Key.Payload, r.Limits[metricNames[0]], r.Limits[metricNames[1]], r.Limits[metricNames[2]], r.N, r.Rank, chance)
	}
	n := len(d.Requirements) * checksPerRequirement
	fmt.Fprintf(bw, "Chance that a check of an unchanged system fails at least one of its %d checks: %.1f%%", n, d.CheckFailChance*100)
	if d.CheckFailChance > 0 && d.CheckFailChance < 1 {
		fmt.Fprintf(bw, " (1 run in %.1f)", 1/d.CheckFailChance)
	}
	fmt.Fprintln(bw, "\n(assuming checks fail independently; checks of one run are usually positively correlated, which makes the true chance lower)")
	return bw.Flush()
}

// PrintStatTable writes a statistical derivation for people: per
// requirement its limits, runs and, per column, the method used (L
// log-normal, O distribution-free) and the candidate runs a check needs
// before it can fail; then the family-wise statement.
func PrintStatTable(w io.Writer, d *Derivation) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%-40s %8s %12s %12s %12s %5s  %s\n",
		"Experiment type", "Bytes", "Median [µs]", "99% [µs]", "Max [µs]", "Runs", "Method, candidate runs needed to fail (Median; 99%; Max)")
	gateable := 0
	for _, r := range d.Requirements {
		var cols []string
		for i, f := range r.Stat.Fits {
			tag := "O"
			if f.Method == gate.MethodLogNormal {
				tag = "L"
			}
			if r.NeedRuns[i] == 1 {
				gateable++
			}
			cols = append(cols, tag+" "+needText(r.NeedRuns[i]))
		}
		fmt.Fprintf(bw, "%-40s %8d %12.3f %12.3f %12.3f %5d  %s\n", r.Type, r.Key.Payload, r.Limits[metricNames[0]], r.Limits[metricNames[1]], r.Limits[metricNames[2]], r.N, strings.Join(cols, "; "))
	}
	m := len(d.Requirements) * checksPerRequirement
	method := "distribution-free (order statistics; runs assumed exchangeable)"
	if d.Mode == gate.MethodLogNormal {
		method = "log-normal prediction bounds where the runs can back the check level (≥ 1/(n+1)) and Shapiro–Wilk does not reject, distribution-free elsewhere"
	}
	fmt.Fprintf(bw, "Mode: statistical, %s.\n", method)
	if ranks := rankText(d); ranks != "" {
		fmt.Fprintf(bw, "Distribution-free limits: %s.\n", ranks)
	}
	fmt.Fprintf(bw, "An unchanged system fails a whole check with chance ≤ %s: Bonferroni over the %d checks, %s each.\n",
		pct(d.FalseFail), m, pct(d.CheckLevel))
	fmt.Fprintf(bw, "%d of %d checks can fail on a single candidate run; the others need the candidate runs listed, all above the limit (L: log-normal, O: distribution-free).\n", gateable, m)
	return bw.Flush()
}

// needText writes the candidate runs a check needs before it can fail,
// a negative count (no number found) as ">100000".
func needText(k int) string {
	if k < 0 {
		return ">100000"
	}
	return strconv.Itoa(k)
}

// rankText says which order statistic the distribution-free limits of d
// are where one is not the largest run ("the 2nd largest of 20 runs"),
// "" when every one is.
func rankText(d *Derivation) string {
	var parts []string
	for _, r := range d.Requirements {
		if r.Stat == nil {
			continue
		}
		for _, f := range r.Stat.Fits {
			part := fmt.Sprintf("the %s of %d runs", largest(f.rank()), r.N)
			if f.Method == gate.MethodOrder && f.rank() > 1 && !slices.Contains(parts, part) {
				parts = append(parts, part)
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (the runs' 90th percentile unless --order-rank asked another rank; formats §11)"
}
