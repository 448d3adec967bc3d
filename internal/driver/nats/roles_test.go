package nats

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/mqgate/mqgate/internal/driver"
)

// restartable is the URL of an embedded server on a fixed port and start,
// which starts it there (again) and returns its stop.
func restartable(t *testing.T) (url string, start func() (stop func() error)) {
	_, port, err := net.SplitHostPort(deadPort(t))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return "nats://127.0.0.1:" + port, func() func() error {
		_, stop, err := startEmbedded(dialCtx(t), driver.Options{}, func(o *server.Options) { o.Port = p })
		if err != nil {
			t.Fatal(err)
		}
		return stop
	}
}

// reconnected waits until c has reconnected n times in all.
func reconnected(t *testing.T, c driver.Client, n uint64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); c.(*roleClient).nc.Stats().Reconnects < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reconnect %d within 10 s", n)
		}
	}
}

// TestRoleReconnects: a role's client reconnects to a server back on its
// port within its --timeout, and its subscriptions receive again.
func TestRoleReconnects(t *testing.T) {
	url, start := restartable(t)
	stop := start()
	defer func() { stop() }()
	c, err := Transport{}.DialClient(dialCtx(t), []string{url}, driver.Options{}, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan []byte, 10)
	if _, err := c.Subscribe("reconnect.test", func(_ string, m []byte, _ time.Time) { got <- m }); err != nil {
		t.Fatal(err)
	}
	stop()
	stop = start()
	reconnected(t, c, 1)
	if err := c.Publish("reconnect.test", []byte("again")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if string(m) != "again" {
			t.Fatalf("received %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing received after the reconnect")
	}
	select {
	case err := <-c.Lost():
		t.Fatalf("lost: %v", err)
	default:
	}
}

// TestRoleConfirm: a role's client confirms what the server has, and
// refuses to confirm a span the link broke in, though nats.go took the
// messages of it, even once it reconnected to a server on the same port;
// the span after the reconnect is confirmed again.
func TestRoleConfirm(t *testing.T) {
	url, start := restartable(t)
	stop := start()
	defer func() { stop() }()
	c, err := Transport{}.DialClient(dialCtx(t), []string{url}, driver.Options{}, 4*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := c.(driver.Confirmer)
	publish := func() {
		t.Helper()
		for range 100 {
			if err := c.Publish("confirm.test", make([]byte, 64)); err != nil {
				t.Fatal(err)
			}
		}
	}
	confirm := func(want bool) {
		t.Helper()
		marked := false
		err := b.Confirm(2*time.Second, func() { marked = true })
		if !marked || (err == nil) != want {
			t.Fatalf("Confirm: marked %v, err %v; want confirmed %v", marked, err, want)
		}
		t.Log(err)
	}
	publish()
	confirm(true)
	stop()
	publish() // taken while nats.go reconnects
	stop = start()
	reconnected(t, c, 1)
	publish()
	confirm(false) // the span the link broke in
	publish()
	confirm(true)
	stop()
	publish()
	err = b.Confirm(2*time.Second, func() {})
	if err == nil || !strings.Contains(err.Error(), "did not confirm") {
		t.Fatalf("Confirm with the server gone: %v", err)
	}
}
