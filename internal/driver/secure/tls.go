package secure

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/fdsock"
	"github.com/mqgate/mqgate/internal/driver/tcp"
)

// HandshakeTimeout bounds an echoer's handshake with one pinger, and a
// pinger's when Dial's context has no deadline.
const HandshakeTimeout = 10 * time.Second

func init() {
	driver.Register(TLS{})
	driver.Register(DTLS{})
}

// TLS is the "tls" transport: TLS 1.3 over TCP.
type TLS struct{}

var (
	_ driver.StreamTransport = TLS{}
	_ driver.Transport       = TLS{}
	_ driver.SizeLimiter     = TLS{}
)

// MessageLimit returns tcp.MaxMessage: TLS frames messages as TCP does.
func (TLS) MessageLimit(driver.Options) int { return tcp.MaxMessage }

// Capabilities: the echo applies Options.EchoDelay.
func (TLS) Capabilities() driver.Capabilities {
	return driver.Capabilities{EchoDelay: true}
}

// Name returns driver.TLS.
func (TLS) Name() string { return driver.TLS }

// Listen starts a TLS echoer at addr.
func (TLS) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	cfg, err := ServerTLSConfig(opts.Security)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return tcp.Listen(ctx, addr, opts, serverStream(cfg))
}

// serverStream returns the wrap of an accepted connection: the server's
// handshake, bounded by HandshakeTimeout.
func serverStream(cfg *tls.Config) func(net.Conn) (tcp.Stream, error) {
	return func(c net.Conn) (tcp.Stream, error) {
		s, err := tcp.NewStream(c)
		if err != nil {
			return nil, err
		}
		tc := tls.Server(s.NetConn, cfg)
		s.SetReadDeadline(time.Now().Add(HandshakeTimeout))
		if err := tc.Handshake(); err != nil {
			s.Close()
			return nil, err
		}
		s.SetReadDeadline(time.Time{})
		return &tlsStream{c: tc, nc: s.NetConn}, nil
	}
}

// Subscribe starts a TLS subscriber at addr: every publisher is verified
// against the CA, as a pinger is by an echoer.
func (TLS) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	cfg, err := ServerTLSConfig(opts.Security)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return tcp.Subscribe(ctx, addr, "tls", opts, serverStream(cfg))
}

// Publish connects a TLS publisher to the subscriber at addr, completing
// the handshake within ctx.
func (t TLS) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	return t.Dial(ctx, addr, opts)
}

// Dial connects a TLS pinger to the echoer at addr and completes the
// handshake within ctx.
func (TLS) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	cfg, err := ClientTLSConfig(opts.Security, addr, tls.VersionTLS13)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	c, err := tcp.DialConn(ctx, addr)
	if err != nil {
		return nil, err
	}
	s, err := tcp.NewStream(c)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	tc := tls.Client(s.NetConn, cfg)
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(HandshakeTimeout)
	}
	s.SetReadDeadline(deadline)
	if err := tc.HandshakeContext(ctx); err != nil {
		s.Close()
		return nil, handshakeErr("tls", addr, opts.Security, err)
	}
	s.SetReadDeadline(time.Time{})
	return tcp.NewPinger(&tlsStream{c: tc, nc: s.NetConn}, "tls", addr, false), nil
}

// tlsStream is a tcp.Stream over a TLS connection on a blocking socket.
type tlsStream struct {
	c    *tls.Conn
	nc   *fdsock.NetConn
	wbuf []byte // header and message, written as one TLS write
}

func (s *tlsStream) Recv(p []byte, deadline time.Time) (int, error) {
	s.nc.SetReadDeadline(deadline)
	for {
		n, err := s.c.Read(p)
		if n > 0 {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

func (s *tlsStream) SendAll(a, b []byte) error {
	if len(b) == 0 {
		_, err := s.c.Write(a)
		return err
	}
	// One Write, so that a small message and its header share a record.
	n := len(a) + len(b)
	if cap(s.wbuf) < n {
		s.wbuf = make([]byte, n)
	}
	s.wbuf = s.wbuf[:n]
	copy(s.wbuf[copy(s.wbuf, a):], b)
	_, err := s.c.Write(s.wbuf)
	return err
}

// Close shuts the socket down at once (no close_notify: a peer blocked in
// a read is woken by the shutdown either way).
func (s *tlsStream) Close() error {
	err := s.nc.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
