package runapp

import "github.com/urfave/cli/v2"

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
	withRoleFlags(a)
	return a
}
