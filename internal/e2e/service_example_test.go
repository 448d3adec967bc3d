package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/testenv"
)

// serviceBlocks returns the sh blocks of docs/ci.md's worked example of a
// service: the NATS one, then the RabbitMQ one.
func serviceBlocks(t *testing.T) (natsBlock, amqpBlock string) {
	t.Helper()
	blocks := fencedBlocks(t, "docs/ci.md", "sh")
	if len(blocks) != 2 || !strings.Contains(blocks[0], "nats-service") || !strings.Contains(blocks[1], "amqp-service") {
		t.Fatalf("docs/ci.md has %d sh blocks, want 2: the worked example with nats-service, then with amqp-service", len(blocks))
	}
	return blocks[0], blocks[1]
}

// gateExitLine is the last line of a worked example's block.
var gateExitLine = regexp.MustCompile(`(?m)^gate exit (\d+)$`)

// TestServiceExample follows docs/ci.md's worked example word for word,
// as a fresh clone would after `make install` alone: mqgate installed on
// PATH (no other tool there), the examples module in the work folder as
// in the clone, a real broker. Each block runs twice, as the page says: as
// it is (the head unchanged: the gate must pass, exit 0) and with
// HEAD_EXTRA=300us (the head 300 µs slower per request, about twice the
// round trip: the gate must fail, exit 1), and the Markdown verdict says so.
func TestServiceExample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docs/ci.md's worked example of a service; skipped with -short")
	}
	natsBlock, amqpBlock := serviceBlocks(t)
	gobin := installMqgate(t)
	env := installedEnv(gobin)
	// The user's shell also has Go (the example is built) and the usual
	// commands; still no run, compare or process on PATH.
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = kv + string(os.PathListSeparator) + filepath.Join(runtime.GOROOT(), "bin") + string(os.PathListSeparator) + "/usr/bin:/bin"
		}
	}
	for _, c := range []struct {
		name, block, envVar, url, hint string
	}{
		{"nats", natsBlock, "NATS_URL", testenv.Getenv("MQGATE_NATS_URL", "nats://127.0.0.1:4222"), "start it with: nats-server -a 127.0.0.1 -p 4222"},
		{"rabbitmq", amqpBlock, "AMQP_URL", testenv.Getenv("MQGATE_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672/"), "start it with: rabbitmq-server -detached"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := testenv.Service(t, c.name, c.url, c.hint)
			work := t.TempDir()
			copyTree(t, filepath.Join("..", "..", "examples"), filepath.Join(work, "examples"))
			for _, g := range []struct {
				extra, verdict string
				code           int
			}{{"0s", "PASS", 0}, {"300us", "FAIL", 1}} {
				code, out := runShell(t, work, append(env, c.envVar+"="+url, "HEAD_EXTRA="+g.extra), c.block)
				m := gateExitLine.FindStringSubmatch(out)
				if code != 0 || m == nil {
					t.Fatalf("HEAD_EXTRA=%s: the block exited %d without its gate exit line:\n%s", g.extra, code, out)
				}
				gate, _ := strconv.Atoi(m[1])
				md, err := os.ReadFile(filepath.Join(work, "gate-service.md"))
				if gate != g.code || err != nil || !strings.Contains(strings.ToUpper(string(md)), g.verdict) {
					t.Errorf("HEAD_EXTRA=%s: gate exit %d, want %d, and a Markdown verdict %s (%v):\n%s\n%.1500s", g.extra, gate, g.code, g.verdict, err, out, md)
				} else {
					t.Logf("HEAD_EXTRA=%s: gate exit %d\n%s", g.extra, gate, lastLines(out, 6))
				}
			}
		})
	}
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n") + fmt.Sprintln()
}

// TestMQTTNagleWarning: run says on the console, after the closing table
// of an MQTT sub-experiment at QoS 1, that its milliseconds of round trip
// are Nagle's algorithm meeting delayed ACKs, and what to set in
// mosquitto.conf, when it measures a Mosquitto that leaves Nagle on (as it
// ships); QoS 0 on the same broker, fast, gets no such line.
func TestMQTTNagleWarning(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("starts Mosquitto and measures; skipped with -short")
	}
	bin := testenv.Program(t, "mosquitto", "install it: apt-get install mosquitto")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	dir := t.TempDir()
	conf := []string{"persistence false", "set_tcp_nodelay false", "listener " + port + " 127.0.0.1", "allow_anonymous true"}
	if u, err := user.Current(); err == nil {
		conf = append([]string{"user " + u.Username}, conf...)
	}
	path := filepath.Join(dir, "mosquitto.conf")
	if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	broker := exec.Command(bin, "-c", path)
	if err := broker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { broker.Process.Kill(); broker.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("mosquitto does not listen on %s: %v", port, err)
		}
	}
	// run alone is built: nothing else takes part.
	binDir := t.TempDir()
	copyTools(t, binDir, "run")
	runBin := filepath.Join(binDir, "run")
	cmd := exec.Command(runBin, "-s", "mqtt_best_effort,mqtt_reliable", "--target", "mqtt://127.0.0.1:"+port,
		"--payloads", "64", "--samples", "30", "--warmup", "5", "--out", dir, "--name", "nagle")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	s := string(out)
	if !regexp.MustCompile(`(?m)^warning: mqtt_reliable: median round trip .* at QoS 1 against mosquitto .*Nagle.*Mosquitto: set_tcp_nodelay true in mosquitto\.conf$`).MatchString(s) {
		t.Errorf("run printed no Nagle warning for mqtt_reliable:\n%s", s)
	}
	if strings.Contains(s, "warning: mqtt_best_effort") {
		t.Errorf("run warned about QoS 0:\n%s", s)
	}
}
