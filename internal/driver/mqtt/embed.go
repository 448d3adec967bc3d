package mqtt

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/listeners"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
)

// StartEmbedded starts a mochi-mqtt broker in this process on a free
// loopback port, which lets every client in: a TCP listener (mqtt://), or,
// when opts.Security is set, a TLS listener (mqtts://) with
// opts.Security's certificate that verifies a client certificate against
// its CA when the client presents one.
func (Transport) StartEmbedded(ctx context.Context, opts driver.Options) (string, func() error, error) {
	return StartBroker(opts.Security, new(auth.AllowHook), nil)
}

// StartBroker starts a mochi-mqtt broker on a free loopback port with the
// authentication hook h (configured by config), as StartEmbedded does; tests
// use it with hooks that refuse clients. Stopping it sends MQTT 5 clients
// DISCONNECT "server shutting down" and closes every connection.
func StartBroker(sec *driver.Security, h mochi.Hook, config any) (url string, stop func() error, err error) {
	srv := mochi.New(&mochi.Options{
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	if err := srv.AddHook(h, config); err != nil {
		return "", nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	cfg := listeners.Config{ID: "mqgate", Address: "127.0.0.1:0"}
	scheme := "mqtt"
	if sec != nil {
		tc, err := secure.ServerTLSConfig(sec)
		if err != nil {
			return "", nil, fmt.Errorf("mqtt: embedded broker: %w", err)
		}
		tc.MinVersion = tls.VersionTLS12
		tc.ClientAuth = tls.VerifyClientCertIfGiven
		cfg.TLSConfig = tc
		scheme = "mqtts"
	}
	l := &trackedListener{TCP: listeners.NewTCP(cfg), conns: map[net.Conn]struct{}{}}
	if err := srv.AddListener(l); err != nil {
		return "", nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	if err := srv.Serve(); err != nil {
		srv.Close()
		return "", nil, fmt.Errorf("mqtt: embedded broker: %w", err)
	}
	hostport := l.Address()
	embeddedHosts.Store(hostport, true)
	stop = sync.OnceValue(func() error {
		embeddedHosts.Delete(hostport)
		return l.shutdown(srv)
	})
	return scheme + "://" + hostport, stop, nil
}

// trackedListener is mochi-mqtt's TCP listener with its connections
// counted, so that the broker stops only once every connection's
// goroutine has returned: mochi-mqtt's Close waits for its clients with a
// WaitGroup that a connection still being attached may add to at the same
// time, which the race detector reports.
type trackedListener struct {
	*listeners.TCP
	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// Serve accepts connections and attaches each, until shutdown.
func (l *trackedListener) Serve(establish listeners.EstablishFn) {
	l.TCP.Serve(func(id string, c net.Conn) error {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return c.Close()
		}
		l.wg.Add(1)
		l.conns[c] = struct{}{}
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			delete(l.conns, c)
			l.mu.Unlock()
			l.wg.Done()
		}()
		return establish(id, c)
	})
}

// shutdown stops accepting, disconnects the clients (MQTT 5 ones are told
// why), closes the connections not yet attached, waits for every
// connection's goroutine, then closes the broker.
func (l *trackedListener) shutdown(srv *mochi.Server) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.TCP.Close(func(string) {})
	// Not Clients.GetByListener: it takes the clients' read lock twice
	// (through Len), which deadlocks when a connection being attached waits
	// for the write lock in between (mochi-mqtt v2.7.9).
	for _, cl := range srv.Clients.GetAll() {
		if cl.Net.Listener == l.ID() && !cl.Closed() {
			srv.DisconnectClient(cl, packets.ErrServerShuttingDown)
		}
	}
	l.mu.Lock()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	return srv.Close()
}
