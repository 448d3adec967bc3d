package result

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// SummaryColumns are the header names of a summary file (formats §3), in
// order.
var SummaryColumns = []string{"Bytes", "Samples", "Max", "Min", "Mean", "Median", "Stdev",
	"Mean jitter", "Max jitter", "90%", "99%", "99.99%"}

// Summary holds the statistics of one payload's latencies (formats §3),
// which stats.Summarize computes: a SummaryRow without the payload size.
type Summary struct {
	Samples    int
	Max        float64
	Min        float64
	Mean       float64
	Median     float64
	Stdev      float64
	MeanJitter float64 // mean of |x[i] − x[i−1]|; NaN when n < 2, as numpy's mean of nothing
	MaxJitter  float64 // max of |x[i] − x[i−1]|; NaN when n < 2
	P90        float64
	P99        float64
	P9999      float64
}

// SummaryRow is one row of a summary file: the summary of one payload's
// latencies, in microseconds, the payload size and its statistics.
type SummaryRow struct {
	Bytes int
	Summary
}

// floats returns pointers to the float columns, in SummaryColumns order from Max.
func (r *SummaryRow) floats() []*float64 {
	return []*float64{&r.Max, &r.Min, &r.Mean, &r.Median, &r.Stdev, &r.MeanJitter,
		&r.MaxJitter, &r.P90, &r.P99, &r.P9999}
}

// column returns a pointer to the float column named as in the header, or
// nil for an unknown or integer column.
func (r *SummaryRow) column(name string) *float64 {
	if i := slices.Index(SummaryColumns[2:], name); i >= 0 {
		return r.floats()[i]
	}
	return nil
}

// Get returns the value of the float column named as in the header
// ("Median", "99%", "Max", ...), or false for an unknown or integer column.
func (r SummaryRow) Get(column string) (float64, bool) {
	if p := r.column(column); p != nil {
		return *p, true
	}
	return 0, false
}

// Set sets the float column named as in the header to v, and reports
// whether there is one.
func (r *SummaryRow) Set(column string, v float64) bool {
	p := r.column(column)
	if p != nil {
		*p = v
	}
	return p != nil
}

// Record returns r's fields in SummaryColumns order, as WriteSummary writes
// them.
func (r SummaryRow) Record() []string {
	rec := []string{strconv.Itoa(r.Bytes), strconv.Itoa(r.Samples)}
	for _, f := range r.floats() {
		rec = append(rec, Format3(*f))
	}
	return rec
}

// Format3 formats x with exactly three decimals, as Python's %.3f does:
// NaN (the jitter of a single sample) is "nan".
func Format3(x float64) string {
	if math.IsNaN(x) {
		return "nan"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// WriteSummary writes the header and rows. A value that Read would refuse (not
// finite, negative) is an error, so that no summary is written that a later
// step cannot read; NaN jitters of a one-sample payload are written "nan".
func WriteSummary(w io.Writer, rows []SummaryRow) error {
	for i := range rows {
		if err := rows[i].check(); err != nil {
			return fmt.Errorf("summary row of payload %d: %w", rows[i].Bytes, err)
		}
	}
	return writeRows(w, strings.Join(SummaryColumns, ","), rows)
}

// writeRows writes header and the records of rows, comma-separated, in one
// write.
func writeRows[R interface{ Record() []string }](w io.Writer, header string, rows []R) error {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r.Record(), ",") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// check reports the first value of r that Read refuses.
func (r *SummaryRow) check() error {
	for i, v := range r.floats() {
		col := SummaryColumns[2+i]
		switch {
		case math.IsNaN(*v) && r.Samples == 1 && (col == "Mean jitter" || col == "Max jitter"):
		case math.IsNaN(*v) || math.IsInf(*v, 0):
			return fmt.Errorf("%s is %v: a summary holds finite numbers", col, *v)
		case *v < 0:
			return fmt.Errorf("%s is %v: a latency is at least 0", col, *v)
		}
	}
	return nil
}

// contradiction returns the first column of r whose value no set of
// latencies can have given the others, and why; "" when r is consistent:
// Min ≤ Median ≤ 90% ≤ 99% ≤ 99.99% ≤ Max (order statistics are ordered
// exactly, and rounding to 3 decimals keeps their order), the Mean within
// [Min, Max], Max jitter ≥ Mean jitter.
func (r *SummaryRow) contradiction() (column, msg string) {
	f := Format3
	if r.Max < r.Min {
		return "Max", fmt.Sprintf("Max %s is less than Min %s", f(r.Max), f(r.Min))
	}
	order := []struct {
		name string
		v    float64
	}{{"Min", r.Min}, {"Median", r.Median}, {"90%", r.P90}, {"99%", r.P99}, {"99.99%", r.P9999}, {"Max", r.Max}}
	for i := 1; i < len(order); i++ {
		a, b := order[i-1], order[i]
		if b.v >= a.v {
			continue
		}
		const rule = ": expected Min ≤ Median ≤ 90% ≤ 99% ≤ 99.99% ≤ Max"
		if b.name == "Max" {
			return a.name, fmt.Sprintf("%s %s is more than Max %s", a.name, f(a.v), f(b.v)) + rule
		}
		return b.name, fmt.Sprintf("%s %s is less than %s %s", b.name, f(b.v), a.name, f(a.v)) + rule
	}
	// A mean outside [Min, Max] or a mean jitter above the largest
	// (negative values are refused as they are read) were read and gated (a Mean of 0.001 below a Min
	// of 0.481 passed its check). Rounding to 3 decimals moves each
	// value by at most 0.0005.
	const tol = 0.001
	switch {
	case r.Mean < r.Min-tol || r.Mean > r.Max+tol:
		return "Mean", fmt.Sprintf("Mean %s is outside Min %s … Max %s: a mean lies between the smallest and largest value", f(r.Mean), f(r.Min), f(r.Max))
	case r.MaxJitter < r.MeanJitter-tol:
		return "Max jitter", fmt.Sprintf("Max jitter %s is less than Mean jitter %s: the largest step is at least the mean one", f(r.MaxJitter), f(r.MeanJitter))
	}
	return "", ""
}

// WriteSummaryFile writes rows to path atomically.
func WriteSummaryFile(path string, rows []SummaryRow) error {
	return WriteSummaryFileMode(path, 0, rows)
}

// WriteSummaryFileMode writes rows to path atomically with the permissions
// perm, or as atomicfile.Write does when perm is 0.
func WriteSummaryFileMode(path string, perm fs.FileMode, rows []SummaryRow) error {
	return atomicfile.WriteMode(path, perm, func(w io.Writer) error { return WriteSummary(w, rows) })
}

// ReadSummaryFile reads the summary file at path, a regular file.
func ReadSummaryFile(path string) ([]SummaryRow, error) {
	f, err := fileerr.OpenRegular(path, "a summary")
	if err != nil {
		return nil, fileerr.Unreadable(path, "summary file", err)
	}
	defer f.Close()
	return ReadSummary(f, path)
}

// ReadSummary reads a summary file; file names it in errors. The header must be
// exactly SummaryColumns; every row must have a positive Bytes and Samples and
// finite, non-negative floats; a payload may appear only once. NaN is
// accepted only in the jitter columns of a one-sample payload, where numpy
// writes it.
func ReadSummary(r io.Reader, file string) ([]SummaryRow, error) {
	seen := map[int]int{}
	const count = "row has %d fields, expected %d (%s)"
	rows, err := csvfile.ReadRows(r, file, SummaryColumns, count, func(rec []string, line int) (row SummaryRow, err error) {
		for i, dst := range []*int{&row.Bytes, &row.Samples} {
			if *dst, err = positive(rec[i]); err != nil {
				return row, fileerr.New(file, line, SummaryColumns[i], "%q is not a positive integer", rec[i])
			}
		}
		for i, dst := range row.floats() {
			col := SummaryColumns[2+i]
			v, err := strconv.ParseFloat(rec[2+i], 64)
			switch {
			case err != nil:
				return row, fileerr.New(file, line, col, "%q is not a number", rec[2+i])
			case math.IsNaN(v) && row.Samples == 1 && (col == "Mean jitter" || col == "Max jitter"):
			case math.IsNaN(v) || math.IsInf(v, 0):
				return row, fileerr.New(file, line, col, "%q is not a finite latency", rec[2+i])
			case v < 0:
				return row, fileerr.New(file, line, col, "%q is negative; a latency is at least 0", rec[2+i])
			}
			*dst = v
		}
		if col, msg := row.contradiction(); msg != "" {
			return row, fileerr.New(file, line, col, "%s: the row contradicts itself, so it is not a summary "+
				"of latencies (run process again on its raw file)", msg)
		}
		if prev, dup := seen[row.Bytes]; dup {
			return row, fileerr.New(file, line, SummaryColumns[0], "payload %d appears again (first on line %d); "+
				"expected one row per payload", row.Bytes, prev)
		}
		seen[row.Bytes] = line
		return row, nil
	})
	if err == nil && len(rows) == 0 {
		return nil, fileerr.New(file, 1, "", "no rows after the header: expected one row per payload")
	}
	return rows, err
}

func positive(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("not positive")
	}
	return n, nil
}
