package runapp_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/testenv"
)

// echoDelay is large next to a round trip on loopback (tens of
// microseconds) and small next to the timeouts, so that the shift it makes
// is plain even on a loaded machine.
const echoDelay = 2000.0 // µs

// roundTrips is the fastest and the median round trip of one
// sub-experiment's run, in microseconds.
type roundTrips struct{ Min, Median float64 }

// medians runs the sub-experiments with args and returns the fastest and
// median round trip of each, in microseconds, and the meta.json written.
func medians(t *testing.T, subs []string, args ...string) (map[string]roundTrips, *meta.Meta) {
	t.Helper()
	return mediansOf(t, 100, subs, args...)
}

// mediansOf is medians with samples round trips of each sub-experiment.
func mediansOf(t *testing.T, samples int, subs []string, args ...string) (map[string]roundTrips, *meta.Meta) {
	t.Helper()
	out := t.TempDir()
	code, _, stderr := run(t, append([]string{"-s", strings.Join(subs, ","), "--payloads", "64", "--samples", strconv.Itoa(samples),
		"--warmup", "10", "--timeout", "5s", "--latency", "rtt", "--out", out, "--name", "e", "-q"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, _ := readMeta(t, filepath.Join(out, "e"))
	got := map[string]roundTrips{}
	for _, s := range subs {
		rows := summarise(t, filepath.Join(out, "e", experiment.RawFileName(s)))
		got[s] = roundTrips{Min: rows[0].Min, Median: rows[0].Median}
	}
	return got, m
}

// checkShift asserts that the echo delay sits inside every round trip of
// the delayed runs and in none of the plain ones' fastest: each delayed
// round trip waits at least floor µs (the delay less its jitter), while the
// fastest plain round trip on loopback is far below it. A loaded machine
// only lengthens round trips, so neither side depends on how busy it is,
// as a comparison of two runs' medians would.
func checkShift(t *testing.T, base, delayed map[string]roundTrips, floor float64) {
	t.Helper()
	for s, d := range delayed {
		b := base[s]
		if d.Min < floor {
			t.Errorf("%s: fastest round trip %.1f µs with the echo delay; every round trip must wait ≥ %.0f µs", s, d.Min, floor)
		}
		if b.Min >= floor {
			t.Errorf("%s: fastest round trip %.1f µs without an echo delay, want < %.0f µs", s, b.Min, floor)
		}
		t.Logf("%s: median %.1f → %.1f µs, fastest %.1f → %.1f µs", s, b.Median, d.Median, b.Min, d.Min)
	}
}

// TestEchoDelay delays every kind of echo end this run starts (in-process
// queues, UDP, framed TCP, TLS, DTLS, a broker client) in this process and
// in an echo process, and checks that the median round trip shifts by about
// the delay and that meta.json records it.
func TestEchoDelay(t *testing.T) {
	subs := []string{"intraprocess_reliable", "interprocess_reliable", "interprocess_reliable_tcp",
		"interprocess_reliable_security", "interprocess_reliable_tcp_security", "hub_reliable"}
	for _, echo := range []string{"inprocess", "subprocess"} {
		t.Run(echo, func(t *testing.T) {
			base, m := medians(t, subs, "--echo", echo, "--broker", "embedded")
			if m.Config.EchoDelay != nil {
				t.Errorf("meta.json records an echo delay that was not asked for: %+v", m.Config.EchoDelay)
			}
			delayed, m := medians(t, subs, "--echo", echo, "--broker", "embedded", "--echo-delay", "2ms+-200us", "--seed", "7")
			checkShift(t, base, delayed, echoDelay-200)
			if d := m.Config.EchoDelay; d == nil || time.Duration(d.Mean) != 2*time.Millisecond || time.Duration(d.Jitter) != 200*time.Microsecond || m.Config.Seed != 7 {
				t.Errorf("meta.json echo_delay %+v seed %d; want 2ms ± 200µs, seed 7", d, m.Config.Seed)
			}
		})
	}
}

// TestEchoDelayRemote delays in a `run echo` started on its own, reached
// with --target; run's own --echo-delay is refused for it, since that
// echo is not the run's.
func TestEchoDelayRemote(t *testing.T) {
	subs := []string{"interprocess_reliable_tcp"}
	plain := startEchoArgs(t, "--transport", driver.TCP)
	slow := startEchoArgs(t, "--transport", driver.TCP, "--echo-delay", "2ms")
	base, _ := medians(t, subs, "--target", plain)
	delayed, _ := medians(t, subs, "--target", slow)
	checkShift(t, base, delayed, echoDelay)

	out := t.TempDir()
	code, _, stderr := run(t, "-s", "interprocess_reliable_tcp", "--target", slow, "--echo-delay", "2ms", "--out", out)
	if code != 2 || !strings.Contains(stderr, "give it to the remote 'run echo'") {
		t.Errorf("--echo-delay with a remote echo: exit %d, %q; want 2 and a hint", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("a refused run created %v", entries)
	}
}

// startEchoArgs starts `run echo` with args and returns the address it
// printed; it is stopped with SIGTERM at the end of the test.
func startEchoArgs(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"echo", "--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no address: %v; stderr %s", err, stderr.String())
	}
	return strings.TrimSpace(addr)
}

// TestEchoDelayUsage refuses malformed delays with exit 2 and a message
// naming the flag and the expected form, before anything is created.
func TestEchoDelayUsage(t *testing.T) {
	for _, v := range []string{"fast", "-1ms", "1ms±2ms", "1ms±", "1ms+-x", "2h"} {
		out := t.TempDir()
		code, _, stderr := run(t, "-s", "intraprocess_reliable", "--echo-delay", v, "--out", out, "--name", "e")
		if code != 2 || !strings.Contains(stderr, "--echo-delay") || !strings.Contains(stderr, "DURATION±JITTER") {
			t.Errorf("--echo-delay %q: exit %d, %q", v, code, stderr)
		}
		noDir(t, filepath.Join(out, "e"))
		cmd := exec.Command(os.Args[0], "echo", "--transport", driver.UDP, "--echo-delay", v)
		msg, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(msg), "--echo-delay") {
			t.Errorf("run echo --echo-delay %q: %v, %q", v, err, msg)
		}
	}
}

// TestEchoDelayBrokers delays the echo clients of the real broker drivers:
// NATS and MQTT on their embedded brokers, AMQP on RabbitMQ when it runs.
func TestEchoDelayBrokers(t *testing.T) {
	embedded := []string{"nats_best_effort", "nats_reliable", "mqtt_best_effort", "mqtt_reliable"}
	for _, echo := range []string{"inprocess", "subprocess"} {
		t.Run(echo, func(t *testing.T) {
			base, _ := medians(t, embedded, "--echo", echo, "--broker", "embedded")
			delayed, _ := medians(t, embedded, "--echo", echo, "--broker", "embedded", "--echo-delay", "2ms")
			checkShift(t, base, delayed, echoDelay)
		})
	}
	t.Run("amqp", func(t *testing.T) {
		url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
		subs := []string{"amqp_best_effort", "amqp_reliable"}
		base, _ := medians(t, subs, "--target", url)
		// RabbitMQ's own round trip reaches milliseconds on a loaded
		// machine (7 ms at the fastest was seen): a delay well above it.
		// The check is on the fastest round trip, which 30 of them show
		// waiting out the delay as well as 100 would, at a third of the
		// 50 ms waits.
		delayed, _ := mediansOf(t, 30, subs, "--target", url, "--echo-delay", "50ms±10ms")
		checkShift(t, base, delayed, 40000)
	})
}
