package cliapp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestCodeOf(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("plain"), 2},
		{GateFailedf("x"), 1},
		{Usagef("x"), 2},
		{Exit(ExitInconclusive, errors.New("x")), 3},
		{Exit(ExitInterrupted, errors.New("x")), 130},
		{Exit(0, errors.New("x")), 2},
		{cli.Exit("x", 7), 7},
	}
	for _, c := range cases {
		if got := CodeOf(c.err); got != c.want {
			t.Errorf("CodeOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func testApp(action cli.ActionFunc) *cli.App {
	return &cli.App{
		Name:   "tool",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "raw-csv", Aliases: []string{"raw_csv"}}},
		Action: action,
	}
}

func TestRunMapsErrorsAndPrintsToStderr(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), testApp(func(c *cli.Context) error {
		return GateFailedf("2 checks failed")
	}), []string{"tool"}, &out, &errb)
	if code != 1 || errb.String() != "tool: 2 checks failed\n" {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
}

func TestRunBadFlagIsUsageError(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), testApp(func(c *cli.Context) error { return nil }),
		[]string{"tool", "--no-such-flag"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "no-such-flag") {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
}

func TestRunAliasFlag(t *testing.T) {
	var got string
	var out, errb bytes.Buffer
	code := Run(context.Background(), testApp(func(c *cli.Context) error {
		got = c.String("raw-csv")
		return nil
	}), []string{"tool", "--raw_csv", "x.csv"}, &out, &errb)
	if code != 0 || got != "x.csv" {
		t.Fatalf("code %d got %q stderr %q", code, got, errb.String())
	}
}

func TestNearestFlag(t *testing.T) {
	flags := []cli.Flag{
		&cli.IntFlag{Name: "samples", Aliases: []string{"s"}},
		&cli.StringFlag{Name: "raw-csv", Aliases: []string{"raw_csv", "c"}},
		&cli.BoolFlag{Name: "no-plots"},
		&cli.StringFlag{Name: "plots-directory", Aliases: []string{"plots_directory"}},
	}
	cases := map[string]string{
		"sample": "samples", "smaples": "samples", "raw-cvs": "raw-csv", "raw_cvs": "raw_csv",
		"no-plot": "no-plots", "plots": "plots-directory", "plots-dir": "plots-directory",
		"bogus": "", "x": "", "q": "", "Samples": "samples",
	}
	for typed, want := range cases {
		if got := nearestFlag(flags, typed); got != want {
			t.Errorf("nearestFlag(%q) = %q, want %q", typed, got, want)
		}
	}
}

func TestRequiredFlagsOneLine(t *testing.T) {
	app := &cli.App{
		Name:   "tool",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "in", Required: true}, &cli.StringFlag{Name: "out", Required: true}},
		Before: func(*cli.Context) error { return Usagef("before ran") },
		Action: func(*cli.Context) error { return nil },
	}
	var out, errb bytes.Buffer
	code := Run(context.Background(), app, []string{"tool", "--out", "x"}, &out, &errb)
	if code != 2 || out.String() != "" || errb.String() != "tool: --in is required (see 'tool --help')\n" {
		t.Fatalf("code %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	// The tool's own Before still runs once the flags are there.
	errb.Reset()
	code = Run(context.Background(), app, []string{"tool", "--out", "x", "--in", "y"}, &out, &errb)
	if code != 2 || errb.String() != "tool: before ran\n" {
		t.Fatalf("code %d stderr %q", code, errb.String())
	}
}
