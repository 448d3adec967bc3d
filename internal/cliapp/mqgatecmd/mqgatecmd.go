// Package mqgatecmd is the mqgate front: one installed program, `mqgate
// <tool> …`, that runs the same code as the six commands, so that an
// installation puts no program named run, compare or history (a shell
// builtin that wins over PATH) on the user's PATH.
package mqgatecmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/program"
	"github.com/mqgate/mqgate/internal/suggest"
)

// tool is one command of the front, in the order of a results pipeline.
type tool struct {
	name string
	app  func() *cli.App
}

var tools = []tool{
	{"run", runcmd.App},
	{"process", processcmd.App},
	{"check", checkcmd.App},
	{"compare", comparecmd.App},
	{"requirements", requirementscmd.App},
	{"history", historycmd.App},
}

// Run runs `mqgate TOOL ARGS…` (args[0] is the program name) and returns
// the exit code: the tool's own, or 2 for a missing or unknown tool.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		usage(stderr)
		return exit.Usage
	}
	if args[1] == "echo" {
		// Another build's front named by run's --echo-command: run starts
		// that program as `PROGRAM echo …`, which here is run's echo role.
		args = slices.Concat([]string{args[0], "run"}, args[1:])
	}
	if slices.Contains([]string{"help", "-h", "--help"}, args[1]) && len(args) > 2 {
		// mqgate help TOOL [SUBCOMMAND…] (or --help TOOL) is the tool's own
		// help, as git help and go help give it, not the list of tools again.
		args = helpArgs(args)
	}
	switch name := args[1]; name {
	case "-h", "--help", "help":
		usage(stdout)
		return exit.OK
	case "-v", "--version", "version":
		fmt.Fprintf(stdout, "mqgate version %s\n", cliapp.VersionString())
		return exit.OK
	default:
		i := slices.IndexFunc(tools, func(t tool) bool { return t.name == name })
		if i < 0 {
			fmt.Fprintln(stderr, unknown(name))
			return exit.Usage
		}
		// The tool learns that it runs under the front: it names itself
		// "mqgate run" and starts itself (run's echo processes) and the
		// other tools (requirements --runs) through this program.
		ctx = program.NewContext(ctx, program.Invocation{Front: program.Front})
		return cliapp.Run(ctx, tools[i].app(), args[1:], stdout, stderr)
	}
}

// Main runs the front with the process's arguments and standard streams,
// cancelling on SIGINT or SIGTERM as every tool does.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// helpArgs turns `mqgate help TOOL [SUBCOMMAND…] [REST…]` into `mqgate
// TOOL [SUBCOMMAND…] --help REST…`: --help right after the command named,
// so that what follows it (a folder, a flag) is not taken for arguments of
// the command run in its place.
func helpArgs(args []string) []string {
	n := 3 // mqgate help TOOL
	if i := slices.IndexFunc(tools, func(t tool) bool { return t.name == args[2] }); i >= 0 {
		for cmds := tools[i].app().Commands; n < len(args); n++ {
			j := slices.IndexFunc(cmds, func(c *cli.Command) bool { return slices.Contains(c.Names(), args[n]) })
			if j < 0 {
				break
			}
			cmds = cmds[j].Subcommands
		}
	}
	return slices.Concat([]string{args[0]}, args[2:n], []string{"--help"}, args[n:])
}

// unknown is the message for a first argument that is neither a tool nor
// one of the front's own flags, with the nearest of those it might be.
func unknown(name string) string {
	var names [][]string
	flag := strings.HasPrefix(name, "-")
	if flag {
		// A mistyped --version is a flag, not a tool: suggest among the flags.
		names = [][]string{{"--help"}, {"--version"}}
	} else {
		for _, t := range tools {
			names = append(names, []string{t.name})
		}
	}
	msg := fmt.Sprintf("mqgate: unknown tool %q", name)
	if flag {
		// As the tools name an unknown flag: as typed, unquoted.
		msg = "mqgate: unknown flag " + name
	}
	if near := suggest.Nearest(name, names...); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", near)
	}
	return msg + " (see 'mqgate --help')"
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: mqgate TOOL [options]   (mqgate TOOL --help, or mqgate help TOOL, for each tool's options)\n\ntools:\n")
	for _, t := range tools {
		fmt.Fprintf(w, "  %-13s %s\n", t.name, t.app().Usage)
	}
	fmt.Fprint(w, "\nEach tool is also built on its own as bin/TOOL (make build).\n"+
		"mqgate echo … is mqgate run echo …, so that run --echo-command can name another build's mqgate.\n")
}
