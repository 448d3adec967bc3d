package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/program"
	"github.com/mqgate/mqgate/internal/suggest"
)

// Version is the version of the tools, stamped at build time by the
// Makefile (-ldflags "-X github.com/mqgate/mqgate/internal/cliapp.Version=...",
// from git describe); empty in a plain go build, where the Go build
// information is used instead.
var Version string

// VersionString is what --version prints: Version when the Makefile
// stamped it, otherwise the module version from the Go build information
// (the tag under `go install …@vX`), followed by the VCS revision (and
// "+dirty") when the binary was built from a checkout.
func VersionString() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		}
	}
	// A version derived from VCS already names the revision.
	if rev != "" && !strings.Contains(v, rev) {
		v += " " + rev + dirty
	}
	return v
}

// Run runs app with args (args[0] is the program name), writing to stdout and
// stderr, and returns the exit code. An error is printed once to stderr as
// "<name>: <error>", the tool named as it was started (program.Invocation:
// "mqgate run" under the front), and so are the tools in the error's
// quoted command lines. The context handed to the tool carries the
// invocation, from which the tool starts itself or another tool. Run is
// what tests call; Main is what main calls.
func Run(ctx context.Context, app *cli.App, args []string, stdout, stderr io.Writer) int {
	in := program.FromContext(ctx)
	in.Tool = app.Name
	ctx = program.NewContext(ctx, in)
	app.HelpName = in.Name()
	prepare(app, stdout, stderr)
	if in.Front != "" {
		frontExamples(app, in.Front)
	}
	err := helpTopicError(app, app.RunContext(ctx, args))
	code := exit.Code(err)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", app.HelpName, in.Reword(err.Error()))
	}
	return code
}

// helpTopicError turns urfave/cli's refusal of a help topic (run help
// nosuch, process --help DIR), which exits 3, the gates' inconclusive, into
// a usage error, exit 2, with the subcommand meant when one is near.
func helpTopicError(app *cli.App, err error) error {
	var ee *exit.Error
	if err == nil || errors.As(err, &ee) {
		return err
	}
	rest, ok := strings.CutPrefix(err.Error(), "No help topic for '")
	if !ok {
		return err
	}
	topic := rest[:max(0, strings.LastIndex(rest, "'"))]
	var names [][]string
	for _, c := range app.Commands {
		names = append(names, c.Names())
	}
	if near := suggest.Nearest(topic, names...); near != "" {
		return exit.Usagef("no help topic %q: did you mean %s? (see '%s --help')", topic, near, app.HelpName)
	}
	return exit.Usagef("no help topic %q (see '%s --help')", topic, app.HelpName)
}

// Main runs app with the process's arguments and standard streams, cancels
// its context on SIGINT or SIGTERM, and exits with the mapped code.
func Main(app *cli.App) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, app, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// prepare makes app report instead of exiting, turns flag errors into
// usage errors printed on stderr rather than mixed into stdout, and gives
// every tool one behaviour for missing required flags: the one line that
// matters, not the help.
func prepare(app *cli.App, stdout, stderr io.Writer) {
	app.Writer = stdout
	app.ErrWriter = stderr
	if app.Version == "" {
		app.Version = VersionString()
	}
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = usageError
	app.Before = requireFlags(app.HelpName, app.Flags, app.Before)
	var walk func(string, []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = usageError
			c.Before = requireFlags(path+" "+c.Name, c.Flags, c.Before)
			walk(path+" "+c.Name, c.Subcommands)
		}
	}
	walk(app.HelpName, app.Commands)
	flagStringerOnce.Do(func() { cli.FlagStringer = oneDefault(cli.FlagStringer) })
}

// frontExamples makes the command lines of app's help, and of its
// commands', start the tools as front starts them (mqgate run …), so that
// a user of the installed front can paste them: they name the tools as
// their own programs, which are not on PATH then, or are others (compare
// is ImageMagick's, history a shell builtin).
func frontExamples(app *cli.App, front string) {
	subcommands := map[string]bool{}
	for _, c := range app.Commands {
		for _, n := range c.Names() {
			subcommands[n] = true
		}
	}
	app.UsageText = frontLines(app.UsageText, front, 0, subcommands)
	app.Description = frontLines(app.Description, front, 2, subcommands)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.UsageText = frontLines(c.UsageText, front, 0, subcommands)
			c.Description = frontLines(c.Description, front, 2, subcommands)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// frontLines puts front before every command line of text whose first word
// is a tool's name: with indent 0 (a usage text) every such line, else a
// line indented by at least indent spaces whose second word is a flag, a
// path or one of subcommands (run ab, process results/x, check
// --requirements …). Prose that begins with a tool's name ("run measures,
// …") is left as it is.
func frontLines(text, front string, indent int, subcommands map[string]bool) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		body := strings.TrimLeft(line, " ")
		if len(line)-len(body) < indent {
			continue
		}
		// A tool started inside an example's shell loop or list
		// (for d in …; do process --no-plots "$d"; done).
		body = inlineTool.ReplaceAllString(body, "${1}"+front+" $2")
		words := strings.Fields(body)
		// A usage line (indent 0) is a command line whatever follows the name.
		if len(words) >= 2 && slices.Contains(program.Tools, words[0]) &&
			(indent == 0 || strings.HasPrefix(words[1], "-") || strings.Contains(words[1], "/") || subcommands[strings.TrimSuffix(words[1], "|sub|req|qry")]) {
			body = front + " " + body
		}
		lines[i] = line[:len(line)-len(strings.TrimLeft(line, " "))] + body
	}
	return strings.Join(lines, "\n")
}

// inlineTool matches a tool started after do or && in a shell line,
// with a flag or a path after its name.
var inlineTool = regexp.MustCompile(`(\bdo |&& )((?:` + strings.Join(program.Tools, "|") + `) (?:-|\S*/))`)

// requireFlags takes the checking of flags marked Required from urfave/cli,
// which prints the whole help before its error, and returns a Before that
// checks them first, then calls before.
func requireFlags(cmd string, flags []cli.Flag, before cli.BeforeFunc) cli.BeforeFunc {
	var required []cli.Flag
	for _, f := range flags {
		if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
			// Every flag type of urfave/cli v2 has the field.
			v := reflect.ValueOf(f)
			if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
				continue
			}
			if field := v.Elem().FieldByName("Required"); field.CanSet() && field.Kind() == reflect.Bool {
				field.SetBool(false)
				required = append(required, f)
			}
		}
	}
	if len(required) == 0 {
		return before
	}
	return func(c *cli.Context) error {
		var missing []string
		for _, f := range required {
			if !slices.ContainsFunc(f.Names(), c.IsSet) {
				missing = append(missing, dashed(f.Names()[0]))
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			return exit.Usagef("%s is required (see '%s --help')", missing[0], cmd)
		default:
			return exit.Usagef("%s and %s are required (see '%s --help')",
				strings.Join(missing[:len(missing)-1], ", "), missing[len(missing)-1], cmd)
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}

var flagStringerOnce sync.Once

// oneDefault wraps urfave/cli's flag help line so that a flag whose usage
// speaks of its default in words ("(default: number of CPUs)", "20 by
// default") does not get a second, literal one ("(default: 0)").
func oneDefault(stringer cli.FlagStringFunc) cli.FlagStringFunc {
	return func(f cli.Flag) string {
		s := stringer(f)
		df, ok := f.(cli.DocGenerationFlag)
		if !ok || !strings.Contains(strings.ToLower(df.GetUsage()), "default") {
			return s
		}
		if dt := df.GetDefaultText(); dt != "" {
			literal := " (default: " + dt + ")"
			if i := strings.LastIndex(s, literal); i >= 0 {
				s = s[:i] + s[i+len(literal):]
			}
		}
		return s
	}
}

// dashed writes a flag name as typed: --name, or -n for one letter.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// usageError rewrites the flag package's errors in the tools' terms: an
// unknown flag with the nearest known one, a bad value with the form
// expected.
func usageError(c *cli.Context, err error, _ bool) error {
	cmd := c.App.HelpName
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
		cmd += " " + c.Command.Name
		flags = c.Command.Flags
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if near := nearestFlag(flags, name); near != "" {
			return exit.Usagef("unknown flag %s: did you mean %s? (see '%s --help')", dashed(name), dashed(near), cmd)
		}
		return exit.Usagef("unknown flag %s (see '%s --help')", dashed(name), cmd)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return exit.Usagef("%s needs a value (see '%s --help')", dashed(name), cmd)
	}
	var value, name string
	if n, _ := fmt.Sscanf(msg, "invalid value %q for flag -%s", &value, &name); n == 2 {
		name = strings.TrimSuffix(name, ":")
		if want := expectedForm(flags, name); want != "" {
			return exit.Usagef("%s %q: expected %s (see '%s --help')", dashed(name), value, want, cmd)
		}
	}
	return exit.Usagef("%v (see '%s --help')", err, cmd)
}

// expectedForm says what a value of the flag called name looks like, or "".
func expectedForm(flags []cli.Flag, name string) string {
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.IntSliceFlag, *cli.Int64SliceFlag:
			return "a whole number"
		case *cli.UintFlag, *cli.Uint64Flag, *cli.UintSliceFlag, *cli.Uint64SliceFlag:
			return "a whole number, 0 or more"
		case *cli.Float64Flag, *cli.Float64SliceFlag:
			return "a number"
		case *cli.DurationFlag:
			return "a duration such as 500ms, 10s or 1m30s"
		case *cli.BoolFlag:
			return "true or false, or the flag alone"
		}
	}
	return ""
}

// nearestFlag returns the name of the flag in flags closest to name (see
// suggest.Nearest), or "" when none is close enough to be what was meant.
func nearestFlag(flags []cli.Flag, name string) string {
	var names [][]string
	for _, f := range flags {
		names = append(names, f.Names())
	}
	return suggest.Nearest(name, names...)
}

// NoArgs returns a usage error when c has positional arguments, for tools
// that take flags only.
func NoArgs(c *cli.Context) error {
	if c.NArg() > 0 {
		return exit.Usagef("unexpected argument %q (see '%s --help')", c.Args().First(), c.App.HelpName)
	}
	return nil
}

// NoEmpty returns a usage error naming the first of flags that was given
// an empty value: an unset variable in a script (--junit "$REPORT") would
// otherwise read as the flag not given, and the tool would write no report,
// put its plots in their default folder or leave a label out, and exit by
// its verdict as if all were well.
func NoEmpty(c *cli.Context, flags ...string) error {
	for _, f := range flags {
		if c.IsSet(f) && c.String(f) == "" {
			return exit.Usagef("--%s is empty (an unset variable?): give a value, or leave the flag out", f)
		}
	}
	return nil
}

// Given returns the flags of c's app that were given, by first name, for
// tools that refuse a flag their mode does not use rather than ignore it.
func Given(c *cli.Context) map[string]bool {
	given := map[string]bool{}
	for _, f := range c.App.Flags {
		if name := f.Names()[0]; c.IsSet(name) {
			given[name] = true
		}
	}
	return given
}
