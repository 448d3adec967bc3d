package runapp_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mochi-mqtt/server/v2/hooks/auth"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/roles"
)

// freePort returns a TCP port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// wantLoopback fails the test unless addr (HOST:PORT) is on a loopback
// interface.
func wantLoopback(t *testing.T, what, addr string) {
	t.Helper()
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	if err != nil || ip == nil || !ip.IsLoopback() {
		t.Errorf("%s listens at %q, not on loopback", what, addr)
	}
}

// rolesPromAddr starts a role's metrics with s and returns the address of
// their Prometheus endpoint, as the role logs it.
func rolesPromAddr(t *testing.T, s roles.Settings) string {
	t.Helper()
	var log bytes.Buffer
	s.Log = slog.New(slog.NewTextHandler(&log, nil))
	m, err := roles.NewMetrics(s)
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	u := regexp.MustCompile(`url=http://(\S+)/metrics`).FindStringSubmatch(log.String())
	if u == nil {
		t.Fatalf("the role logged no Prometheus URL:\n%s", log.String())
	}
	return u[1]
}

// TestListenersBindLoopback starts every kind of listener the project
// opens with its default address (grep Listen, ListenPacket and
// ListenAndServe in internal) and checks that each binds loopback only:
// run load's and the roles' Prometheus endpoints (--prom-port), run echo
// of every socket transport, and the drivers' Listen and Subscribe given
// no address. The embedded brokers and the relay's hub are checked by
// their own tests (127.0.0.1 in their code).
func TestListenersBindLoopback(t *testing.T) {
	// run load --prom-port: the address printed.
	port := freePort(t)
	code, stderr := runBounded(t, "load", "-s", "intraprocess_best_effort", "--payloads", "16", "--duration", "50ms", "--interval", "10ms",
		"--warmup", "0", "--drain", "0", "--no-plots", "--prom-port", strconv.Itoa(port), "--out", t.TempDir(), "--name", "p")
	m := regexp.MustCompile(`Prometheus metrics at http://(\S+)/metrics`).FindStringSubmatch(stderr)
	if code != 0 || m == nil {
		t.Errorf("run load --prom-port: exit %d, %s", code, stderr)
	} else {
		wantLoopback(t, "run load --prom-port", m[1])
	}

	// The roles' --prom-port: the address logged.
	wantLoopback(t, "the roles' --prom-port", rolesPromAddr(t, roles.Settings{Role: roles.RolePub, PromPort: freePort(t), AggWindow: time.Second}))
	// --prom-addr exposes them where it says.
	a := rolesPromAddr(t, roles.Settings{Role: roles.RolePub, PromAddr: "0.0.0.0:0", AggWindow: time.Second})
	if h, _, _ := net.SplitHostPort(a); !net.ParseIP(h).IsUnspecified() {
		t.Errorf("--prom-addr 0.0.0.0:0 listens at %s", a)
	}

	// run echo without --listen, every socket transport.
	echo, _, err := secure.GenerateFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		transport string
		args      []string
	}{
		{"tcp", nil}, {"udp", nil}, {"udp", []string{"--reliable"}},
		{"tls", []string{"--ca", echo.CAFile, "--cert", echo.CertFile, "--key", echo.KeyFile}},
		{"dtls", []string{"--ca", echo.CAFile, "--cert", echo.CertFile, "--key", echo.KeyFile}},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- cliapp.Run(ctx, runcmd.App(), append([]string{"run", "echo", "--transport", tc.transport}, tc.args...), pw, io.Discard)
			pw.Close()
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		cancel()
		go io.Copy(io.Discard, pr)
		<-done
		if err != nil {
			t.Errorf("run echo --transport %s printed no address: %v", tc.transport, err)
			continue
		}
		wantLoopback(t, "run echo --transport "+tc.transport, strings.TrimSpace(line))
	}

	// The drivers given no address.
	ctx := context.Background()
	for _, name := range []string{"tcp", "udp", "tls", "dtls"} {
		tr, err := driver.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		opts := driver.Options{}
		if name == "tls" || name == "dtls" {
			sec := echo
			opts.Security = &sec
		}
		e, err := tr.Listen(ctx, "", opts)
		if err != nil {
			t.Fatalf("%s Listen(\"\"): %v", name, err)
		}
		wantLoopback(t, name+" Listen(\"\")", e.Addr())
		e.Close()
		if st, ok := tr.(driver.StreamTransport); ok {
			s, err := st.Subscribe(ctx, "", opts)
			if err != nil {
				t.Fatalf("%s Subscribe(\"\"): %v", name, err)
			}
			wantLoopback(t, name+" Subscribe(\"\")", s.Addr())
			s.Close()
		}
	}
}

// TestMQTTServerOnlyTLS: a broker sub-experiment over TLS with --ca alone
// (the broker's certificate verified, no client certificate), as the
// README documents, measures with the echo in a subprocess and in this
// process; before, the echo process refused --ca without --cert and --key
// after the experiment folder existed.
func TestMQTTServerOnlyTLS(t *testing.T) {
	echo, _, err := secure.GenerateFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := mqtt.StartBroker(&echo, new(auth.AllowHook), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(url, "mqtts://127.0.0.1:") {
		t.Fatalf("broker at %s", url)
	}
	out := t.TempDir()
	for _, place := range []string{"subprocess", "inprocess"} {
		code, _, stderr := run(t, "-s", "mqtt_best_effort_security", "--mqtt-url", url, "--ca", echo.CAFile, "--echo", place,
			"--payloads", "64", "--samples", "20", "--warmup", "0", "--timeout", "10s", "--out", out, "--name", place, "-q")
		if code != 0 {
			t.Errorf("--echo %s: exit %d: %s", place, code, stderr)
			continue
		}
		m, _ := readMeta(t, filepath.Join(out, place))
		if !m.Completed || m.Config.TLS == nil || m.Config.TLS.CAFile != echo.CAFile || m.Config.TLS.CertFile != "" {
			t.Errorf("--echo %s: completed %v, tls %+v", place, m.Completed, m.Config.TLS)
		}
	}
}

// TestEchoFailuresBeforeFolder: what would fail once measuring, an echo
// command that cannot be executed or a missing certificate, is found
// before the experiment folder is created.
func TestEchoFailuresBeforeFolder(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "run.txt")
	if err := os.WriteFile(notExec, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	certs, _, err := secure.GenerateFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-s", "interprocess_reliable_tcp", "--echo-command", "/nonexistent/run"}, `--echo-command "/nonexistent/run" cannot be executed`},
		{[]string{"-s", "interprocess_reliable_tcp", "--echo-command", notExec}, "cannot be executed"},
		{[]string{"-s", "interprocess_reliable_tcp", "--echo-command", "no-such-program-mqgate"}, "cannot be executed"},
		{[]string{"-s", "interprocess_reliable_tcp_security", "--ca", certs.CAFile, "--cert", "/nonexistent/c.pem", "--key", certs.KeyFile}, "/nonexistent/c.pem"},
		{[]string{"-s", "mqtt_best_effort_security", "--mqtt-url", "mqtts://127.0.0.1:1", "--ca", "/nonexistent/ca.pem"}, "--ca: open /nonexistent/ca.pem"},
	} {
		out := t.TempDir()
		code, _, stderr := run(t, append(tc.args, "--payloads", "64", "--samples", "10", "--out", out, "--name", "x", "-q")...)
		if code != exit.Usage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		noDir(t, filepath.Join(out, "x"))
	}
}
