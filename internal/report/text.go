package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/mqgate/mqgate/internal/gate"
)

// Text writes the console report: per sub-experiment a status line and one
// indented line per check that did not pass, then the totals and warnings.
func Text(w io.Writer, v *gate.Verdict) error {
	bw := bufio.NewWriter(w)
	for _, l := range Basis(v) {
		fmt.Fprintln(bw, l)
	}
	failedSubs := 0
	subs := v.SubExperiments()
	for _, sub := range subs {
		s := v.SubStatus(sub)
		if s == gate.Failed {
			failedSubs++
		}
		fmt.Fprintf(bw, "%-40s [%s]\n", sub, statusWord(s))
		for _, c := range v.Checks {
			if c.SubExperiment == sub && c.Status != gate.Passed {
				fmt.Fprintf(bw, "    %s: %s\n", checkStatus(v, c), c.Message)
			}
		}
	}
	fmt.Fprintln(bw, "----------------------------")
	fmt.Fprintf(bw, "%.3f%% checks passed: (%d/%d)", percentPassed(v), v.Passed, len(v.Checks))
	if v.Failed+v.Missing+v.Inconclusive > 0 {
		fmt.Fprintf(bw, "; %d failed, %d missing, %d inconclusive", v.Failed, v.Missing, v.Inconclusive)
	}
	fmt.Fprintln(bw)
	for _, msg := range v.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", msg)
	}
	switch v.Status {
	case gate.Passed:
		fmt.Fprintf(bw, "%s PASSED\n", v.Tool)
	case gate.Inconclusive:
		fmt.Fprintf(bw, "%s INCONCLUSIVE: more runs are needed to decide\n", v.Tool)
	default:
		fmt.Fprintf(bw, "%s FAILED: %d of %d sub-experiments did not pass\n", v.Tool, failedSubs, len(subs))
	}
	return bw.Flush()
}
