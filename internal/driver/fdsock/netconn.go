package fdsock

import (
	"errors"
	"io"
	"net"
	"time"
)

// NetConn adapts a stream Conn to net.Conn, so that crypto/tls can run over
// blocking system calls. Read honours the read deadline; writes are bounded
// by the socket's send timeout (SetSendTimeout), not by SetWriteDeadline.
type NetConn struct {
	*Conn
	local, remote net.Addr
	readDeadline  time.Time
}

var _ net.Conn = (*NetConn)(nil)

// NewNetConn takes over the TCP connection c (see New).
func NewNetConn(c net.Conn) (*NetConn, error) {
	local, remote := c.LocalAddr(), c.RemoteAddr()
	f, ok := c.(filer)
	if !ok {
		return nil, &net.OpError{Op: "dup", Net: "tcp", Err: errNotSocket}
	}
	s, err := New(f)
	if err != nil {
		return nil, err
	}
	return &NetConn{Conn: s, local: local, remote: remote}, nil
}

var errNotSocket = errors.New("not a socket connection")

// Read reads into p until the read deadline; io.EOF when the peer closed.
func (c *NetConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.Recv(p, 0, c.readDeadline)
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

// Write writes all of p.
func (c *NetConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := c.Send(p[done:], 0)
		done += n
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// LocalAddr returns the local address.
func (c *NetConn) LocalAddr() net.Addr { return c.local }

// RemoteAddr returns the peer's address.
func (c *NetConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets the read deadline (see NetConn).
func (c *NetConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline sets the deadline of later Reads; zero means none.
func (c *NetConn) SetReadDeadline(t time.Time) error {
	c.readDeadline = t
	return nil
}

// SetWriteDeadline is a no-op: writes are bounded by the send timeout.
func (c *NetConn) SetWriteDeadline(time.Time) error { return nil }
