package runapp

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/driver/secure"
)

// TestRefusedBeforeCreating: settings that cannot be measured are refused
// with exit 2 before the experiment directory exists, each naming what is
// wrong and the limit.
func TestRefusedBeforeCreating(t *testing.T) {
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		// More samples than memory: 10^11 × 11 payloads × 8 B.
		{"memory", []string{"--samples", "100000000000"}, "100000000000 samples × 11 payloads need 8.1 TiB of memory per sub-experiment (8 B per sample), more than 80% of the"},
		{"memory-overflow", []string{"--samples", "9000000000000000000"}, "need more than 16 EiB"},
		{"udp", []string{"-s", "interprocess_best_effort", "--payloads", "16,65508"}, "payload 65508 B is larger than the 65507-byte maximum message of transport udp (sub-experiment interprocess_best_effort)"},
		{"tcp", []string{"-s", "interprocess_reliable_tcp", "--payloads", "16777216"}, "payload 16777216 B is larger than the 4194304-byte maximum message of transport tcp (sub-experiment interprocess_reliable_tcp)"},
		{"tls", []string{"-s", "interprocess_reliable_tcp_security", "--payloads", "4194305"}, "maximum message of transport tls"},
		{"dtls", []string{"-s", "interprocess_reliable_security", "--payloads", "1000000"}, "payload 1000000 B is larger than the 519680-byte maximum message of transport dtls"},
		{"intraprocess", []string{"-s", "intraprocess_reliable", "--payloads", "33554432"}, "maximum message of transport intraprocess"},
		{"ca-without-security", []string{"-s", "interprocess_reliable_tcp", "--ca", "ca.pem", "--cert", "c.pem", "--key", "k.pem"}, "--ca, --cert, --key given, but no selected sub-experiment is secure"},
		{"echo-cert-alone", []string{"-s", "interprocess_reliable_tcp_security", "--ca", "ca.pem", "--echo-cert", "e.pem"}, "--echo-cert and --echo-key go together"},
		{"missing-ca-file", []string{"-s", "interprocess_reliable_tcp_security", "--ca", "nosuch.pem", "--cert", "c.pem", "--key", "k.pem"}, "--ca: open nosuch.pem"},
		{"connect-timeout", []string{"--connect-timeout", "0s"}, "--connect-timeout 0s: expected a positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, append([]string{"--out", out, "--name", tt.name}, tt.args...)...)
			if code != cliapp.ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			noDir(t, filepath.Join(out, tt.name))
		})
	}
}

// TestEchoRefuses: `run echo` refuses a transport whose ends share one
// process, listing those it can serve, and a message size beyond the
// transport's limit.
func TestEchoRefuses(t *testing.T) {
	code, _, stderr := run(t, "echo", "--transport", "intraprocess")
	_, valid, _ := strings.Cut(stderr, "expected one of ")
	if code != cliapp.ExitUsage || !strings.Contains(stderr, "--transport intraprocess: its two ends share one process, so it cannot be a separate echo") ||
		!strings.Contains(valid, "dtls, hub, ") || !strings.HasSuffix(strings.TrimSpace(valid), "tcp, tls, udp, zenoh") || strings.Contains(valid, "intraprocess") {
		t.Errorf("echo --transport intraprocess: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "echo", "--transport", "udp", "--max-message-size", "70000")
	if code != cliapp.ExitUsage || !strings.Contains(stderr, "65507-byte maximum message of transport udp") {
		t.Errorf("echo --max-message-size 70000: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "echo", "--transport", "hub", "--listen", "hub://127.0.0.1:1")
	if code != cliapp.ExitUsage || !strings.Contains(stderr, "--topic") {
		t.Errorf("broker echo without a topic: exit %d, %q", code, stderr)
	}
}

// TestSilentPeer: a peer that accepts connections but never answers a
// TLS or DTLS handshake holds run no longer than --connect-timeout; before
// that bound a handshake could wait 15 s. The watchdog (10 s, fifty times
// the bound asked) only turns a hang into a failure.
func TestSilentPeer(t *testing.T) {
	certs := t.TempDir()
	_, pinger, err := secure.GenerateFiles(certs)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := tl.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	ul, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	out := t.TempDir()
	for _, tt := range []struct{ sub, addr string }{
		{"interprocess_reliable_tcp_security", tl.Addr().String()},
		{"interprocess_reliable_security", ul.LocalAddr().String()},
	} {
		t.Run(tt.sub, func(t *testing.T) {
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				code, _, stderr := run(t, "-s", tt.sub, "--target", tt.addr, "--connect-timeout", "200ms",
					"--ca", pinger.CAFile, "--cert", pinger.CertFile, "--key", pinger.KeyFile, "--out", out, "--name", tt.sub)
				done <- result{code, stderr}
			}()
			select {
			case r := <-done:
				if r.code != cliapp.ExitUsage || !strings.Contains(r.stderr, "cannot reach the remote echo at "+tt.addr) ||
					!strings.Contains(r.stderr, "--connect-timeout 200ms") {
					t.Errorf("exit %d, stderr %q", r.code, r.stderr)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("run still waits for the handshake after 10 s with --connect-timeout 200ms")
			}
			noDir(t, filepath.Join(out, tt.sub))
		})
	}
}
