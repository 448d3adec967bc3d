package fileerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Error is an input error located in a file. Line is 1-based; 0 means the
// error is about the file as a whole. Col is the 1-based character on the
// line (JSON and other text formats), 0 for none. Column is a column name
// (CSV), or "".
type Error struct {
	File   string
	Line   int
	Col    int
	Column string
	Msg    string
}

// New returns an Error for file at line (0 for the whole file) and column
// ("" for none), with a message built from format and args.
func New(file string, line int, column, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Column: column, Msg: fmt.Sprintf(format, args...)}
}

// At returns an Error for file at line and character col (both 1-based),
// with a message built from format and args.
func At(file string, line, col int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Error formats the error as `file:line: column "X": msg`, or
// `file:line:col: msg` when Col is set.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q: ", e.Column)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// As reports whether err is, or wraps, an *Error and returns it.
func As(err error) (*Error, bool) {
	var fe *Error
	ok := errors.As(err, &fe)
	return fe, ok
}

// Position returns the 1-based line and character of byte offset off in
// data (clamped to data), for At. A byte that is not UTF-8 counts as one
// character.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return bytes.Count(data[:start], []byte("\n")) + 1, utf8.RuneCount(data[start:off]) + 1
}

// InvalidUTF8 returns the offset of the first byte of data that is not
// UTF-8, or -1 when data is UTF-8 text.
func InvalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// ReadRegular reads the whole file at path, refusing anything that is not a
// regular file with NotRegular's error (what says what was expected): a
// named pipe would block the reader forever, a directory has no content to
// read. The file is opened without waiting, so a missing file is the
// open's own error ("open path: no such file or directory").
func ReadRegular(path, what string) ([]byte, error) {
	f, err := OpenRegular(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// SyntaxOffset returns the offset of the byte where data stops being JSON,
// off if a scan finds none. The Offset of a json.SyntaxError from a
// json.Decoder is no position in data: at a misplaced delimiter it is the
// offending byte's, but in a value it counts only the bytes of the values
// decoded so far ("garbage" is placed one character late, a bad value deep
// in the file lines early). So data is scanned again from its first byte,
// where Offset counts every byte read, the offending one included.
func SyntaxOffset(data []byte, off int) int {
	var syn *json.SyntaxError
	if err := json.Unmarshal(data, new(json.RawMessage)); errors.As(err, &syn) {
		return int(syn.Offset) - 1
	}
	return off
}
