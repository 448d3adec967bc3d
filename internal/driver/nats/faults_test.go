package nats

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// deadPort is a loopback port nothing listens on.
func deadPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func dialCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), drivertest.Watchdog)
	t.Cleanup(cancel)
	return ctx
}

// TestUnreachable: every end fails at once with an error naming the URL and
// the reason, never a timeout.
func TestUnreachable(t *testing.T) {
	url := "nats://" + deadPort(t)
	tr := Transport{}
	for _, reliable := range []bool{false, true} {
		opts := driver.Options{Reliable: reliable, Topic: topic(t)}
		var errs []error
		_, err := tr.Dial(dialCtx(t), url, opts)
		errs = append(errs, err)
		_, err = tr.Listen(dialCtx(t), url, opts)
		errs = append(errs, err)
		_, err = tr.Subscribe(dialCtx(t), url, opts)
		errs = append(errs, err)
		_, err = tr.Publish(dialCtx(t), url, opts)
		errs = append(errs, err)
		for i, err := range errs {
			if err == nil || errors.Is(err, driver.ErrTimeout) || !strings.Contains(err.Error(), url) ||
				!strings.Contains(err.Error(), "connection refused") {
				t.Errorf("reliable %v, end %d: %v; want an error naming %s and the refused connection", reliable, i, err, url)
			}
		}
	}
	_, err := Transport{}.Dial(dialCtx(t), url, driver.Options{})
	t.Log(err)
}

// TestServerKilledMidRun shuts the server down while a pinger waits for an
// echo: Receive returns a closed-link error, not a timeout, long before
// its deadline, and the echo's Serve returns an error too.
func TestServerKilledMidRun(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		t.Run(fmt.Sprintf("reliable=%v", reliable), func(t *testing.T) {
			url, stop, err := startEmbedded(dialCtx(t), driver.Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			opts := driver.Options{Reliable: reliable, Topic: topic(t)}
			e, err := Transport{}.Listen(dialCtx(t), url, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			served := make(chan error, 1)
			go func() { served <- e.Serve(context.Background()) }()
			p, err := Transport{}.Dial(dialCtx(t), url, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			buf := make([]byte, 64)
			if _, err := drivertest.RoundTrip(p, []byte("0123456789abcdef"), buf); err != nil {
				t.Fatal(err)
			}
			received := make(chan error, 1)
			deadline := time.Now().Add(drivertest.Watchdog)
			go func() {
				_, _, err := p.Receive(buf, deadline)
				received <- err
			}()
			time.Sleep(50 * time.Millisecond) // let Receive wait
			stop()
			select {
			case err := <-received:
				if err == nil || errors.Is(err, driver.ErrTimeout) || !errors.Is(err, driver.ErrClosed) || !strings.Contains(err.Error(), url) {
					t.Fatalf("Receive after the server died = %v; want a lost-connection error naming %s", err, url)
				}
				if time.Now().After(deadline) {
					t.Fatal("Receive returned only at its deadline")
				}
				t.Log(err)
			case <-time.After(drivertest.Watchdog + time.Second):
				t.Fatal("Receive did not return after the server died")
			}
			select {
			case err := <-served:
				if err == nil || !strings.Contains(err.Error(), "lost") {
					t.Fatalf("Serve after the server died = %v, want a lost-connection error", err)
				}
			case <-time.After(drivertest.Watchdog):
				t.Fatal("Serve did not return after the server died")
			}
			if err := p.Send([]byte("0123456789abcdef")); err == nil || !errors.Is(err, driver.ErrClosed) {
				t.Fatalf("Send after the server died = %v, want a closed-link error", err)
			}
		})
	}
}

// authServer starts an embedded server that requires user alice with
// password right, or a token when token is set.
func authServer(t *testing.T, token string) string {
	t.Helper()
	params := map[string]string{FlagUser: "alice", FlagPassword: "right"}
	if token != "" {
		params = map[string]string{FlagToken: token}
	}
	return embeddedURL(t, driver.Options{Params: params})
}

// TestWrongCredentials: refused credentials give a message naming the URL
// without its secret and saying what to give.
func TestWrongCredentials(t *testing.T) {
	url := authServer(t, "")
	host := strings.TrimPrefix(url, "nats://")
	cases := []struct {
		name   string
		url    string
		params map[string]string
		secret string
	}{
		{"no credentials", url, nil, ""},
		{"wrong password flag", url, map[string]string{FlagUser: "alice", FlagPassword: "wrong-pw"}, "wrong-pw"},
		{"wrong password in URL", "nats://alice:wrong-pw@" + host, nil, "wrong-pw"},
		{"wrong token in URL", "nats://wrong-token@" + host, nil, "wrong-token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, reliable := range []bool{false, true} {
				_, err := Transport{}.Dial(dialCtx(t), c.url, driver.Options{Reliable: reliable, Topic: topic(t), Params: c.params})
				if err == nil {
					t.Fatal("connected with wrong credentials")
				}
				msg := err.Error()
				if !strings.Contains(msg, host) || !strings.Contains(msg, "credentials") || c.secret != "" && !strings.Contains(msg, "refused") || !strings.Contains(msg, "--nats-password") {
					t.Errorf("error %q does not name %s and the credential flags", msg, host)
				}
				if c.secret != "" && strings.Contains(msg, c.secret) {
					t.Errorf("error %q shows the secret", msg)
				}
				t.Log(msg)
			}
		})
	}
	// The right credentials, by flag and in the URL, work.
	for _, c := range []struct {
		url    string
		params map[string]string
	}{
		{url, map[string]string{FlagUser: "alice", FlagPassword: "right"}},
		{"nats://alice:right@" + host, nil},
	} {
		for _, sc := range scenarios[:2] {
			cfg := config(t, c.url, sc, nil, nil, -1)
			cfg.Listen.Params, cfg.Dial.Params = c.params, c.params
			e := drivertest.StartEcho(t, cfg)
			p := drivertest.Dial(t, cfg, e.Addr())
			if _, err := drivertest.RoundTrip(p, []byte("0123456789abcdef"), make([]byte, 64)); err != nil {
				t.Errorf("%s with the right credentials: %v", sc.name, err)
			}
		}
	}
}

func TestToken(t *testing.T) {
	url := authServer(t, "s3cret")
	cfg := config(t, url, scenarios[0], nil, nil, -1)
	cfg.Listen.Params = map[string]string{FlagToken: "s3cret"}
	cfg.Dial.Params = cfg.Listen.Params
	e := drivertest.StartEcho(t, cfg)
	p := drivertest.Dial(t, cfg, e.Addr())
	if _, err := drivertest.RoundTrip(p, []byte("0123456789abcdef"), make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if si := p.(driver.InfoReporter).SystemInfo(); strings.Contains(fmt.Sprint(si), "s3cret") {
		t.Errorf("SystemInfo shows the token: %+v", si)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":         "nats://127.0.0.1:4222",
		"nats://alice:pw@host:4222":     "nats://alice:xxxxx@host:4222",
		"nats://tok3n@host:4222":        "nats://xxxxx@host:4222",
		"tls://bob:pa%20ss@host:4443/x": "tls://bob:xxxxx@host:4443/x",
		"127.0.0.1:4222":                "127.0.0.1:4222",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMaxPayload: a run whose messages the server would refuse fails at
// Dial, naming the server's max_payload; a message over it fails at Send.
func TestMaxPayload(t *testing.T) {
	url, stop, err := startEmbedded(dialCtx(t), driver.Options{}, func(o *server.Options) { o.MaxPayload = 4096 })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, reliable := range []bool{false, true} {
		opts := driver.Options{Reliable: reliable, Topic: topic(t), LargestMessage: 4097}
		if _, err := (Transport{}).Dial(dialCtx(t), url, opts); err == nil || !strings.Contains(err.Error(), "max_payload") ||
			!strings.Contains(err.Error(), "4096") {
			t.Errorf("Dial for 4097-byte messages with max_payload 4096 = %v", err)
		}
		opts.LargestMessage = 4096
		e, err := Transport{}.Listen(dialCtx(t), url, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Transport{}.Dial(dialCtx(t), url, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := p.(driver.InfoReporter).SystemInfo().Extra["max_payload"]; n != "4096" {
			t.Errorf("SystemInfo's max_payload = %q, want the server's 4096", n)
		}
		if err := p.Send(make([]byte, 5000)); err == nil || !strings.Contains(err.Error(), "max_payload") {
			t.Errorf("Send of 5000 bytes = %v, want a max_payload error", err)
		}
		p.Close()
		e.Close()
	}
	if DefaultMaxPayload != 1<<20 {
		t.Errorf("DefaultMaxPayload = %d", DefaultMaxPayload)
	}
}

// TestNoJetStream: the reliable scenarios on a server without JetStream
// say so.
func TestNoJetStream(t *testing.T) {
	url, stop, err := startEmbedded(dialCtx(t), driver.Options{}, func(o *server.Options) { o.JetStream = false })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	_, err = Transport{}.Dial(dialCtx(t), url, driver.Options{Reliable: true, Topic: topic(t)})
	if err == nil || !strings.Contains(err.Error(), "no JetStream") || !strings.Contains(err.Error(), url) {
		t.Fatalf("reliable Dial without JetStream = %v", err)
	}
	t.Log(err)
}

// TestTLSFailures: a server signed by another CA, a plaintext client of a
// TLS server and a TLS client of a plaintext server are refused with
// errors that say which.
func TestTLSFailures(t *testing.T) {
	srv, _ := pki(t)
	_, other := pki(t)
	url := embeddedURL(t, driver.Options{Security: srv})
	_, err := Transport{}.Dial(dialCtx(t), url, driver.Options{Security: other, Topic: topic(t)})
	if err == nil || !strings.Contains(err.Error(), other.CAFile) || !strings.Contains(err.Error(), url) {
		t.Errorf("Dial verifying against another CA = %v, want an error naming %s", err, other.CAFile)
	}
	t.Log(err)
	_, err = Transport{}.Dial(dialCtx(t), url, driver.Options{Topic: topic(t)})
	if err == nil || !strings.Contains(err.Error(), "requires TLS") {
		t.Errorf("plaintext Dial of a TLS server = %v", err)
	}
	plain := embeddedURL(t, driver.Options{})
	_, cli := pki(t)
	_, err = Transport{}.Dial(dialCtx(t), plain, driver.Options{Security: cli, Topic: topic(t)})
	if err == nil || !strings.Contains(err.Error(), "does not offer TLS") {
		t.Errorf("TLS Dial of a plaintext server = %v", err)
	}
	// A client without a certificate is refused by the server, which
	// requires one.
	noCert := &driver.Security{CAFile: srv.CAFile}
	if _, err := (Transport{}).Dial(dialCtx(t), url, driver.Options{Security: noCert, Topic: topic(t)}); err == nil {
		t.Error("a client without a certificate connected")
	}
}

func TestBadSettings(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	for _, c := range []struct {
		opts driver.Options
		want string
	}{
		{driver.Options{Params: map[string]string{FlagStorage: "disk"}}, `--nats-storage "disk": want file or memory`},
		{driver.Options{Params: map[string]string{FlagReplicas: "0"}}, "--nats-replicas"},
		{driver.Options{Params: map[string]string{FlagDoubleAck: "maybe"}}, "--nats-double-ack"},
		{driver.Options{Params: map[string]string{FlagPullBatch: "-1"}}, "--nats-pull-batch"},
		{driver.Options{Params: map[string]string{FlagWriteBuffer: "x"}}, "--nats-write-buffer"},
		{driver.Options{Params: map[string]string{FlagConnectTimeout: "5"}}, "--nats-connect-timeout"},
		{driver.Options{Params: map[string]string{FlagPassword: "pw"}}, "--nats-password needs --nats-user"},
		{driver.Options{Params: map[string]string{FlagToken: "t", FlagUser: "u"}}, "--nats-token cannot be combined"},
		{driver.Options{Topic: "a.*.b"}, "not a NATS subject"},
		{driver.Options{Topic: "a..b"}, "not a NATS subject"},
		{driver.Options{Topic: "a b"}, "not a NATS subject"},
	} {
		_, err := Transport{}.Dial(dialCtx(t), url, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Dial with %+v = %v, want %q", c.opts, err, c.want)
		}
	}
	if _, err := (Transport{}).Dial(dialCtx(t), "not a url", driver.Options{}); err == nil || !strings.Contains(err.Error(), "not a NATS server URL") {
		t.Errorf("Dial of a non-URL = %v", err)
	}
}

// TestInstalledServerTLS runs the security scenarios against the
// installed nats-server program, started with TLS and client verification
// on a free port.
func TestInstalledServerTLS(t *testing.T) {
	srv, cli := pki(t)
	url := startInstalled(t, "--tls", "--tlscert", srv.CertFile, "--tlskey", srv.KeyFile,
		"--tlscacert", srv.CAFile, "--tlsverify")
	for _, sc := range scenarios[2:] {
		t.Run(sc.name, func(t *testing.T) {
			drivertest.Run(t, config(t, url, sc, srv, cli, -1))
		})
	}
	_, other := pki(t)
	if _, err := (Transport{}).Dial(dialCtx(t), url, driver.Options{Security: other, Topic: topic(t)}); err == nil ||
		!strings.Contains(err.Error(), other.CAFile) {
		t.Errorf("Dial verifying against another CA = %v", err)
	}
}

// TestTLSScheme: a tls:// URL reaches the TLS server like nats:// with
// Options.Security.
func TestTLSScheme(t *testing.T) {
	srv, cli := pki(t)
	url := embeddedURL(t, driver.Options{Security: srv})
	tlsURL := "tls://" + strings.TrimPrefix(url, "nats://")
	for _, sc := range scenarios[2:] {
		cfg := config(t, tlsURL, sc, srv, cli, -1)
		e := drivertest.StartEcho(t, cfg)
		p := drivertest.Dial(t, cfg, e.Addr())
		if _, err := drivertest.RoundTrip(p, []byte("0123456789abcdef"), make([]byte, 64)); err != nil {
			t.Fatalf("%s over %s: %v", sc.name, tlsURL, err)
		}
		if si := p.(driver.InfoReporter).SystemInfo(); si.Extra["tls"] != "true" || si.URL != tlsURL {
			t.Errorf("SystemInfo = %+v", si)
		}
	}
}
