package tcp

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unsafe"

	"github.com/mqgate/mqgate/internal/driver"
)

// HeaderSize is the length of the frame header.
const HeaderSize = 4

// MaxFrame is the largest message a frame carries.
const MaxFrame = 1<<31 - 1

// Stream is a byte stream with read deadlines, what the framing needs.
type Stream interface {
	// Recv reads up to len(p) bytes, waiting until deadline (zero: no
	// deadline). It returns an error wrapping driver.ErrTimeout when the
	// deadline passed, and io.EOF when the peer closed the stream.
	Recv(p []byte, deadline time.Time) (int, error)
	// SendAll writes a then b entirely.
	SendAll(a, b []byte) error
	Close() error
}

// VecReceiver is implemented by streams that read into two buffers with
// one system call, so that a frame's header and message arrive together.
type VecReceiver interface {
	RecvVec(a, b []byte, deadline time.Time) (int, error)
}

// TrySender is implemented by streams that can refuse a message instead of
// blocking: TrySendAll writes nothing and returns false when the send
// buffer has no room, else writes a then b entirely.
type TrySender interface {
	TrySendAll(a, b []byte) (bool, error)
}

// Pinger frames messages over a Stream.
type Pinger struct {
	s          Stream
	name, addr string
	bestEffort TrySender   // nil for reliable
	vec        VecReceiver // nil when the stream has none

	// carry holds bytes a vectored read took beyond the frame it was
	// reading: the start of later frames, queued when an echo came late.
	carry    []byte
	carryOff int

	hdr  [HeaderSize]byte
	rhdr [HeaderSize]byte
	// A frame cut by a timeout is resumed by the next Receive.
	hgot int    // header bytes read
	flen int    // frame length once the header is complete
	pgot int    // payload bytes read
	pbuf []byte // where the partial payload is

	mu       sync.Mutex
	counters driver.Counters
}

var (
	_ driver.Pinger        = (*Pinger)(nil)
	_ driver.CounterReader = (*Pinger)(nil)
)

// NewPinger returns a pinger over s. name prefixes errors ("tcp", "tls"),
// addr is the echoer's address for messages. With bestEffort, a message
// that finds the send buffer full is dropped, if s is a TrySender.
func NewPinger(s Stream, name, addr string, bestEffort bool) *Pinger {
	p := &Pinger{s: s, name: name, addr: addr}
	if ts, ok := s.(TrySender); ok && bestEffort {
		p.bestEffort = ts
	}
	p.vec, _ = s.(VecReceiver)
	return p
}

// Send writes msg as one frame.
func (p *Pinger) Send(msg []byte) error {
	if len(msg) > MaxFrame {
		return fmt.Errorf("%s: a %d-byte message is too long for a frame", p.name, len(msg))
	}
	binary.BigEndian.PutUint32(p.hdr[:], uint32(len(msg)))
	if p.bestEffort != nil {
		sent, err := p.bestEffort.TrySendAll(p.hdr[:], msg)
		if err != nil {
			return p.linkErr(err)
		}
		if !sent {
			p.mu.Lock()
			p.counters.Dropped++
			p.mu.Unlock()
		}
		return nil
	}
	if err := p.s.SendAll(p.hdr[:], msg); err != nil {
		return p.linkErr(err)
	}
	return nil
}

// Receive reads the next frame's message into buf.
//
// With a VecReceiver the header and the message come with one system
// call, the message straight into buf. Such a read can take more than
// the frame when later frames are already queued (an echo that came after
// its timeout, then the next one); the excess is kept and consumed by the
// next Receive.
func (p *Pinger) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	n, err := p.receive(buf, deadline)
	return n, driver.Now(), err
}

func (p *Pinger) receive(buf []byte, deadline time.Time) (int, error) {
	if p.hgot == HeaderSize && p.pgot > 0 && unsafe.SliceData(buf) != unsafe.SliceData(p.pbuf) {
		copy(buf, p.pbuf[:min(p.pgot, len(buf))]) // resumed into another buffer
	}
	p.pbuf = buf
	for p.hgot < HeaderSize {
		var n int
		var err error
		switch {
		case p.carryOff < len(p.carry):
			n = copy(p.rhdr[p.hgot:], p.carry[p.carryOff:])
			p.carryOff += n
		case p.vec != nil && len(buf) > 0:
			n, err = p.vec.RecvVec(p.rhdr[p.hgot:], buf, deadline)
		default:
			n, err = p.s.Recv(p.rhdr[p.hgot:], deadline)
		}
		if err != nil {
			return 0, p.recvErr(err)
		}
		extra := max(0, n-(HeaderSize-p.hgot)) // message bytes already in buf
		p.hgot += n - extra
		if p.hgot == HeaderSize {
			p.flen = int(binary.BigEndian.Uint32(p.rhdr[:]))
			p.pgot = extra
			if extra > p.flen {
				p.keep(buf[p.flen:extra])
				p.pgot = p.flen
			}
		}
	}
	if p.flen > len(buf) {
		return 0, fmt.Errorf("%s: a %d-byte message does not fit in a %d-byte buffer", p.name, p.flen, len(buf))
	}
	if p.carryOff < len(p.carry) && p.pgot < p.flen {
		n := copy(buf[p.pgot:p.flen], p.carry[p.carryOff:])
		p.carryOff += n
		p.pgot += n
	}
	for p.pgot < p.flen {
		n, err := p.s.Recv(buf[p.pgot:p.flen], deadline)
		if err != nil {
			return 0, p.recvErr(err)
		}
		p.pgot += n
	}
	p.hgot, p.pgot, p.pbuf = 0, 0, nil
	return p.flen, nil
}

func (p *Pinger) recvErr(err error) error {
	if errors.Is(err, driver.ErrTimeout) {
		return fmt.Errorf("%s: no echo from %s: %w", p.name, p.addr, err)
	}
	return p.linkErr(err)
}

func (p *Pinger) linkErr(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: the echoer at %s closed the connection", p.name, p.addr)
	}
	return fmt.Errorf("%s: connection to %s: %w", p.name, p.addr, err)
}

// keep stores bytes read beyond the current frame in front of any
// remaining carry.
func (p *Pinger) keep(b []byte) {
	rest := p.carry[p.carryOff:]
	c := make([]byte, 0, len(b)+len(rest))
	p.carry = append(append(c, b...), rest...)
	p.carryOff = 0
}

// Counters reports messages dropped by a best-effort Send.
func (p *Pinger) Counters() driver.Counters {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counters
}

// Close closes the stream, unblocking a concurrent Receive.
func (p *Pinger) Close() error { return p.s.Close() }

// Echo writes back everything it reads from s until ctx is done, the peer
// closes the stream (both return nil) or the stream fails. buf is the read
// buffer; its size bounds a write, not a message.
func Echo(ctx context.Context, s Stream, buf []byte) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	for {
		n, err := s.Recv(buf, time.Time{})
		if err == nil {
			err = s.SendAll(buf[:n], nil)
		}
		if err != nil {
			return echoEnd(ctx, err)
		}
	}
}

// echoEnd is what an echo of a stream returns when err ended it: nil when
// ctx is done or the stream ended or was closed.
func echoEnd(ctx context.Context, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, driver.ErrClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}
