package nats

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
)

// embeddedStartTimeout bounds how long an embedded server may take to
// accept connections when the context sets no deadline.
const embeddedStartTimeout = 10 * time.Second

// StartEmbedded starts nats-server inside this process on a free loopback
// port, with JetStream storing into a temporary directory that stop
// removes. With opts.Security it serves only TLS, with Security's
// certificate, and requires a client certificate signed by Security's CA.
// When opts.Params hold a user and password (or a token), the server
// requires them, so that a run with credentials works unchanged.
func (Transport) StartEmbedded(ctx context.Context, opts driver.Options) (string, func() error, error) {
	return startEmbedded(ctx, opts, nil)
}

// startEmbedded is StartEmbedded with a hook to adjust the server's
// options (tests add users).
func startEmbedded(ctx context.Context, opts driver.Options, tweak func(*server.Options)) (string, func() error, error) {
	p, err := parseParams(opts.Params)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "mqgate-nats-*")
	if err != nil {
		return "", nil, fmt.Errorf("nats: embedded server store: %w", err)
	}
	fail := func(err error) (string, func() error, error) {
		os.RemoveAll(dir)
		return "", nil, err
	}
	so := &server.Options{
		ServerName:             "mqgate-embedded",
		Host:                   "127.0.0.1",
		Port:                   server.RANDOM_PORT,
		JetStream:              true,
		StoreDir:               dir,
		NoLog:                  true,
		NoSigs:                 true,
		DisableJetStreamBanner: true,
	}
	switch {
	case p.token != "":
		so.Authorization = p.token
	case p.user != "":
		so.Username, so.Password = p.user, p.password
	}
	if sec := opts.Security; sec != nil {
		cfg, err := secure.ServerTLSConfig(sec)
		if err != nil {
			return fail(fmt.Errorf("nats: embedded server TLS: %w", err))
		}
		so.TLS, so.TLSVerify, so.TLSConfig, so.TLSTimeout = true, true, cfg, 5
	}
	if tweak != nil {
		tweak(so)
	}
	s, err := server.NewServer(so)
	if err != nil {
		return fail(fmt.Errorf("nats: embedded server: %w", err))
	}
	go s.Start()
	wait := embeddedStartTimeout
	if d, ok := ctx.Deadline(); ok {
		wait = time.Until(d)
	}
	if !s.ReadyForConnections(wait) {
		s.Shutdown()
		s.WaitForShutdown()
		return fail(errors.New("nats: the embedded server did not accept connections within " + wait.String()))
	}
	url := fmt.Sprintf("nats://%s", s.Addr())
	embedded.Store(url, true)
	return url, func() error {
		embedded.Delete(url)
		s.Shutdown()
		s.WaitForShutdown()
		return os.RemoveAll(dir)
	}, nil
}
