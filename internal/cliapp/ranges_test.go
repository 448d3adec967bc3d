package cliapp

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/flagrange"
)

// TestRangesChecked runs a command whose flags have ranges: a value given outside
// the range is a usage error naming the flag and the range, and the
// action never runs; defaults outside the range (a sentinel) and values
// inside pass; --help states the ranges.
func TestRangesChecked(t *testing.T) {
	newApp := func(ran *bool) *cli.App {
		flags := []cli.Flag{
			Ranged(&cli.IntFlag{Name: "port", Usage: "a port"}, flagrange.Int(1, 65535).OrZero("off")),
			Ranged(&cli.IntFlag{Name: "cpu", Value: -1, Usage: "a CPU"}, flagrange.Int(0, 7)),
			Ranged(&cli.Float64Flag{Name: "rate", Value: 1, Usage: "a rate"}, flagrange.Float(0, 1e9).Above()),
			Ranged(&cli.DurationFlag{Name: "timeout", Value: time.Second, Usage: "a timeout"}, flagrange.Duration(time.Millisecond, time.Hour)),
			// A driver's settings are text flags holding a number.
			Ranged(&cli.StringFlag{Name: "prefetch", Value: "0", Usage: "a count"}, flagrange.Int(0, 65535)),
			Ranged(&cli.StringFlag{Name: "keepalive", Value: "30s", Usage: "a period"}, flagrange.Duration(time.Second, time.Hour)),
			Ranged(&cli.StringFlag{Name: "ratio", Value: "0.5", Usage: "a ratio"}, flagrange.Float(0, 1)),
		}
		return &cli.App{Name: "t", Flags: flags, Action: RangesChecked(flags, func(*cli.Context) error { *ran = true; return nil })}
	}
	for _, c := range []struct {
		args []string
		want string // "" for success
	}{
		{nil, ""},
		{[]string{"--port", "0", "--cpu", "7", "--rate", "1e9", "--timeout", "1h"}, ""},
		{[]string{"--port", "65536"}, "--port 65536: expected 0 (off) or 1 to 65535"},
		{[]string{"--cpu", "-1"}, "--cpu -1: expected 0 to 7"},
		{[]string{"--rate", "NaN"}, "--rate NaN: expected more than 0, up to 1000000000"},
		{[]string{"--rate", "1e308"}, "--rate 1e+308: expected"},
		{[]string{"--rate", "0"}, "--rate 0: expected"},
		{[]string{"--timeout", "0s"}, "--timeout 0s: expected 1ms to 1h"},
		{[]string{"--timeout", "-5s"}, "--timeout -5s: expected 1ms to 1h"},
		{[]string{"--prefetch", "65535", "--keepalive", " 1h ", "--ratio", "1"}, ""},
		{[]string{"--prefetch", "-1"}, "--prefetch -1: expected 0 to 65535"},
		{[]string{"--prefetch", "99999999999999999999"}, "--prefetch 99999999999999999999: expected 0 to 65535"},
		{[]string{"--prefetch", "1e3"}, `--prefetch "1e3": expected a whole number, 0 to 65535`},
		{[]string{"--prefetch", ""}, `--prefetch "": expected a whole number, 0 to 65535`},
		{[]string{"--keepalive", "0s"}, "--keepalive 0s: expected 1s to 1h"},
		{[]string{"--keepalive", "NaN"}, `--keepalive "NaN": expected a duration such as 10s, 1s to 1h`},
		{[]string{"--ratio", "NaN"}, "--ratio NaN: expected 0 to 1"},
		{[]string{"--ratio", "ten"}, `--ratio "ten": expected a number, 0 to 1`},
	} {
		ran := false
		var stderr strings.Builder
		code := Run(context.Background(), newApp(&ran), append([]string{"t"}, c.args...), io.Discard, &stderr)
		if c.want == "" {
			if code != 0 || !ran {
				t.Errorf("%v: exit %d, ran %v: %s", c.args, code, ran, stderr.String())
			}
			continue
		}
		if code != exit.Usage || ran || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, ran %v, stderr %q; want exit 2 and %q", c.args, code, ran, stderr.String(), c.want)
		}
	}
	var help strings.Builder
	ran := false
	Run(context.Background(), newApp(&ran), []string{"t", "--help"}, &help, io.Discard)
	for _, want := range []string{"a port (valid: 0 (off) or 1 to 65535)", "a timeout (valid: 1ms to 1h)", "a count (valid: 0 to 65535)"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("--help lacks %q:\n%s", want, help.String())
		}
	}
}

// TestSetFlags: SetFlags answers as c.IsSet for every flag of a command and
// of its parent, whether given by its name, by an alias, by its
// environment variable, before or after the subcommand's name, or not at
// all.
func TestSetFlags(t *testing.T) {
	t.Setenv("SETFLAGS_TEST_RATE", "2")
	t.Setenv("SETFLAGS_TEST_UNUSED", "")
	os.Unsetenv("SETFLAGS_TEST_UNUSED")
	top := []cli.Flag{
		&cli.IntFlag{Name: "samples", Aliases: []string{"n"}},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}},
		&cli.Float64Flag{Name: "rate", EnvVars: []string{"SETFLAGS_TEST_RATE"}},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, EnvVars: []string{"SETFLAGS_TEST_UNUSED"}},
	}
	sub := []cli.Flag{
		&cli.DurationFlag{Name: "time", Aliases: []string{"t"}},
		&cli.IntFlag{Name: "windows", Aliases: []string{"w"}},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}},
	}
	var names []string
	for _, f := range append(append([]cli.Flag{}, top...), sub...) {
		names = append(names, f.Names()...)
	}
	names = append(names, "help", "h", "version")
	for _, args := range [][]string{
		nil,
		{"-n", "5"},
		{"--samples", "5", "-q"},
		{"-o", "d", "sub"},
		{"sub", "-t", "1s", "--windows", "2"},
		{"--out", "d", "sub", "-w", "2", "-o", "e"},
		{"-n", "1", "sub", "--time", "1s"},
	} {
		checked := 0
		check := func(c *cli.Context) error {
			isSet := SetFlags(c)
			for _, n := range names {
				if got, want := isSet(n), c.IsSet(n); got != want {
					t.Errorf("%q, %s: SetFlags says %v, c.IsSet %v", args, n, got, want)
				}
			}
			checked++
			return nil
		}
		app := &cli.App{Name: "t", Flags: top, Action: check, Writer: io.Discard, ErrWriter: io.Discard,
			Commands: []*cli.Command{{Name: "sub", Flags: sub, Action: check}}}
		if err := app.Run(append([]string{"t"}, args...)); err != nil || checked != 1 {
			t.Fatalf("%q: %v, checked %d times", args, err, checked)
		}
	}
}

// TestRangesCheckedNameTheVariable: a value out of range that came from
// the flag's environment variable is refused naming that variable, which
// is not on the command line; a value given on the command line over the
// variable is refused as the flag's alone.
func TestRangesCheckedNameTheVariable(t *testing.T) {
	newApp := func() *cli.App {
		flags := []cli.Flag{
			Ranged(&cli.StringFlag{Name: "pull-batch", Value: "500", EnvVars: []string{"MQGATE_T_PULL_BATCH"}}, flagrange.Int(1, 1000)),
			Ranged(&cli.IntFlag{Name: "depth", Value: 1, EnvVars: []string{"MQGATE_T_DEPTH"}}, flagrange.Int(1, 64)),
		}
		return &cli.App{Name: "t", Flags: flags, Action: RangesChecked(flags, func(*cli.Context) error { return nil })}
	}
	for _, c := range []struct {
		env, value string
		args       []string
		want       string
	}{
		{"MQGATE_T_PULL_BATCH", "0", nil, "t: --pull-batch 0: expected 1 to 1000 (from environment variable MQGATE_T_PULL_BATCH)\n"},
		{"MQGATE_T_DEPTH", "99", nil, "t: --depth 99: expected 1 to 64 (from environment variable MQGATE_T_DEPTH)\n"},
		{"MQGATE_T_PULL_BATCH", "5", []string{"--pull-batch", "0"}, "t: --pull-batch 0: expected 1 to 1000\n"},
	} {
		t.Setenv(c.env, c.value)
		var stderr strings.Builder
		code := Run(context.Background(), newApp(), append([]string{"t"}, c.args...), io.Discard, &stderr)
		if code != exit.Usage || stderr.String() != c.want {
			t.Errorf("%s=%s t %s: exit %d, %q; want exit 2 and %q", c.env, c.value, strings.Join(c.args, " "), code, stderr.String(), c.want)
		}
		os.Unsetenv(c.env)
	}
}
