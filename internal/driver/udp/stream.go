package udp

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/fdsock"
)

var (
	_ driver.StreamTransport = Transport{}
	_ driver.Subscriber      = (*Subscriber)(nil)
	_ driver.Publisher       = (*Publisher)(nil)
)

// errOneWayReliable refuses a reliable one-way link: without echoes
// nothing tells a publisher what to resend.
var errOneWayReliable = errors.New("udp: a one-way link is best effort (a reliable one needs acknowledgements, which UDP does not carry)")

// Subscribe binds a UDP socket at addr and receives the datagrams sent to
// it, from any number of publishers.
func (Transport) Subscribe(_ context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	if err := checkOneWay(opts); err != nil {
		return nil, err
	}
	s, local, err := bind(addr)
	if err != nil {
		return nil, err
	}
	return &Subscriber{sock: s, addr: local}, nil
}

// Publish connects a publisher to the subscriber at addr.
func (Transport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	if err := checkOneWay(opts); err != nil {
		return nil, err
	}
	p, err := Dial(ctx, addr, driver.Options{}) // a best-effort pinger's socket
	if err != nil {
		return nil, err
	}
	return &Publisher{sock: p.sock, addr: addr}, nil
}

// checkOneWay refuses what a one-way UDP link cannot be: secure or reliable.
func checkOneWay(opts driver.Options) error {
	switch {
	case opts.Security != nil:
		return errSecure
	case opts.Reliable:
		return errOneWayReliable
	}
	return nil
}

// Subscriber receives datagrams at its address.
type Subscriber struct {
	sock *fdsock.Conn
	addr string
}

// Addr returns the bound address.
func (s *Subscriber) Addr() string { return s.addr }

// Receive waits for the next datagram until deadline; it arrived when the
// read returned.
func (s *Subscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	for {
		n, err := s.sock.Recv(buf, syscall.MSG_TRUNC, deadline)
		at := time.Now()
		switch {
		case err == nil && n > len(buf):
			return 0, at, fmt.Errorf("udp: a %d-byte datagram does not fit in a %d-byte buffer", n, len(buf))
		case err == nil:
			return n, at, nil
		case errors.Is(err, syscall.ECONNREFUSED):
			continue // an ICMP error for a datagram this socket never sent
		case errors.Is(err, driver.ErrTimeout):
			return 0, at, fmt.Errorf("udp: nothing received at %s: %w", s.addr, err)
		}
		return 0, at, fmt.Errorf("udp: %w", err)
	}
}

// Close releases the socket and unblocks a concurrent Receive.
func (s *Subscriber) Close() error { return s.sock.Close() }

// Publisher sends datagrams to one subscriber.
type Publisher struct {
	sock *fdsock.Conn
	addr string
}

// Send sends msg as one datagram. A subscriber that went away shows as an
// error of a later Send.
func (p *Publisher) Send(msg []byte) error {
	if len(msg) > MaxDatagram {
		return fmt.Errorf("udp: a %d-byte message does not fit in one datagram (max %d)", len(msg), MaxDatagram)
	}
	if _, err := p.sock.Send(msg, 0); err != nil {
		return linkErr(p.addr, err)
	}
	return nil
}

// Close releases the socket.
func (p *Publisher) Close() error { return p.sock.Close() }
