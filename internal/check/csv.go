package check

import (
	"cmp"
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/result"
)

// ReportColumns is the header of a check report (formats §4).
var ReportColumns = []string{"Check", "Bytes", "Requirement", "Experiment", "Difference", "Percentage over requirement", "Status"}

// ThroughputReportColumns is the header of a throughput check report
// (formats §4): the check report's, with the load after Bytes.
var ThroughputReportColumns = []string{"Check", "Bytes", "Load", "Offered", "Requirement", "Experiment", "Difference",
	"Percentage over requirement", "Status"}

// BurstReportColumns is the header of a burst check report, the Fast-RTPS
// throughput pipeline's (formats §9).
var BurstReportColumns = []string{"Check", "Payload [Bytes]", "Requirement", "Experiment", "Difference", "Percentage over requirement", "Status"}

// ReportFileName is the check report of sub-experiment typ.
func ReportFileName(typ string) string { return experiment.CheckReportFileName(typ) }

// f3 prints 3 decimals, as the Fast-RTPS script does (pandas to_csv with
// float_format "%.3f"), and as it prints what numpy computes when the
// requirement is 0: "inf" for a percentage over a requirement of 0, and
// nothing for NaN (0 over 0, or a value that does not exist: a missing
// requirement or measurement). pandas reads both back as numbers (formats §4).
func f3(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// writeReport writes checks, in order, as a check report of kind k, rows
// as the Fast-RTPS scripts write them (formats §4, §9), Status passed,
// failed or inconclusive. A missing check (no requirement, or no value)
// has its absent values empty and Status "failed"; with allowMissing it is
// left out, since it neither passed nor failed. The other reports say why
// a check is missing.
func (k *kind) writeReport(w io.Writer, checks []rowCheck, allowMissing bool) error {
	cw := csv.NewWriter(w)
	cw.Write(k.columns)
	for _, c := range checks {
		status := string(c.Status)
		if c.Status == gate.Missing {
			if allowMissing {
				continue
			}
			status = string(gate.Failed)
		}
		rec := []string{cmp.Or(k.name, c.Metric.Name), strconv.Itoa(c.Payload)}
		if k.loads {
			rec = append(rec, c.Key.Mode, result.FormatOffered(c.Key.Offered))
		}
		cw.Write(append(rec, f3(c.Reference), f3(c.Value), f3(c.Difference), f3(c.Percent), status))
	}
	cw.Flush()
	return cw.Error()
}
