package secure

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
	"unsafe"

	"github.com/pion/dtls/v3"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/udp"
)

// DTLS framing: see the package documentation.
const (
	// MaxRecordPlaintext is the largest record plaintext pion receives
	// with AES-GCM: its 8192-byte datagram buffer less 37 bytes of record
	// header, explicit nonce and tag, rounded down.
	MaxRecordPlaintext = 8128
	// FragmentHeaderSize is the fragment header: message number (4 bytes),
	// fragment index (2), fragment count (2).
	FragmentHeaderSize = 8
	// FragmentPayload is the most message bytes one record carries.
	FragmentPayload = MaxRecordPlaintext - FragmentHeaderSize
	// MaxFragments bounds the fragments of one message.
	MaxFragments = 64
	// MaxDTLSMessage is the largest message the dtls transport carries.
	MaxDTLSMessage = MaxFragments * FragmentPayload
)

// DTLS is the "dtls" transport: DTLS 1.2 over UDP.
type DTLS struct{}

var (
	_ driver.Transport   = DTLS{}
	_ driver.SizeLimiter = DTLS{}
)

// MessageLimit returns MaxDTLSMessage.
func (DTLS) MessageLimit(driver.Options) int { return MaxDTLSMessage }

// Name returns driver.DTLS.
func (DTLS) Name() string { return driver.DTLS }

func dtlsMaterial(sec *driver.Security, needCert bool) (*material, error) {
	m, err := load(sec)
	if err != nil {
		return nil, fmt.Errorf("dtls: %w", err)
	}
	if needCert && m.cert == nil {
		return nil, errors.New("dtls: the echoer needs a certificate and a key")
	}
	return m, nil
}

// Listen starts a DTLS echoer at addr.
func (DTLS) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	l, err := dtlsListen(addr, opts)
	if err != nil {
		return nil, err
	}
	return &DTLSEchoer{dtlsServer: dtlsServer{Server: driver.Server[net.Conn]{L: l}}, delay: opts.EchoDelay}, nil
}

// dtlsListen listens for DTLS associations at addr.
func dtlsListen(addr string, opts driver.Options) (net.Listener, error) {
	m, err := dtlsMaterial(opts.Security, true)
	if err != nil {
		return nil, err
	}
	ua, err := net.ResolveUDPAddr("udp", driver.LoopbackIfEmpty(addr))
	if err != nil {
		return nil, fmt.Errorf("dtls: %w", err)
	}
	l, err := dtls.ListenWithOptions("udp", ua,
		dtls.WithCertificates(*m.cert),
		dtls.WithClientCAs(m.roots),
		dtls.WithClientAuth(dtls.RequireAndVerifyClientCert),
		dtls.WithExtendedMasterSecret(dtls.RequireExtendedMasterSecret),
	)
	if err != nil {
		return nil, fmt.Errorf("dtls: %w", err)
	}
	return l, nil
}

// Capabilities: the echo applies Options.EchoDelay.
func (DTLS) Capabilities() driver.Capabilities {
	return driver.Capabilities{EchoDelay: true}
}

// dtlsServer is what a DTLSEchoer and a DTLSSubscriber share: a listener
// whose associations closing it closes.
type dtlsServer struct {
	driver.Server[net.Conn]
	errs atomic.Uint64 // failed handshakes, and the echoer's failed records
}

// handshaken serves an association (of Accept: associated) once its
// handshake succeeded within HandshakeTimeout; a failed one is counted in
// errs.
func (s *dtlsServer) handshaken(ctx context.Context, serve func(c *dtls.Conn)) func(c, _ net.Conn) {
	return func(c, _ net.Conn) {
		hctx, cancel := context.WithTimeout(ctx, HandshakeTimeout)
		err := c.(*dtls.Conn).HandshakeContext(hctx)
		cancel()
		if err != nil {
			s.errs.Add(1)
			return
		}
		serve(c.(*dtls.Conn))
	}
}

// associated serves an association as it is accepted, before its handshake.
func associated(c net.Conn) (net.Conn, bool) { return c, true }

// DTLSEchoer accepts DTLS associations and echoes every record back.
type DTLSEchoer struct {
	dtlsServer
	delay driver.Delay
}

var (
	_ driver.Echoer        = (*DTLSEchoer)(nil)
	_ driver.CounterReader = (*DTLSEchoer)(nil)
)

// Serve accepts and echoes associations until ctx is done or Close is
// called. A failed handshake or association is counted in
// Counters().Errors and ends only itself.
func (e *DTLSEchoer) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.Close() })
	defer stop()
	err := e.Accept(associated, e.handshaken(ctx, func(c *dtls.Conn) { e.echo(ctx, c) }))
	if e.Closed() || ctx.Err() != nil {
		e.Wait()
		return nil
	}
	return fmt.Errorf("dtls echo: %w", err)
}

func (e *DTLSEchoer) echo(ctx context.Context, c *dtls.Conn) {
	buf := make([]byte, MaxRecordPlaintext+512)
	delay := e.delay.NewDelayer()
	for {
		n, err := c.Read(buf)
		if err != nil {
			if isClosed(err) || ctx.Err() != nil {
				return
			}
			e.errs.Add(1)
			var te *dtls.TemporaryError
			if !errors.As(err, &te) {
				return
			}
			continue
		}
		// A message's delay is spent on its first fragment: the others
		// are echoed after it, in order. Message 0 is a connection probe.
		if n >= FragmentHeaderSize && binary.BigEndian.Uint32(buf) != 0 && binary.BigEndian.Uint16(buf[4:]) == 0 {
			delay.Wait()
		}
		if _, err := c.Write(buf[:n]); err != nil {
			if isClosed(err) || ctx.Err() != nil {
				return
			}
			e.errs.Add(1)
		}
	}
}

func isClosed(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, dtls.ErrConnClosed) || errors.Is(err, io.EOF)
}

// Counters reports failed handshakes and records that could not be echoed.
func (e *DTLSEchoer) Counters() driver.Counters {
	return driver.Counters{Errors: e.errs.Load()}
}

// connectedPacketConn lets pion use a connected UDP socket, so that an
// ICMP "port unreachable" (the echoer is gone) reaches the pinger as
// ECONNREFUSED instead of a silent timeout.
type connectedPacketConn struct{ *net.UDPConn }

func (c connectedPacketConn) WriteTo(p []byte, _ net.Addr) (int, error) { return c.Write(p) }
func (c connectedPacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	n, err := c.Read(p)
	return n, c.RemoteAddr(), err
}

// Dial connects a DTLS pinger to the echoer at addr and completes the
// handshake within ctx.
func (DTLS) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	m, err := dtlsMaterial(opts.Security, false)
	if err != nil {
		return nil, err
	}
	copts := []dtls.ClientOption{
		dtls.WithRootCAs(m.roots),
		dtls.WithServerName(serverName(opts.Security, addr)),
		dtls.WithExtendedMasterSecret(dtls.RequireExtendedMasterSecret),
	}
	if m.cert != nil {
		copts = append(copts, dtls.WithCertificates(*m.cert))
	}
	var d net.Dialer
	uc, err := d.DialContext(ctx, "udp", addr)
	if err != nil {
		return nil, fmt.Errorf("dtls: %w", err)
	}
	c, err := dtls.ClientWithOptions(connectedPacketConn{uc.(*net.UDPConn)}, uc.RemoteAddr(), copts...)
	if err != nil {
		uc.Close()
		return nil, fmt.Errorf("dtls: %w", err)
	}
	hctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, HandshakeTimeout)
		defer cancel()
	}
	if err := c.HandshakeContext(hctx); err != nil {
		c.Close()
		return nil, handshakeErr("dtls", addr, opts.Security, err)
	}
	p := newDTLSPinger(c, addr)
	if opts.Reliable {
		p.resend.Init(opts, udp.DefaultRetransmitTimeout, udp.DefaultMaxRetries, min(opts.LargestMessageOrDefault(), MaxDTLSMessage))
	}
	deadline, _ := hctx.Deadline() // set above when ctx had none
	if err := p.settle(deadline); err != nil {
		c.Close()
		return nil, err
	}
	return p, nil
}

// settle exchanges probe records with the echoer until one comes back.
// pion's server can lose records that arrive in the instant after it sent
// its last handshake flight; a message of several records sent at once
// then came back incomplete. After one echoed probe the association is up
// at both ends. Probes are message number 0, which Receive ignores.
func (p *DTLSPinger) settle(deadline time.Time) error {
	probe := p.wbuf[:FragmentHeaderSize]
	binary.BigEndian.PutUint32(probe[0:], 0)
	binary.BigEndian.PutUint16(probe[4:], 0)
	binary.BigEndian.PutUint16(probe[6:], 1)
	for {
		if _, err := p.c.Write(probe); err != nil {
			return p.linkErr(err)
		}
		wait := time.Now().Add(settleInterval)
		if wait.After(deadline) {
			wait = deadline
		}
		if err := p.c.SetReadDeadline(wait); err != nil {
			return p.linkErr(err)
		}
		n, err := p.c.Read(p.rbuf)
		if err == nil && n >= FragmentHeaderSize && binary.BigEndian.Uint32(p.rbuf) == 0 {
			return nil
		}
		var ne net.Error
		if err != nil && (!errors.As(err, &ne) || !ne.Timeout()) {
			return p.linkErr(err)
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("dtls: the echoer at %s completed the handshake but echoes nothing: %w", p.addr, driver.ErrTimeout)
		}
	}
}

// settleInterval is how often settle resends its probe.
const settleInterval = 20 * time.Millisecond

// DTLSPinger fragments messages into DTLS records and reassembles echoes.
type DTLSPinger struct {
	c      *dtls.Conn
	addr   string
	resend driver.Resender // enabled on a reliable link
	// echoProbes makes a subscriber's reader return settle probes.
	echoProbes bool

	msgID uint32 // number of the last message sent
	wbuf  []byte // one record: fragment header and payload
	rbuf  []byte // one received record

	// Reassembly of the message being received.
	curID  uint32
	have   uint64 // bitmap of fragments received
	count  int    // fragments in the message, 0 when idle
	length int    // message length, known once the last fragment is in
	asmBuf []byte // the caller's buffer the fragments go to
}

var (
	_ driver.Pinger        = (*DTLSPinger)(nil)
	_ driver.CounterReader = (*DTLSPinger)(nil)
)

// newDTLSPinger returns a best-effort pinger over the association c with
// the echoer at addr.
func newDTLSPinger(c *dtls.Conn, addr string) *DTLSPinger {
	return &DTLSPinger{c: c, addr: addr, wbuf: make([]byte, MaxRecordPlaintext), rbuf: make([]byte, MaxRecordPlaintext+512)}
}

// Send sends msg as one record per FragmentPayload bytes.
func (p *DTLSPinger) Send(msg []byte) error {
	if len(msg) > MaxDTLSMessage {
		return fmt.Errorf("dtls: a %d-byte message exceeds the %d-byte maximum", len(msg), MaxDTLSMessage)
	}
	p.msgID++
	if p.msgID == 0 {
		p.msgID = 1 // 0 is the probe's
	}
	p.resend.Sent(msg)
	return p.send(msg)
}

func (p *DTLSPinger) send(msg []byte) error {
	count := max(1, (len(msg)+FragmentPayload-1)/FragmentPayload)
	for i := range count {
		chunk := msg[i*FragmentPayload : min(len(msg), (i+1)*FragmentPayload)]
		binary.BigEndian.PutUint32(p.wbuf[0:], p.msgID)
		binary.BigEndian.PutUint16(p.wbuf[4:], uint16(i))
		binary.BigEndian.PutUint16(p.wbuf[6:], uint16(count))
		n := copy(p.wbuf[FragmentHeaderSize:], chunk)
		if _, err := p.c.Write(p.wbuf[:FragmentHeaderSize+n]); err != nil {
			return p.linkErr(err)
		}
	}
	return nil
}

// Receive reassembles the next complete message into buf, resending the
// last message on a reliable link when its echo is late (as the udp
// transport does).
func (p *DTLSPinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := p.receive(buf, deadline)
	return n, time.Now(), err
}

func (p *DTLSPinger) receive(buf []byte, deadline time.Time) (int, error) {
	if p.count > 0 && unsafe.SliceData(buf) != unsafe.SliceData(p.asmBuf) {
		p.count = 0 // a message half received into another buffer is abandoned
	}
	for {
		if err := p.c.SetReadDeadline(p.resend.Wait(deadline)); err != nil {
			return 0, p.linkErr(err)
		}
		n, err := p.c.Read(p.rbuf)
		if err == nil {
			if p.echoProbes && n >= FragmentHeaderSize && binary.BigEndian.Uint32(p.rbuf) == 0 {
				// A publisher settling its association (see settle).
				if _, err := p.c.Write(p.rbuf[:n]); err != nil {
					return 0, p.linkErr(err)
				}
				continue
			}
			if done, n, err := p.place(p.rbuf[:n], buf); err != nil || done {
				return n, err
			}
			continue
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return 0, p.linkErr(err)
		}
		if !p.resend.Due() {
			return 0, fmt.Errorf("dtls: no echo from %s: %w", p.addr, driver.ErrTimeout)
		}
		if err := p.send(p.resend.Resend()); err != nil {
			return 0, err
		}
	}
}

// place puts one echoed record into buf and reports whether the message is
// complete.
func (p *DTLSPinger) place(rec, buf []byte) (bool, int, error) {
	if len(rec) < FragmentHeaderSize {
		return false, 0, fmt.Errorf("dtls: a %d-byte record from %s has no fragment header", len(rec), p.addr)
	}
	id := binary.BigEndian.Uint32(rec[0:])
	idx := int(binary.BigEndian.Uint16(rec[4:]))
	count := int(binary.BigEndian.Uint16(rec[6:]))
	payload := rec[FragmentHeaderSize:]
	if id == 0 {
		return false, 0, nil // a late echo of a settle probe
	}
	if count < 1 || count > MaxFragments || idx >= count || (idx < count-1 && len(payload) != FragmentPayload) {
		return false, 0, fmt.Errorf("dtls: malformed fragment header from %s (fragment %d of %d, %d bytes)", p.addr, idx, count, len(payload))
	}
	if p.count > 0 && id != p.curID {
		if int32(id-p.curID) < 0 {
			// A late echo of an earlier message (a resend's duplicate)
			// must not cost the one being assembled. Serial-number order
			// holds across the wrap of message numbers.
			return false, 0, nil
		}
		p.count = 0 // the rest of the current message is lost
	}
	if p.count == 0 {
		p.curID, p.count, p.have, p.length, p.asmBuf = id, count, 0, -1, buf
	}
	off := idx * FragmentPayload
	if off+len(payload) > len(buf) {
		p.count = 0
		return false, 0, fmt.Errorf("dtls: a message of more than %d bytes does not fit in a %d-byte buffer", off+len(payload)-1, len(buf))
	}
	copy(buf[off:], payload)
	p.have |= 1 << idx
	if idx == count-1 {
		p.length = off + len(payload)
	}
	if p.have != (uint64(1)<<count)-1 {
		return false, 0, nil
	}
	p.count = 0
	return true, p.length, nil
}

func (p *DTLSPinger) linkErr(err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("dtls: nothing listens at %s any more (connection refused): %w", p.addr, err)
	}
	if isClosed(err) {
		return fmt.Errorf("dtls: link to %s: %w: %v", p.addr, driver.ErrClosed, err)
	}
	return fmt.Errorf("dtls: link to %s: %w", p.addr, err)
}

// Counters reports the resends of a reliable pinger.
func (p *DTLSPinger) Counters() driver.Counters {
	return driver.Counters{Retransmitted: p.resend.Count()}
}

// Close closes the association, unblocking a concurrent Receive.
func (p *DTLSPinger) Close() error { return p.c.Close() }
