package runapp_test

import (
	"bytes"
	"context"
	"os"
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
	"github.com/mqgate/mqgate/internal/roles"
)

// rangeArgs are the arguments that keep a command small and give it an
// output folder, before the flag under test (which comes last, and wins
// over the same flag here).
var rangeArgs = map[string][]string{
	"":           {"-s", "intraprocess_reliable", "--payloads", "16", "--samples", "10", "--warmup", "0", "-q"},
	"echo":       {"--transport", "tcp"},
	"load":       {"-s", "intraprocess_best_effort", "--payloads", "16", "--duration", "100ms", "--warmup", "0", "--drain", "0", "--no-plots", "-q"},
	"throughput": {"-s", "intraprocess_best_effort", "--payloads", "16", "--windows", "2", "--max-in-flight", "1", "-q"},
	"permessage": {"-s", "intraprocess_best_effort", "--payloads", "16", "--count", "10", "--window", "2", "--no-plots", "-q"},
}

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

// TestNumericFlagRanges feeds every numeric flag of run, of each of its
// subcommands and of the roles values outside its stated range (0, -1,
// just past each bound, huge, NaN and infinities for numbers): each must
// be a usage error (exit 2) naming the flag, found before any output
// folder is created. A numeric flag without a stated range fails the test.
// The drivers' numeric settings (--mqtt-keepalive, --amqp-prefetch, …)
// are text flags with a range (driver.Flag.Range); they get non-numbers
// too.
func TestNumericFlagRanges(t *testing.T) {
	app := runcmd.App()
	cmds := []*cli.Command{{Name: "", Flags: app.Flags}}
	cmds = append(cmds, app.Commands...)
	for _, cmd := range cmds {
		for _, f := range cmd.Flags {
			r, ok := cliapp.RangeOf(f)
			_, text := f.(*cli.StringFlag)
			if !isNumericFlag(f) && !(text && ok) {
				continue
			}
			name := f.Names()[0]
			where := strings.TrimSpace("run " + cmd.Name)
			if !ok {
				t.Errorf("%s --%s: numeric flag without a stated range (cliapp.Ranged)", where, name)
				continue
			}
			if u := f.(cli.DocGenerationFlag).GetUsage(); !strings.Contains(u, "(valid: "+r.String()+")") {
				t.Errorf("%s --%s: usage %q does not state the range", where, name, u)
			}
			values := r.Outside()
			switch {
			case text && (cmd.Name == "" || cmd.Name == "echo"):
				values = append(values, "99999999999999999999", "NaN", "x", "")
			case text:
				// The one-way subcommands check them the same way
				// (cliapp.RangesChecked): two values each keep the test short.
				values = []string{values[0], "x"}
			}
			for _, v := range values {
				out := t.TempDir()
				var args []string
				if cmd.Name != "" {
					args = append(args, cmd.Name)
				}
				switch cmd.Name {
				case "echo":
					args = append(args, rangeArgs["echo"]...)
				case "wait":
					// The address follows the flags; a bad --timeout is refused before any waiting.
					args = append(args, "--"+name, v, "tcp://127.0.0.1:1")
				case "ab":
					args = append(args, "--out", out, "--name", "x", "--"+name, v, "--", "-s", "intraprocess_reliable", "--payloads", "16", "--samples", "10", "-q")
				default:
					args = append(args, "--out", out, "--name", "x")
					args = append(args, rangeArgs[cmd.Name]...)
				}
				if cmd.Name != "ab" && cmd.Name != "wait" {
					args = append(args, "--"+name, v)
				}
				code, stderr := runBounded(t, args...)
				if code != exit.Usage || !strings.Contains(stderr, "--"+name) {
					t.Errorf("%s --%s %s: exit %d, stderr %q; want exit 2 naming --%s", where, name, v, code, stderr, name)
				}
				if entries, _ := os.ReadDir(out); len(entries) > 0 {
					t.Errorf("%s --%s %s: created %s/%s", where, name, v, out, entries[0].Name())
				}
			}
		}
	}
	// The roles' settings are strings (flags, MQ_* variables or a file),
	// ranged by roles.Ranges.
	for _, role := range []string{roles.RolePub, roles.RoleSub, roles.RoleReq, roles.RoleQry} {
		for _, k := range roles.Keys {
			r, ok := roles.Ranges[k]
			if !ok {
				continue
			}
			for _, v := range r.Outside() {
				out := t.TempDir()
				code, stderr := runBounded(t, role, "--endpoint", "nats://127.0.0.1:1", "--out-dir", out, "--run-id", "x", "--"+k, v)
				if code != exit.Usage || !strings.Contains(stderr, "--"+k) {
					t.Errorf("run %s --%s %s: exit %d, stderr %q; want exit 2 naming --%s", role, k, v, code, stderr, k)
				}
				if entries, _ := os.ReadDir(out); len(entries) > 0 {
					t.Errorf("run %s --%s %s: created %s", role, k, v, filepath.Join(out, entries[0].Name()))
				}
			}
		}
	}
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
