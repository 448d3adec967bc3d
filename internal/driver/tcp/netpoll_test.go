package tcp

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// netpollPinger is the same framing over Go's network poller: the
// alternative fdsock was measured against (BenchmarkRoundTripTCPNetpoll).
type netpollPinger struct {
	c    *net.TCPConn
	hdr  [HeaderSize]byte
	bufs net.Buffers
	vec  [2][]byte
}

func (p *netpollPinger) Send(msg []byte) error {
	binary.BigEndian.PutUint32(p.hdr[:], uint32(len(msg)))
	p.vec = [2][]byte{p.hdr[:], msg}
	p.bufs = p.vec[:]
	_, err := p.bufs.WriteTo(p.c)
	return err
}

func (p *netpollPinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := p.receive(buf, deadline)
	return n, time.Now(), err
}

func (p *netpollPinger) receive(buf []byte, deadline time.Time) (int, error) {
	p.c.SetReadDeadline(deadline)
	if _, err := io.ReadFull(p.c, p.hdr[:]); err != nil {
		return 0, err
	}
	n := int(binary.BigEndian.Uint32(p.hdr[:]))
	_, err := io.ReadFull(p.c, buf[:n])
	return n, err
}

func (p *netpollPinger) Close() error { return p.c.Close() }

// netpollTransport dials netpoll pingers; its echoer is the real one.
type netpollTransport struct{ Transport }

func (netpollTransport) Dial(ctx context.Context, addr string, _ driver.Options) (driver.Pinger, error) {
	c, err := DialConn(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &netpollPinger{c: c.(*net.TCPConn)}, nil
}

func TestNetpollPinger(t *testing.T) {
	// The comparison pinger must itself be correct for the benchmark to
	// mean anything.
	c := drivertest.Config{Transport: netpollTransport{}, Sizes: []int{16, 16384}}
	e := drivertest.StartEcho(t, c)
	p := drivertest.Dial(t, c, e.Addr())
	msg := []byte("0123456789abcdef")
	buf := make([]byte, 64)
	if n, err := drivertest.RoundTrip(p, msg, buf); err != nil || string(buf[:n]) != string(msg) {
		t.Fatalf("netpoll round trip: %q, %v", buf[:n], err)
	}
}

// BenchmarkRoundTripTCPNetpoll is BenchmarkRoundTripTCP with the pinger on
// Go's network poller instead of blocking system calls.
func BenchmarkRoundTripTCPNetpoll(b *testing.B) {
	for _, size := range []int{16, 16384} {
		b.Run(map[int]string{16: "16B", 16384: "16KB"}[size], func(b *testing.B) {
			drivertest.BenchmarkRoundTrip(b, drivertest.Config{Transport: netpollTransport{}}, size)
		})
	}
}
