package runapp

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/exit"
)

// subcommands are the subcommands of run that live in files of their own
// (run load, run throughput, …); each file adds its own from init.
var subcommands []func() *cli.Command

// addSubcommand registers a subcommand of run.
func addSubcommand(f func() *cli.Command) { subcommands = append(subcommands, f) }

// App returns the run command: round trips, its echo role, and the
// subcommands registered with addSubcommand.
func App() *cli.App {
	a := baseApp()
	for _, f := range subcommands {
		a.Commands = append(a.Commands, f())
	}
	roundTrip := a.Flags
	before := a.Before
	a.Before = func(c *cli.Context) error {
		if err := checkFlagsBeforeSubcommand(c, roundTrip); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
	withRoleFlags(a)
	// Every numeric flag's range is checked before anything starts.
	a.Action = cliapp.RangesChecked(a.Flags, a.Action)
	for _, cmd := range a.Commands {
		cmd.Action = cliapp.RangesChecked(cmd.Flags, cmd.Action)
	}
	return a
}

// checkFlagsBeforeSubcommand refuses a flag of the round-trip run given
// before a subcommand's name (run --out D throughput …): the subcommand has
// flags of its own and would ignore it, measuring into the wrong place or
// with the wrong settings. A flag set by its environment variable is not
// refused: the variable serves every subcommand that reads it.
func checkFlagsBeforeSubcommand(c *cli.Context, roundTrip []cli.Flag) error {
	next := c.Args().First()
	if next == "" || strings.HasPrefix(next, "-") || c.App.Command(next) == nil {
		return nil
	}
	for _, f := range roundTrip {
		name := f.Names()[0]
		if !c.IsSet(name) || fromEnv(f) {
			continue
		}
		return exit.With(exit.Usage, fmt.Errorf("--%s was given before %s: it is a flag of the round-trip run, which run %s ignores; give it after the subcommand's name (run %s --%s …)", name, next, next, next, name))
	}
	return nil
}

// fromEnv reports whether one of f's environment variables is set.
func fromEnv(f cli.Flag) bool {
	ef, ok := f.(interface{ GetEnvVars() []string })
	if !ok {
		return false
	}
	for _, e := range ef.GetEnvVars() {
		if _, set := os.LookupEnv(e); set {
			return true
		}
	}
	return false
}
