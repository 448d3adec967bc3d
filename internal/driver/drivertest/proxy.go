package drivertest

import (
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Proxy forwards TCP connections to a broker until killed: a test cuts
// (Kill) or stalls (Hold) the links through it without touching the
// broker, which other clients, or other tests, may share.
type Proxy struct {
	l      net.Listener
	target string
	dead   chan struct{} // closed by Kill
	kill   sync.Once
	conns  driver.Conns[net.Conn]
	mu     sync.Mutex
	held   chan struct{} // non-nil while Hold holds; closed by its release
}

// StartProxy starts a proxy to the host and port of the broker URL raw and
// returns raw with the proxy's address in their place. The test's cleanup
// kills it.
func StartProxy(t testing.TB, raw string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Port() == "" {
		t.Fatalf("broker address %s: expected a URL with a host and port", driver.RedactURL(raw))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &Proxy{l: l, target: u.Host, dead: make(chan struct{})}
	t.Cleanup(px.Kill)
	go px.accept()
	u.Host = l.Addr().String()
	return px, u.String()
}

func (px *Proxy) accept() {
	for {
		in, err := px.l.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", px.target)
		if err != nil {
			in.Close()
			continue
		}
		if !px.conns.Add(in) || !px.conns.Add(out) {
			out.Close() // in was closed by Add or Kill
			return
		}
		go px.pipe(out, in, true)
		go px.pipe(in, out, false)
	}
}

// pipe copies src to dst until either closes; upstream (what a client
// sends) waits while Hold holds.
func (px *Proxy) pipe(dst, src net.Conn, upstream bool) {
	defer src.Close()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if upstream && !px.wait() {
				return
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// wait returns once Hold no longer holds: true, or false when the proxy
// was killed.
func (px *Proxy) wait() bool {
	px.mu.Lock()
	held := px.held
	px.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-px.dead:
		}
	}
	select {
	case <-px.dead:
		return false
	default:
		return true
	}
}

// Hold stops forwarding what clients send to the broker (the broker's
// side still reaches them) until release is called: what they write
// meanwhile waits in the proxy and the sockets, as on a stalled network.
// release may be called more than once.
func (px *Proxy) Hold() (release func()) {
	px.mu.Lock()
	defer px.mu.Unlock()
	held := make(chan struct{})
	px.held = held
	return sync.OnceFunc(func() {
		px.mu.Lock()
		defer px.mu.Unlock()
		if px.held == held {
			px.held = nil
		}
		close(held)
	})
}

// Kill closes the listener and every connection, as a broker's death
// does. It may be called more than once.
func (px *Proxy) Kill() {
	px.kill.Do(func() { close(px.dead) })
	px.l.Close()
	px.conns.Close()
}

// Confirm asks c to confirm what it published, within timeout, and returns
// its answer; it fails t if c did not call the mark.
func Confirm(t *testing.T, c driver.Confirmer, timeout time.Duration) error {
	t.Helper()
	marked := false
	err := c.Confirm(timeout, func() { marked = true })
	if !marked {
		t.Fatal("Confirm did not call mark")
	}
	t.Log(err)
	return err
}
