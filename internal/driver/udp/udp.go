package udp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/fdsock"
)

// MaxDatagram is the largest UDPv4 payload: 65535 − 8 (UDP) − 20 (IPv4).
const MaxDatagram = 65507

// Defaults of a reliable pinger when Options leave them zero.
const (
	DefaultRetransmitTimeout = 10 * time.Millisecond
	DefaultMaxRetries        = 10
)

func init() { driver.Register(Transport{}) }

// Transport is the "udp" transport.
type Transport struct{}

var (
	_ driver.Transport   = Transport{}
	_ driver.SizeLimiter = Transport{}
)

// MessageLimit returns MaxDatagram: a message is one datagram.
func (Transport) MessageLimit(driver.Options) int { return MaxDatagram }

// Capabilities: the echo applies Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{EchoDelay: true}
}

// Name returns driver.UDP.
func (Transport) Name() string { return driver.UDP }

// Listen binds a UDP socket at addr ("host:port", port 0 picks one) and
// returns its echoer.
func (Transport) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	if opts.Security != nil {
		return nil, errSecure
	}
	s, local, err := bind(addr)
	if err != nil {
		return nil, err
	}
	return &Echoer{delay: opts.EchoDelay, sock: s, addr: local, buf: make([]byte, MaxDatagram+1), done: make(chan struct{})}, nil
}

// Dial connects a pinger to the echoer at addr.
func (Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	if opts.Security != nil {
		return nil, errSecure
	}
	return Dial(ctx, addr, opts)
}

// errSecure refuses a secure link, which is another transport's.
var errSecure = errors.New("udp: a secure link is the dtls transport")

// Echoer sends every datagram it receives back to its sender.
type Echoer struct {
	delay    driver.Delay // spent on each datagram before its echo
	sock     *fdsock.Conn
	addr     string
	buf      []byte
	once     sync.Once
	done     chan struct{}
	serving  atomic.Bool
	errCount atomic.Uint64
}

var (
	_ driver.Echoer        = (*Echoer)(nil)
	_ driver.CounterReader = (*Echoer)(nil)
)

// bind binds a UDP socket at addr and returns it with its address.
func bind(addr string) (*fdsock.Conn, string, error) {
	ua, err := net.ResolveUDPAddr("udp", driver.LoopbackIfEmpty(addr))
	if err != nil {
		return nil, "", fmt.Errorf("udp: %w", err)
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, "", fmt.Errorf("udp: %w", err)
	}
	local := c.LocalAddr().String()
	s, err := fdsock.New(c)
	if err != nil {
		return nil, "", fmt.Errorf("udp: %w", err)
	}
	return s, local, nil
}

// Addr returns the bound address.
func (e *Echoer) Addr() string { return e.addr }

// Serve echoes datagrams until ctx is done or Close is called.
func (e *Echoer) Serve(ctx context.Context) error {
	if !e.serving.CompareAndSwap(false, true) {
		return errors.New("udp: Serve called twice")
	}
	stop := context.AfterFunc(ctx, e.sock.Shutdown)
	defer stop()
	defer close(e.done)
	delay := e.delay.NewDelayer()
	for {
		n, err := e.sock.RecvFrom(e.buf, time.Time{})
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, driver.ErrClosed) {
				return nil
			}
			// A pinger that went away leaves an ICMP error on the socket;
			// it concerns that pinger only.
			if errors.Is(err, syscall.ECONNREFUSED) {
				e.errCount.Add(1)
				continue
			}
			return fmt.Errorf("udp echo: %w", err)
		}
		if n > len(e.buf) {
			e.errCount.Add(1) // cannot happen below MaxDatagram
			continue
		}
		delay.Wait()
		if _, err := e.sock.ReplyTo(e.buf[:n]); err != nil {
			if ctx.Err() != nil || errors.Is(err, driver.ErrClosed) {
				return nil
			}
			e.errCount.Add(1)
		}
	}
}

// Close stops Serve and releases the socket.
func (e *Echoer) Close() error {
	var err error
	e.once.Do(func() {
		e.sock.Shutdown()
		if e.serving.Load() {
			<-e.done
		}
		err = e.sock.Close()
	})
	return err
}

// Counters reports transient errors (sends that failed, ICMP errors).
func (e *Echoer) Counters() driver.Counters {
	return driver.Counters{Errors: e.errCount.Load()}
}

// Pinger sends messages to an echoer and receives their echoes.
type Pinger struct {
	sock   *fdsock.Conn
	addr   string
	resend driver.Resender // enabled on a reliable link
}

var (
	_ driver.Pinger        = (*Pinger)(nil)
	_ driver.CounterReader = (*Pinger)(nil)
)

// Dial connects a pinger to the echoer at addr.
func Dial(ctx context.Context, addr string, opts driver.Options) (*Pinger, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "udp", addr)
	if err != nil {
		return nil, fmt.Errorf("udp: %w", err)
	}
	s, err := fdsock.New(c.(*net.UDPConn))
	if err != nil {
		return nil, fmt.Errorf("udp: %w", err)
	}
	p := &Pinger{sock: s, addr: addr}
	if opts.Reliable {
		p.resend.Init(opts, DefaultRetransmitTimeout, DefaultMaxRetries, min(opts.LargestMessageOrDefault(), MaxDatagram))
	}
	return p, nil
}

// Send sends msg as one datagram. A reliable pinger keeps a copy to resend.
func (p *Pinger) Send(msg []byte) error {
	if len(msg) > MaxDatagram {
		return fmt.Errorf("udp: a %d-byte message does not fit in one datagram (max %d)", len(msg), MaxDatagram)
	}
	p.resend.Sent(msg)
	return p.send(msg)
}

func (p *Pinger) send(msg []byte) error {
	if _, err := p.sock.Send(msg, 0); err != nil {
		return linkErr(p.addr, err)
	}
	return nil
}

// Receive waits for the next datagram until deadline, resending the last
// message on a reliable link as described in the package documentation.
func (p *Pinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := p.receive(buf, deadline)
	return n, driver.Now(), err
}

func (p *Pinger) receive(buf []byte, deadline time.Time) (int, error) {
	for {
		n, err := p.sock.Recv(buf, syscall.MSG_TRUNC, p.resend.Wait(deadline))
		if err == nil {
			if n > len(buf) {
				return 0, fmt.Errorf("udp: a %d-byte datagram does not fit in a %d-byte buffer", n, len(buf))
			}
			return n, nil
		}
		if !errors.Is(err, driver.ErrTimeout) {
			return 0, linkErr(p.addr, err)
		}
		if !p.resend.Due() {
			return 0, fmt.Errorf("udp: no echo from %s: %w", p.addr, err)
		}
		if err := p.send(p.resend.Resend()); err != nil {
			return 0, err
		}
	}
}

// linkErr explains a failed send or receive on a link to addr.
func linkErr(addr string, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("udp: nothing listens at %s any more (connection refused): %w", addr, err)
	}
	return fmt.Errorf("udp: %w", err)
}

// Counters reports the resends of a reliable pinger.
func (p *Pinger) Counters() driver.Counters {
	return driver.Counters{Retransmitted: p.resend.Count()}
}

// Close releases the socket and unblocks a concurrent Receive.
func (p *Pinger) Close() error { return p.sock.Close() }
