package nats

import (
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/testenv"
)

// startInstalled starts the installed nats-server program with JetStream
// on a free loopback port and extra arguments, and returns its URL. It is
// killed at the end of the test.
func startInstalled(t *testing.T, args ...string) string {
	t.Helper()
	bin := testenv.Program(t, "nats-server", "install it with: apt-get install nats-server")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	all := append([]string{"-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir()}, args...)
	cmd := exec.Command(bin, all...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%s %v did not listen on %s: %v", bin, all, addr, err)
		}
	}
	return "nats://" + addr
}
