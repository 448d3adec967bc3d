package cliapp

import (
	"bytes"
	"context"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/program"
)

// TestRunHandsInvocation: Run tells the tool how it was started, in the
// context its action gets (the tool's name added to the front's, if any),
// and names it so in its errors, its own and the tool's.
func TestRunHandsInvocation(t *testing.T) {
	for _, c := range []struct {
		front, wantErr string
	}{
		{"", "demo: cannot (see 'demo --help'; 'process DIR' first)\n"},
		{program.Front, "mqgate demo: cannot (see 'mqgate demo --help'; 'mqgate process DIR' first)\n"},
	} {
		var got program.Invocation
		app := &cli.App{Name: "demo", Action: func(c *cli.Context) error {
			got = program.FromContext(c.Context)
			return exit.Usagef("cannot (see 'demo --help'; 'process DIR' first)")
		}}
		ctx := program.NewContext(context.Background(), program.Invocation{Front: c.front})
		var out, errb bytes.Buffer
		if code := Run(ctx, app, []string{"demo"}, &out, &errb); code != exit.Usage || errb.String() != c.wantErr {
			t.Errorf("front %q: exit %d, stderr %q; want 2 and %q", c.front, code, errb.String(), c.wantErr)
		}
		if want := (program.Invocation{Front: c.front, Tool: "demo"}); got != want {
			t.Errorf("front %q: the action got %+v, want %+v", c.front, got, want)
		}
	}
}
