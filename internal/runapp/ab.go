package runapp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/flagrange"
	"github.com/mqgate/mqgate/internal/meta"
)

// The two sides of an A/B measurement, and the folders their runs go to.
const (
	SideReference = "reference"
	SideCandidate = "candidate"
)

func init() { addSubcommand(abCommand) }

// abCommand is `run ab`: interleaved runs of a reference and a candidate.
func abCommand() *cli.Command {
	return &cli.Command{
		Name:      "ab",
		Usage:     "interleave runs of a reference and a candidate system (A B A B …) on one machine",
		UsageText: "run ab --runs N [--reference 'RUN FLAGS'] [--candidate 'RUN FLAGS'] [--out DIR] [--name NAME] -- RUN FLAGS FOR BOTH",
		Description: `ab compares two systems on one machine without letting the machine's drift
(other load, thermal state, frequency scaling) favour either: it alternates
whole runs, reference then candidate, --runs times each, so that whatever
changes over the minutes of the measurement hits both sides alike.

Every run is an ordinary 'run' with the flags after -- (common to both
sides) followed by the side's own --reference or --candidate flags (a
command line, quoted as in a shell): typically --echo-command naming each
build's program for the built-in links, or --target naming each side's
broker. Runs are written to DIR/reference/NAME-01, DIR/candidate/NAME-01,
DIR/reference/NAME-02, …: each an experiment folder, so that DIR/reference
and DIR/candidate are the two results roots the gates compare, run by run.
ab chooses --out and --name of each run: neither may be given among the run
flags.

To gate the candidate against the reference, summarise every run and
compare the two roots (two or more runs per side give the statistical gate):
   for d in ab/*/NAME-*; do process --no-plots "$d"; done
   compare --reference ab/reference --results ab/candidate --plots-directory ab/comparison

Both sides' flags are checked before the first run. A run that fails stops
the series with its exit code; the runs already made stay.

Examples:
   run ab --runs 5 --out ab --reference "--echo-command ./old/bin/run" --candidate "--echo-command ./new/bin/run" -- -s interprocess_reliable_tcp --payloads 16,1024 --samples 2000
   run ab --runs 3 --candidate "--echo-delay 50us" -- -s interprocess_reliable_tcp --payloads 64 --samples 500
   run ab --runs 4 --reference "--target nats://old-host:4222" --candidate "--target nats://new-host:4222" -- -s nats_reliable --payloads 256`,
		Flags: []cli.Flag{
			cliapp.Ranged(&cli.IntFlag{Name: "runs", Value: 10, Usage: "runs per side (the statistical gate wants about 6 or more)"}, flagrange.Int(1, 1000)),
			&cli.StringFlag{Name: "reference", Usage: "run flags of the reference side only, e.g. \"--echo-command ./old/run\""},
			&cli.StringFlag{Name: "candidate", Usage: "run flags of the candidate side only, e.g. \"--echo-command ./new/run\""},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "ab", Usage: "directory of the reference/ and candidate/ results roots"},
			&cli.StringFlag{Name: "name", Usage: "experiment name stem, numbered per run (default: UTC start time, " + experiment.DirTimeLayout + ")"},
		},
		Action: abAction,
	}
}

// abRun is one run of the series.
type abRun struct {
	side string
	n    int
	dir  string
	args []string
}

func abAction(c *cli.Context) error {
	runs := c.Int("runs")
	if runs < 1 {
		return exit.Usagef("--runs %d: expected at least 1", runs)
	}
	common := c.Args().Slice()
	sides := map[string][]string{}
	for _, side := range []string{SideReference, SideCandidate} {
		args, err := splitCommand(c.String(side))
		if err != nil {
			return exit.Usagef("--%s: %v", side, err)
		}
		sides[side] = args
	}
	if slices.Equal(sides[SideReference], sides[SideCandidate]) {
		return exit.Usagef("--reference %q and --candidate %q: the two sides are the same system; give each side's flags (e.g. --echo-command or --target)",
			c.String(SideReference), c.String(SideCandidate))
	}
	name := c.String("name")
	if name == "" {
		name = time.Now().UTC().Format(experiment.DirTimeLayout)
	}
	if name != filepath.Base(name) || name == "." || name == ".." {
		return exit.Usagef("--name %q: expected a plain directory name", name)
	}
	out := c.String("out")
	for _, side := range []string{SideReference, SideCandidate} {
		if err := atomicfile.CheckDir(filepath.Join(out, side)); err != nil {
			return exit.Usagef("--out: %v", err)
		}
	}
	var plan []abRun
	for i := 1; i <= runs; i++ {
		for _, side := range []string{SideReference, SideCandidate} {
			exp := fmt.Sprintf("%s-%02d", name, i)
			args := append(append([]string{"run"}, common...), sides[side]...)
			args = append(args, "--out", filepath.Join(out, side), "--name", exp)
			plan = append(plan, abRun{side: side, n: i, dir: filepath.Join(out, side, exp), args: args})
		}
	}
	// Check both sides' flags, and that no run would land on an existing
	// experiment, before the first run.
	for _, side := range []string{SideReference, SideCandidate} {
		if err := checkRunArgs(append(common, sides[side]...)); err != nil {
			return exit.With(exit.Code(err), fmt.Errorf("%s side: %w", side, err))
		}
	}
	for _, r := range plan {
		if _, err := os.Stat(filepath.Join(r.dir, meta.FileName)); err == nil {
			return exit.Usagef("experiment %s exists already; choose another --name or --out", r.dir)
		}
	}
	quiet := slices.Contains(common, "-q") || slices.Contains(common, "--quiet")
	for i, r := range plan {
		if !quiet {
			fmt.Fprintf(c.App.ErrWriter, "ab: run %d of %d: %s %d of %d\n", i+1, len(plan), r.side, r.n, runs)
		}
		if code := cliapp.Run(c.Context, App(), r.args, c.App.Writer, c.App.ErrWriter); code != exit.OK {
			return exit.With(code, fmt.Errorf("ab stopped at run %d of %d (%s %d, %s); the runs before it are complete",
				i+1, len(plan), r.side, r.n, r.dir))
		}
	}
	if !quiet {
		fmt.Fprintf(c.App.ErrWriter, "ab: %d runs per side in %s and %s\n", runs,
			filepath.Join(out, SideReference), filepath.Join(out, SideCandidate))
	}
	return nil
}

// checkRunArgs parses run's flags as a run would, without measuring.
func checkRunArgs(args []string) error {
	for _, a := range args {
		flag, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && slices.Contains([]string{"out", "o", "name"}, flag) {
			return exit.Usagef("%s: ab names each run's experiment itself (--out and --name of 'run ab')", a)
		}
	}
	app := App()
	app.Commands = nil
	app.Action = func(c *cli.Context) error {
		if c.Args().Present() {
			return exit.Usagef("unexpected argument %q", c.Args().First())
		}
		if c.Bool("list") {
			return exit.Usagef("--list measures nothing")
		}
		_, err := config(c)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		return nil
	}
	var discard strings.Builder
	app.Writer, app.ErrWriter = &discard, &discard
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return exit.Usagef("%v", err) }
	return app.Run(append([]string{"run"}, args...))
}

// splitCommand splits a command line into words as a POSIX shell would,
// for quotes and backslashes only (no variables, no globbing).
func splitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated \" quote")
			}
			inWord = true
		case ch == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a backslash ends the line")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
