package history

import (
	"io"
	"math"
	"strconv"

	"github.com/gocarina/gocsv"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/summary"
)

// CSVFileName is the name of the history table in the plots directory.
const CSVFileName = "history.csv"

// Record is one row of history.csv: one plotted value.
type Record struct {
	Experiment    string `csv:"experiment"`
	SubExperiment string `csv:"sub-experiment"`
	Payload       int    `csv:"payload"`
	// Magnitude is a summary column name: Min, Median, Max or 99%.
	Magnitude string `csv:"magnitude"`
	// Value in microseconds, with 3 decimals like the summaries.
	Value string `csv:"value"`
	// Requirement in microseconds, empty when the magnitude has none.
	Requirement string `csv:"requirement"`
}

// Records returns every plotted value: for each sub-experiment, payload and
// magnitude (in Magnitudes order), one record per experiment that has the
// value, in chronological order. Gaps have no record.
func (h *History) Records() []Record {
	var recs []Record
	for _, s := range h.SubExperiments {
		for p, b := range s.Payloads {
			for m, mag := range Magnitudes {
				req := ""
				if r := s.Requirement(mag, p); !math.IsNaN(r) {
					req = summary.Format3(r)
				}
				for e, v := range s.Values[m][p] {
					if math.IsNaN(v) {
						continue
					}
					recs = append(recs, Record{
						Experiment:    h.Experiments[e].Name,
						SubExperiment: s.Type,
						Payload:       b,
						Magnitude:     mag,
						Value:         summary.Format3(v),
						Requirement:   req,
					})
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

// payloadName is a payload as shown in legends and titles.
func payloadName(b int) string { return strconv.Itoa(b) + " B" }
