package history

import (
	"io"
	"math"
	"strconv"

	"github.com/gocarina/gocsv"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/changepoint"
	"github.com/mqgate/mqgate/internal/result"
)

// CSVFileName is the name of the history table in the plots directory.
const CSVFileName = "history.csv"

// Record is one row of history.csv: one plotted value.
type Record struct {
	Experiment    string `csv:"experiment"`
	SubExperiment string `csv:"sub-experiment"`
	Payload       int    `csv:"payload [Bytes]"`
	// Magnitude is a summary column name: Min, Median, Max or 99%.
	Magnitude string `csv:"magnitude"`
	// Value in microseconds, with 3 decimals like the summaries.
	Value string `csv:"value"`
	// Requirement in microseconds, empty when the magnitude has none.
	Requirement string `csv:"requirement"`
	// Change is "slower" or "faster" on the experiment where a change point
	// of the series begins a new segment, empty elsewhere. ChangeRatio is
	// the median of that segment over the median of the one before (3
	// decimals), ChangeP the permutation p-value of the split.
	Change      string `csv:"change"`
	ChangeRatio string `csv:"change-ratio"`
	ChangeP     string `csv:"change-p"`
}

// Records returns every plotted value: for each sub-experiment, payload and
// magnitude (in Magnitudes order), one record per experiment that has the
// value, in chronological order. Gaps have no record.
func (h *History) Records() []Record {
	var recs []Record
	for _, s := range h.SubExperiments {
		for p, b := range s.Payloads {
			for m, mag := range s.Mags() {
				req := ""
				if r := s.Requirement(mag, p); !math.IsNaN(r) {
					req = result.Format3(r)
				}
				var cps []changepoint.ChangePoint
				if s.Changes != nil {
					cps = s.Changes[m][p].ChangePoints
				}
				for e, v := range s.Values[m][p] {
					if math.IsNaN(v) {
						continue
					}
					rec := Record{
						Experiment:    h.Experiments[e].Name,
						SubExperiment: s.Type,
						Payload:       b,
						Magnitude:     mag,
						Value:         result.Format3(v),
						Requirement:   req,
					}
					for len(cps) > 0 && cps[0].Index < e {
						cps = cps[1:]
					}
					if len(cps) > 0 && cps[0].Index == e {
						c := Change{Magnitude: mag, ChangePoint: cps[0]}
						rec.Change, rec.ChangeRatio, rec.ChangeP = c.Direction(), formatRatio(c.Ratio), formatP(c.P)
					}
					recs = append(recs, rec)
				}
			}
		}
	}
	return recs
}

// WriteCSV writes h's records as CSV to w, with a header.
func (h *History) WriteCSV(w io.Writer) error {
	return gocsv.Marshal(h.Records(), w)
}

// WriteCSVFile writes h's records atomically to path.
func (h *History) WriteCSVFile(path string) error {
	return atomicfile.Write(path, h.WriteCSV)
}

// formatRatio prints a ratio with 3 decimals ("inf" when the segment
// before has a median of 0).
func formatRatio(r float64) string {
	if math.IsInf(r, 1) {
		return "inf"
	}
	return result.Format3(r)
}

// formatP prints a p-value with 4 significant digits.
func formatP(p float64) string { return strconv.FormatFloat(p, 'g', 4, 64) }
