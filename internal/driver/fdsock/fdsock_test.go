package fdsock

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

func TestTimeoutError(t *testing.T) {
	var ne net.Error
	if !errors.As(Timeout, &ne) || !ne.Timeout() || !ne.Temporary() {
		t.Fatal("Timeout is not a temporary timeout net.Error (crypto/tls would poison the connection)")
	}
	if !errors.Is(Timeout, driver.ErrTimeout) || !errors.Is(Timeout, os.ErrDeadlineExceeded) {
		t.Fatal("Timeout does not wrap driver.ErrTimeout and os.ErrDeadlineExceeded")
	}
}

func udpPair(t *testing.T) (*Conn, *Conn) {
	t.Helper()
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(srv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(cli)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); c.Close() })
	return s, c
}

func TestDatagramEcho(t *testing.T) {
	s, c := udpPair(t)
	buf := make([]byte, 64)
	if _, err := c.Send([]byte("ping"), 0); err != nil {
		t.Fatal(err)
	}
	n, err := s.RecvFrom(buf, time.Now().Add(5*time.Second))
	if err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("RecvFrom = %q, %v", buf[:n], err)
	}
	if _, err := s.ReplyTo(buf[:n]); err != nil {
		t.Fatal(err)
	}
	// MSG_TRUNC reports the datagram's real length.
	small := make([]byte, 2)
	n, err = c.Recv(small, 0x20 /* MSG_TRUNC */, time.Now().Add(5*time.Second))
	if err != nil || n != 4 || string(small) != "pi" {
		t.Fatalf("Recv into 2 bytes = %d %q, %v; want 4 \"pi\"", n, small, err)
	}
}

func TestRecvDeadlines(t *testing.T) {
	_, c := udpPair(t)
	buf := make([]byte, 8)
	if _, err := c.Recv(buf, 0, time.Now().Add(-time.Second)); !errors.Is(err, driver.ErrTimeout) {
		t.Fatalf("past deadline: %v", err)
	}
	// Different deadlines in turn: each must end in a timeout, whichever
	// SO_RCVTIMEO is armed.
	for _, d := range []time.Duration{30 * time.Millisecond, time.Millisecond, 20 * time.Millisecond} {
		if _, err := c.Recv(buf, 0, time.Now().Add(d)); !errors.Is(err, driver.ErrTimeout) {
			t.Fatalf("deadline in %v: %v", d, err)
		}
	}
}

func TestCloseUnblocksUnconnectedRecv(t *testing.T) {
	s, _ := udpPair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := s.RecvFrom(make([]byte, 8), time.Time{})
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // let RecvFrom block
	s.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, driver.ErrClosed) {
			t.Fatalf("RecvFrom after Close = %v, want driver.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not unblock RecvFrom on an unconnected socket")
	}
}
