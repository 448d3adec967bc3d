package runapp_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/exit"
)

// runBounded runs the command in-process for at most a few seconds (a
// value the checks let through could start an echo that serves until
// interrupted).
func runBounded(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := cliapp.Run(ctx, runcmd.App(), append([]string{"run"}, args...), &out, &errb)
	return code, errb.String()
}

// TestDriverFlagRanges: every driver flag whose default is a number or a
// duration declares its range (driver.Flag.Range), and run states it in
// --help (TestNumericFlagRanges then feeds it values outside).
func TestDriverFlagRanges(t *testing.T) {
	byName := map[string]cli.Flag{}
	for _, f := range runcmd.App().Flags {
		byName[f.Names()[0]] = f
	}
	n := 0
	for _, tn := range driver.Names() {
		tr, _ := driver.Lookup(tn)
		for _, f := range driver.FlagsOf(tr) {
			_, errInt := strconv.Atoi(f.Default)
			_, errDur := time.ParseDuration(f.Default)
			numeric := f.Default != "" && (errInt == nil || errDur == nil)
			if numeric && f.Range.Kind == driver.NotNumeric {
				t.Errorf("--%s (default %q): numeric driver flag without a Range", f.Name, f.Default)
			}
			if f.Range.Kind == driver.NotNumeric {
				continue
			}
			n++
			r, ok := cliapp.RangeOf(byName[f.Name])
			if !ok {
				t.Errorf("--%s: run's flag has no range", f.Name)
				continue
			}
			if u := byName[f.Name].(cli.DocGenerationFlag).GetUsage(); !strings.Contains(u, "(valid: "+r.String()+")") {
				t.Errorf("--%s: usage %q does not state the range", f.Name, u)
			}
			if def, err := r.Parse(f.Name, f.Default); err != nil {
				t.Errorf("--%s: default %q outside its range: %v (%v)", f.Name, f.Default, err, def)
			}
		}
	}
	if n < 13 {
		t.Errorf("%d driver flags with a range; want the 13 of mqtt, amqp, nats and external", n)
	}
}

// TestZeroNotDefault: zero, where the help gives it no meaning, is refused
// rather than replaced by the default (run --samples 0 measured 10,000
// round trips and recorded 10,000; --timeout 0 became 1 s).
func TestZeroNotDefault(t *testing.T) {
	for _, args := range [][]string{
		{"--samples", "0"}, {"--timeout", "0s"}, {"--max-lost-in-row", "0"}, {"--queue-depth", "0"},
		{"--max-retries", "0"}, {"--retransmit-timeout", "0s"}, {"--connect-timeout", "0s"},
		{"load", "--duration", "0s"}, {"load", "--publishers", "0"}, {"load", "--subscribers", "0"}, {"load", "--snapshot-interval", "0s"},
		{"throughput", "--windows", "0"}, {"throughput", "--precision", "0"}, {"permessage", "--count", "0"},
	} {
		out := t.TempDir()
		full := append(append([]string(nil), args...), "--out", out, "--name", "z", "-s", "intraprocess_reliable", "--payloads", "16", "-q")
		if args[0] == "load" || args[0] == "throughput" || args[0] == "permessage" {
			full[len(full)-4] = "intraprocess_best_effort"
		}
		code, stderr := runBounded(t, full...)
		flag := args[len(args)-2]
		if code != exit.Usage || !strings.Contains(stderr, flag+" 0") {
			t.Errorf("run %v: exit %d, %q; want exit 2 naming %s 0", args, code, stderr, flag)
		}
		noDir(t, filepath.Join(out, "z"))
	}
}

// isNumericFlag reports whether f is one of urfave/cli's numeric flags.
func isNumericFlag(f cli.Flag) bool {
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag, *cli.DurationFlag:
		return true
	}
	return false
}
