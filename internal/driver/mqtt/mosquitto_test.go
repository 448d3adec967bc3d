package mqtt

import (
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/testenv"
)

// Mosquitto is a Mosquitto broker of a test's own, for what the shared one
// does not offer: a TLS listener, a password file, being killed.
type Mosquitto struct {
	port   int
	dir    string
	proc   *os.Process
	exited chan struct{}
}

// URL is the broker's URL with scheme.
func (m *Mosquitto) URL(scheme string) string {
	return scheme + "://127.0.0.1:" + strconv.Itoa(m.port)
}

// StartMosquitto starts mosquitto on a free loopback port with the given
// configuration lines (they apply to that listener) and waits until it
// accepts connections. It is killed at the end of the test.
func StartMosquitto(t testing.TB, conf ...string) *Mosquitto {
	t.Helper()
	bin := testenv.Program(t, "mosquitto", "install it: apt-get install mosquitto")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	m := &Mosquitto{port: port, dir: t.TempDir()}
	lines := []string{"per_listener_settings false", "persistence false", "log_dest stderr", "log_type error", "set_tcp_nodelay true"}
	// Run as root, mosquitto switches to this user, who must read the
	// test's certificate and password files.
	if u, err := user.Current(); err == nil {
		lines = append(lines, "user "+u.Username)
	}
	lines = append(lines, "listener "+strconv.Itoa(port)+" 127.0.0.1")
	lines = append(lines, conf...)
	path := filepath.Join(m.dir, "mosquitto.conf")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(m.dir, "mosquitto.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", path)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.proc, m.exited = cmd.Process, make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(m.exited) }()
	t.Cleanup(func() {
		m.kill()
		logf.Close()
	})
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-m.exited:
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("mosquitto exited (%v):\n%s", waitErr, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mosquitto did not listen on port %d", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return m
}

// kill kills mosquitto at once (SIGKILL), as a crash would.
func (m *Mosquitto) kill() {
	m.proc.Kill()
	select {
	case <-m.exited:
	case <-time.After(10 * time.Second):
	}
}

// tlsListener is the configuration of a TLS listener with sec's
// certificate; a client certificate is verified when one is presented.
func tlsListener(sec *driver.Security) string {
	return strings.Join([]string{
		"cafile " + sec.CAFile,
		"certfile " + sec.CertFile,
		"keyfile " + sec.KeyFile,
		"require_certificate false",
	}, "\n")
}

// passwordFile writes a Mosquitto password file with one user.
func passwordFile(t testing.TB, dir, username, password string) string {
	t.Helper()
	bin := testenv.Program(t, "mosquitto_passwd", "install it: apt-get install mosquitto")
	path := filepath.Join(dir, "passwords")
	if out, err := exec.Command(bin, "-c", "-b", path, username, password).CombinedOutput(); err != nil {
		t.Fatalf("mosquitto_passwd: %v\n%s", err, out)
	}
	return path
}
