package runapp_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/runcmd"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/meta"
)

// hundredPayloads is --payloads 16,17,…,115.
var hundredPayloads = func() string {
	p := make([]string, 100)
	for i := range p {
		p[i] = strconv.Itoa(16 + i)
	}
	return strings.Join(p, ",")
}()

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
		// More samples than memory: the most --samples allows (10^9) × 100
		// payloads × 8 B. (The overflow past 16 EiB, which no flag values
		// reach now, is engine.CheckMemory's test.)
		{"memory", []string{"--samples", "1000000000", "--payloads", hundredPayloads}, "1000000000 samples × 100 payloads need 746.0 GiB of memory per sub-experiment (8 B per sample), more than 80% of the"},
		{"samples-range", []string{"--samples", "9000000000000000000"}, "--samples 9000000000000000000: expected 1 to 1000000000"},
		{"udp", []string{"-s", "interprocess_best_effort", "--payloads", "16,65508"}, "payload 65508 B is larger than the 65507-byte maximum message of transport udp (sub-experiment interprocess_best_effort)"},
		{"tcp", []string{"-s", "interprocess_reliable_tcp", "--payloads", "16777216"}, "payload 16777216 B is larger than the 4194304-byte maximum message of transport tcp (sub-experiment interprocess_reliable_tcp)"},
		{"tls", []string{"-s", "interprocess_reliable_tcp_security", "--payloads", "4194305"}, "maximum message of transport tls"},
		{"dtls", []string{"-s", "interprocess_reliable_security", "--payloads", "1000000"}, "payload 1000000 B is larger than the 519680-byte maximum message of transport dtls"},
		{"intraprocess", []string{"-s", "intraprocess_reliable", "--payloads", "33554432"}, "maximum message of transport intraprocess"},
		{"ca-without-security", []string{"-s", "interprocess_reliable_tcp", "--ca", "ca.pem", "--cert", "c.pem", "--key", "k.pem"}, "--ca, --cert, --key given, but no selected sub-experiment is secure"},
		{"echo-cert-alone", []string{"-s", "interprocess_reliable_tcp_security", "--ca", "ca.pem", "--echo-cert", "e.pem"}, "--echo-cert and --echo-key go together"},
		{"missing-ca-file", []string{"-s", "interprocess_reliable_tcp_security", "--ca", "nosuch.pem", "--cert", "c.pem", "--key", "k.pem"}, "--ca: open nosuch.pem"},
		{"connect-timeout", []string{"--connect-timeout", "0s"}, "--connect-timeout 0s: expected 1ms to 1h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, append([]string{"--out", out, "--name", tt.name}, tt.args...)...)
			if code != exit.Usage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			noDir(t, filepath.Join(out, tt.name))
		})
	}
}

// TestFlagsBeforeSubcommand: a round-trip flag before a subcommand's name
// (run --out D throughput) is refused, not silently ignored while the
// subcommand measures into its own default; after the name it is taken,
// and a flag set by its environment variable is left to the subcommand.
func TestFlagsBeforeSubcommand(t *testing.T) {
	out := t.TempDir()
	for _, args := range [][]string{
		{"--out", out, "throughput", "-s", "intraprocess_best_effort"},
		{"--payloads", "16", "load", "--duration", "1s"},
		{"-o", out, "echo", "--transport", "tcp"},
		{"--cpus", "0,1", "throughput", "-s", "intraprocess_best_effort"},
	} {
		code, _, stderr := run(t, args...)
		flag := strings.TrimLeft(args[0], "-")
		if flag == "o" {
			flag = "out"
		}
		want := fmt.Sprintf("--%s was given before %s: it is a flag of the round-trip run, which run %s ignores; give it after the subcommand's name (run %s --%s …)", flag, args[2], args[2], args[2], flag)
		if flag == "out" && args[2] == "echo" || flag == "cpus" {
			// A flag the subcommand does not take is not advised after
			// it (run echo --out was an unknown flag).
			want = fmt.Sprintf("--%s was given before %s: it is a flag of the round-trip run, which run %s ignores; run %s takes no --%s (see 'run %s --help')", flag, args[2], args[2], args[2], flag, args[2])
		}
		if code != exit.Usage || !strings.Contains(stderr, want) {
			t.Errorf("run %s: exit %d, stderr %q; want 2 and %q", strings.Join(args, " "), code, stderr, want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("run %s created %v", strings.Join(args, " "), entries)
		}
	}
	t.Setenv("MQGATE_ZENOH_KEY", "mqgate/flags-test")
	code, stdout, stderr := run(t, "throughput", "--out", out, "--name", "after", "-s", "intraprocess_best_effort", "--payloads", "16",
		"--windows", "3", "--max-in-flight", "10", "--quiet")
	if code != 0 {
		t.Fatalf("run throughput --out …: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "after", "throughput_intraprocess_best_effort.csv")); err != nil {
		t.Error(err)
	}
}

// TestOutInTheWay: a results root that cannot be a directory (a file, a
// looping or dangling symbolic link) is named as such before anything is
// created, for run and for run ab, instead of MkdirAll's "file exists".
func TestOutInTheWay(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"file", []string{"--out", file, "-s", "intraprocess_reliable"}, file + " is a file, not a directory"},
		{"loop", []string{"--out", loop, "-s", "intraprocess_reliable"}, loop + " is a symbolic link that loops"},
		{"below-loop", []string{"--out", filepath.Join(loop, "x"), "-s", "intraprocess_reliable"}, loop + " is a symbolic link that loops"},
		{"dangling", []string{"--out", dangling, "-s", "intraprocess_reliable"}, dangling + " is a symbolic link to nowhere, which does not exist"},
		{"ab-file", []string{"ab", "--out", file, "--runs", "1", "--reference", "--echo-delay 0s", "--candidate", "--echo-delay 50us", "--", "-s", "intraprocess_reliable"},
			file + " is a file, not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, tt.args...)
			if code != exit.Usage || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "file exists") {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was created: %v", err)
	}
}

// TestEchoRefuses: `run echo` refuses a transport whose ends share one
// process, listing those it can serve, and a message size beyond the
// transport's limit.
func TestEchoRefuses(t *testing.T) {
	code, _, stderr := run(t, "echo", "--transport", "intraprocess")
	_, valid, _ := strings.Cut(stderr, "expected one of ")
	if code != exit.Usage || !strings.Contains(stderr, "--transport intraprocess: its two ends share one process, so it cannot be a separate echo") ||
		!strings.Contains(valid, "dtls, hub, ") || !strings.HasSuffix(strings.TrimSpace(valid), "tcp, tls, udp, zenoh") || strings.Contains(valid, "intraprocess") {
		t.Errorf("echo --transport intraprocess: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "echo", "--transport", "udp", "--max-message-size", "70000")
	if code != exit.Usage || !strings.Contains(stderr, "65507-byte maximum message of transport udp") {
		t.Errorf("echo --max-message-size 70000: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "echo", "--transport", "hub", "--listen", "hub://127.0.0.1:1")
	if code != exit.Usage || !strings.Contains(stderr, "--topic") {
		t.Errorf("broker echo without a topic: exit %d, %q", code, stderr)
	}
}

// silentPeers listens at a TCP and a UDP address that take a TLS or DTLS
// handshake's first message and never answer; each first message read is
// reported on heard.
func silentPeers(t *testing.T) (tcpAddr, udpAddr string, heard <-chan string) {
	h := make(chan string, 64)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close() })
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
			go func() {
				if n, _ := c.Read(make([]byte, 1)); n > 0 {
					h <- "tcp"
				}
			}()
		}
	}()
	ul, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	go func() {
		buf := make([]byte, 1<<16)
		for {
			if _, _, err := ul.ReadFrom(buf); err != nil {
				return
			}
			h <- "udp"
		}
	}()
	return tl.Addr().String(), ul.LocalAddr().String(), h
}

// TestSilentPeer: a peer that accepts connections but never answers a
// TLS or DTLS handshake holds run no longer than --connect-timeout, and
// the error says that bound ended it. Nothing here depends on how fast the
// machine is: the bound is a timer that cannot fire early (the run takes
// at least 300 ms), and the watchdog (a minute) only turns a hang into a
// failure.
func TestSilentPeer(t *testing.T) {
	certs := t.TempDir()
	_, pinger, err := secure.GenerateFiles(certs)
	if err != nil {
		t.Fatal(err)
	}
	tcpAddr, udpAddr, _ := silentPeers(t)
	out := t.TempDir()
	for _, tt := range []struct{ sub, addr string }{
		{"interprocess_reliable_tcp_security", tcpAddr},
		{"interprocess_reliable_security", udpAddr},
	} {
		t.Run(tt.sub, func(t *testing.T) {
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				code, _, stderr := run(t, "-s", tt.sub, "--target", tt.addr, "--connect-timeout", "300ms",
					"--ca", pinger.CAFile, "--cert", pinger.CertFile, "--key", pinger.KeyFile, "--out", out, "--name", tt.sub)
				done <- result{code, stderr}
			}()
			select {
			case r := <-done:
				if r.code != exit.Usage || !strings.Contains(r.stderr, "cannot reach the remote echo at "+tt.addr) ||
					!strings.Contains(r.stderr, "nothing within --connect-timeout 300ms") {
					t.Errorf("exit %d, stderr %q", r.code, r.stderr)
				}
				if el := time.Since(start); el < 300*time.Millisecond {
					t.Errorf("run gave up after %v, before --connect-timeout 300ms", el)
				}
			case <-time.After(time.Minute):
				t.Fatal("run still waits for the handshake after a minute with --connect-timeout 300ms")
			}
			noDir(t, filepath.Join(out, tt.sub))
		})
	}
}

// TestSilentPeerInterrupted: the handshake with a silent peer follows the
// run's context, not only its deadline. With an hour's --connect-timeout,
// the run is cancelled once the peer has the handshake's first message: it
// must end at once, exit 130, where a handshake deaf to the context would
// hold it for the hour (the minute's watchdog is far from both).
func TestSilentPeerInterrupted(t *testing.T) {
	certs := t.TempDir()
	_, pinger, err := secure.GenerateFiles(certs)
	if err != nil {
		t.Fatal(err)
	}
	tcpAddr, udpAddr, heard := silentPeers(t)
	for _, tt := range []struct{ sub, addr, proto string }{
		{"interprocess_reliable_tcp_security", tcpAddr, "tcp"},
		{"interprocess_reliable_security", udpAddr, "udp"},
	} {
		t.Run(tt.sub, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				code   int
				stderr string
			}
			done := make(chan result, 1)
			go func() {
				var o, e bytes.Buffer
				code := cliapp.Run(ctx, runcmd.App(), []string{"run", "-s", tt.sub, "--target", tt.addr, "--connect-timeout", "1h",
					"--ca", pinger.CAFile, "--cert", pinger.CertFile, "--key", pinger.KeyFile, "--out", out, "--name", "e"}, &o, &e)
				done <- result{code, e.String()}
			}()
			watchdog := time.After(time.Minute)
			for waiting := true; waiting; {
				select {
				case p := <-heard:
					waiting = p != tt.proto
				case r := <-done:
					t.Fatalf("run ended before the handshake reached the peer: exit %d, %s", r.code, r.stderr)
				case <-watchdog:
					t.Fatal("the handshake did not reach the peer within a minute")
				}
			}
			cancel()
			select {
			case r := <-done:
				if r.code != exit.Interrupted || !strings.Contains(r.stderr, "interrupted") {
					t.Errorf("exit %d, stderr %q; want 130", r.code, r.stderr)
				}
			case <-watchdog:
				t.Fatal("run still waits for the handshake a minute after it was cancelled")
			}
			noDir(t, filepath.Join(out, "e"))
		})
	}
}

// TestInterruptedBurstSaysNothingKept: run burst interrupted inside its
// only case keeps nothing measured, and says so, where it sent the user to
// a folder holding meta.json alone ("what was measured is in").
func TestInterruptedBurstSaysNothingKept(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "b")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan string, 1)
	go func() {
		var o, e bytes.Buffer
		code := cliapp.Run(ctx, runcmd.App(), []string{"run", "burst", "-s", "intraprocess_best_effort", "--payloads", "16", "-d", "10",
			"--recovery_time", "0", "--time", "30", "--out", out, "--name", "b", "-q"}, &o, &e)
		done <- fmt.Sprintf("exit %d: %s", code, e.String())
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, meta.FileName)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no meta.json within a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // inside the 30 s case
	cancel()
	got := <-done
	want := "nothing measured was kept: " + dir + " holds its meta.json alone"
	if !strings.HasPrefix(got, "exit 130: ") || !strings.Contains(got, want) {
		t.Errorf("%s; want exit 130 and %q", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%s holds %d entries", dir, len(entries))
	}
}
