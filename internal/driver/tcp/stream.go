package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

var (
	_ driver.StreamTransport = Transport{}
	_ driver.Subscriber      = (*Subscriber)(nil)
)

// Subscribe listens at addr and receives the frames of every publisher
// that connects.
func (Transport) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	if opts.Security != nil {
		return nil, errors.New("tcp: a secure link is the tls transport")
	}
	return Subscribe(ctx, addr, "tcp", opts, func(c net.Conn) (Stream, error) { return NewStream(c) })
}

// Publish connects a publisher to the subscriber at addr. A best-effort
// publisher drops a message rather than block on a full send buffer, and
// counts it.
func (t Transport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	p, err := t.Dial(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	return p.(*Pinger), nil
}

// Subscriber receives frames from any number of publisher connections.
// Each connection has a reader goroutine that timestamps a frame when its
// last byte was read and queues it in an inbox; a full inbox stops the
// readers, and TCP's flow control then holds the publishers back.
type Subscriber struct {
	l     net.Listener
	name  string
	wrap  func(net.Conn) (Stream, error)
	inbox *driver.Inbox

	streams driver.Conns[Stream]
	wg      sync.WaitGroup
	once    sync.Once
	mu      sync.Mutex // guards errs
	errs    driver.Counters
}

// Subscribe is the subscriber of the tcp and tls transports: name prefixes
// errors, wrap turns an accepted connection into a Stream (TLS handshakes
// there). Options.QueueDepth frames (default 64) of Options.LargestMessage
// bytes are buffered.
func Subscribe(ctx context.Context, addr, name string, opts driver.Options, wrap func(net.Conn) (Stream, error)) (*Subscriber, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", driver.LoopbackIfEmpty(addr))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	depth := opts.QueueDepth
	if depth <= 0 {
		depth = 64
	}
	s := &Subscriber{l: l, name: name, wrap: wrap,
		inbox: driver.NewInbox(name+" subscriber at "+l.Addr().String(), depth, opts.LargestMessageOrDefault())}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the listening address.
func (s *Subscriber) Addr() string { return s.l.Addr().String() }

func (s *Subscriber) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go s.serve(c)
	}
}

func (s *Subscriber) serve(c net.Conn) {
	defer s.wg.Done()
	if err := c.(*net.TCPConn).SetNoDelay(true); err != nil {
		c.Close()
		s.countErr()
		return
	}
	st, err := s.wrap(c)
	if err != nil {
		c.Close()
		s.countErr()
		return
	}
	if !s.streams.Add(st) {
		return
	}
	defer s.streams.Remove(st)
	// The frame reader of a pinger, used for receiving only.
	r := NewPinger(st, s.name, c.RemoteAddr().String(), false)
	for {
		buf, ok := s.inbox.Buffer()
		if !ok {
			return
		}
		n, at, err := r.Receive(buf, time.Time{})
		if err != nil {
			s.inbox.Release(buf)
			return // a publisher that left or failed ends only its connection
		}
		if !s.inbox.Put(buf, n, at) {
			return
		}
	}
}

func (s *Subscriber) countErr() {
	s.mu.Lock()
	s.errs.Errors++
	s.mu.Unlock()
}

// Counters reports connections that failed to set up.
func (s *Subscriber) Counters() driver.Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs
}

// Receive copies the next frame into buf; its arrival time is when its
// reader finished reading it.
func (s *Subscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return s.inbox.Receive(buf, deadline)
}

// Close stops accepting, closes every connection and unblocks Receive.
func (s *Subscriber) Close() error {
	var err error
	s.once.Do(func() {
		s.inbox.Close()
		s.streams.Close()
		err = s.l.Close()
		s.wg.Wait()
	})
	return err
}
