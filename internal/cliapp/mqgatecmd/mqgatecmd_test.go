package mqgatecmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/comparecmd"
	"github.com/mqgate/mqgate/internal/program"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"mqgate"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestFront: mqgate TOOL runs the tool's own command line (its flags, its
// errors, its exit codes); no tool or an unknown one is a usage error that
// lists or suggests the tools.
func TestFront(t *testing.T) {
	if code, out, errb := run("run", "--version"); code != 0 || out != "run version "+cliapp.VersionString()+"\n" || errb != "" {
		t.Errorf("mqgate run --version: exit %d, %q, %q", code, out, errb)
	}
	if code, out, _ := run("--version"); code != 0 || out != "mqgate version "+cliapp.VersionString()+"\n" {
		t.Errorf("mqgate --version: exit %d, %q", code, out)
	}
	code, out, errb := run("history", "--help")
	if code != 0 || !strings.Contains(out, "mqgate history - plot latency") || errb != "" {
		t.Errorf("mqgate history --help: exit %d, %q, %q", code, out, errb)
	}
	if code, _, errb := run("run", "--samples", "0"); code != 2 || !strings.HasPrefix(errb, "mqgate run: --samples") {
		t.Errorf("mqgate run --samples 0: exit %d, %q; want the tool's own usage error", code, errb)
	}
	if code, _, errb := run("comapre"); code != 2 || errb != "mqgate: unknown tool \"comapre\": did you mean compare? (see 'mqgate --help')\n" {
		t.Errorf("mqgate comapre: exit %d, %q", code, errb)
	}
	code, out, errb = run()
	if code != 2 || out != "" {
		t.Errorf("mqgate: exit %d, stdout %q", code, out)
	}
	for _, name := range []string{"run", "process", "check", "compare", "requirements", "history"} {
		if !strings.Contains(errb, "\n  "+name+" ") {
			t.Errorf("usage does not list %s:\n%s", name, errb)
		}
	}
	if code, out, _ := run("--help"); code != 0 || !strings.HasPrefix(out, "usage: mqgate TOOL") {
		t.Errorf("mqgate --help: exit %d, %q", code, out)
	}
}

// TestNamesAsInvoked: under the front, every usage error names the tool as
// it was started, 'mqgate run --help': no program named run need be on
// PATH. Errors of the command line itself and of the tools below it alike.
func TestNamesAsInvoked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bad-flag"}, "mqgate run: unknown flag --bad-flag (see 'mqgate run --help')\n"},
		{[]string{"run", "--sampels", "5"}, "mqgate run: unknown flag --sampels: did you mean --samples? (see 'mqgate run --help')\n"},
		{[]string{"run", "extra"}, "mqgate run: unexpected argument \"extra\" (run takes flags only; see 'mqgate run --help')\n"},
		{[]string{"run", "echo", "--bad-flag"}, "mqgate run: unknown flag --bad-flag (see 'mqgate run echo --help')\n"},
		{[]string{"echo", "--bad-flag"}, "mqgate run: unknown flag --bad-flag (see 'mqgate run echo --help')\n"},
		{[]string{"run", "--samples"}, "mqgate run: --samples needs a value (see 'mqgate run --help')\n"},
		{[]string{"process"}, "mqgate process: EXPERIMENT_DIR (or --raw-csv FILE) is required (see 'mqgate process --help')\n"},
		{[]string{"history", "--bad-flag"}, "mqgate history: unknown flag --bad-flag (see 'mqgate history --help')\n"},
	} {
		code, out, errb := run(c.args...)
		if code != 2 || out != "" || errb != c.want {
			t.Errorf("mqgate %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, out, errb, c.want)
		}
	}
	code, _, errb := run("run", "--payloads", "16", "throughput")
	if want := "which mqgate run throughput ignores; give it after the subcommand's name (mqgate run throughput --payloads …)"; code != 2 || !strings.Contains(errb, want) {
		t.Errorf("mqgate run --payloads 16 throughput: exit %d, %q; want exit 2 and %q", code, errb, want)
	}
	code, _, errb = run("run", "--samples", "5", "throughput")
	if want := "which mqgate run throughput ignores; mqgate run throughput takes no --samples (see 'mqgate run throughput --help')"; code != 2 || !strings.Contains(errb, want) {
		t.Errorf("mqgate run --samples 5 throughput: exit %d, %q; want exit 2 and %q", code, errb, want)
	}
}

// TestToolsAreProgramTools: the front runs the tools package program
// names in messages (Invocation.Reword) and starts (Command).
func TestToolsAreProgramTools(t *testing.T) {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.name)
	}
	if !slices.Equal(names, program.Tools) {
		t.Errorf("the front runs %q, program.Tools are %q", names, program.Tools)
	}
}

// TestHelpTool: mqgate help TOOL [SUBCOMMAND] (or --help TOOL) prints
// that tool's help, as mqgate TOOL --help does, not the list of tools
// again; help of a tool that does not exist is the unknown tool's usage
// error.
func TestHelpTool(t *testing.T) {
	for _, args := range [][]string{{"help", "run"}, {"help", "compare"}, {"help", "run", "ab"}, {"--help", "history"}, {"-h", "process"}} {
		code, out, errb := run(args...)
		_, want, _ := run(append(slices.Clone(args[1:]), "--help")...)
		if code != 0 || errb != "" || out != want {
			t.Errorf("mqgate %s: exit %d, stderr %q, stdout starts %.80q; want mqgate %s --help's %.80q",
				strings.Join(args, " "), code, errb, out, strings.Join(args[1:], " "), want)
		}
	}
	if code, _, errb := run("help", "comapre"); code != 2 || errb != "mqgate: unknown tool \"comapre\": did you mean compare? (see 'mqgate --help')\n" {
		t.Errorf("mqgate help comapre: exit %d, %q", code, errb)
	}
	// What follows the command named is a help topic, not an argument of
	// the command.
	if code, _, errb := run("help", "process", "results/x"); code != 2 || errb != "mqgate process: no help topic \"results/x\" (see 'mqgate process --help')\n" {
		t.Errorf("mqgate help process results/x: exit %d, %q", code, errb)
	}
}

// TestMistypedFrontFlag: a mistyped flag of the front is called a flag
// and gets the flag it was meant to be, not "unknown tool".
func TestMistypedFrontFlag(t *testing.T) {
	for arg, want := range map[string]string{
		"--verison": "mqgate: unknown flag --verison: did you mean --version? (see 'mqgate --help')\n",
		"--hepl":    "mqgate: unknown flag --hepl: did you mean --help? (see 'mqgate --help')\n",
		"-x":        "mqgate: unknown flag -x (see 'mqgate --help')\n",
	} {
		if code, out, errb := run(arg); code != 2 || out != "" || errb != want {
			t.Errorf("mqgate %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", arg, code, out, errb, want)
		}
	}
}

// bareCommandLine matches a command line of a help text that starts a tool
// by its own program's name (compare --reference …, run ab …, a loop's do
// process …).
var bareCommandLine = regexp.MustCompile(`(?m)(^\s+|\bdo |&& )(run|process|check|compare|requirements|history) (-|\[|[\w.*-]+/|(ab|echo|burst|load|permessage|wait|throughput|pub\|sub\|req\|qry) [-\[])`)

// TestHelpCommandLines: under the front, every usage line and example of
// the tools' and run's subcommands' help starts the tool as mqgate TOOL,
// so that it can be pasted where mqgate alone is installed (compare and
// history would be ImageMagick's and the shell's); prose that begins with
// a tool's name is left alone, and the tools built on their own keep
// their own names.
func TestHelpCommandLines(t *testing.T) {
	helps := [][]string{{"process"}, {"check"}, {"compare"}, {"requirements"}, {"history"}, {"run"}}
	for _, sub := range []string{"echo", "ab", "burst", "load", "permessage", "wait", "throughput", "pub"} {
		helps = append(helps, []string{"run", sub})
	}
	for _, args := range helps {
		code, out, _ := run(append(slices.Clone(args), "--help")...)
		if code != 0 {
			t.Fatalf("mqgate %s --help: exit %d", strings.Join(args, " "), code)
		}
		if bad := bareCommandLine.FindAllString(out, -1); len(bad) > 0 {
			t.Errorf("mqgate %s --help starts tools by their own names: %q", strings.Join(args, " "), bad)
		}
		if want := "\n   mqgate " + strings.Join(args, " ") + " "; !strings.Contains(out, want) {
			t.Errorf("mqgate %s --help has no usage line %q:\n%.600s", strings.Join(args, " "), want, out)
		}
	}
	_, out, _ := run("run", "--help")
	if !strings.Contains(out, "\n   run measures, for every") {
		t.Errorf("mqgate run --help rewrote the prose that begins with run:\n%.900s", out)
	}
	var own bytes.Buffer
	cliapp.Run(context.Background(), comparecmd.App(), []string{"compare", "--help"}, &own, io.Discard)
	if !strings.Contains(own.String(), "\n      compare --reference results/") || strings.Contains(own.String(), "mqgate compare") {
		t.Errorf("compare --help, built on its own, does not start its examples with compare:\n%s", own.String())
	}
}

// TestHowToAddATool: every program of cmd/ but the front is a tool the
// front runs, and docs/architecture.md's how-to for a tool names the files
// that make it one (this package's list and program.Tools), so that a new
// tool is not left out of the only program make install puts on PATH.
func TestHowToAddATool(t *testing.T) {
	entries, err := os.ReadDir("../../../cmd")
	if err != nil {
		t.Fatal(err)
	}
	var cmds, names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "mqgate" {
			cmds = append(cmds, e.Name())
		}
	}
	for _, tl := range tools {
		names = append(names, tl.name)
	}
	slices.Sort(names)
	if !slices.Equal(cmds, names) {
		t.Errorf("cmd/ holds the tools %q, the front runs %q", cmds, names)
	}
	doc, err := os.ReadFile("../../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, howto, _ := strings.Cut(string(doc), "### a tool\n")
	howto, _, _ = strings.Cut(howto, "\n#")
	for _, file := range []string{"internal/cliapp/mqgatecmd/mqgatecmd.go", "internal/program/program.go"} {
		if !strings.Contains(howto, "`"+file+"`") {
			t.Errorf("docs/architecture.md's How to add a tool does not name %s:\n%s", file, howto)
		}
	}
}
