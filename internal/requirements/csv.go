package requirements

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// DefaultFileName is the requirements file name the Fast-RTPS scripts use.
const DefaultFileName = "latency_requirements.csv"

// Columns are the header of a requirements CSV, in order (formats §4).
var Columns = []string{"Experiment type", "Bytes", "Median", "99%", "Max"}

// LatencyColumn is the optional last column of a requirements CSV: the
// latency definition the requirements were derived from (formats §2, §4).
// Without it the requirements are half-rtt, as Fast-RTPS requirements are.
const LatencyColumn = "Latency"

// StatColumns are the columns a statistical requirements file (formats §11)
// has after Columns and LatencyColumn: the method asked (Mode), the runs
// behind the row, the family-wise false-fail level and each check's share
// of it, then per checked column the method used, the standard deviation
// of the log run values and their Shapiro–Wilk p-value.
var StatColumns = []string{"Mode", "Runs", "False fail", "Check level",
	"Median method", "Median log sd", "Median normality p",
	"99% method", "99% log sd", "99% normality p",
	"Max method", "Max log sd", "Max normality p"}

// Statistical reports whether rows are statistical requirements (formats
// §11) rather than percentile ones.
func Statistical(rows []KeyedRow) bool { return len(rows) > 0 && rows[0].Stat != nil }

// LatencyRow is the latency requirement of payload bytes of sub-experiment
// typ: the worst acceptable Median, 99th percentile and maximum latency, in
// microseconds.
func LatencyRow(typ string, bytes int, median, p99, max float64) KeyedRow {
	return KeyedRow{Type: typ, Key: result.Key{Payload: bytes},
		Limits: map[string]float64{result.Median.Name: median, result.P99.Name: p99, result.Max.Name: max}}
}

// LatencyOf returns the latency definition of rows: that of the first
// (read makes them agree), half-rtt when it is not stated.
func LatencyOf(rows []KeyedRow) string {
	if len(rows) == 0 || rows[0].Latency == "" {
		return meta.LatencyHalfRTT
	}
	return rows[0].Latency
}

// ReadFile reads a requirements CSV. See read.
func ReadFile(path string) ([]KeyedRow, error) {
	b, err := fileerr.ReadRegular(path, "a requirements CSV")
	if err != nil {
		return nil, err
	}
	return read(bytes.NewReader(b), path)
}

// read reads a requirements CSV from r; file names it in errors. The header
// must be exactly Columns, optionally followed by LatencyColumn, whose value
// must then be the same known latency definition on every row. Every row needs a valid sub-experiment name, a
// non-negative integer payload (Fast-RTPS files may write it as "16.0") and
// finite, non-negative latencies; a (type, payload) pair may appear only
// once, and the file must hold at least one row. Errors name file, line and
// column. Rows are returned in file order.
func read(r io.Reader, file string) ([]KeyedRow, error) {
	cr := csvfile.NewReader(r)
	columns, err := readHeader(cr, file)
	if err != nil {
		return nil, err
	}
	first := map[groupKey]int{}
	var top KeyedRow // the first row
	rows, err := csvfile.ReadRecords(cr, file, columns, "%d fields: expected %d (%s)", func(rec []string, line int) (KeyedRow, error) {
		var err error
		row := KeyedRow{Type: rec[0], Limits: map[string]float64{}}
		if err := experiment.ValidateType(row.Type); err != nil {
			return row, fileerr.New(file, line, Columns[0], "%v", err)
		}
		if row.Key.Payload, err = parseBytes(rec[1]); err != nil {
			return row, fileerr.New(file, line, Columns[1], "%v", err)
		}
		for i, c := range Columns[2:] {
			if row.Limits[c], err = parseLatency(rec[2+i]); err != nil {
				return row, fileerr.New(file, line, c, "%v", err)
			}
		}
		if len(columns) > len(Columns)+1 {
			if row.Stat, err = parseModel(rec[len(Columns)+1:], file, line); err != nil {
				return row, err
			}
			if len(first) > 0 && (row.Stat.Method != top.Stat.Method || row.Stat.FalseFail != top.Stat.FalseFail || row.Stat.CheckLevel != top.Stat.CheckLevel) {
				return row, fileerr.New(file, line, "Mode", "mode, false fail or check level differ from the first row's: one file holds one derivation")
			}
		}
		if len(columns) > len(Columns) {
			switch row.Latency = rec[len(Columns)]; {
			case row.Latency != meta.LatencyHalfRTT && row.Latency != meta.LatencyRTT && row.Latency != meta.LatencyOneWay:
				return row, fileerr.New(file, line, LatencyColumn, "%q: expected %s, %s or %s (formats §2)",
					row.Latency, meta.LatencyHalfRTT, meta.LatencyRTT, meta.LatencyOneWay)
			case len(first) > 0 && row.Latency != top.Latency:
				return row, fileerr.New(file, line, LatencyColumn, "%q differs from %q above: the requirements of one file measure latency one way",
					row.Latency, top.Latency)
			}
		}
		k := groupKey{row.Type, row.Key.Payload}
		if l, dup := first[k]; dup {
			return row, fileerr.New(file, line, "", "duplicate requirement for %s, %d bytes (first on line %d): keep one row per sub-experiment and payload", row.Type, row.Key.Payload, l)
		}
		if len(first) == 0 {
			top = row
		}
		first[k] = line
		return row, nil
	})
	if err == nil && len(rows) == 0 {
		return nil, fileerr.New(file, 0, "", "no requirements: the file holds only a header")
	}
	return rows, err
}

// readHeader reads the header and returns the columns it has: Columns, or
// Columns and LatencyColumn, or the statistical header.
func readHeader(cr *csv.Reader, file string) ([]string, error) {
	expected := fmt.Sprintf("%q (optionally followed by %q, or by the statistical columns of formats §11)",
		strings.Join(Columns, ","), ","+LatencyColumn)
	return csvfile.ReadHeaderOf(cr, file, expected, Columns, append(slices.Clone(Columns), LatencyColumn), statHeader())
}

func parseBytes(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		// pandas writes an integer column holding NaN elsewhere as floats.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, fmt.Errorf("%q is not a whole number of bytes", s)
		}
		n = int(f)
	}
	if n < 0 {
		return 0, fmt.Errorf("%d is negative: expected a payload size in bytes", n)
	}
	return n, nil
}

func parseLatency(s string) (float64, error) {
	x, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && s == "":
		return 0, fmt.Errorf("empty: expected a latency in microseconds")
	case err != nil:
		return 0, fmt.Errorf("%q is not a number", s)
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, fmt.Errorf("%q is not a finite latency", s)
	case x < 0:
		return 0, fmt.Errorf("%s is negative: a latency requirement is at least 0", s)
	}
	return x, nil
}

// f3 formats a float with exactly 3 decimals, as the Fast-RTPS scripts do.
func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// Write writes rows as a requirements CSV, in the given order, floats with 3
// decimals. The Latency column is written only when the rows state a
// definition other than half-rtt, or are statistical, so that half-rtt
// percentile requirements stay in the Fast-RTPS format byte for byte.
// Statistical rows (Stat set, all or none) add StatColumns.
func Write(w io.Writer, rows []KeyedRow) error {
	stat := Statistical(rows)
	withLatency := LatencyOf(rows) != meta.LatencyHalfRTT || stat
	cw := csv.NewWriter(w)
	header := Columns
	switch {
	case stat:
		header = statHeader()
	case withLatency:
		header = append(append([]string(nil), Columns...), LatencyColumn)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.Type, strconv.Itoa(r.Key.Payload)}
		for _, c := range Columns[2:] {
			rec = append(rec, f3(r.Limits[c]))
		}
		if withLatency {
			rec = append(rec, LatencyOf(rows))
		}
		if stat {
			if r.Stat == nil {
				return fmt.Errorf("requirements for %s, %d bytes have no statistical model while the others have one", r.Type, r.Key.Payload)
			}
			rec = append(rec, formatModel(r.Stat)...)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteFile writes rows to path atomically.
func WriteFile(path string, rows []KeyedRow) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, rows) })
}

// statHeader is the header of a statistical requirements file.
func statHeader() []string {
	return append(append(append([]string(nil), Columns...), LatencyColumn), StatColumns...)
}

// gfmt writes a model number with 6 significant digits; NaN as nothing.
func gfmt(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// formatModel writes m as the StatColumns fields.
func formatModel(m *Model) []string {
	rec := []string{m.Method, strconv.Itoa(m.Runs), strconv.FormatFloat(m.FalseFail, 'g', -1, 64), gfmt(m.CheckLevel)}
	for _, f := range m.Fits {
		rec = append(rec, f.MethodText(), gfmt(f.LogSD), gfmt(f.NormalityP))
	}
	return rec
}

// parseModel reads the StatColumns fields of one row.
func parseModel(rec []string, file string, line int) (*Model, error) {
	m := &Model{Method: rec[0]}
	if m.Method != gate.MethodOrder && m.Method != gate.MethodLogNormal {
		return nil, fileerr.New(file, line, "Mode", "%q: expected %s or %s", rec[0], gate.MethodOrder, gate.MethodLogNormal)
	}
	var err error
	if m.Runs, err = strconv.Atoi(rec[1]); err != nil || m.Runs < 2 {
		return nil, fileerr.New(file, line, "Runs", "%q: expected a whole number of runs ≥ 2", rec[1])
	}
	prob := func(col, s string) (float64, error) {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0 && x < 1) {
			return 0, fileerr.New(file, line, col, "%q: expected a probability in (0, 1)", s)
		}
		return x, nil
	}
	if m.FalseFail, err = prob("False fail", rec[2]); err != nil {
		return nil, err
	}
	if m.CheckLevel, err = prob("Check level", rec[3]); err != nil {
		return nil, err
	}
	for i := range m.Fits {
		f := &m.Fits[i]
		base := 4 + 3*i
		name := metricNames[i]
		if !parseFitMethod(rec[base], f) {
			return nil, fileerr.New(file, line, name+" method", "%q: expected %s, %s or %s:J (the J-th largest run, J ≥ 2)", rec[base], gate.MethodOrder, gate.MethodLogNormal, gate.MethodOrder)
		}
		if f.rank() > m.Runs {
			return nil, fileerr.New(file, line, name+" method", "%q: the %d-th largest of %d runs does not exist", rec[base], f.rank(), m.Runs)
		}
		optional := func(col, s string, check func(float64) bool) (float64, error) {
			if s == "" {
				return math.NaN(), nil
			}
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !check(x) {
				return 0, fileerr.New(file, line, col, "%q is not a valid value", s)
			}
			return x, nil
		}
		if f.LogSD, err = optional(name+" log sd", rec[base+1], func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }); err != nil {
			return nil, err
		}
		if f.NormalityP, err = optional(name+" normality p", rec[base+2], func(x float64) bool { return x >= 0 && x <= 1 }); err != nil {
			return nil, err
		}
		if f.Method == gate.MethodLogNormal && math.IsNaN(f.LogSD) {
			return nil, fileerr.New(file, line, name+" log sd", "empty: a log-normal limit needs the log standard deviation")
		}
	}
	return m, nil
}

// ParseColumns parses check's --columns: a comma-separated list of Median,
// 99%, Max (any case), returned in the requirements' order.
func ParseColumns(s string) ([]result.Metric, error) {
	asked, err := result.ParseList(s, result.RequirementMetrics)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(result.RequirementMetrics), func(m result.Metric) bool { return !slices.Contains(asked, m) }), nil
}
