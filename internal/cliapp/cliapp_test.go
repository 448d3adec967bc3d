package cliapp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/exit"
)

// TestRunUrfaveExitCode: an exit error of urfave/cli keeps its code.
func TestRunUrfaveExitCode(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run(context.Background(), testApp(func(c *cli.Context) error { return cli.Exit("x", 7) }),
		[]string{"tool"}, &out, &errb); code != 7 {
		t.Fatalf("code %d, want 7", code)
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
		return exit.GateFailedf("2 checks failed")
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
		Before: func(*cli.Context) error { return exit.Usagef("before ran") },
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
