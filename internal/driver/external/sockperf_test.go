package external_test

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/testenv"
)

// freeUDPPort returns a UDP port free on 127.0.0.1 a moment ago.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// TestSockperf measures UDP loopback with the real sockperf through run:
// a sockperf server, then sockperf ping-pong started once per payload with
// its --full-log in the experiment folder.
func TestSockperf(t *testing.T) {
	bin := testenv.Program(t, "sockperf", "install the Debian package sockperf")
	port := freeUDPPort(t)
	server := exec.Command(bin, "server", "-i", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	time.Sleep(300 * time.Millisecond) // let it bind

	root := t.TempDir()
	cmd := fmt.Sprintf("sockperf ping-pong -i 127.0.0.1 -p %d -m {payload} -t 1 --mps 2000 --full-log {out}", port)
	code, stderr := run(t, root, "-s", "sockperf_best_effort", "--external-name", "sockperf_best_effort",
		"--external-format", "sockperf", "--external-command", cmd, "--payloads", "16,64", "--samples", "100",
		"--external-timeout", "60s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dir := filepath.Join(root, "exp")
	raw := readRaw(t, dir, "sockperf_best_effort")
	for _, p := range []int{16, 64} {
		// 1 s at 2000 messages/s, of which sockperf keeps the part after
		// its warm-up: hundreds of samples.
		if len(raw[p]) < 100 {
			t.Errorf("payload %d: %d samples", p, len(raw[p]))
		}
	}
	sys := readMeta(t, dir).SubExperiments[0].System
	if sys.Product != "sockperf" || !strings.HasPrefix(sys.Version, "sockperf, version") || sys.Extra["program_latency"] != "half-rtt" {
		t.Errorf("system %+v", sys)
	}
}
