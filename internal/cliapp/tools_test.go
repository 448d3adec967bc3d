package cliapp_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/cliapp/requirementscmd"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
)

// tools are the six commands, as their cmd/<tool>/main.go builds them.
var tools = map[string]func() *cli.App{
	"check":        checkcmd.App,
	"compare":      comparecmd.App,
	"history":      historycmd.App,
	"process":      processcmd.App,
	"requirements": requirementscmd.App,
	"run":          runcmd.App,
}

func runTool(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	app, ok := tools[args[0]]
	if !ok {
		t.Fatalf("no tool %s", args[0])
	}
	// Relative paths (and run's default results/) land in dir.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code = cliapp.Run(context.Background(), app(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestUsageErrors: every tool answers a usage mistake the same way: exit 2,
// nothing on stdout, and one line on stderr that says what is wrong (the
// missing flag, the flag meant, the form expected, the stray argument) and
// where the help is, not the help itself.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		// Missing required flags: the line, not 40 lines of help.
		{[]string{"check"}, "check: --requirements or --throughput-requirements is required (see 'check --help')"},
		{[]string{"check", "-r", "reqs.csv"}, "check: --experiment-directory DIR (repeatable) or --experiments-results ROOT is required (see 'check --help')"},
		{[]string{"compare"}, "compare: --reference DIR, --results DIR and --plots-directory DIR are required (see 'compare --help')"},
		{[]string{"history"}, "history: --experiments-results and --plots-directory are required (see 'history --help')"},
		{[]string{"process"}, "process: EXPERIMENT_DIR (or --raw-csv FILE) is required (see 'process --help')"},
		{[]string{"requirements"}, "requirements: --experiments-results DIR (or --runs N --out DIR) is required (see 'requirements --help')"},
		{[]string{"run", "echo"}, "run: --transport is required (see 'run echo --help')"},
		// Unknown flags: the nearest one.
		{[]string{"run", "--sample", "10"}, "run: unknown flag --sample: did you mean --samples? (see 'run --help')"},
		{[]string{"check", "--requirement", "x"}, "check: unknown flag --requirement: did you mean --requirements? (see 'check --help')"},
		{[]string{"compare", "--fail-treshold", "2"}, "compare: unknown flag --fail-treshold: did you mean --fail-threshold? (see 'compare --help')"},
		{[]string{"history", "--plots", "x"}, "history: unknown flag --plots: did you mean --plots-directory? (see 'history --help')"},
		{[]string{"process", "--no-plot", "x"}, "process: unknown flag --no-plot: did you mean --no-plots? (see 'process --help')"},
		{[]string{"requirements", "--expriments-results", "x"}, "requirements: unknown flag --expriments-results: did you mean --experiments-results? (see 'requirements --help')"},
		{[]string{"run", "echo", "--trasnport", "tcp"}, "run: unknown flag --trasnport: did you mean --transport? (see 'run echo --help')"},
		{[]string{"run", "--bogus"}, "run: unknown flag --bogus (see 'run --help')"},
		// Bad values: the form expected.
		{[]string{"compare", "--reference", "a", "--results", "b", "-p", "c", "--fail-threshold", "50%%x"},
			`compare: --fail-threshold: "50%%x" is not a number: expected a value at least 0% and below 100%, written as a fraction (0.1) or a percentage (10%)`},
		{[]string{"run", "--samples", "abc"}, `run: --samples "abc": expected a whole number (see 'run --help')`},
		{[]string{"run", "--timeout", "5x"}, `run: --timeout "5x": expected a duration such as 500ms, 10s or 1m30s (see 'run --help')`},
		{[]string{"requirements", "--percentile", "high", "-e", "x"}, `requirements: --percentile "high": expected a number (see 'requirements --help')`},
		{[]string{"process", "--jobs"}, "process: --jobs needs a value (see 'process --help')"},
		// Stray arguments.
		{[]string{"check", "-r", "reqs.csv", "-e", "exp", "stray"}, `check: unexpected argument "stray" (see 'check --help')`},
		{[]string{"compare", "--reference", "a", "--results", "b", "-p", "c", "stray"}, `compare: unexpected argument "stray" (see 'compare --help')`},
		{[]string{"history", "-e", "a", "-r", "b", "-p", "c", "stray"}, `history: unexpected argument "stray" (see 'history --help')`},
		{[]string{"requirements", "-e", "a", "stray"}, `requirements: unexpected argument "stray" (see 'requirements --help')`},
		{[]string{"run", "stray"}, `run: unexpected argument "stray" (run takes flags only; see 'run --help')`},
		{[]string{"process", "a", "b"}, "process: one EXPERIMENT_DIR at a time, got 2: a b"},
		// A help topic that is no subcommand: a usage error, not urfave/cli's
		// exit 3, which the gates' callers read as inconclusive.
		{[]string{"run", "help", "abb"}, `run: no help topic "abb": did you mean ab? (see 'run --help')`},
		{[]string{"compare", "--help", "x"}, `compare: no help topic "x" (see 'compare --help')`},
		{[]string{"process", "--help", "results/x"}, `process: no help topic "results/x" (see 'process --help')`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runTool(t, dir, c.args...)
			if code != 2 || stdout != "" || stderr != c.want+"\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, c.want)
			}
		})
	}
	// Nothing was created by a refused command.
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

// TestHelp: every tool and subcommand prints its help on stdout, exit 0,
// and no flag shows two defaults: a usage that speaks of its default gets
// no literal "(default: …)" besides.
func TestHelp(t *testing.T) {
	dir := t.TempDir()
	for name, app := range tools {
		cmds := [][]string{{name, "--help"}}
		for _, c := range app().Commands {
			cmds = append(cmds, []string{name, c.Name, "--help"})
		}
		for _, args := range cmds {
			code, stdout, stderr := runTool(t, dir, args...)
			if code != 0 || !strings.HasPrefix(stdout, "NAME:") || stderr != "" {
				t.Errorf("%s: exit %d, stderr %q, stdout %.100q", strings.Join(args, " "), code, stderr, stdout)
			}
		}
		a := app()
		flags := a.Flags
		for _, c := range a.Commands {
			flags = append(flags, c.Flags...)
		}
		for _, f := range flags {
			df, ok := f.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			line := cli.FlagStringer(f)
			usage := strings.Count(strings.ToLower(df.GetUsage()), "default")
			shown := strings.Count(strings.ToLower(line), "default")
			if usage > 1 || usage > 0 && shown != usage || usage == 0 && shown > 1 {
				t.Errorf("%s: two defaults: %s", name, line)
			}
		}
	}
	// The literal default stays where the usage says nothing of it.
	if line := cli.FlagStringer(&cli.IntFlag{Name: "n", Value: 3, Usage: "how many"}); !strings.HasSuffix(line, "how many (default: 3)") {
		t.Errorf("%q", line)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v", entries)
	}
}

// TestVersion: every tool answers --version (and -v) with its name and the
// one version string, exit 0, even where a required flag is missing.
func TestVersion(t *testing.T) {
	want := cliapp.VersionString()
	if want == "" {
		t.Fatal("empty version")
	}
	for name := range tools {
		for _, flag := range []string{"--version", "-v"} {
			code, stdout, stderr := runTool(t, t.TempDir(), name, flag)
			if code != 0 || stdout != name+" version "+want+"\n" || stderr != "" {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want exit 0 and %q", name, flag, code, stdout, stderr, name+" version "+want+"\n")
			}
		}
	}
}
