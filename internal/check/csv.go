package check

import (
	"io"
	"math"
	"strconv"

	"github.com/gocarina/gocsv"

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
type f3 float64

func (f f3) MarshalCSV() (string, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return "", nil
	case math.IsInf(x, 1):
		return "inf", nil
	case math.IsInf(x, -1):
		return "-inf", nil
	}
	return strconv.FormatFloat(x, 'f', 3, 64), nil
}

type reportRow struct {
	Check       string `csv:"Check"`
	Bytes       int    `csv:"Bytes"`
	Requirement f3     `csv:"Requirement"`
	Experiment  f3     `csv:"Experiment"`
	Difference  f3     `csv:"Difference"`
	Percentage  f3     `csv:"Percentage over requirement"`
	Status      string `csv:"Status"`
}

// WriteReport writes checks, in order, as a check report, rows as the
// Fast-RTPS script writes them with Status "passed" or "failed" (formats §4).
// A missing check (no requirement, or no value) has its absent values empty
// and Status "failed"; with allowMissing it is left out, since it neither
// passed nor failed. The other reports say why a check is missing.
func WriteReport(w io.Writer, checks []gate.Check, allowMissing bool) error {
	rows := make([]reportRow, 0, len(checks))
	for _, c := range checks {
		status := string(c.Status)
		if c.Status == gate.Missing {
			if allowMissing {
				continue
			}
			status = string(gate.Failed)
		}
		rows = append(rows, reportRow{c.Metric.Name, c.Payload, f3(c.Reference), f3(c.Value), f3(c.Difference), f3(c.Percent), status})
	}
	cw := gocsv.DefaultCSVWriter(w)
	if len(rows) == 0 {
		if err := cw.Write(ReportColumns); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	}
	return gocsv.MarshalCSV(rows, cw)
}

// WriteReportFile writes a check report to path atomically.
func WriteReportFile(path string, checks []gate.Check, allowMissing bool) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteReport(w, checks, allowMissing) })
}
