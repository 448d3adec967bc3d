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
	bestEffort TrySender // nil for reliable

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
func (p *Pinger) Receive(buf []byte, deadline time.Time) (int, error) {
	for p.hgot < HeaderSize {
		n, err := p.s.Recv(p.rhdr[p.hgot:], deadline)
		if err != nil {
			return 0, p.recvErr(err)
		}
		p.hgot += n
		if p.hgot == HeaderSize {
			p.flen = int(binary.BigEndian.Uint32(p.rhdr[:]))
			p.pgot = 0
		}
	}
	if p.flen > len(buf) {
		return 0, fmt.Errorf("%s: a %d-byte message does not fit in a %d-byte buffer", p.name, p.flen, len(buf))
	}
	if p.pgot > 0 && unsafe.SliceData(buf) != unsafe.SliceData(p.pbuf) {
		copy(buf, p.pbuf[:p.pgot]) // resumed into another buffer
	}
	p.pbuf = buf
	for p.pgot < p.flen {
		n, err := p.s.Recv(buf[p.pgot:p.flen], deadline)
		if err != nil {
			return 0, p.recvErr(err)
		}
		p.pgot += n
	}
	p.hgot, p.pbuf = 0, nil
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
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, driver.ErrClosed) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		if err := s.SendAll(buf[:n], nil); err != nil {
			if errors.Is(err, driver.ErrClosed) || ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}
