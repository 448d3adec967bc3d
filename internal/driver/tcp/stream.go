package tcp

import (
	"context"
	"errors"
	"net"
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
	return Subscribe(ctx, addr, "tcp", opts, plain)
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
	server
	name  string
	inbox *driver.Inbox
}

// Subscribe is the subscriber of the tcp and tls transports: name prefixes
// errors, wrap turns an accepted connection into a Stream (TLS handshakes
// there). Options.QueueDepth frames (default 64) of Options.LargestMessage
// bytes are buffered.
func Subscribe(ctx context.Context, addr, name string, opts driver.Options, wrap func(net.Conn) (Stream, error)) (*Subscriber, error) {
	l, err := listen(ctx, addr, name)
	if err != nil {
		return nil, err
	}
	depth := opts.QueueDepth
	if depth <= 0 {
		depth = 64
	}
	s := &Subscriber{server: server{Server: driver.Server[Stream]{L: l}, wrap: wrap}, name: name,
		inbox: driver.NewInbox(name+" subscriber at "+l.Addr().String(), depth, opts.LargestMessageOrDefault())}
	s.Go(s.open, s.serve)
	return s, nil
}

func (s *Subscriber) serve(c net.Conn, st Stream) {
	// The frame reader of a pinger, used for receiving only: a publisher
	// that left or failed ends only its connection.
	r := NewPinger(st, s.name, c.RemoteAddr().String(), false)
	s.inbox.Fill(func(buf []byte) (int, time.Time, error) { return r.Receive(buf, time.Time{}) })
}

// Receive copies the next frame into buf; its arrival time is when its
// reader finished reading it.
func (s *Subscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return s.inbox.Receive(buf, deadline)
}

// Close stops accepting, closes every connection and unblocks Receive.
func (s *Subscriber) Close() error {
	s.inbox.Close()
	err := s.server.Close()
	s.Wait()
	return err
}
