package amqp

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/testenv"
)

// killConnection closes l's connection on the broker, as an operator
// would: rabbitmqctl close_connection, found by the client's port.
func killConnection(t *testing.T, l *link) {
	t.Helper()
	ctl := testenv.Program(t, "rabbitmqctl", "it comes with rabbitmq-server")
	port := strconv.Itoa(l.conn.LocalAddr().(*net.TCPAddr).Port)
	out, err := exec.Command(ctl, "list_connections", "-q", "--no-table-headers", "pid", "peer_port").CombinedOutput()
	if err != nil {
		testenv.Unavailable(t, "rabbitmqctl list_connections: %v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == port {
			if out, err := exec.Command(ctl, "close_connection", f[0], "mqgate test: connection killed").CombinedOutput(); err != nil {
				t.Fatalf("rabbitmqctl close_connection %s: %v: %s", f[0], err, out)
			}
			return
		}
	}
	t.Fatalf("rabbitmqctl list_connections shows no connection from port %s:\n%s", port, out)
}

// TestConnectionKilled closes each of the pinger's connections on the
// broker while it waits for an echo: Receive must fail at once with the
// broker's reason, not time out.
func TestConnectionKilled(t *testing.T) {
	url := brokerURL(t)
	for _, which := range []string{"consuming", "publishing"} {
		t.Run(which, func(t *testing.T) {
			c := conformance(url, opts(true))
			e := drivertest.StartEcho(t, c)
			p := asPinger(drivertest.Dial(t, c, e.Addr()))
			l := p.con.link
			if which == "publishing" {
				l = p.pub.link
			}
			err := receiveErr(t, p, func() { killConnection(t, l) })
			if !strings.Contains(err.Error(), "CONNECTION_FORCED") || !strings.Contains(err.Error(), "pinger "+which+" connection") ||
				!strings.Contains(err.Error(), "by the broker") || strings.Contains(err.Error(), ":guest@") {
				t.Fatalf("after the %s connection was killed: %v", which, err)
			}
			t.Log(err)
			if err := p.Send(make([]byte, 16)); err == nil && which == "publishing" {
				t.Fatal("Send on a killed connection succeeded")
			}
		})
	}
}

// TestEchoConnectionKilled: Serve returns the broker's reason.
func TestEchoConnectionKilled(t *testing.T) {
	url := brokerURL(t)
	e, err := Transport{}.Listen(context.Background(), url, opts(false))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	done := make(chan error, 1)
	go func() { done <- e.Serve(context.Background()) }()
	killConnection(t, e.(*echoer).pub.link)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "CONNECTION_FORCED") || !strings.Contains(err.Error(), "echo publishing connection") {
			t.Fatalf("Serve after its connection was killed = %v", err)
		}
		t.Log(err)
	case <-time.After(drivertest.Watchdog):
		t.Fatal("Serve did not return after its connection was killed")
	}
}
