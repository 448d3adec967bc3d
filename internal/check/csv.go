package check

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/gate"
)

// ReportColumns is the header of a check report (formats §4).
var ReportColumns = []string{"Check", "Bytes", "Requirement", "Experiment", "Difference", "Percentage over requirement", "Status"}

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

// WriteReport writes checks, in order, as a check report, rows as the
// Fast-RTPS script writes them with Status "passed" or "failed" (formats §4).
// A missing check (no requirement, or no value) has its absent values empty
// and Status "failed"; with allowMissing it is left out, since it neither
// passed nor failed. The other reports say why a check is missing.
func WriteReport(w io.Writer, checks []gate.Check, allowMissing bool) error {
	return writeReport(w, ReportColumns, len(checks), func(i int) (gate.Check, []string) {
		return checks[i], []string{checks[i].Metric.Name, strconv.Itoa(checks[i].Payload)}
	}, allowMissing)
}

// writeReport writes a check report of n checks under header: check(i)
// returns the i-th check and the columns that name what it checked, which
// the requirement, the value, the difference, the percentage and the
// status follow.
func writeReport(w io.Writer, header []string, n int, check func(i int) (gate.Check, []string), allowMissing bool) error {
	cw := csv.NewWriter(w)
	cw.Write(header)
	for i := range n {
		c, rec := check(i)
		status := string(c.Status)
		if c.Status == gate.Missing {
			if allowMissing {
				continue
			}
			status = string(gate.Failed)
		}
		cw.Write(append(rec, f3(c.Reference), f3(c.Value), f3(c.Difference), f3(c.Percent), status))
	}
	cw.Flush()
	return cw.Error()
}

// WriteReportFile writes a check report to path atomically.
func WriteReportFile(path string, checks []gate.Check, allowMissing bool) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteReport(w, checks, allowMissing) })
}
