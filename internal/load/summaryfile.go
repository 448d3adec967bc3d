package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// unknownField starts encoding/json's error about a field that the type
// lacks, followed by the field's name in quotes.
const unknownField = "json: unknown field "

// ReadSummaryFile reads the summary JSON at path, as WriteSummary writes
// it: one UTF-8 JSON object and nothing after it. A byte that is not UTF-8,
// an unknown field, data after the object (a second object, a stray brace)
// or another format is an input error located in the file.
func ReadSummaryFile(path string) (Summary, error) {
	data, err := fileerr.ReadRegular(path, "a load summary")
	if err != nil {
		return Summary{}, err
	}
	// encoding/json would read a byte that is not UTF-8 as U+FFFD.
	if off := fileerr.InvalidUTF8(data); off >= 0 {
		line, col := fileerr.Position(data, off)
		return Summary{}, fileerr.At(path, line, col, "byte 0x%02X is not UTF-8 (expected run load's summary, %s)", data[off], SummaryFormat)
	}
	var s Summary
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		off := int(d.InputOffset())
		switch {
		case errors.As(err, &se):
			off = int(se.Offset)
		case errors.As(err, &te):
			off = int(te.Offset)
		case strings.HasPrefix(err.Error(), unknownField):
			// The decoder stops at the end of the object: point at the field.
			if i := bytes.Index(data, []byte(strings.TrimPrefix(err.Error(), unknownField)+":")); i >= 0 {
				off = i
			}
		case errors.Is(err, io.EOF):
			return Summary{}, fileerr.New(path, 0, "", "empty file: expected the JSON of run load's summary (%s)", SummaryFormat)
		}
		line, col := fileerr.Position(data, off)
		return Summary{}, fileerr.At(path, line, col, "%v (expected run load's summary, %s)", err, SummaryFormat)
	}
	// The decoder stops after the first value: what follows is not part of
	// the summary, and may be a second run's.
	if rest := bytes.TrimLeft(data[d.InputOffset():], " \t\r\n"); len(rest) > 0 {
		line, col := fileerr.Position(data, len(data)-len(rest))
		return Summary{}, fileerr.At(path, line, col, "unexpected data after the JSON object; expected the end of the file (one summary per file, %s)", SummaryFormat)
	}
	if s.Format != SummaryFormat {
		return Summary{}, fileerr.New(path, 0, "", "format %q, expected %q (a summary of run load)", s.Format, SummaryFormat)
	}
	return s, nil
}
