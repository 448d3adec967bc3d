package mqtt

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// readBufferSize is the read buffer of a connection: both libraries read
// a packet's header byte by byte, which would be one system call each.
const readBufferSize = 64 << 10

// dialBroker opens the TCP (TCP_NODELAY, Go's default) or TLS connection
// to the broker within ctx, and names its TLS version and cipher suite in
// b.tls. batchWrites wraps it for paho.golang (batchConn).
func (b *base) dialBroker(ctx context.Context, batchWrites bool) (net.Conn, error) {
	s := b.s
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", s.url.Host)
	if err != nil {
		return nil, fmt.Errorf("mqtt: cannot reach the broker at %s: %w", s.redacted, err)
	}
	var nc net.Conn = c
	if s.tls != nil {
		tc := tls.Client(c, s.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, s.handshakeErr(err)
		}
		st := tc.ConnectionState()
		b.tls = tls.VersionName(st.Version) + " " + tls.CipherSuiteName(st.CipherSuite)
		nc = tc
	}
	rc := readConn{Conn: nc, r: bufio.NewReaderSize(nc, readBufferSize)}
	if batchWrites {
		return &batchConn{readConn: rc}, nil
	}
	return &rc, nil
}

// handshakeErr explains a failed TLS handshake with the broker.
func (s *settings) handshakeErr(err error) error {
	var (
		uae x509.UnknownAuthorityError
		hne x509.HostnameError
		cie x509.CertificateInvalidError
		rhe tls.RecordHeaderError
	)
	ca := "the system's roots"
	if s.security != nil {
		ca = "the CA in " + s.security.CAFile
	}
	switch {
	case errors.As(err, &uae):
		return fmt.Errorf("mqtt: TLS handshake with %s: the broker's certificate is not signed by %s: %w", s.redacted, ca, err)
	case errors.As(err, &hne):
		return fmt.Errorf("mqtt: TLS handshake with %s: the broker's certificate is not valid for %q: %w", s.redacted, s.tls.ServerName, err)
	case errors.As(err, &cie):
		return fmt.Errorf("mqtt: TLS handshake with %s: invalid certificate: %w", s.redacted, err)
	case errors.As(err, &rhe):
		return fmt.Errorf("mqtt: TLS handshake with %s: the broker did not answer in TLS (a plain mqtt:// port?): %w", s.redacted, err)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("mqtt: TLS handshake with %s: the broker closed the connection (a plain mqtt:// port?): %w", s.redacted, err)
	}
	return fmt.Errorf("mqtt: TLS handshake with %s (broker verified against %s): %w", s.redacted, ca, err)
}

// connectErr explains a failure of the MQTT handshake on an open
// connection. In TLS 1.3 the broker checks the client's certificate after
// the client's side of the handshake is done, so its refusal arrives as an
// alert (crypto/tls reports a "remote error") instead of CONNACK.
func (s *settings) connectErr(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "remote error" && s.tls != nil && s.security != nil && s.security.CertFile != "" {
		return fmt.Errorf("mqtt: connecting to %s (%s): the broker ended the TLS session, refusing the client certificate %s: %w",
			s.redacted, s.protocol(), s.security.CertFile, err)
	}
	return fmt.Errorf("mqtt: connecting to %s (%s): %w", s.redacted, s.protocol(), err)
}

// readConn reads through a buffer. Only the library's reading goroutine
// reads. paho.mqtt.golang writes each packet with one Write, which a TCP
// or TLS connection makes atomic.
type readConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *readConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// batchConn is a connection for paho.golang, which writes a packet as
// several buffers, from several goroutines (the publisher, the session's
// acknowledgements, the keep-alive pinger), between Lock and Unlock
// (packets.ControlPacket.WriteTo locks a connection that is a
// sync.Locker). A wrapper hides the TCP connection's vectored write, so
// the buffers would go out one system call (and one TLS record) each:
// Write collects them and Unlock sends the packet with one. Every write
// of paho.golang goes through WriteTo, so Write is only ever called under
// the lock.
type batchConn struct {
	readConn
	mu     sync.Mutex
	buf    []byte
	err    error                 // a failed send; the connection is closed
	failed atomic.Pointer[error] // err, for writers outside the lock
	pings  uint64                // the PINGREQs sent, the keep-alive's too
}

// pingreq is a whole PINGREQ packet: it has no variable header or payload.
var pingreq = []byte{0xC0, 0x00}

// fail records err; out of line, so that the error escapes to the heap
// only when there is one.
func (c *batchConn) fail(err error) {
	c.err = err
	c.failed.Store(&err)
	c.Conn.Close()
}

// writeErr is the error of a failed send, nil while none failed: a
// packet's WriteTo does not see the failure of its own send.
func (c *batchConn) writeErr() error {
	if p := c.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// Lock starts a packet.
func (c *batchConn) Lock() { c.mu.Lock() }

// Write adds p to the packet, or returns the error of an earlier send.
func (c *batchConn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// Unlock sends the packet.
func (c *batchConn) Unlock() {
	c.send()
	c.mu.Unlock()
}

// send sends the packet collected, counting it when it is a PINGREQ; c.mu
// is held. A failed send closes the connection, so that the reading
// goroutine reports the loss.
func (c *batchConn) send() {
	if len(c.buf) > 0 && c.err == nil {
		if bytes.Equal(c.buf, pingreq) {
			c.pings++
		}
		if _, err := c.Conn.Write(c.buf); err != nil {
			c.fail(err)
		}
	}
	if cap(c.buf) > 1<<20 {
		c.buf = nil // do not hold on to a large message's buffer
	} else {
		c.buf = c.buf[:0]
	}
}

// ping sends a PINGREQ after every packet sent before, and returns how
// many were sent in all, this one included: a broker answers them in the
// order it reads them, so the PINGRESP of that rank is this one's.
func (c *batchConn) ping() (rank uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.buf = append(c.buf, pingreq...)
	c.send()
	return c.pings, c.err
}
