package cliapp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
)

// concept is one thing the command line names (docs/cli.md): the flag
// that names it wherever it is taken, the other spellings it keeps as
// aliases (former names, the Fast-RTPS scripts' and the roles' design's),
// and its one-letter form.
type concept struct {
	flag    string
	aliases []string
	short   string
}

// vocabulary is the one spelling of each concept across the six tools and
// the roles. Every alias of every flag is here, under the flag it spells,
// so that a new spelling is a decision taken in this table.
var vocabulary = []concept{
	// Where results go and what they are called.
	{"out", []string{"out-dir"}, "o"},
	{"name", []string{"run-id"}, ""},
	{"output-file", []string{"output_file", "output-csv", "output_csv"}, ""},
	{"plots-directory", []string{"plots_directory"}, "p"},
	// What is measured, and where.
	{"target", []string{"endpoint"}, ""},
	{"payloads", []string{"payload", "msg_size"}, ""},
	{"subexperiments", nil, "s"},
	{"quiet", nil, "q"},
	{"expr", []string{"key-expr"}, ""},
	// What the gates read.
	{"experiments-results", []string{"experiments_results"}, "e"},
	{"experiment-directory", []string{"experiment_directory"}, ""},
	{"requirements", nil, "r"},
	{"raw-csv", []string{"raw_csv"}, "c"},
	{"reference", nil, "R"},
	{"results", nil, ""},
	{"runs", nil, "n"},
	// How they judge and report.
	{"false-fail", []string{"false_fail", "level"}, ""},
	{"fail-threshold", []string{"fail_threshold"}, "t"},
	{"min-change", []string{"gate-threshold"}, ""},
	{"allow-missing", []string{"allow_missing"}, ""},
	{"allow-incomplete", []string{"allow_incomplete"}, ""},
	{"print-summaries", []string{"print_summaries"}, "P"},
	{"jobs", nil, "j"},
	{"snapshot-interval", []string{"interval"}, ""},
	// run burst: Fast-RTPS ThroughputTest's names.
	{"demand", nil, "d"},
	{"file", nil, "f"},
	{"time", nil, ""},
	// A driver's flag under a method's own name.
	{"amqp-tx-size", []string{"amqp-producer-tx-size"}, ""},
}

// fastRTPSShort are the one-letter flags to which the Fast-RTPS scripts
// (and ThroughputTest, for run burst) gave another concept than
// vocabulary's: they stay, in these commands only, so that those scripts'
// users' job lines keep working. Command and letter → the flag they are.
var fastRTPSShort = map[string]string{
	"process -o":      "output-file",
	"requirements -o": "output-file",
	"check -e":        "experiment-directory",
	"compare -r":      "results",
	"run burst -t":    "time",
}

// command is one command of a tool with its flags, named by its path
// ("run", "run burst", "run sub").
type command struct {
	path  string
	flags []cli.Flag
}

// commands walks every tool and subcommand, the roles (run pub|sub|req|qry)
// included.
func commands() []command {
	var out []command
	var walk func(string, []cli.Flag, []*cli.Command)
	walk = func(path string, flags []cli.Flag, cmds []*cli.Command) {
		out = append(out, command{path, flags})
		for _, c := range cmds {
			walk(path+" "+c.Name, c.Flags, c.Subcommands)
		}
	}
	for name, app := range tools {
		a := app()
		walk(name, a.Flags, a.Commands)
	}
	return out
}

// TestVocabulary: every flag of every tool and role that names a concept
// of vocabulary has its flag's name first (help shows it first) and none
// but its aliases after it (or is a hidden former spelling beside that
// flag); every alias belongs to the table; a one-letter
// flag means its concept wherever it exists, except the Fast-RTPS letters
// in the commands that had them.
func TestVocabulary(t *testing.T) {
	byName := map[string]concept{}
	shorts := map[string]concept{}
	for _, c := range vocabulary {
		for _, n := range append([]string{c.flag}, c.aliases...) {
			if _, dup := byName[n]; dup {
				t.Fatalf("vocabulary: %s spells two concepts", n)
			}
			byName[n] = c
		}
		if c.short != "" {
			if d, dup := shorts[c.short]; dup {
				t.Fatalf("vocabulary: -%s is both --%s and --%s", c.short, d.flag, c.flag)
			}
			shorts[c.short] = c
		}
	}
	used := map[string]bool{}
	for _, cmd := range commands() {
		for _, f := range cmd.flags {
			names := f.Names()
			primary := names[0]
			used[primary] = true
			for _, n := range names {
				if len(n) == 1 {
					used[cmd.path+" -"+n] = true
					want := shorts[n].flag
					if fr, ok := fastRTPSShort[cmd.path+" -"+n]; ok {
						want = fr
					}
					if want != primary {
						t.Errorf("%s: -%s is --%s; the vocabulary's -%s is %q (a new one-letter flag goes into the table)", cmd.path, n, primary, n, want)
					}
					continue
				}
				c, ok := byName[n]
				switch {
				case ok && c.flag != primary && hidden(f) && slices.ContainsFunc(cmd.flags, func(g cli.Flag) bool { return g.Names()[0] == c.flag }):
					// A former spelling kept beside the flag (run --run-id
					// before a role, run's --name being the round trip's).
				case ok && c.flag != primary:
					t.Errorf("%s: --%s spells --%s, but names --%s here", cmd.path, n, c.flag, primary)
				case !ok && n != primary:
					t.Errorf("%s: --%s, an alias of --%s, is not in the vocabulary", cmd.path, n, primary)
				}
			}
		}
	}
	// The table speaks of flags that exist.
	for _, c := range vocabulary {
		if !used[c.flag] {
			t.Errorf("vocabulary: no command has --%s", c.flag)
		}
	}
	for k := range fastRTPSShort {
		if !used[k] {
			t.Errorf("fastRTPSShort: no %s", k)
		}
	}
}

// hidden reports whether f is left out of the help.
func hidden(f cli.Flag) bool {
	h, ok := f.(interface{ IsVisible() bool })
	return ok && !h.IsVisible()
}

// TestFormerSpellings: the spellings users' scripts have (former names, the
// Fast-RTPS scripts', the roles' design's) still set the flag that is now
// named otherwise, in every command that took them.
func TestFormerSpellings(t *testing.T) {
	cases := []struct {
		args []string // tool, subcommand, then the old spelling and its value
		flag string   // the flag it sets, by its name
		want string
	}{
		{[]string{"run", "-o", "d"}, "out", "d"},
		{[]string{"run", "load", "-o", "d"}, "out", "d"},
		{[]string{"run", "throughput", "-o", "d"}, "out", "d"},
		{[]string{"run", "permessage", "-o", "d"}, "out", "d"},
		{[]string{"run", "burst", "-o", "d"}, "out", "d"},
		{[]string{"run", "burst", "--msg_size", "64"}, "payloads", "64"},
		{[]string{"run", "ab", "-o", "d"}, "out", "d"},
		{[]string{"run", "ab", "--level", "5%"}, "false-fail", "5%"},
		{[]string{"run", "load", "--interval", "2s"}, "snapshot-interval", "2s"},
		{[]string{"process", "--output-csv", "s.csv"}, "output-file", "s.csv"},
		{[]string{"process", "--output_csv", "s.csv"}, "output-file", "s.csv"},
		{[]string{"process", "-o", "s.csv"}, "output-file", "s.csv"},
		{[]string{"process", "--raw_csv", "r.csv"}, "raw-csv", "r.csv"},
		{[]string{"process", "-c", "r.csv"}, "raw-csv", "r.csv"},
		{[]string{"process", "--plots_directory", "p"}, "plots-directory", "p"},
		{[]string{"check", "-r", "q.csv"}, "requirements", "q.csv"},
		{[]string{"check", "-e", "x"}, "experiment-directory", "x"},
		{[]string{"check", "--experiment_directory", "x"}, "experiment-directory", "x"},
		{[]string{"check", "--experiments_results", "x"}, "experiments-results", "x"},
		{[]string{"check", "-p", "p"}, "plots-directory", "p"},
		{[]string{"check", "-P"}, "print-summaries", "true"},
		{[]string{"check", "--allow_missing"}, "allow-missing", "true"},
		{[]string{"compare", "-p", "p", "-R", "a"}, "reference", "a"},
		{[]string{"compare", "-p", "p", "-r", "b"}, "results", "b"},
		{[]string{"compare", "--plots_directory", "p"}, "plots-directory", "p"},
		{[]string{"compare", "-p", "p", "--fail_threshold", "0.2"}, "fail-threshold", "0.2"},
		{[]string{"compare", "-p", "p", "-t", "0.2"}, "fail-threshold", "0.2"},
		{[]string{"compare", "-p", "p", "--false_fail", "2%"}, "false-fail", "2%"},
		{[]string{"requirements", "-e", "x"}, "experiments-results", "x"},
		{[]string{"requirements", "--experiments_results", "x"}, "experiments-results", "x"},
		{[]string{"requirements", "--output_file", "q.csv"}, "output-file", "q.csv"},
		{[]string{"requirements", "-o", "q.csv"}, "output-file", "q.csv"},
		{[]string{"requirements", "-n", "3"}, "runs", "3"},
		{[]string{"history", "-p", "p", "-e", "x"}, "experiments-results", "x"},
		{[]string{"history", "-p", "p", "-e", "x", "-r", "q.csv"}, "requirements", "q.csv"},
		{[]string{"history", "-e", "x", "--plots_directory", "p"}, "plots-directory", "p"},
		{[]string{"history", "-e", "x", "-p", "p", "--gate-threshold", "7%"}, "min-change", "7%"},
	}
	for _, role := range []string{"pub", "sub", "req", "qry"} {
		cases = append(cases, []struct {
			args       []string
			flag, want string
		}{
			{[]string{"run", role, "--endpoint", "nats://h:1"}, "target", "nats://h:1"},
			{[]string{"run", role, "--out-dir", "d"}, "out", "d"},
			{[]string{"run", role, "--run-id", "r1"}, "name", "r1"},
			{[]string{"run", role, "--payload", "100"}, "payloads", "100"},
			{[]string{"run", role, "--key-expr", "a.b"}, "expr", "a.b"},
		}...)
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			app := tools[tc.args[0]]()
			app.Before = nil // run's checks of where a flag goes
			var got string
			flags := app.Flags
			record := func(c *cli.Context) error {
				got = value(c, flags, tc.flag)
				return nil
			}
			app.Action = record
			for _, cmd := range app.Commands {
				if len(tc.args) > 1 && cmd.Name == tc.args[1] {
					cmd.Action, cmd.Before, flags = record, nil, cmd.Flags
				}
			}
			var stdout, stderr bytes.Buffer
			if code := cliapp.Run(context.Background(), app, tc.args, &stdout, &stderr); code != 0 || got != tc.want {
				t.Fatalf("exit %d, --%s = %q, want %q; stderr %s", code, tc.flag, got, tc.want, stderr.String())
			}
		})
	}
}

// value is the value of the flag called name, one of flags, as an action
// reads it.
func value(c *cli.Context, flags []cli.Flag, name string) string {
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *cli.StringSliceFlag:
			return strings.Join(c.StringSlice(name), ",")
		case *cli.BoolFlag:
			return fmt.Sprint(c.Bool(name))
		case *cli.IntFlag:
			return fmt.Sprint(c.Int(name))
		default:
			return c.String(name)
		}
	}
	return "no flag --" + name
}

// TestRunFlagsBeforeRole: run's own --name and --out given before a role's
// name reach the role (the roles' former --run-id and --out-dir did); before
// another subcommand they are still refused, naming where they go.
func TestRunFlagsBeforeRole(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "--name", "r1", "-o", "d", "sub"}, 0, ""},
		{[]string{"run", "--run-id", "r1", "--out-dir", "d", "pub"}, 0, ""},
		{[]string{"run", "--name", "r1", "throughput"}, 2, "--name was given before throughput"},
		{[]string{"run", "--run-id", "r1", "throughput"}, 2, "--run-id is a setting of the roles"},
	} {
		app := tools["run"]()
		ran := false
		for _, cmd := range app.Commands {
			cmd.Action = func(*cli.Context) error { ran = true; return nil }
		}
		var stdout, stderr bytes.Buffer
		code := cliapp.Run(context.Background(), app, tc.args, &stdout, &stderr)
		if code != tc.code || ran != (tc.code == 0) || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit %d, ran %v, stderr %q; want exit %d and %q", tc.args, code, ran, stderr.String(), tc.code, tc.msg)
		}
	}
}

// TestReportFilesRow: docs/cli.md's row of report files names, for each
// command, flags it has: each ;-separated group of the row's tools column
// is commands, and in brackets the flags they take (the row's flags when
// none are given), so that the table offers no `run ab --html`.
func TestReportFilesRow(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var row []string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| report files |") {
			row = strings.Split(line, "|")
		}
	}
	if len(row) < 5 {
		t.Fatal(`docs/cli.md has no "| report files |" row`)
	}
	flagsOf := func(s string) []string { return regexp.MustCompile("`--([a-z-]+)`").FindAllString(s, -1) }
	byPath := map[string][]cli.Flag{}
	for _, cmd := range commands() {
		byPath[cmd.path] = cmd.flags
	}
	for _, group := range strings.Split(row[4], ";") {
		cmds, inBrackets, _ := strings.Cut(group, "(")
		flags := flagsOf(inBrackets)
		if inBrackets == "" {
			flags = flagsOf(row[2])
		}
		for _, path := range strings.Split(cmds, ",") {
			path = strings.Trim(strings.TrimSpace(path), "`")
			have, ok := byPath[path]
			if !ok {
				t.Errorf("docs/cli.md's report files row names %q, no command", path)
				continue
			}
			for _, f := range flags {
				name := strings.Trim(f, "`-")
				if !slices.ContainsFunc(have, func(g cli.Flag) bool { return slices.Contains(g.Names(), name) }) {
					t.Errorf("docs/cli.md's report files row gives %s %s, which it does not take", path, f)
				}
			}
		}
	}
}
