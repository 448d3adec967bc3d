package runcmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
)

// TestMistypedSubcommand: a mistyped subcommand of run is named as such,
// with the subcommand meant, rather than refused as a stray argument of
// the round-trip run; an argument near no subcommand is still that.
func TestMistypedSubcommand(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"abb", "run: unknown subcommand \"abb\": did you mean ab? (see 'run --help')\n"},
		{"sbu", "run: unknown subcommand \"sbu\": did you mean sub? (see 'run --help')\n"},
		{"throughpt", "run: unknown subcommand \"throughpt\": did you mean throughput? (see 'run --help')\n"},
		{"extra", "run: unexpected argument \"extra\" (run takes flags only; see 'run --help')\n"},
	} {
		var out, errb bytes.Buffer
		code := cliapp.Run(context.Background(), App(), []string{"run", c.arg, "-s", "intraprocess_reliable"}, &out, &errb)
		if code != 2 || out.Len() != 0 || errb.String() != c.want {
			t.Errorf("run %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.arg, code, out.String(), errb.String(), c.want)
		}
	}
}
