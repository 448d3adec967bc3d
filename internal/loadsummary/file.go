package loadsummary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// Write writes s as indented JSON, one object and a newline.
func Write(w io.Writer, s Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// ReadFile reads the summary JSON at path, a regular file, as Read does.
func ReadFile(path string) (Summary, error) {
	data, err := fileerr.ReadRegular(path, "a load summary")
	if err != nil {
		return Summary{}, err
	}
	return parse(data, path)
}

// Read reads a summary JSON from r, as Write writes it: one UTF-8 JSON
// object and nothing after it. A byte that is not UTF-8, an unknown field,
// data after the object (a second object, a stray brace) or another format
// is an input error located in file.
func Read(r io.Reader, file string) (Summary, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", file, err)
	}
	return parse(data, file)
}

// unknownField starts encoding/json's error about a field that the type
// lacks, followed by the field's name in quotes.
const unknownField = "json: unknown field "

// parse reads the summary in data, the contents of file.
func parse(data []byte, file string) (Summary, error) {
	// encoding/json would read a byte that is not UTF-8 as U+FFFD.
	if off := fileerr.InvalidUTF8(data); off >= 0 {
		line, col := fileerr.Position(data, off)
		return Summary{}, fileerr.At(file, line, col, "byte 0x%02X is not UTF-8 (expected run load's summary, %s)", data[off], Format)
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
			return Summary{}, fileerr.New(file, 0, "", "empty file: expected the JSON of run load's summary (%s)", Format)
		}
		line, col := fileerr.Position(data, off)
		return Summary{}, fileerr.At(file, line, col, "%v (expected run load's summary, %s)", err, Format)
	}
	// The decoder stops after the first value: what follows is not part of
	// the summary, and may be a second run's.
	if rest := bytes.TrimLeft(data[d.InputOffset():], " \t\r\n"); len(rest) > 0 {
		line, col := fileerr.Position(data, len(data)-len(rest))
		return Summary{}, fileerr.At(file, line, col, "unexpected data after the JSON object; expected the end of the file (one summary per file, %s)", Format)
	}
	if s.Format != Format {
		return Summary{}, fileerr.New(file, 0, "", "format %q, expected %q (a summary of run load)", s.Format, Format)
	}
	return s, nil
}
