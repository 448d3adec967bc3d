package tcp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/fdsock"
)

// SendTimeout bounds how long a blocking Send waits for room in the send
// buffer, so that a stalled echoer cannot hang a run.
const SendTimeout = 10 * time.Second

// EchoBuffer is the read (and write) size of an echoer.
const EchoBuffer = 64 << 10

func init() { driver.Register(Transport{}) }

// Transport is the "tcp" transport.
type Transport struct{}

var (
	_ driver.Transport   = Transport{}
	_ driver.SizeLimiter = Transport{}
)

// MaxMessage is the largest message of the tcp and tls transports. The
// pinger writes a whole message before it reads the echo, which the echoer
// starts returning at once, so a message must fit in the socket buffers of
// the two ends: with Linux's default limits (tcp_wmem 4 MiB) about 8 MiB
// do; a larger one stalls until SendTimeout and the echoer resets the
// connection.
const MaxMessage = 4 << 20

// MessageLimit returns MaxMessage.
func (Transport) MessageLimit(driver.Options) int { return MaxMessage }

// Capabilities: the echo applies Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{EchoDelay: true}
}

// Name returns driver.TCP.
func (Transport) Name() string { return driver.TCP }

// Listen starts an echoer at addr.
func (Transport) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	if opts.Security != nil {
		return nil, errors.New("tcp: a secure link is the tls transport")
	}
	return Listen(ctx, addr, opts, plain)
}

// plain turns an accepted connection into a SockStream.
func plain(c net.Conn) (Stream, error) { return NewStream(c) }

// Dial connects a pinger to the echoer at addr.
func (Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	if opts.Security != nil {
		return nil, errors.New("tcp: a secure link is the tls transport")
	}
	c, err := DialConn(ctx, addr)
	if err != nil {
		return nil, err
	}
	s, err := NewStream(c)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", err)
	}
	return NewPinger(s, "tcp", addr, !opts.Reliable), nil
}

// DialConn dials addr with TCP_NODELAY set.
func DialConn(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", err)
	}
	if err := c.(*net.TCPConn).SetNoDelay(true); err != nil {
		c.Close()
		return nil, fmt.Errorf("tcp: %w", err)
	}
	return c, nil
}

// SmallFrame is the largest frame a SockStream copies to send it with one
// send(2) call, and the most a vectored read takes through a copy buffer
// with one recv(2): those calls cost less than sendmsg/recvmsg with two
// iovecs, which take larger frames without a copy.
const SmallFrame = 2048

// SockStream is a TCP connection driven by blocking system calls.
type SockStream struct {
	*fdsock.NetConn
	wbuf, rbuf [SmallFrame]byte
	// big is set when the last vectored read filled rbuf: frames are
	// large, read them straight into the caller's buffers.
	big bool
}

var (
	_ Stream      = (*SockStream)(nil)
	_ TrySender   = (*SockStream)(nil)
	_ VecReceiver = (*SockStream)(nil)
)

// NewStream takes over the TCP connection c (see fdsock.New) and sets the
// send timeout.
func NewStream(c net.Conn) (*SockStream, error) {
	nc, err := fdsock.NewNetConn(c)
	if err != nil {
		return nil, err
	}
	if err := nc.SetSendTimeout(SendTimeout); err != nil {
		nc.Close()
		return nil, err
	}
	return &SockStream{NetConn: nc}, nil
}

// Recv implements Stream.
func (s *SockStream) Recv(p []byte, deadline time.Time) (int, error) {
	n, err := s.Conn.Recv(p, 0, deadline)
	if err == nil && n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, err
}

// RecvVec implements VecReceiver.
func (s *SockStream) RecvVec(a, b []byte, deadline time.Time) (int, error) {
	var n int
	var err error
	if s.big {
		n, err = s.Conn.RecvVec(a, b, deadline)
		s.big = n > len(s.rbuf)
	} else {
		n, err = s.Conn.Recv(s.rbuf[:min(len(a)+len(b), len(s.rbuf))], 0, deadline)
		copy(b, s.rbuf[copy(a, s.rbuf[:n]):n])
		s.big = n == len(s.rbuf)
	}
	if err == nil && n == 0 {
		return 0, io.EOF
	}
	return n, err
}

// SendAll implements Stream.
func (s *SockStream) SendAll(a, b []byte) error {
	_, err := s.sendFrom(a, b, 0, 0)
	return err
}

// TrySendAll implements TrySender.
func (s *SockStream) TrySendAll(a, b []byte) (bool, error) {
	n, err := s.sendFrom(a, b, 0, syscall.MSG_DONTWAIT)
	if errors.Is(err, fdsock.ErrWouldBlock) && n == 0 {
		return false, nil
	}
	return err == nil, err
}

// sendFrom writes a then b from offset done; the first call uses flags,
// the rest block, so a message is never left half-written.
func (s *SockStream) sendFrom(a, b []byte, done, flags int) (int, error) {
	if total := len(a) + len(b); done == 0 && total <= len(s.wbuf) {
		copy(s.wbuf[copy(s.wbuf[:], a):], b)
		a, b = s.wbuf[:total], nil
	}
	for total := len(a) + len(b); done < total; flags = 0 {
		var n int
		var err error
		switch {
		case len(b) == 0:
			n, err = s.Send(a[done:], flags)
		case done < len(a):
			n, err = s.Writev(a[done:], b, flags)
		default:
			n, err = s.Send(b[done-len(a):], flags)
		}
		done += n
		if err != nil {
			if errors.Is(err, fdsock.ErrWouldBlock) && flags == 0 {
				return done, fmt.Errorf("send blocked for %v: %w", SendTimeout, err)
			}
			return done, err
		}
	}
	return done, nil
}

// server is what an Echoer and a Subscriber share: a listener whose
// connections become Streams, which closing it closes.
type server struct {
	driver.Server[Stream]
	wrap func(net.Conn) (Stream, error)
	errs atomic.Uint64
}

// listen listens on addr; name prefixes its error.
func listen(ctx context.Context, addr, name string) (net.Listener, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", driver.LoopbackIfEmpty(addr))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return l, nil
}

// open sets TCP_NODELAY on an accepted connection and turns it into a
// Stream by wrap; a failure is counted in Counters().Errors.
func (s *server) open(c net.Conn) (Stream, bool) {
	err := c.(*net.TCPConn).SetNoDelay(true)
	var st Stream
	if err == nil {
		st, err = s.wrap(c)
	}
	if err != nil {
		c.Close()
		s.errs.Add(1)
		return nil, false
	}
	return st, true
}

// Counters reports connections that failed.
func (s *server) Counters() driver.Counters { return driver.Counters{Errors: s.errs.Load()} }

// Echoer accepts connections and echoes each one's bytes back.
type Echoer struct {
	server
	// delay is spent on each message before its echo (each connection
	// draws its own sequence); the echo then reads whole frames of up to
	// maxMessage bytes.
	delay      driver.Delay
	maxMessage int
}

var (
	_ driver.Echoer        = (*Echoer)(nil)
	_ driver.CounterReader = (*Echoer)(nil)
)

// Listen listens on addr; each accepted connection (TCP_NODELAY set) is
// turned into a Stream by wrap (the TLS transport handshakes there) and
// echoed by Serve, with opts.EchoDelay.
func Listen(ctx context.Context, addr string, opts driver.Options, wrap func(net.Conn) (Stream, error)) (driver.Echoer, error) {
	l, err := listen(ctx, addr, "tcp")
	if err != nil {
		return nil, err
	}
	return &Echoer{server: server{Server: driver.Server[Stream]{L: l}, wrap: wrap}, delay: opts.EchoDelay, maxMessage: opts.LargestMessageOrDefault()}, nil
}

// Serve accepts and echoes connections until ctx is done or Close is
// called. A failing connection ends only itself and is counted in
// Counters().Errors.
func (e *Echoer) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.Close() })
	defer stop()
	err := e.Accept(e.open, func(_ net.Conn, s Stream) {
		if err := e.echo(ctx, s); err != nil {
			e.errs.Add(1)
		}
	})
	if e.Closed() || ctx.Err() != nil {
		e.Wait()
		return nil
	}
	return fmt.Errorf("tcp echo: %w", err)
}

// echo echoes s until ctx is done or the stream ends. A plain TCP stream
// echoes in one loop of system calls (fdsock.Conn.Echo); others, such as
// TLS, through Echo.
//
// A delay (--echo-delay, --echo-work) is spent on each message: on a plain
// TCP stream within the same loop of system calls, which finds where each
// message ends (fdsock.Conn.EchoEach), so that a delayed echo differs from
// the plain one by its delay alone; others echo frame by frame
// (EchoFrames).
func (e *Echoer) echo(ctx context.Context, s Stream) error {
	ss, sock := s.(*SockStream)
	if !e.delay.IsZero() && !sock {
		return EchoFrames(ctx, s, make([]byte, max(e.maxMessage, 1)), e.delay.NewDelayer())
	}
	buf := make([]byte, EchoBuffer)
	if !sock {
		return Echo(ctx, s, buf)
	}
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	if e.delay.IsZero() {
		return ss.Conn.Echo(buf)
	}
	return ss.Conn.EchoEach(buf, fdsock.Framing{Header: HeaderSize, Length: func(h []byte) int { return int(binary.BigEndian.Uint32(h)) }}, e.delay.NewDelayer().Wait)
}
