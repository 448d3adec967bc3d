package rolescmd

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/roles"
	// The roles' help names every registered driver.
	_ "github.com/mqgate/mqgate/internal/driver/amqp"
	_ "github.com/mqgate/mqgate/internal/driver/mqtt"
	_ "github.com/mqgate/mqgate/internal/driver/nats"
	_ "github.com/mqgate/mqgate/internal/driver/zenoh"
)

// TestTopFlags gives --run-id, --out-dir, --prom-port, --log-level and
// --config to run itself, before the role's name, against the same
// settings in MQ_* variables and in a YAML or TOML file: the command line
// wins over the environment, which wins over the file; after the role's
// name a flag wins over the same flag before it, and --config after the
// name replaces the one before it.
func TestTopFlags(t *testing.T) {
	dir := t.TempDir()
	yml := filepath.Join(dir, "roles.yaml")
	os.WriteFile(yml, []byte("run-id: fromfile\nout-dir: filedir\nprom-port: 9101\nlog-level: warn\nrate: 10\nsub:\n  publishers: 3\n"), 0o644)
	tml := filepath.Join(dir, "roles.toml")
	os.WriteFile(tml, []byte("run_id = \"fromtoml\"\nprom_port = 9202\n[pub]\nrate = 20\n"), 0o644)
	var got []roles.Settings
	runRole = func(_ context.Context, s roles.Settings) roles.Outcome {
		got = append(got, s)
		return roles.Outcome{Summary: s.Role + " " + s.RunID + ": captured"}
	}
	t.Cleanup(func() { runRole = roles.Run })
	type want struct {
		runID, outDir, logLevel string
		promPort, publishers    int
		rate                    float64
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want want
	}{
		{"file only, before the role", nil, []string{"--config", yml, "sub"},
			want{"fromfile", "filedir", "warn", 9101, 3, 10}},
		{"environment over file", []string{"MQ_RUN_ID=fromenv", "MQ_PROM_PORT=9303"}, []string{"--config", yml, "sub"},
			want{"fromenv", "filedir", "warn", 9303, 3, 10}},
		{"flags before the role over environment and file", []string{"MQ_RUN_ID=fromenv", "MQ_LOG_LEVEL=error", "MQ_OUT_DIR=envdir"},
			[]string{"--config", yml, "--run-id", "fromcli", "--out-dir", "clidir", "--prom-port", "9404", "--log-level", "debug", "sub"},
			want{"fromcli", "clidir", "debug", 9404, 3, 10}},
		{"environment where no flag is given", []string{"MQ_LOG_LEVEL=error"}, []string{"--config", yml, "--run-id", "fromcli", "pub"},
			want{"fromcli", "filedir", "error", 9101, 1, 10}},
		{"after the role over before it", nil, []string{"--run-id", "before", "--out-dir", "b", "pub", "--run-id", "after"},
			want{"after", "b", "info", 0, 1, 1000}},
		// -o is --out after the role's name too, as on every run subcommand.
		{"-o after the role", nil, []string{"pub", "--name", "n", "-o", "short"},
			want{"n", "short", "info", 0, 1, 1000}},
		{"config after the role replaces the one before", nil, []string{"--config", yml, "pub", "--config", tml},
			want{"fromtoml", "results", "info", 9202, 1, 20}},
		{"TOML before the role, its section", []string{"MQ_RATE=30"}, []string{"--config", tml, "--log-level", "warn", "pub"},
			want{"fromtoml", "results", "warn", 9202, 1, 30}},
	} {
		got = nil
		code, stderr := runApp(context.Background(), t, tc.env, tc.args...)
		for _, kv := range tc.env {
			os.Unsetenv(strings.SplitN(kv, "=", 2)[0])
		}
		if code != 0 || len(got) != 1 {
			t.Fatalf("%s: exit %d, %d runs: %s", tc.name, code, len(got), stderr)
		}
		s := got[0]
		g := want{s.RunID, s.OutDir, s.LogLevel, s.PromPort, s.Publishers, s.Rate}
		if g != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, g, tc.want)
		}
		if !strings.Contains(stderr, s.RunID+": captured") {
			t.Errorf("%s: no summary line: %s", tc.name, stderr)
		}
	}
	// Before anything but a role they are refused, naming the flag.
	for _, args := range [][]string{{"--run-id", "x"}, {"--prom-port", "9100", "other"}, {"--config", yml}} {
		got = nil
		code, stderr := runApp(context.Background(), t, nil, args...)
		if code != 2 || len(got) != 0 || !strings.Contains(stderr, args[0]+" is a setting of the roles") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// A bad value before the role is a usage error naming the flag.
	code, stderr := runApp(context.Background(), t, nil, "--log-level", "loud", "sub")
	if code != 2 || !strings.Contains(stderr, "--log-level") {
		t.Errorf("bad --log-level: exit %d: %s", code, stderr)
	}
}

// runApp runs the roles as commands of a small app, as `run` does: run's
// own role flags (TopFlags) and the four roles.
func runApp(ctx context.Context, t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	app := &cli.App{Name: "run", Flags: TopFlags(), Before: CheckTopFlags, Commands: Commands()}
	var stdout, stderr bytes.Buffer
	code := cliapp.Run(ctx, app, append([]string{"run"}, args...), &stdout, &stderr)
	return code, stderr.String()
}

// TestDesignSpellings gives the settings as the harness design spells
// them: --key-expr for --expr, --reliability best, --csv alone (the default
// file, beside the report) or before its file, MQ_ENDPOINTS and
// MQ_KEY_EXPR for MQ_ENDPOINT and MQ_EXPR.
func TestDesignSpellings(t *testing.T) {
	var got []roles.Settings
	runRole = func(_ context.Context, s roles.Settings) roles.Outcome {
		got = append(got, s)
		return roles.Outcome{Summary: "captured"}
	}
	t.Cleanup(func() { runRole = roles.Run })
	def := filepath.Join("o", "r", roles.ReportsDir, "sub-pubsub-7.csv")
	type want struct {
		expr, csv  string
		endpoints  string
		reliable   bool
		publishers int
	}
	for _, tc := range []struct {
		env  []string
		args []string
		want want
	}{
		{nil, []string{"--key-expr", "a.b"}, want{"a.b", "", "", false, 1}},
		{[]string{"MQ_KEY_EXPR=k.e", "MQ_ENDPOINTS=nats://h1:4222,nats://h2:4222"}, nil, want{"k.e", "", "nats://h1:4222 nats://h2:4222", false, 1}},
		{nil, []string{"--reliability", "best"}, want{"mqgate.bench.data", "", "", false, 1}},
		{nil, []string{"--reliability", "reliable"}, want{"mqgate.bench.data", "", "", true, 1}},
		{nil, []string{"--csv"}, want{"mqgate.bench.data", def, "", false, 1}},
		{nil, []string{"--csv", "--publishers", "2"}, want{"mqgate.bench.data", def, "", false, 2}},
		{nil, []string{"--csv", "f.csv", "--publishers", "3"}, want{"mqgate.bench.data", "f.csv", "", false, 3}},
		{nil, []string{"--publishers", "2", "--csv=g.csv"}, want{"mqgate.bench.data", "g.csv", "", false, 2}},
		{[]string{"MQ_CSV=true"}, nil, want{"mqgate.bench.data", def, "", false, 1}},
	} {
		got = nil
		args := append([]string{"--out-dir", "o", "--run-id", "r", "sub", "--instance", "7"}, tc.args...)
		code, stderr := runApp(context.Background(), t, tc.env, args...)
		for _, kv := range tc.env {
			os.Unsetenv(strings.SplitN(kv, "=", 2)[0])
		}
		if code != 0 || len(got) != 1 {
			t.Fatalf("%v %v: exit %d, %d runs: %s", tc.env, tc.args, code, len(got), stderr)
		}
		s := got[0]
		g := want{s.Expr, s.CSV, strings.Join(s.Endpoints, " "), s.Reliable, s.Publishers}
		if g != tc.want {
			t.Errorf("%v %v: got %+v, want %+v", tc.env, tc.args, g, tc.want)
		}
	}
	// A word after the file of --csv is no setting.
	if code, stderr := runApp(context.Background(), t, nil, "sub", "--csv", "f.csv", "extra"); code != 2 || len(got) != 1 {
		t.Errorf("--csv f.csv extra: exit %d: %s", code, stderr)
	}
}

// TestWait runs `run wait`: ready at once against a listener, exit 2
// naming the address and the bound against a closed port, exit 2 for a
// malformed address or none.
func TestWait(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := "tcp://" + ln.Addr().String()
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "tcp://" + ln2.Addr().String()
	ln2.Close()
	defer ln.Close()
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{open}, 0, ""},
		{[]string{"--timeout", "200ms", open, closed}, 2, closed + ": not ready within 200ms"},
		{[]string{"localhost:80"}, 2, `"localhost:80": expected tcp://HOST:PORT, nats://HOST:PORT?server_name=NAME, zenoh://HOST:PORT?zid=ID or http://HOST:PORT/PATH`},
		{nil, 2, "expected one or more addresses"},
	} {
		var stderr bytes.Buffer
		app := &cli.App{Name: "run", Commands: Commands()}
		code := cliapp.Run(context.Background(), app, append([]string{"run", "wait"}, c.args...), &stderr, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("run wait %v: exit %d, want %d; stderr %q, want %q", c.args, code, c.code, stderr.String(), c.msg)
		}
	}
}

// TestRunSpellings gives the settings whose flags take run's names
// (--target, --out, --name, --payloads) by those names and by the roles'
// former ones (--endpoint, --out-dir, --run-id, --payload), after the
// role's name and, for --name and --out, before it as run's own flags
// (run --name r1 -o d sub): the same settings every time.
func TestRunSpellings(t *testing.T) {
	var got []roles.Settings
	runRole = func(_ context.Context, s roles.Settings) roles.Outcome {
		got = append(got, s)
		return roles.Outcome{Summary: "captured"}
	}
	t.Cleanup(func() { runRole = roles.Run })
	// run's own --name and --out, as runcmd defines them.
	top := append(TopFlags(), &cli.StringFlag{Name: "name"}, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results"})
	type want struct {
		target, out, name string
		payload           int
	}
	w := want{"nats://h:1 nats://h:2", "d", "r1", 100}
	for _, args := range [][]string{
		{"pub", "--target", "nats://h:1", "--target", "nats://h:2", "--out", "d", "--name", "r1", "--payloads", "100"},
		{"pub", "--endpoint", "nats://h:1", "--endpoint", "nats://h:2", "--out-dir", "d", "--run-id", "r1", "--payload", "100"},
		{"--name", "r1", "-o", "d", "pub", "--endpoint", "nats://h:1", "--endpoint", "nats://h:2", "--payloads", "100"},
		{"--run-id", "r1", "--out-dir", "d", "pub", "--target", "nats://h:1,nats://h:2", "--payloads", "100"},
		{"--name", "before", "--out", "before", "pub", "--name", "r1", "--out-dir", "d", "--target", "nats://h:1,nats://h:2", "--payload", "100"},
	} {
		got = nil
		app := &cli.App{Name: "run", Flags: top, Before: CheckTopFlags, Commands: Commands()}
		var stdout, stderr bytes.Buffer
		code := cliapp.Run(context.Background(), app, append([]string{"run"}, args...), &stdout, &stderr)
		if code != 0 || len(got) != 1 {
			t.Fatalf("%v: exit %d, %d runs: %s", args, code, len(got), stderr.String())
		}
		s := got[0]
		if g := (want{strings.Join(s.Endpoints, " "), s.OutDir, s.RunID, s.Payload}); g != w {
			t.Errorf("%v: got %+v, want %+v", args, g, w)
		}
	}
	// Two spellings of one flag are one flag given twice, refused.
	app := &cli.App{Name: "run", Flags: top, Before: CheckTopFlags, Commands: Commands()}
	var stdout, stderr bytes.Buffer
	if code := cliapp.Run(context.Background(), app, []string{"run", "pub", "--payload", "1", "--payloads", "2"}, &stdout, &stderr); code != 2 {
		t.Errorf("--payload and --payloads: exit %d: %s", code, stderr.String())
	}
}

// TestInstanceRange refuses an --instance (or MQ_INSTANCE) outside 0–255
// with exit 2, naming the flag and, for the variable, the variable, before
// the role runs; -1 is no longer "random", which is what not giving it
// means.
func TestInstanceRange(t *testing.T) {
	var got []roles.Settings
	runRole = func(_ context.Context, s roles.Settings) roles.Outcome {
		got = append(got, s)
		return roles.Outcome{Summary: "captured"}
	}
	t.Cleanup(func() { runRole = roles.Run })
	for _, c := range []struct {
		env  string
		args []string
		code int
		msg  string
	}{
		{"", []string{"--instance", "-1"}, 2, "--instance -1: expected 0 to 255"},
		{"", []string{"--instance", "256"}, 2, "--instance 256: expected 0 to 255"},
		{"-1", nil, 2, "--instance -1: expected 0 to 255 (from environment variable MQ_INSTANCE)"},
		{"300", nil, 2, "--instance 300: expected 0 to 255 (from environment variable MQ_INSTANCE)"},
		{"", []string{"--instance", "0"}, 0, ""},
		{"", []string{"--instance", "255"}, 0, ""},
		{"", nil, 0, ""},
	} {
		if c.env != "" {
			t.Setenv("MQ_INSTANCE", c.env)
		} else {
			os.Unsetenv("MQ_INSTANCE")
		}
		got = nil
		app := &cli.App{Name: "run", Commands: Commands()}
		var stdout, stderr bytes.Buffer
		code := cliapp.Run(context.Background(), app, append([]string{"run", "pub"}, c.args...), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("MQ_INSTANCE=%q run pub %v: exit %d, want %d; stderr %q, want %q", c.env, c.args, code, c.code, stderr.String(), c.msg)
		}
		if (c.code == 0) != (len(got) == 1) {
			t.Errorf("MQ_INSTANCE=%q run pub %v: the role ran %d times", c.env, c.args, len(got))
		}
		if len(got) == 1 && (got[0].Instance < 0 || got[0].Instance > 255 || len(c.args) == 2 && strconv.Itoa(got[0].Instance) != c.args[1]) {
			t.Errorf("run pub %v: instance %d", c.args, got[0].Instance)
		}
	}
}
