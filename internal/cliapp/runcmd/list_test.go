package runcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
)

// TestListAlone: run --list beside a flag that would select or set up a
// measurement is refused, naming the flag (it listed every sub-experiment
// and exited 0, -s ignored); alone, or with a setting from an environment
// variable, it lists.
func TestListAlone(t *testing.T) {
	for _, args := range [][]string{{"-s", "nosuch"}, {"--payloads", "16"}, {"--out", t.TempDir()}} {
		var out, errb bytes.Buffer
		code := cliapp.Run(context.Background(), App(), append([]string{"run", "--list"}, args...), &out, &errb)
		flag := strings.TrimLeft(args[0], "-")
		if flag == "s" {
			flag = "subexperiments"
		}
		want := "run: --list lists every sub-experiment and what each transport can do, and measures nothing: --" + flag + " does not go with it\n"
		if code != 2 || out.Len() != 0 || errb.String() != want {
			t.Errorf("run --list %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, out.String(), errb.String(), want)
		}
	}
	t.Setenv("MQGATE_NATS_URL", "nats://127.0.0.1:1")
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), App(), []string{"run", "--list"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "intraprocess_reliable") || errb.Len() != 0 {
		t.Errorf("run --list: exit %d, stdout %.200q, stderr %q", code, out.String(), errb.String())
	}
}
