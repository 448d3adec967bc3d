package secure

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/pion/dtls/v3"

	"github.com/mqgate/mqgate/internal/driver"
)

var (
	_ driver.StreamTransport = DTLS{}
	_ driver.Subscriber      = (*DTLSSubscriber)(nil)
)

// errDTLSOneWayReliable refuses a reliable one-way link, as over UDP.
var errDTLSOneWayReliable = errors.New("dtls: a one-way link is best effort (a reliable one needs acknowledgements, which DTLS does not carry)")

// Subscribe starts a DTLS subscriber at addr: every publisher is verified
// against the CA, and its messages are reassembled from their records.
func (DTLS) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	if opts.Reliable {
		return nil, errDTLSOneWayReliable
	}
	l, err := dtlsListen(addr, opts)
	if err != nil {
		return nil, err
	}
	depth := opts.QueueDepth
	if depth <= 0 {
		depth = 64
	}
	s := &DTLSSubscriber{dtlsServer: dtlsServer{Server: driver.Server[net.Conn]{L: l}},
		inbox: driver.NewInbox("dtls subscriber at "+l.Addr().String(), depth, opts.LargestMessageOrDefault())}
	s.Go(associated, s.handshaken(context.Background(), s.serve))
	return s, nil
}

// Publish connects a DTLS publisher to the subscriber at addr, completing
// the handshake within ctx.
func (DTLS) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	if opts.Reliable {
		return nil, errDTLSOneWayReliable
	}
	return DTLS{}.Dial(ctx, addr, opts)
}

// DTLSSubscriber receives the messages of any number of DTLS publishers.
type DTLSSubscriber struct {
	dtlsServer
	inbox *driver.Inbox
}

func (s *DTLSSubscriber) serve(c *dtls.Conn) {
	// The reassembly of a pinger, returning the publisher's settle probes.
	r := newDTLSPinger(c, c.RemoteAddr().String())
	r.echoProbes = true
	s.inbox.Fill(func(buf []byte) (int, time.Time, error) {
		n, err := r.receive(buf, time.Time{})
		return n, time.Now(), err
	})
}

// Receive copies the next message into buf; it arrived when its last
// record was read.
func (s *DTLSSubscriber) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return s.inbox.Receive(buf, deadline)
}

// Close stops accepting, closes every association and unblocks Receive.
func (s *DTLSSubscriber) Close() error {
	s.inbox.Close()
	err := s.dtlsServer.Close()
	s.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("dtls: %w", err)
	}
	return nil
}
