package rolescmd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestServePrefixRepeatable gives --serve-prefix twice, as MQ_SERVE_PREFIX
// with a comma and as a list in a file: the qry gets every key, not the
// last; a req's default key is the first. Overlapping keys, and keys the
// Zenoh helper would ignore, exit 2 naming the flag without running.
func TestServePrefixRepeatable(t *testing.T) {
	var got []roles.Settings
	runRole = func(_ context.Context, s roles.Settings) roles.Outcome {
		got = append(got, s)
		return roles.Outcome{Summary: "captured"}
	}
	t.Cleanup(func() { runRole = roles.Run })
	yml := filepath.Join(t.TempDir(), "qry.yaml")
	if err := os.WriteFile(yml, []byte("serve-prefix: [a.x, b.y]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"qry", "--serve-prefix", "a.x", "--serve-prefix", "b.y"}},
		{[]string{"MQ_SERVE_PREFIX=a.x,b.y"}, []string{"qry"}},
		{nil, []string{"qry", "--config", yml}},
	} {
		got = nil
		code, stderr := runApp(context.Background(), t, tc.env, tc.args...)
		for _, kv := range tc.env {
			os.Unsetenv(strings.SplitN(kv, "=", 2)[0])
		}
		if code != 0 || len(got) != 1 {
			t.Fatalf("%v %v: exit %d, %d runs: %s", tc.env, tc.args, code, len(got), stderr)
		}
		if p := got[0].ServePrefixes; !slices.Equal(p, []string{"a.x", "b.y"}) {
			t.Errorf("%v %v: serve prefixes %q, want [a.x b.y]", tc.env, tc.args, p)
		}
	}
	got = nil
	if code, stderr := runApp(context.Background(), t, nil, "req", "--serve-prefix", "s.q", "--serve-prefix", "t.q"); code != 0 || len(got) != 1 || got[0].Expr != "s.q" {
		t.Errorf("req with two --serve-prefix: exit %d, %+v: %s", code, got, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"qry", "--serve-prefix", "a", "--serve-prefix", "a.b"}, `--serve-prefix "a.b" is below --serve-prefix "a"`},
		{[]string{"qry", "--driver", "zenoh", "--serve-prefix", "svc/a"}, `--serve-prefix "svc/a": the zenoh helper serves mqgate/bench/query only`},
		{[]string{"sub", "--driver", "zenoh", "--key-expr", "x/data"}, `--expr "x/data": the zenoh helper subscribes to mqgate/bench/data only`},
	} {
		got = nil
		code, stderr := runApp(context.Background(), t, nil, tc.args...)
		if code != 2 || len(got) != 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %d runs, stderr %q; want exit 2 and %q", tc.args, code, len(got), stderr, tc.want)
		}
	}
}
