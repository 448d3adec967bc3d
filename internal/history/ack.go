package history

import (
	"bytes"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/csvfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
)

// AckColumns is the header of an acknowledgements file (formats §10).
var AckColumns = []string{"sub-experiment", "payload", "metric", "experiment", "note"}

// AnyValue in the sub-experiment, payload or metric column of an
// acknowledgement matches every one.
const AnyValue = "*"

// AckSlack is how many experiments a change point may lie from the
// experiment its acknowledgement names and still be covered by it: the
// location of a shift can move as experiments are added, and change points
// of one series are at least MinSegment (≥ 5) apart, so an acknowledgement
// never covers the next one.
const AckSlack = 2

// Ack is one acknowledgement: a shift accepted on purpose, so that the gate
// does not fail on it.
type Ack struct {
	// SubExperiment, Metric ("" for AnyValue) and Payload (-1 for AnyValue)
	// say which series it covers.
	SubExperiment string
	Payload       int
	Metric        string
	// Experiment is the name of the experiment where the accepted shift
	// begins.
	Experiment string
	Note       string
	// File and Line locate it, for reports.
	File string
	Line int
}

// Where is "file:line", for reports.
func (a Ack) Where() string { return a.File + ":" + strconv.Itoa(a.Line) }

// covers reports whether a names the series (typ, payload, magnitude).
func (a Ack) covers(typ string, payload int, magnitude string) bool {
	return (a.SubExperiment == "" || a.SubExperiment == typ) && (a.Payload < 0 || a.Payload == payload) &&
		(a.Metric == "" || a.Metric == magnitude)
}

// ReadAcksFile reads an acknowledgements file. See ReadAcks.
func ReadAcksFile(path string) ([]Ack, error) {
	b, err := fileerr.ReadRegular(path, "an acknowledgements CSV")
	if err != nil {
		return nil, err
	}
	return ReadAcks(bytes.NewReader(b), path)
}

// ReadAcks reads an acknowledgements CSV from r (formats §10); file names it
// in errors. The header is exactly AckColumns; every row names a
// sub-experiment (or *), a payload in bytes (or *), a metric of history
// (Min, Median, Max, 99%, Messages/s, a burst column, or *), the experiment
// (folder name) where the accepted shift begins, and a note saying why it
// was accepted. The file is UTF-8 text: a byte that is not UTF-8, or a NUL
// byte, is an error (encoding/csv would read either into a name that
// matches nothing). Errors name file, line and column. A file with a header
// only acknowledges nothing.
func ReadAcks(r io.Reader, file string) ([]Ack, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fileerr.New(file, 0, "", "cannot read: %v", err)
	}
	// A byte order mark is skipped, as csvfile.ReadHeader does, so that
	// the columns below count from the first character.
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if err := checkText(file, data); err != nil {
		return nil, err
	}
	const count = "%d fields: expected %d (%s)"
	return csvfile.ReadRows(bytes.NewReader(data), file, AckColumns, count, func(rec []string, line int) (Ack, error) {
		a := Ack{File: file, Line: line, Payload: -1, Experiment: strings.TrimSpace(rec[3]), Note: strings.TrimSpace(rec[4])}
		if typ := strings.TrimSpace(rec[0]); typ != AnyValue {
			if err := experiment.ValidateType(typ); err != nil {
				return a, fileerr.New(file, line, AckColumns[0], "%v, or %s for every one", err, AnyValue)
			}
			a.SubExperiment = typ
		}
		if p := strings.TrimSpace(rec[1]); p != AnyValue {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 {
				return a, fileerr.New(file, line, AckColumns[1], "%q: expected a payload in bytes (a whole number ≥ 0), or %s for every one", p, AnyValue)
			}
			a.Payload = n
		}
		if m := strings.TrimSpace(rec[2]); m != AnyValue {
			if a.Metric = magnitudeNamed(allMagnitudes(), m); a.Metric == "" {
				return a, fileerr.New(file, line, AckColumns[2], "%q: expected one of %s, or %s for every one", m, strings.Join(allMagnitudes(), ", "), AnyValue)
			}
		}
		if a.Experiment == "" {
			return a, fileerr.New(file, line, AckColumns[3], "empty: expected the name of the experiment (its folder) where the accepted shift begins")
		}
		if a.Note == "" {
			return a, fileerr.New(file, line, AckColumns[4], "empty: expected a note saying why the shift is accepted (e.g. an issue or a commit)")
		}
		return a, nil
	})
}

// checkText returns an error at the line and character of the first byte
// of data that is not UTF-8 or is NUL.
func checkText(file string, data []byte) error {
	if off := fileerr.InvalidUTF8(data); off >= 0 {
		line, col := fileerr.Position(data, off)
		return fileerr.At(file, line, col, "byte 0x%02X is not UTF-8; expected a UTF-8 CSV (was the file re-encoded?)", data[off])
	}
	if off := bytes.IndexByte(data, 0); off >= 0 {
		line, col := fileerr.Position(data, off)
		return fileerr.At(file, line, col, "NUL byte; expected a UTF-8 CSV text")
	}
	return nil
}

// allMagnitudes are the magnitudes of every kind of series.
func allMagnitudes() []string {
	return slices.Concat(Magnitudes, ThroughputMagnitudes, BurstMagnitudes)
}

// magnitudeNamed returns the entry of names that m names (its name or its
// plot-file name, any case), "" for none.
func magnitudeNamed(names []string, m string) string {
	for _, name := range names {
		if strings.EqualFold(name, m) || strings.EqualFold(fileMagnitude(name), m) {
			return name
		}
	}
	return ""
}
