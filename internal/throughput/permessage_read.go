package throughput

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// AggregateRow is one row of the aggregates CSV (permessage_<type>_summary.csv):
// one quantity of one payload.
type AggregateRow struct {
	Payload  int
	Quantity string // one of Quantities
	Summary
}

// oldQuantities are the earlier spellings of Quantities, in files written
// before the rename, and the names they are read as.
var oldQuantities = map[string]string{"L [us]": "L [µs]"}

// ReadAggregatesFile reads the aggregates CSV at path, as AggregateTable
// and WriteTable write it; an empty cell is NaN, and a quantity of an
// earlier spelling (oldQuantities) is read as today's. A bad row is an
// input error naming its line and column.
func ReadAggregatesFile(path string) ([]AggregateRow, error) {
	f, err := fileerr.OpenRegular(path, "a per-message summary")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	header := strings.Join(AggregateHeader, ",")
	var out []AggregateRow
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if line == 1 {
				return nil, fileerr.New(path, 0, "", "empty file: expected the header %q", header)
			}
			return out, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fileerr.New(path, pe.Line, "", "%v", pe.Err)
			}
			return nil, fileerr.New(path, 0, "", "%v", err)
		}
		if line == 1 {
			if got := strings.Join(rec, ","); got != header {
				return nil, fileerr.New(path, 1, "", "header %q, expected %q", got, header)
			}
			continue
		}
		if len(rec) != len(AggregateHeader) {
			return nil, fileerr.New(path, line, "", "%d columns, expected %d (%s)", len(rec), len(AggregateHeader), header)
		}
		var r AggregateRow
		if r.Payload, err = strconv.Atoi(rec[0]); err != nil || r.Payload < 1 {
			return nil, fileerr.New(path, line, AggregateHeader[0], "%q is not a positive byte count", rec[0])
		}
		if r.Quantity = rec[1]; oldQuantities[r.Quantity] != "" {
			r.Quantity = oldQuantities[r.Quantity]
		}
		if !slices.Contains(Quantities, r.Quantity) {
			return nil, fileerr.New(path, line, AggregateHeader[1], "%q: expected one of %s", rec[1], strings.Join(Quantities, ", "))
		}
		if r.Count, err = strconv.Atoi(rec[2]); err != nil || r.Count < 0 {
			return nil, fileerr.New(path, line, AggregateHeader[2], "%q is not a count", rec[2])
		}
		for i, dst := range map[int]*float64{3: &r.Mean, 4: &r.Median, 5: &r.LowerMedian, 6: &r.RobustDev, 7: &r.Min, 8: &r.Max,
			9: &r.P50, 10: &r.P90, 11: &r.P99, 12: &r.Bimodality, 14: &r.Overall} {
			*dst = math.NaN()
			if rec[i] == "" {
				continue
			}
			if *dst, err = strconv.ParseFloat(rec[i], 64); err != nil || math.IsNaN(*dst) || math.IsInf(*dst, 0) {
				return nil, fileerr.New(path, line, AggregateHeader[i], "%q is not a number (an empty cell is a missing value)", rec[i])
			}
		}
		switch rec[13] {
		case "yes":
			r.Multimodal = true
		case "no":
		default:
			return nil, fileerr.New(path, line, AggregateHeader[13], "%q: expected yes or no", rec[13])
		}
		r.Note = rec[15]
		out = append(out, r)
	}
}
