package requirements

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/csvfile"

	"github.com/gocarina/gocsv"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// DefaultFileName is the requirements file name the Fast-RTPS scripts use.
const DefaultFileName = "latency_requirements.csv"

// Columns are the header of a requirements CSV, in order (SPEC §4).
var Columns = []string{"Experiment type", "Bytes", "Median", "99%", "Max"}

// Row is one requirement: the worst acceptable Median, 99th percentile and
// maximum latency, in microseconds, of one payload of one sub-experiment.
type Row struct {
	Type   string
	Bytes  int
	Median float64
	P99    float64
	Max    float64
}

// Get returns the requirement for a summary column name ("Median", "99%",
// "Max").
func (r Row) Get(column string) (float64, bool) {
	switch column {
	case "Median":
		return r.Median, true
	case "99%":
		return r.P99, true
	case "Max":
		return r.Max, true
	}
	return 0, false
}

// ReadFile reads a requirements CSV. See Read.
func ReadFile(path string) ([]Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Read(bytes.NewReader(b), path)
}

// Read reads a requirements CSV from r; file names it in errors. The header
// must be exactly Columns. Every row needs a valid sub-experiment name, a
// non-negative integer payload (Fast-RTPS files may write it as "16.0") and
// finite, non-negative latencies; a (type, payload) pair may appear only
// once, and the file must hold at least one row. Errors name file, line and
// column. Rows are returned in file order.
func Read(r io.Reader, file string) ([]Row, error) {
	cr := csvfile.NewReader(r)
	if err := csvfile.ReadHeader(cr, file, Columns); err != nil {
		return nil, err
	}
	type key struct {
		typ   string
		bytes int
	}
	first := map[key]int{}
	var rows []Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvfile.Error(file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(Columns) {
			return nil, fileerr.New(file, line, "", "%d fields: expected %d (%s)", len(rec), len(Columns), strings.Join(Columns, ","))
		}
		var row Row
		row.Type = rec[0]
		if err := experiment.ValidateType(row.Type); err != nil {
			return nil, fileerr.New(file, line, Columns[0], "%v", err)
		}
		if row.Bytes, err = parseBytes(rec[1]); err != nil {
			return nil, fileerr.New(file, line, Columns[1], "%v", err)
		}
		for i, dst := range []*float64{&row.Median, &row.P99, &row.Max} {
			if *dst, err = parseLatency(rec[2+i]); err != nil {
				return nil, fileerr.New(file, line, Columns[2+i], "%v", err)
			}
		}
		k := key{row.Type, row.Bytes}
		if l, dup := first[k]; dup {
			return nil, fileerr.New(file, line, "", "duplicate requirement for %s, %d bytes (first on line %d): keep one row per sub-experiment and payload", row.Type, row.Bytes, l)
		}
		first[k] = line
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fileerr.New(file, 0, "", "no requirements: the file holds only a header")
	}
	return rows, nil
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
type f3 float64

func (f f3) MarshalCSV() (string, error) { return strconv.FormatFloat(float64(f), 'f', 3, 64), nil }

type csvRow struct {
	Type   string `csv:"Experiment type"`
	Bytes  int    `csv:"Bytes"`
	Median f3     `csv:"Median"`
	P99    f3     `csv:"99%"`
	Max    f3     `csv:"Max"`
}

// Write writes rows as a requirements CSV, in the given order, floats with 3
// decimals.
func Write(w io.Writer, rows []Row) error {
	out := make([]csvRow, len(rows))
	for i, r := range rows {
		out[i] = csvRow{r.Type, r.Bytes, f3(r.Median), f3(r.P99), f3(r.Max)}
	}
	cw := gocsv.DefaultCSVWriter(w)
	if len(out) == 0 {
		// gocsv writes nothing at all for an empty slice; keep the header.
		if err := cw.Write(Columns); err != nil {
			return err
		}
		cw.Flush()
		return cw.Error()
	}
	return gocsv.MarshalCSV(out, cw)
}

// WriteFile writes rows to path atomically.
func WriteFile(path string, rows []Row) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, rows) })
}

// Sort orders rows by sub-experiment, then payload ascending.
func Sort(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Type != rows[j].Type {
			return rows[i].Type < rows[j].Type
		}
		return rows[i].Bytes < rows[j].Bytes
	})
}
