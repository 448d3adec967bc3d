package roles_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/roles"
)

// TestCheckReadyAddr refuses what --wait-for cannot wait for, naming the
// forms it takes.
func TestCheckReadyAddr(t *testing.T) {
	for _, ok := range []string{"tcp://127.0.0.1:7447", "http://sub:9102/health", "http://[::1]:80/", "nats://127.0.0.1:4222",
		"nats://h:4222?server_name=mqgate-topology", "zenoh://h:7447", "zenoh://h:7447?zid=6d71676174652d61"} {
		if err := roles.CheckReadyAddr(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:7447", "tcp://host", "tcp://h:1?server_name=x", "https://h:1/health", "nats://h", "zenoh://h/x:1", ""} {
		err := roles.CheckReadyAddr(bad)
		if err == nil || !strings.Contains(err.Error(), "expected tcp://HOST:PORT, nats://HOST:PORT?server_name=NAME, zenoh://HOST:PORT?zid=ID or http://HOST:PORT/PATH") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestCheckReadyIdentity refuses a nats:// or zenoh:// address whose
// query is not the one key its server announces, or whose Zenoh id is not
// one.
func TestCheckReadyIdentity(t *testing.T) {
	for bad, want := range map[string]string{
		"nats://h:1?name=x":                      "expected nats://HOST:PORT or nats://HOST:PORT?server_name=VALUE, once",
		"nats://h:1?server_name=":                "expected nats://HOST:PORT or nats://HOST:PORT?server_name=VALUE, once",
		"nats://h:1?server_name=a&server_name=b": "once",
		"nats://h:1/x?server_name=a":             "without a path",
		"zenoh://h:1?zid=0a":                     `zid "0a": expected a Zenoh id`,
		"zenoh://h:1?zid=XYZ":                    `zid "XYZ": expected a Zenoh id`,
		"zenoh://h:1?server_name=a":              "expected zenoh://HOST:PORT or zenoh://HOST:PORT?zid=VALUE",
	} {
		if err := roles.CheckReadyAddr(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", bad, err, want)
		}
	}
}

// TestWaitReadyNATSName: a barrier on a NATS server by name passes when
// the server announces that name, and keeps waiting, then fails naming
// both names, when another server answers at the port (a broker of the
// host holding the topology's port).
func TestWaitReadyNATSName(t *testing.T) {
	url := embeddedNATS(t) // announces server_name mqgate-embedded
	if err := roles.WaitReady(context.Background(), []string{url, url + "?server_name=mqgate-embedded"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// The bounds are seconds, not milliseconds: on a loaded machine a
	// loopback dial alone has taken longer than 300 ms.
	err := roles.WaitReady(context.Background(), []string{url + "?server_name=mqgate-topology"}, 2*time.Second)
	want := url + `?server_name=mqgate-topology: not ready within 2s: the NATS server there is named "mqgate-embedded", not "mqgate-topology": another server holds the port`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("gave up after %v, before the bound", d)
	}
	// Something that is not a NATS server at all.
	addr := silentServer(t, "HTTP/1.1 400 Bad Request\r\n")
	err = roles.WaitReady(context.Background(), []string{"nats://" + addr}, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), `not a NATS server: it sent "HTTP/1.1 400 Bad Request\r\n"`) {
		t.Errorf("error %v", err)
	}
}

// TestWaitReadyKeepsWhatAnswered: a probe that times out (a loaded
// machine) after one that found another NATS server on the port does not
// hide that finding: the error still says who holds the port.
func TestWaitReadyKeepsWhatAnswered(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for first := true; ; first = false {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if first {
				io.WriteString(c, `INFO {"server_id":"x","server_name":"host-broker"}`+"\r\n")
			}
			t.Cleanup(func() { c.Close() }) // later connections hear nothing
		}
	}()
	url := "nats://" + ln.Addr().String() + "?server_name=mqgate-topology"
	err = roles.WaitReady(context.Background(), []string{url}, 3*time.Second)
	want := url + `: not ready within 3s: the NATS server there is named "host-broker", not "mqgate-topology": another server holds the port`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// silentServer is a loopback listener that writes greeting to each
// connection, then holds it.
func silentServer(t *testing.T, greeting string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, greeting)
			t.Cleanup(func() { c.Close() })
		}
	}()
	return ln.Addr().String()
}

// TestWaitReadyTimeout names the address that was not ready and the
// bound.
func TestWaitReadyTimeout(t *testing.T) {
	addr := freeAddr(t)
	start := time.Now()
	err := roles.WaitReady(context.Background(), []string{"tcp://" + addr}, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "tcp://"+addr+": not ready within 300ms") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestWaitReadyLateStart waits for a listener that opens late and for a
// role whose /health turns ready late: the barrier holds until both are.
func TestWaitReadyLateStart(t *testing.T) {
	addr := freeAddr(t)
	m, err := roles.NewMetrics(roles.Settings{Role: roles.RoleSub, PromAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	health := fmt.Sprintf("http://%s/health", m.PromAddr())
	if code, _ := get(t, health); code != http.StatusServiceUnavailable {
		t.Fatalf("/health before Ready: %d, want 503", code)
	}
	opened := make(chan net.Listener, 1)
	var ready atomic.Bool
	go func() {
		time.Sleep(300 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
		}
		opened <- ln
		time.Sleep(300 * time.Millisecond)
		ready.Store(true)
		m.Ready()
	}()
	if err := roles.WaitReady(context.Background(), []string{"tcp://" + addr, health}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if !ready.Load() {
		t.Fatal("WaitReady returned before the role was ready")
	}
	(<-opened).Close()
	if code, body := get(t, health); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/health after Ready: %d %q", code, body)
	}
}

// freeAddr is a loopback address nothing listens at.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// fakeRouter answers each Zenoh InitSyn with the InitAck of a node of id
// zidLE (its little-endian bytes) and kind whatami (0 router), and records
// the InitSyn.
func fakeRouter(t *testing.T, zidLE []byte, whatami byte) (string, chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	syns := make(chan []byte, 100)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var n [2]byte
			if _, err := io.ReadFull(c, n[:]); err == nil {
				syn := make([]byte, int(n[0])|int(n[1])<<8)
				io.ReadFull(c, syn)
				syns <- syn
				ack := append([]byte{0x21, 0x09, byte(len(zidLE)-1)<<4 | whatami}, zidLE...)
				ack = append(ack, 0xde, 0xad) // the cookie and the rest, unread
				c.Write(append([]byte{byte(len(ack)), 0}, ack...))
			}
			c.Close()
		}
	}()
	return ln.Addr().String(), syns
}

// TestWaitReadyZenohID: a barrier on a Zenoh router by id sends an InitSyn
// (length-framed, INIT, protocol version 9, a client) and reads the id of
// the InitAck as Zenoh writes ids (hexadecimal of the little-endian bytes,
// no leading zeros); another id keeps it waiting, then fails naming both,
// and a node that is not a router is refused.
func TestWaitReadyZenohID(t *testing.T) {
	addr, syns := fakeRouter(t, []byte{0x61, 0x2d, 0x65, 0x74, 0x61, 0x67, 0x71, 0x6d}, 0) // "mqgate-a" backwards
	if err := roles.WaitReady(context.Background(), []string{"zenoh://" + addr + "?zid=6d71676174652d61", "zenoh://" + addr}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if syn := <-syns; len(syn) < 4 || syn[0] != 0x01 || syn[1] != 0x09 || syn[2]&0b11 != 0b10 || len(syn) != 3+int(syn[2]>>4)+1 {
		t.Errorf("InitSyn % x", syn)
	}
	err := roles.WaitReady(context.Background(), []string{"zenoh://" + addr + "?zid=6d71676174652d62"}, 2*time.Second)
	if err == nil || !strings.HasSuffix(err.Error(), "not ready within 2s: the Zenoh router there has id 6d71676174652d61, not 6d71676174652d62: another router holds the port") {
		t.Errorf("error %v", err)
	}
	short, _ := fakeRouter(t, []byte{0x0a, 0x00}, 0)
	if err := roles.WaitReady(context.Background(), []string{"zenoh://" + short + "?zid=a"}, 5*time.Second); err != nil {
		t.Errorf("id a: %v", err)
	}
	peer, _ := fakeRouter(t, []byte{1}, 1)
	err = roles.WaitReady(context.Background(), []string{"zenoh://" + peer}, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "the Zenoh node there is not a router (whatami 1)") {
		t.Errorf("peer: %v", err)
	}
	nats := silentServer(t, "INFO {}\r\n")
	err = roles.WaitReady(context.Background(), []string{"zenoh://" + nats}, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "not a Zenoh router") && !strings.Contains(err.Error(), "no Zenoh InitAck") {
		t.Errorf("a NATS server: %v", err)
	}
}
