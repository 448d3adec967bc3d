package check

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// EvaluateThroughput judges the throughput rows of runs against the
// throughput requirements reqs (formats §4, §11), lowered by margin: a
// value below its requirement fails. One run against percentile
// requirements with no margin is the plain rule (gate.Evaluate); otherwise
// requirements.Judge, three-valued. A requirement whose row the
// runs lack (another payload or offered rate) is a missing check naming
// what was measured instead, and so is a measured row without requirement.
func EvaluateThroughput(reqs []requirements.KeyedRow, runs []*experiment.Experiment, margin float64) []ThroughputCheck {
	var checks []ThroughputCheck
	add := func(typ string, k result.Key, c gate.Check) {
		checks = append(checks, ThroughputCheck{Type: typ, Key: k, Check: c})
	}
	plain := plainRule(reqs, len(runs), margin)
	required := map[string]bool{}
	m := result.MessageRate
	for _, r := range reqs {
		label, l := result.ThroughputLabel(r.Type, r.Key), r.Limit(m)
		required[label+fmt.Sprint(r.Key.Payload)] = true
		values, lacking := runValues(runs, func(e *experiment.Experiment) *experiment.Throughput { return e.Throughput(r.Type) },
			r.Key, m, func(e *experiment.Experiment) string { return e.Dir })
		if len(lacking) > 0 {
			add(r.Type, r.Key, gate.MissingCheck(label, r.Key.Payload, m, l.Value, math.NaN(),
				fmt.Sprintf("%s: no measurement in %s (%s)%s", r.Key, strings.Join(lacking, ", "), experiment.ThroughputFileName(r.Type), measuredInstead(runs, r))))
			continue
		}
		add(r.Type, r.Key, judgeLimit(label, r.Key.Payload, r.Key.String(), l, values, margin, plain))
	}
	for _, e := range runs {
		for _, t := range e.Throughputs {
			for _, row := range t.Rows {
				k := row.Key()
				label := result.ThroughputLabel(t.Type, k)
				if required[label+fmt.Sprint(k.Payload)] {
					continue
				}
				required[label+fmt.Sprint(k.Payload)] = true
				add(t.Type, k, gate.MissingCheck(label, k.Payload, m, math.NaN(), row.Median,
					fmt.Sprintf("%s: no throughput requirement for it", k)))
			}
		}
	}
	return checks
}

// ThroughputCheck is one throughput check with the row it judged.
type ThroughputCheck struct {
	Type  string
	Key   result.Key
	Check gate.Check
}

// ThroughputReportColumns is the header of a throughput check report
// (formats §4): the check report's, with the load after Bytes.
var ThroughputReportColumns = []string{"Check", "Bytes", "Load", "Offered", "Requirement", "Experiment", "Difference",
	"Percentage over requirement", "Status"}

// ThroughputReportFileName is the throughput check report of
// sub-experiment typ: checks_throughput_<type>.csv.
func ThroughputReportFileName(typ string) string { return ReportFileName("throughput_" + typ) }

// WriteThroughputReport writes the checks of one sub-experiment's
// throughput as a check report: Check "Median [msg/s]", the Requirement a
// lower limit, Status passed, failed or inconclusive; a missing check as in
// WriteReport.
func WriteThroughputReport(w io.Writer, checks []ThroughputCheck, allowMissing bool) error {
	return writeReport(w, ThroughputReportColumns, len(checks), func(i int) (gate.Check, []string) {
		k := checks[i].Key
		return checks[i].Check, []string{"Median [msg/s]", strconv.Itoa(k.Payload), k.Mode, result.FormatOffered(k.Offered)}
	}, allowMissing)
}

// measuredInstead says which rows of the same payload and mode the runs
// hold, when a requirement's offered rate is not among them.
func measuredInstead(runs []*experiment.Experiment, r requirements.KeyedRow) string {
	var other []string
	for _, e := range runs {
		t := e.Throughput(r.Type)
		if t == nil {
			continue
		}
		for _, k := range t.Keys() {
			if k.Payload == r.Key.Payload && k.Mode == r.Key.Mode && k != r.Key && !strings.Contains(strings.Join(other, ","), k.String()) {
				other = append(other, k.String())
			}
		}
	}
	if len(other) == 0 {
		return ""
	}
	return "; measured instead: " + strings.Join(other, ", ") + " (a different offered load is not compared)"
}
