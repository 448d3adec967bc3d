package fileerr

import (
	"errors"
	"fmt"
	"strings"
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
