package csvfile

import (
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// NewReader returns a csv.Reader of r that reuses records and leaves field
// counts to the caller, which reports them with a better message.
func NewReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	return cr
}

// ReadHeader reads the first record of cr and checks that it is exactly
// columns (a UTF-8 byte-order mark is ignored). The errors name file and
// line 1.
func ReadHeader(cr *csv.Reader, file string, columns []string) error {
	_, err := ReadHeaderOf(cr, file, strconv.Quote(strings.Join(columns, ",")), columns)
	return err
}

// ReadHeaderOf is ReadHeader for a file of several headers: it returns the
// first of headers that the header is, and an error saying expected (the
// headers in words) if none; an empty file expects the first.
func ReadHeaderOf(cr *csv.Reader, file, expected string, headers ...[]string) ([]string, error) {
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fileerr.New(file, 0, "", "empty file: expected the header %q", strings.Join(headers[0], ","))
	}
	if err != nil {
		return nil, Error(file, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	got := strings.Join(header, ",")
	for _, h := range headers {
		if got == strings.Join(h, ",") {
			return h, nil
		}
	}
	return nil, fileerr.New(file, 1, "", "header is %q, expected exactly %s", got, expected)
}

// ReadRows reads a CSV file whose header is exactly cols (ReadHeader), then
// its records with ReadRecords.
func ReadRows[R any](r io.Reader, file string, cols []string, count string,
	row func(rec []string, line int) (R, error)) ([]R, error) {
	cr := NewReader(r)
	if err := ReadHeader(cr, file, cols); err != nil {
		return nil, err
	}
	return ReadRecords(cr, file, cols, count, row)
}

// ReadRecords reads the records of cr after its header, cols: row reads
// each, found on line line, once it has as many fields as cols (otherwise
// the error is count, formatted with the fields found, the fields expected
// and the header). file names the input in errors.
func ReadRecords[R any](cr *csv.Reader, file string, cols []string, count string,
	row func(rec []string, line int) (R, error)) ([]R, error) {
	var out []R
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, Error(file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(cols) {
			return nil, fileerr.New(file, line, "", count, len(rec), len(cols), strings.Join(cols, ","))
		}
		v, err := row(rec, line)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// Error turns an error of encoding/csv into a *fileerr.Error naming file
// and, for a syntax error, the line.
func Error(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileerr.New(file, pe.Line, "", "malformed CSV: %v", pe.Err)
	}
	return fileerr.New(file, 0, "", "cannot read: %v", err)
}
