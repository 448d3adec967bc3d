package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// Markdown writes v as GitHub-flavoured Markdown for a pull-request comment
// or a CI job summary: a one-line verdict heading, the counts, warnings, a
// table of the checks that did not pass, and the passed checks folded away
// in a <details> block.
func Markdown(w io.Writer, v *gate.Verdict) error {
	bw := bufio.NewWriter(w)
	if v.Status == gate.NoVerdict {
		fmt.Fprintf(bw, "### %s %s: %s\n\n", mdIcons[v.Status], v.Tool, statusWord(v.Status))
		if v.Subject != "" || v.Baseline != "" {
			fmt.Fprintf(bw, "`%s` against `%s`\n\n", mdEscape(v.Subject), mdEscape(v.Baseline))
		}
		fmt.Fprintf(bw, "%s\n", mdEscape(v.Error))
		return bw.Flush()
	}
	fmt.Fprintf(bw, "### %s %s %s: %d of %d checks passed\n\n", mdIcons[v.Status], v.Tool, statusWord(v.Status), v.Passed, len(v.Checks))
	if v.Subject != "" || v.Baseline != "" {
		fmt.Fprintf(bw, "`%s` against `%s` — ", mdEscape(v.Subject), mdEscape(v.Baseline))
	}
	fmt.Fprintf(bw, "%d failed, %d missing, %d inconclusive\n\n", v.Failed, v.Missing, v.Inconclusive)
	if m := modeLine(v); m != "" {
		fmt.Fprintf(bw, "_%s_\n\n", mdEscape(m))
	}
	if ls := decisionLines(v); len(ls) > 0 {
		for _, l := range ls {
			fmt.Fprintf(bw, "- %s\n", mdEscape(l))
		}
		fmt.Fprintln(bw)
	}
	for _, msg := range v.Warnings {
		fmt.Fprintf(bw, "> ⚠️ %s\n", mdEscape(msg))
	}
	if len(v.Warnings) > 0 {
		fmt.Fprintln(bw)
	}
	cs := ordered(v)
	n := 0
	for n < len(cs) && cs[n].Status != gate.Passed {
		n++
	}
	if n > 0 {
		table(bw, v, cs[:n])
		fmt.Fprintln(bw)
	}
	if n < len(cs) {
		fmt.Fprintf(bw, "<details><summary>%d passed checks</summary>\n\n", len(cs)-n)
		table(bw, v, cs[n:])
		fmt.Fprintf(bw, "\n</details>\n")
	}
	return bw.Flush()
}

// table lists checks, one a row. A limit that is the reference itself (no
// threshold, as for requirements) is named after it: "Requirement", "Over
// requirement" ("Below requirement" for throughput, limitNames).
func table(w io.Writer, v *gate.Verdict, cs []gate.Check) {
	limit, over := limitNames(v, cs)
	stat := statistical(v)
	head, align := " vs "+v.RefName()+" |", "---:|"
	if stat {
		// One estimate: the ratio the rule read, not also the ratio of
		// the two sides' values.
		head, align = " Ratio | Interval | p | Runs |", "---:|---|---|---:|"
	}
	fmt.Fprintf(w, "| Status | Sub-experiment | Bytes | Metric | Value | %s | %s |%s\n", limit, over, head)
	fmt.Fprintf(w, "|---|---|---:|---|---:|---:|---:|%s\n", align)
	for _, c := range cs {
		fmt.Fprintf(w, "| %s %s | %s | %s | %s | %s | %s | %s |",
			mdIcons[outcome(v, c)], checkStatus(v, c), mdEscape(c.SubExperiment), payloadText(c.Payload), mdEscape(metricText(c.Metric)),
			valueText(c, c.Value), valueText(c, c.Limit), signed3(c.Margin))
		if stat {
			ratio, interval, p, runs := Evidence(c)
			fmt.Fprintf(w, " %s | %s | %s | %s |", ratio, interval, p, runs)
		} else {
			fmt.Fprintf(w, " %s |", mdEscape(c.PercentText(v.RefName())))
		}
		fmt.Fprintln(w)
	}
	if ns := Notes(cs); len(ns) > 0 {
		fmt.Fprintln(w)
		for _, n := range ns {
			fmt.Fprintf(w, "- %s\n", mdEscape(n))
		}
	}
}

// mdIcons mark verdicts and checks by status (outcome).
var mdIcons = map[gate.Status]string{gate.Passed: "✅", gate.Failed: "❌", gate.Inconclusive: "❔", gate.NoVerdict: "⛔"}

func withUnit(s, unit string) string {
	if s == "n/a" {
		return s
	}
	return s + " " + result.UnitText(unit)
}

// mdEscape keeps user text from breaking a table row.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
