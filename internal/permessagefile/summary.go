package permessagefile

import (
	"cmp"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// Quantities of the summary, in order.
var Quantities = []string{"L [µs]", "SO [ns]", "RO [ns]", "ST [msg/s]", "RT [msg/s]", "RT [Mb/s]",
	"Sender CPU [%]", "Receiver CPU [%]", "Client CPU [%]", "Broker CPU [%]",
	"Sender CPU [ns/msg]", "Receiver CPU [ns/msg]", "Client CPU [ns/msg]", "Broker CPU [ns/msg]"}

// oldQuantities are the earlier spellings of Quantities, in files written
// before the rename, and the names they are read as.
var oldQuantities = map[string]string{"L [us]": "L [µs]"}

// Aggregate describes one per-message quantity over a payload's messages
// (lost ones and the first M of a window rate left out).
type Aggregate struct {
	Count       int
	Mean        float64
	Median      float64
	LowerMedian float64 // the ⌈n/2⌉-th smallest value
	// RobustDev is the mean absolute deviation from the median,
	// mean |x − median|.
	RobustDev     float64
	Min, Max      float64
	P50, P90, P99 float64 // numpy's linear percentiles
	// Bimodality is Sarle's bimodality coefficient
	// b = (g² + 1) / (κ + 3(n−1)²/((n−2)(n−3))), g the sample skewness and
	// κ the sample excess kurtosis (both bias-corrected); b > 5/9 (the
	// value of a uniform distribution) indicates a bimodal or multimodal
	// distribution: Multimodal is then true. NaN with fewer than 4 values.
	Bimodality float64
	Multimodal bool
}

// Summary is the aggregate of one quantity of a payload beside its value
// over the whole run (NaN for latency), and a note: whether the median
// agrees with the overall value within AgreementTolerance, or why a CPU
// figure is missing.
type Summary struct {
	Aggregate
	Overall float64
	Note    string
}

// AgreementTolerance is how far, relative to the overall value, the median
// of a window rate (or overhead) may be and still agree with it: ±10 %.
// The robust deviation is no bound for that: windows that spread widely
// would let a median 1.4× the overall rate "agree".
const AgreementTolerance = 0.10

// Agrees reports whether the median is within AgreementTolerance of the
// overall value.
func (s Summary) Agrees() bool {
	return s.Overall > 0 && math.Abs(s.Median/s.Overall-1) <= AgreementTolerance
}

// Disagrees reports whether the Note of s says that its median disagrees
// with the overall value.
func (s Summary) Disagrees() bool { return strings.HasPrefix(s.Note, "disagrees") }

// Row is one row of the summary: one quantity of one payload.
type Row struct {
	Payload  int
	Quantity string // one of Quantities
	Summary
}

// SummaryTable is the summary CSV of rows, in their order.
func SummaryTable(rows []Row) Table {
	t := Table{Header: SummaryHeader}
	for _, r := range rows {
		mm := "no"
		if r.Multimodal {
			mm = "yes"
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(r.Payload), r.Quantity, strconv.Itoa(r.Count), Cell(r.Mean), Cell(r.Median),
			Cell(r.LowerMedian), Cell(r.RobustDev), Cell(r.Min), Cell(r.Max), Cell(r.P50), Cell(r.P90), Cell(r.P99),
			Cell(r.Bimodality), mm, Cell(r.Overall), r.Note})
	}
	return t
}

// ReadSummaryFile reads the summary CSV at path, a regular file, as
// ReadSummary does.
func ReadSummaryFile(path string) ([]Row, error) {
	f, err := fileerr.OpenRegular(path, "a per-message summary")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSummary(f, path)
}

// ReadSummary reads a summary CSV as WriteTable writes SummaryTable; an
// empty cell is NaN, and a quantity of an earlier spelling (oldQuantities)
// is read as today's. A leading byte-order mark is skipped. A bad row, a
// second row of one payload and quantity, and a file without rows are
// input errors naming file, the line and column.
func ReadSummary(r io.Reader, file string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header := strings.Join(SummaryHeader, ",")
	var out []Row
	first := map[[2]string]int{} // line of each payload and quantity
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			switch line {
			case 1:
				return nil, fileerr.New(file, 0, "", "empty file: expected the header %q", header)
			case 2:
				return nil, fileerr.New(file, 1, "", "no rows after the header: expected a row per payload and quantity")
			}
			return out, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fileerr.New(file, pe.Line, "", "%v", pe.Err)
			}
			return nil, fileerr.New(file, 0, "", "%v", err)
		}
		if line == 1 {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
			if got := strings.Join(rec, ","); got != header {
				return nil, fileerr.New(file, 1, "", "header %q, expected %q", got, header)
			}
			continue
		}
		r, err := parseRow(rec, file, line)
		if err != nil {
			return nil, err
		}
		// A reader takes one row of each: a second would be ignored.
		key := [2]string{strconv.Itoa(r.Payload), r.Quantity}
		if at, dup := first[key]; dup {
			return nil, fileerr.New(file, line, SummaryHeader[1], "a second row of %s at payload %d (the first is on line %d): expected one row per payload and quantity",
				r.Quantity, r.Payload, at)
		}
		first[key] = line
		out = append(out, r)
	}
}

// parseRow reads the summary row rec, line of file.
func parseRow(rec []string, file string, line int) (Row, error) {
	var r Row
	if len(rec) != len(SummaryHeader) {
		return r, fileerr.New(file, line, "", "%d columns, expected %d (%s)", len(rec), len(SummaryHeader), strings.Join(SummaryHeader, ","))
	}
	var err error
	if r.Payload, err = strconv.Atoi(rec[0]); err != nil || r.Payload < 1 {
		return r, fileerr.New(file, line, SummaryHeader[0], "%q is not a positive byte count", rec[0])
	}
	r.Quantity = cmp.Or(oldQuantities[rec[1]], rec[1])
	if !slices.Contains(Quantities, r.Quantity) {
		return r, fileerr.New(file, line, SummaryHeader[1], "%q: expected one of %s", rec[1], strings.Join(Quantities, ", "))
	}
	if r.Count, err = strconv.Atoi(rec[2]); err != nil || r.Count < 0 {
		return r, fileerr.New(file, line, SummaryHeader[2], "%q is not a count", rec[2])
	}
	// In column order, so that the first bad cell is the one named.
	for _, c := range []struct {
		i   int
		dst *float64
	}{{3, &r.Mean}, {4, &r.Median}, {5, &r.LowerMedian}, {6, &r.RobustDev}, {7, &r.Min}, {8, &r.Max},
		{9, &r.P50}, {10, &r.P90}, {11, &r.P99}, {12, &r.Bimodality}, {14, &r.Overall}} {
		i, dst := c.i, c.dst
		*dst = math.NaN()
		if rec[i] == "" {
			continue
		}
		if *dst, err = strconv.ParseFloat(rec[i], 64); err != nil || math.IsNaN(*dst) || math.IsInf(*dst, 0) {
			return r, fileerr.New(file, line, SummaryHeader[i], "%q is not a number (an empty cell is a missing value)", rec[i])
		}
	}
	switch rec[13] {
	case "yes":
		r.Multimodal = true
	case "no":
	default:
		return r, fileerr.New(file, line, SummaryHeader[13], "%q: expected yes or no", rec[13])
	}
	r.Note = rec[15]
	return r, nil
}
