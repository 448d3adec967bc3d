package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// Exit codes of every mqgate tool (formats §5).
const (
	ExitOK           = 0   // done; for a gate, every check passed
	ExitGateFailed   = 1   // a requirement was violated or a regression found
	ExitUsage        = 2   // usage or input error
	ExitInconclusive = 3   // a statistical gate needs more runs to decide
	ExitInterrupted  = 130 // interrupted after flushing what was measured
)

// Version is the version of the tools, stamped at build time by the
// Makefile (-ldflags "-X github.com/mqgate/mqgate/internal/cliapp.Version=...",
// from git describe); empty in a plain go build, where the Go build
// information is used instead.
var Version string

// ExitError carries the exit code an error maps to.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Exit wraps err so that the command exits with code. A nil err yields nil.
func Exit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// Usagef returns a usage error (exit code 2).
func Usagef(format string, args ...any) error {
	return Exit(ExitUsage, fmt.Errorf(format, args...))
}

// GateFailedf returns a gate failure (exit code 1).
func GateFailedf(format string, args ...any) error {
	return Exit(ExitGateFailed, fmt.Errorf(format, args...))
}

// CodeOf maps an error to its exit code: nil is 0, an *ExitError its code, a
// cli.ExitCoder its code, and anything else 2, so that an error never exits 0.
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Code == ExitOK {
			return ExitUsage
		}
		return ee.Code
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		return ec.ExitCode()
	}
	return ExitUsage
}

// Run runs app with args (args[0] is the program name), writing to stdout and
// stderr, and returns the exit code. An error is printed once to stderr as
// "<name>: <error>". Run is what tests call; Main is what main calls.
func Run(ctx context.Context, app *cli.App, args []string, stdout, stderr io.Writer) int {
	prepare(app, stdout, stderr)
	err := app.RunContext(ctx, args)
	code := CodeOf(err)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", app.Name, err)
	}
	return code
}

// Main runs app with the process's arguments and standard streams, cancels
// its context on SIGINT or SIGTERM, and exits with the mapped code.
func Main(app *cli.App) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, app, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// prepare makes app report instead of exiting, and turns flag errors into
// usage errors that are printed on stderr rather than mixed into stdout.
func prepare(app *cli.App, stdout, stderr io.Writer) {
	app.Writer = stdout
	app.ErrWriter = stderr
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = usageError
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = usageError
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

func usageError(c *cli.Context, err error, _ bool) error {
	return Usagef("%v (see '%s --help')", err, c.App.Name)
}

// Interrupted reports whether ctx was cancelled, in which case a command
// should flush what it has and return Exit(ExitInterrupted, ...).
func Interrupted(ctx context.Context) bool { return ctx.Err() != nil }

// NoArgs returns a usage error when c has positional arguments, for tools
// that take flags only.
func NoArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return Usagef("unexpected argument %q (see '%s --help')", c.Args().First(), c.App.Name)
	}
	return nil
}
