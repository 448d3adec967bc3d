package check

import (
	"fmt"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// Tool is the name check verdicts carry.
const Tool = "check"

// referenceName is what a check's reference is, in messages and reports.
const referenceName = "requirement"

// Evaluate checks every summary against reqs and returns the unfinished
// verdict (call Finish after adding any warnings). Checks come grouped by
// sub-experiment: first those with a summary, in the order given, then the
// required sub-experiments without one, sorted. Within a sub-experiment they
// come check by check (every payload's Median, then 99%, then Max) with
// payloads ascending, as in the check report (formats §4).
//
// columns are the checked columns (nil: all), as in EvaluateRuns.
func Evaluate(reqs []requirements.KeyedRow, sums []experiment.Summary, columns ...result.Metric) *gate.Verdict {
	run := &experiment.Experiment{Summaries: sums}
	return evaluate(reqs, []*experiment.Experiment{run}, columns, 0, true,
		func(typ string, b int, _ []string) string {
			if run.Summary(typ) != nil {
				return fmt.Sprintf("required, but the summary of %s has no %d-byte row", typ, b)
			}
			return "required, but the experiment has no summary for " + typ
		})
}
