package runcmd

import (
	"errors"
	"io"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
)

// flagCheckArgs are realistic command lines: a round-trip run, and a
// subcommand after run's own flags, which checkFlagsBeforeSubcommand scans.
var flagCheckArgs = map[string][]string{
	"run":        {"run", "-s", "intraprocess_reliable", "--payloads", "16,1024", "--samples", "500", "--warmup", "50", "--out", "results", "--name", "x", "-q"},
	"subcommand": {"run", "throughput", "-s", "intraprocess_best_effort", "--payloads", "16", "--windows", "2", "--max-in-flight", "1", "-q"},
}

// parsedRun parses args as run does and returns the context run's checks
// see (the one its Before gets), and run's flags.
func parsedRun(tb testing.TB, args []string) (*cli.Context, []cli.Flag) {
	tb.Helper()
	app, _ := newApp()
	var got *cli.Context
	captured := errors.New("captured")
	app.Before = func(c *cli.Context) error { got = c; return captured }
	app.Writer, app.ErrWriter = io.Discard, io.Discard
	app.ExitErrHandler = func(*cli.Context, error) {}
	if err := app.Run(args); !errors.Is(err, captured) || got == nil {
		tb.Fatalf("%q: %v, want the context", args, err)
	}
	return got, app.Flags
}

// flagChecks runs the checks run makes of every flag before anything starts.
func flagChecks(tb testing.TB, c *cli.Context, flags []cli.Flag) {
	if err := checkFlagsBeforeSubcommand(c, flags); err != nil {
		tb.Fatal(err)
	}
	if err := cliapp.CheckRanges(c, flags); err != nil {
		tb.Fatal(err)
	}
}

// TestFlagChecksLinear: run's checks of its flags cost a few allocations
// per flag, not per pair of flags (c.IsSet asked about every flag looks
// each unset one up among all the flags by every name, a regular
// expression each: a refused run spent most of its time there).
func TestFlagChecksLinear(t *testing.T) {
	for name, args := range flagCheckArgs {
		c, flags := parsedRun(t, args)
		allocs := testing.AllocsPerRun(3, func() { flagChecks(t, c, flags) })
		// 25 a flag: the checks made 1.5–5.4 a flag, 12 under the race
		// detector, which allocates more; the pairwise lookup made 46–248.
		if limit := float64(25 * len(flags)); allocs > limit {
			t.Errorf("%s: %.0f allocations checking %d flags, want at most %.0f", name, allocs, len(flags), limit)
		}
	}
}

// BenchmarkFlagChecks times run's checks of its flags
// (checkFlagsBeforeSubcommand and cliapp.CheckRanges) over realistic
// command lines. urfave/cli's own pass over a command's flags before its
// action (runFlagActions) still asks c.IsSet about every name of every
// flag: that cost is the library's, and is not counted here.
func BenchmarkFlagChecks(b *testing.B) {
	for _, name := range []string{"run", "subcommand"} {
		b.Run(name, func(b *testing.B) {
			c, flags := parsedRun(b, flagCheckArgs[name])
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				flagChecks(b, c, flags)
			}
		})
	}
}
