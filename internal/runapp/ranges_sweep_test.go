//go:build !race

package runapp_test

// The sweep below runs run's command line some thousand times in one
// goroutine: the race detector slows it some seventeen times over (110 s
// against 6.5 s here) and has nothing to find in it, so it is built only
// without the race detector and make test runs it in its go test without
// -race (tests named TestSweep…, as the simulations are TestSim…).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
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

// TestSweepNumericFlagRanges feeds every numeric flag of run, of each of its
// subcommands and of the roles values outside its stated range (0, -1,
// just past each bound, huge, NaN and infinities for numbers): each must
// be a usage error (exit 2) naming the flag, found before any output
// folder is created. A numeric flag without a stated range fails the test.
// The drivers' numeric settings (--mqtt-keepalive, --amqp-prefetch, …)
// are text flags with a range (driver.Flag.Range); they get non-numbers
// too.
func TestSweepNumericFlagRanges(t *testing.T) {
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
