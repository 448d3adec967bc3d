package runapp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/flagrange"
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
	code := cliapp.Run(ctx, App(), append([]string{"run"}, args...), &out, &errb)
	return code, errb.String()
}

// TestNumericFlagRanges feeds every numeric flag of run, of each of its
// subcommands and of the roles values outside its stated range (0, -1,
// just past each bound, huge, NaN and infinities for numbers): each must
// be a usage error (exit 2) naming the flag, found before any output
// folder is created. A numeric flag without a stated range fails the test.
func TestNumericFlagRanges(t *testing.T) {
	app := App()
	cmds := []*cli.Command{{Name: "", Flags: app.Flags}}
	cmds = append(cmds, app.Commands...)
	for _, cmd := range cmds {
		for _, f := range cmd.Flags {
			if !flagrange.IsNumeric(f) {
				continue
			}
			name := f.Names()[0]
			where := strings.TrimSpace("run " + cmd.Name)
			r, ok := flagrange.Lookup(f)
			if !ok {
				t.Errorf("%s --%s: numeric flag without a stated range (flagrange.Of)", where, name)
				continue
			}
			if u := f.(cli.DocGenerationFlag).GetUsage(); !strings.Contains(u, "(valid: "+r.String()+")") {
				t.Errorf("%s --%s: usage %q does not state the range", where, name, u)
			}
			for _, v := range r.Outside() {
				out := t.TempDir()
				var args []string
				if cmd.Name != "" {
					args = append(args, cmd.Name)
				}
				switch cmd.Name {
				case "echo":
					args = append(args, rangeArgs["echo"]...)
				case "ab":
					args = append(args, "--out", out, "--name", "x", "--"+name, v, "--", "-s", "intraprocess_reliable", "--payloads", "16", "--samples", "10", "-q")
				default:
					args = append(args, "--out", out, "--name", "x")
					args = append(args, rangeArgs[cmd.Name]...)
				}
				if cmd.Name != "ab" {
					args = append(args, "--"+name, v)
				}
				code, stderr := runBounded(t, args...)
				if code != cliapp.ExitUsage || !strings.Contains(stderr, "--"+name) {
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
				if k == "instance" && v == "-1" {
					continue // -1: a random instance, as when not given
				}
				out := t.TempDir()
				code, stderr := runBounded(t, role, "--endpoint", "nats://127.0.0.1:1", "--out-dir", out, "--run-id", "x", "--"+k, v)
				if code != cliapp.ExitUsage || !strings.Contains(stderr, "--"+k) {
					t.Errorf("run %s --%s %s: exit %d, stderr %q; want exit 2 naming --%s", role, k, v, code, stderr, k)
				}
				if entries, _ := os.ReadDir(out); len(entries) > 0 {
					t.Errorf("run %s --%s %s: created %s", role, k, v, filepath.Join(out, entries[0].Name()))
				}
			}
		}
	}
}

// TestZeroNotDefault: zero, where the help gives it no meaning, is refused
// rather than replaced by the default (run --samples 0 measured 10,000
// round trips and recorded 10,000; --timeout 0 became 1 s).
func TestZeroNotDefault(t *testing.T) {
	for _, args := range [][]string{
		{"--samples", "0"}, {"--timeout", "0s"}, {"--max-lost-in-row", "0"}, {"--queue-depth", "0"},
		{"--max-retries", "0"}, {"--retransmit-timeout", "0s"}, {"--connect-timeout", "0s"},
		{"load", "--duration", "0s"}, {"load", "--publishers", "0"}, {"load", "--subscribers", "0"}, {"load", "--interval", "0s"},
		{"throughput", "--windows", "0"}, {"throughput", "--precision", "0"}, {"permessage", "--count", "0"},
	} {
		out := t.TempDir()
		full := append(append([]string(nil), args...), "--out", out, "--name", "z", "-s", "intraprocess_reliable", "--payloads", "16", "-q")
		if args[0] == "load" || args[0] == "throughput" || args[0] == "permessage" {
			full[len(full)-4] = "intraprocess_best_effort"
		}
		code, stderr := runBounded(t, full...)
		flag := args[len(args)-2]
		if code != cliapp.ExitUsage || !strings.Contains(stderr, flag+" 0") {
			t.Errorf("run %v: exit %d, %q; want exit 2 naming %s 0", args, code, stderr, flag)
		}
		noDir(t, filepath.Join(out, "z"))
	}
}
