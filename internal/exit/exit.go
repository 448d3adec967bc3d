package exit

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes of every mqgate tool (formats §5).
const (
	OK           = 0   // done; for a gate, every check passed
	GateFailed   = 1   // a requirement was violated or a regression found
	Usage        = 2   // usage or input error
	Inconclusive = 3   // a statistical gate needs more runs to decide
	Interrupted  = 130 // interrupted after flushing what was measured
)

// Error carries the exit code an error maps to.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrInterrupted is the error of an interrupted command (exit code 130).
var ErrInterrupted = With(Interrupted, errors.New("interrupted"))

// With wraps err so that the command exits with code. A nil err yields nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Usagef returns a usage error (exit code 2).
func Usagef(format string, args ...any) error {
	return With(Usage, fmt.Errorf(format, args...))
}

// GateFailedf returns a gate failure (exit code 1).
func GateFailedf(format string, args ...any) error {
	return With(GateFailed, fmt.Errorf(format, args...))
}

// Code maps an error to its exit code: nil is 0, an *Error its code, any
// error with a non-zero ExitCode method (a command-line library's exit
// error) that code, and anything else 2, so that an error never exits 0.
func Code(err error) int {
	if err == nil {
		return OK
	}
	var ee *Error
	if errors.As(err, &ee) {
		if ee.Code == OK {
			return Usage
		}
		return ee.Code
	}
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		return ec.ExitCode()
	}
	return Usage
}

// Cancelled reports whether ctx was cancelled, in which case a command
// should flush what it has and return With(Interrupted, ...).
func Cancelled(ctx context.Context) bool { return ctx.Err() != nil }
