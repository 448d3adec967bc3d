package nats

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/meta"
)

// conn is one end's connection to the server.
type conn struct {
	nc       *natsgo.Conn
	url      string // as given, the one server or pool it dials; Addr gives it to the other ends
	redacted string // for messages and meta.json
	role     string // "pinger", "echo", "publisher", "subscriber"
	p        params
	tls      bool
	depth    int    // Options.QueueDepth: a core subscription's queue, 0 for nats.go's
	group    string // Options.Group: the queue group of a core subscription
	sysinfo  meta.SystemInfo

	closing  atomic.Bool   // Close was called: a closed link is no failure
	closedCh chan struct{} // closed when the connection is closed
	dialErr  atomic.Pointer[error]
	errs     atomic.Uint64 // asynchronous errors counted (slow consumers aside)
}

// embedded holds the URLs of servers started by StartEmbedded in this
// process, so that SystemInfo can say so.
var embedded sync.Map

// ctxDialer dials the server within the set-up context and remembers why
// a dial failed: nats.go only reports "no servers available". Once
// connected (open), a dial is a reconnect of the roles' client, made when
// the set-up context is long over: it gets a context of its own, bounded
// by timeout.
type ctxDialer struct {
	ctx       context.Context
	timeout   time.Duration
	connected atomic.Bool
	c         *conn
	d         net.Dialer
}

func (d *ctxDialer) Dial(network, address string) (net.Conn, error) {
	ctx := d.ctx
	if d.connected.Load() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), d.timeout)
		defer cancel()
	}
	nc, err := d.d.DialContext(ctx, network, address)
	if err != nil {
		d.c.dialErr.Store(&err)
	}
	return nc, err
}

// connect opens role's connection to the server at addr (the URL; empty
// means --nats-url). It never reconnects (NoReconnect), so that an engine's
// end whose link broke stops the measurement with an error instead of
// silently measuring a new link. extra follow the options of opts: the
// roles' client alone passes some, which let it reconnect (DialClient).
func connect(ctx context.Context, addr string, opts driver.Options, role string, extra ...natsgo.Option) (*conn, error) {
	p, err := parseParams(opts.Params)
	if err != nil {
		return nil, err
	}
	addr = cmp.Or(addr, p.url)
	c := &conn{url: addr, redacted: redact(addr), role: role, p: p, depth: opts.QueueDepth, group: opts.Group, closedCh: make(chan struct{})}
	if _, err := url.Parse(addr); err != nil || !strings.Contains(addr, "://") {
		if !validHostPort(addr) {
			return nil, fmt.Errorf("nats: %q is not a NATS server URL (want nats://host:port or tls://host:port)", c.redacted)
		}
	}
	o := []natsgo.Option{
		natsgo.NoReconnect(),
		natsgo.WriteBufferSize(p.writeBuffer),
		// Every subject an end publishes to was checked once (topicOf):
		// nats.go would scan it again at every message.
		natsgo.SkipSubjectValidation(),
		natsgo.ErrorHandler(func(_ *natsgo.Conn, _ *natsgo.Subscription, err error) {
			if errors.Is(err, natsgo.ErrSlowConsumer) {
				return // the subscription counts what it dropped
			}
			c.errs.Add(1)
		}),
	}
	switch {
	case p.token != "":
		o = append(o, natsgo.Token(p.token))
	case p.user != "":
		o = append(o, natsgo.UserInfo(p.user, p.password))
	}
	if p.creds != "" {
		o = append(o, natsgo.UserCredentials(p.creds))
	}
	if p.nkey != "" {
		opt, err := natsgo.NkeyOptionFromSeed(p.nkey)
		if err != nil {
			return nil, fmt.Errorf("nats: --%s %s: %w", FlagNKey, p.nkey, err)
		}
		o = append(o, opt)
	}
	if c.depth > 0 {
		o = append(o, natsgo.SyncQueueLen(c.depth))
	}
	if opts.Security != nil {
		cfg, err := clientTLS(opts.Security, addr)
		if err != nil {
			return nil, err
		}
		o = append(o, natsgo.Secure(cfg))
		c.tls = true
	}
	if err := c.open(ctx, p.connectTimeout, append(o, extra...)...); err != nil {
		return nil, c.connectErr(err, opts.Security)
	}
	c.sysinfo = c.readInfo()
	return c, nil
}

// open connects to c.url (a server or a pool, comma-separated) within
// timeout and ctx, with the options every connection has and then o.
func (c *conn) open(ctx context.Context, timeout time.Duration, o ...natsgo.Option) error {
	connectCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := &ctxDialer{ctx: connectCtx, timeout: timeout, c: c}
	nc, err := natsgo.Connect(c.url, append([]natsgo.Option{
		natsgo.Name("mqgate " + c.role),
		natsgo.Timeout(timeout),
		natsgo.SetCustomDialer(d),
		natsgo.ClosedHandler(func(*natsgo.Conn) { close(c.closedCh) }),
	}, o...)...)
	d.connected.Store(true)
	c.nc = nc
	return err
}

// validHostPort accepts the host:port form nats.go also takes.
func validHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	_, err = strconv.Atoi(port)
	return err == nil
}

// clientTLS verifies the server's certificate against sec.CAFile and
// presents sec's certificate when it has one.
func clientTLS(sec *driver.Security, addr string) (*tls.Config, error) {
	if sec.CAFile == "" {
		return nil, errors.New("nats: a secure link needs a CA file to verify the server against")
	}
	hostport := addr
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		hostport = u.Host
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		hostport = net.JoinHostPort(hostport, "4222")
	}
	// nats-server negotiates TLS 1.2 or 1.3; both verify the server.
	cfg, err := secure.ClientTLSConfig(sec, hostport, tls.VersionTLS12)
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	return cfg, nil
}

// connectErr explains why connecting failed, naming the URL without its
// password.
func (c *conn) connectErr(err error, sec *driver.Security) error {
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	switch {
	case errors.Is(err, natsgo.ErrAuthorization), errors.Is(err, natsgo.ErrAuthExpired),
		errors.Is(err, natsgo.ErrAuthRevoked), strings.Contains(strings.ToLower(err.Error()), "authorization violation"):
		what := "refused this client's credentials"
		if u, perr := url.Parse(c.url); c.p.user == "" && c.p.token == "" && c.p.creds == "" && c.p.nkey == "" && (perr != nil || u.User == nil) {
			what = "requires credentials"
		}
		return fmt.Errorf("nats: %s %s (%v): give --%s and --%s, --%s, --%s or --%s, or put them in the URL",
			c.redacted, what, err, FlagUser, FlagPassword, FlagToken, FlagCreds, FlagNKey)
	case errors.Is(err, natsgo.ErrSecureConnRequired), sec == nil && (errors.As(err, &uae) || errors.As(err, &hne)):
		// nats.go upgrades to TLS by itself when the server requires it,
		// and then fails to verify the server against the system's CAs.
		return fmt.Errorf("nats: %s requires TLS: use a nats_*_security sub-experiment, with the CA that signed the server's certificate (%v)", c.redacted, err)
	case errors.Is(err, natsgo.ErrSecureConnWanted):
		return fmt.Errorf("nats: %s does not offer TLS, which a nats_*_security sub-experiment needs", c.redacted)
	case errors.As(err, &uae):
		return fmt.Errorf("nats: TLS handshake with %s: the server's certificate is not signed by the CA in %s: %w", c.redacted, sec.CAFile, err)
	case errors.As(err, &hne):
		return fmt.Errorf("nats: TLS handshake with %s: the server's certificate is not valid for this host name: %w", c.redacted, err)
	case sec != nil && !errors.Is(err, natsgo.ErrNoServers):
		return fmt.Errorf("nats: TLS handshake with %s (server verified against %s): %w", c.redacted, sec.CAFile, err)
	case errors.Is(err, natsgo.ErrNoServers):
		if dp := c.dialErr.Load(); dp != nil {
			return fmt.Errorf("nats: cannot connect to %s: %w (is nats-server running there?)", c.redacted, *dp)
		}
		return fmt.Errorf("nats: cannot connect to %s: %w", c.redacted, err)
	}
	return fmt.Errorf("nats: connecting to %s: %w", c.redacted, err)
}

// lost explains a connection that closed without Close: the server went
// away or cut this client off (for the roles' client, once its attempts to
// reconnect failed).
func (c *conn) lost() error {
	if c.closing.Load() {
		return fmt.Errorf("nats: %s: %w", c.role, driver.ErrClosed)
	}
	cause := "closed by the server"
	if err := c.nc.LastError(); err != nil {
		cause = err.Error()
	}
	return fmt.Errorf("nats: %s's connection to %s lost (%s): %w", c.role, c.redacted, cause, driver.ErrClosed)
}

// linkErr turns an error of nats.go on an established link into the
// driver's terms: ErrClosed when the connection is gone.
func (c *conn) linkErr(what string, err error) error {
	if c.closing.Load() || c.nc.IsClosed() || errors.Is(err, natsgo.ErrConnectionClosed) {
		return c.lost()
	}
	return fmt.Errorf("nats: %s %s: %w", c.role, what, err)
}

// Close closes the connection once; a closed connection is no error. A
// blocked Receive then returns driver.ErrClosed, and an echo's Serve nil.
func (c *conn) Close() error {
	if c.closing.Swap(true) {
		return nil
	}
	c.nc.Close()
	return nil
}

// maxPayload is the largest message the server accepts.
func (c *conn) maxPayload() int {
	if n := c.nc.MaxPayload(); n > 0 {
		return int(n)
	}
	return DefaultMaxPayload
}

// checkSize refuses a run whose messages the server would refuse.
func (c *conn) checkSize(opts driver.Options) error {
	if opts.LargestMessage > c.maxPayload() {
		c.Close()
		return fmt.Errorf("nats: the run sends messages of up to %d bytes, but %s accepts at most %d (its max_payload)",
			opts.LargestMessage, c.redacted, c.maxPayload())
	}
	return nil
}

// publish publishes msg on subject (core NATS).
func (c *conn) publish(subject string, msg []byte) error {
	if err := c.nc.Publish(subject, msg); err != nil {
		return c.sendErr(subject, len(msg), err)
	}
	return nil
}

// sendErr explains a refused publish.
func (c *conn) sendErr(subject string, n int, err error) error {
	if errors.Is(err, natsgo.ErrMaxPayload) {
		return fmt.Errorf("nats: a %d-byte message exceeds the max_payload (%d bytes) of %s", n, c.maxPayload(), c.redacted)
	}
	return c.linkErr("publishing to "+subject, err)
}

// stopped is what an echo's Serve returns for err: nil once ctx is done or
// the end is closing (its link failing is then expected), else err.
func (c *conn) stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil || c.closing.Load() {
		return nil
	}
	return err
}

// info describes the server this end is connected to, as it was when
// it connected (a connection never moves to another server).
func (c *conn) info() meta.SystemInfo {
	si := c.sysinfo
	si.Extra = maps.Clone(si.Extra)
	return si
}

func (c *conn) readInfo() meta.SystemInfo {
	nc := c.nc
	si := meta.SystemInfo{
		Product: "nats-server",
		Version: nc.ConnectedServerVersion(),
		URL:     c.redacted,
		Extra: map[string]string{
			"server_name": nc.ConnectedServerName(),
			"server_id":   nc.ConnectedServerId(),
			"max_payload": strconv.Itoa(c.maxPayload()),
			"client":      "nats.go " + natsgo.Version,
			"tls":         strconv.FormatBool(c.tls),
		},
	}
	js, _ := nc.ConnectedServerJetStream()
	si.Extra["jetstream"] = strconv.FormatBool(js)
	if cl := nc.ConnectedClusterName(); cl != "" {
		si.Extra["cluster"] = cl
	}
	if _, ok := embedded.Load(c.url); ok {
		si.Embedded = true
	}
	driver.RecordApplied(si.Extra, c.appliedFlags())
	return si
}

// redact removes the password from raw, and a token given in the user
// position (nats://TOKEN@host), which nats.go sends as a token.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return driver.RedactURL(raw)
	}
	if _, has := u.User.Password(); !has {
		u.User = url.User("xxxxx")
		return u.String()
	}
	return driver.RedactURL(raw)
}

// timeoutErr is what a Receive returns when its deadline passed.
func timeoutErr(subject string) error {
	return fmt.Errorf("nats: nothing on %s before the deadline: %w", subject, driver.ErrTimeout)
}

// waitFor is how long to wait until deadline (the zero time: indefinitely,
// in slices of a day); never less than a nanosecond, so that a passed
// deadline still takes a message that is already there.
func waitFor(deadline time.Time) time.Duration {
	if deadline.IsZero() {
		return 24 * time.Hour
	}
	return max(time.Until(deadline), time.Nanosecond)
}
