package amqp

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/meta"
)

// HandshakeTimeout bounds the TCP, TLS and AMQP handshakes of a connection
// when the caller's context has no deadline.
const HandshakeTimeout = 30 * time.Second

// closeTimeout bounds the connection.close handshake of Close.
const closeTimeout = 5 * time.Second

// address is what Listen, Dial, Subscribe and Publish are given: a broker
// URL and, in its fragment, the queue of the far end (URL#QUEUE, as
// returned by Echoer.Addr and Subscriber.Addr).
type address struct {
	broker string // the URL without its fragment, as amqp091 dials it
	queue  string // the fragment, unescaped; empty when there is none
}

// parseAddress splits addr and applies the scheme rules: a secure end
// dials amqps://, switching an amqp:// URL to amqps:// on the TLS port; a
// plain end refuses amqps:// so that a sub-experiment is never measured
// over TLS under a plain name.
func parseAddress(addr string, s *settings) (address, error) {
	addr = cmp.Or(addr, DefaultURL)
	u, err := url.Parse(addr)
	if err != nil {
		return address{}, fmt.Errorf("amqp: %q is not a URL: expected amqp://USER:PASSWORD@HOST:PORT/VHOST", redact(addr))
	}
	a := address{queue: u.Fragment}
	u.Fragment, u.RawFragment = "", ""
	switch {
	case u.Scheme == "amqp" && s.security != nil:
		u.Scheme = "amqps"
		u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(s.tlsPort))
	case u.Scheme == "amqps" && s.security == nil:
		return address{}, fmt.Errorf("amqp: %s is a TLS URL but this sub-experiment is not a _security one: give an amqp:// URL (the _security sub-experiments switch to amqps:// on --%s)", driver.RedactURL(u.String()), FlagTLSPort)
	case u.Scheme != "amqp" && u.Scheme != "amqps":
		return address{}, fmt.Errorf("amqp: %s: expected an amqp:// or amqps:// URL", driver.RedactURL(u.String()))
	}
	a.broker = u.String()
	if _, err := amqp091.ParseURI(a.broker); err != nil {
		return address{}, fmt.Errorf("amqp: %s: %v", driver.RedactURL(a.broker), err)
	}
	return a, nil
}

// redact is driver.RedactURL, also for strings net/url cannot parse.
func redact(raw string) string {
	if _, err := url.Parse(raw); err == nil {
		return driver.RedactURL(raw)
	}
	_, rest, ok := strings.Cut(raw, "://")
	at := strings.LastIndex(rest, "@")
	if !ok || at < 0 {
		return raw
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return raw
	}
	return raw[:len(raw)-len(rest)] + user + ":xxxxx" + rest[at:]
}

// withQueue returns the address of a far end consuming from queue.
func withQueue(broker, queue string) string {
	u, err := url.Parse(broker)
	if err != nil {
		return broker + "#" + url.PathEscape(queue)
	}
	u.Fragment = queue
	return u.String()
}

// link is one AMQP connection with one channel, as in RabbitMQ's own
// throughput tool: every end publishes on one link and consumes on
// another, so that publishing never waits behind deliveries (RabbitMQ
// applies flow control per connection).
type link struct {
	conn *amqp091.Connection
	ch   *amqp091.Channel
	s    *settings
	url  string // redacted, for messages
	role string // e.g. "pinger publishing", for messages

	connClosed chan *amqp091.Error
	chClosed   chan *amqp091.Error

	mu  sync.Mutex
	err error // why the link broke, once known
}

// dial opens a connection and a channel to a.broker within ctx.
func dial(ctx context.Context, a address, s *settings, role string) (*link, error) {
	redacted := driver.RedactURL(a.broker)
	cfg := connConfig(s, role)
	dialURL, tc, err := dialTLS(a, s)
	if err != nil {
		return nil, fmt.Errorf("amqp: %s: %w", redacted, err)
	}
	dl := &dialer{ctx: ctx, tc: tc}
	cfg.Dial = dl.dial
	conn, err := amqp091.DialConfig(dialURL, cfg)
	dl.mu.Lock()
	if dl.stop != nil {
		dl.stop()
	}
	dl.mu.Unlock()
	if err != nil {
		if dl.raw != nil {
			dl.raw.Close()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		if dl.sc != nil {
			return nil, dl.sc.refusal(err, redacted, s.security)
		}
		return nil, dialError(err, redacted, s.security)
	}
	l := &link{conn: conn, s: s, url: redacted, role: role}
	l.connClosed = conn.NotifyClose(make(chan *amqp091.Error, 1))
	if l.ch, err = conn.Channel(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("amqp: opening a channel on %s: %w", redacted, err)
	}
	l.chClosed = l.ch.NotifyClose(make(chan *amqp091.Error, 1))
	return l, nil
}

// connConfig is the AMQP configuration of a connection for role.
func connConfig(s *settings, role string) amqp091.Config {
	cfg := amqp091.Config{
		FrameSize:  s.frameMax,
		Heartbeat:  s.heartbeat,
		Locale:     "en_US",
		Properties: amqp091.NewConnectionProperties(),
	}
	// The name shows in rabbitmqctl list_connections and the management
	// UI: which end, which role, which run's topic.
	name := "mqgate " + role
	if s.topic != "" {
		name += " " + s.topic
	}
	cfg.Properties.SetClientConnectionName(name)
	return cfg
}

// dialTLS is the URL amqp091 dials and, with --tls settings, the TLS
// configuration the dialer's handshake uses (tc nil without).
func dialTLS(a address, s *settings) (dialURL string, tc *tls.Config, err error) {
	if s.security == nil {
		return a.broker, nil, nil
	}
	u, _ := url.Parse(a.broker)
	// RabbitMQ offers TLS 1.3 only when configured to; 1.2 is its default.
	if tc, err = secure.ClientTLSConfig(s.security, u.Host, tls.VersionTLS12); err != nil {
		return "", nil, err
	}
	// The TLS handshake is done here (cfg.Dial) rather than by
	// amqp091, so that a refusal the broker sends after it is read.
	u.Scheme = "amqp"
	return u.String(), tc, nil
}

// dialer is amqp091's Dial for one connection within ctx, over TLS when tc
// is set. It keeps the socket (raw) and the TLS connection over it (sc), so
// that a failed dial can close the one and ask the other why the broker
// refused; stop ends closing the socket when ctx is done.
type dialer struct {
	ctx context.Context
	tc  *tls.Config

	mu   sync.Mutex
	stop func() bool
	raw  net.Conn
	sc   *tlsConn
}

func (dl *dialer) dial(network, addr string) (net.Conn, error) {
	ctx := dl.ctx
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(HandshakeTimeout)
	}
	// amqp091 clears the deadline once the AMQP handshake is done.
	c.SetDeadline(deadline)
	dl.mu.Lock()
	dl.raw = c
	dl.stop = context.AfterFunc(ctx, func() { c.Close() })
	dl.mu.Unlock()
	if dl.tc == nil {
		return c, nil
	}
	t := tls.Client(c, dl.tc)
	if err := t.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	dl.mu.Lock()
	dl.sc = &tlsConn{Conn: t, readErr: make(chan error, 1)}
	dl.mu.Unlock()
	return dl.sc, nil
}

// dialError explains why a connection could not be opened. It names the
// URL without its password.
func dialError(err error, url string, sec *driver.Security) error {
	var ae *amqp091.Error
	if errors.As(err, &ae) {
		switch {
		case ae == amqp091.ErrVhost || ae.Code == amqp091.NotAllowed:
			return fmt.Errorf("amqp: %s refused the virtual host (NOT_ALLOWED): check that it exists and that the user may use it: %s", url, ae.Reason)
		case ae.Code == amqp091.AccessRefused:
			return fmt.Errorf("amqp: %s refused the login (ACCESS_REFUSED): check the user name and password in the URL: %s", url, ae.Reason)
		}
		return fmt.Errorf("amqp: connecting to %s: %w", url, err)
	}
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	switch {
	case errors.As(err, &uae):
		return fmt.Errorf("amqp: TLS handshake with %s: the broker's certificate is not signed by the CA in %s: %w", url, sec.CAFile, err)
	case errors.As(err, &hne):
		return fmt.Errorf("amqp: TLS handshake with %s: the broker's certificate is not valid for this host (--server-name sets the name expected): %w", url, err)
	case errors.As(err, &cie):
		return fmt.Errorf("amqp: TLS handshake with %s: invalid certificate: %w", url, err)
	}
	var re tls.AlertError
	if sec != nil && (errors.As(err, &re) || strings.Contains(err.Error(), "tls:")) {
		return fmt.Errorf("amqp: TLS handshake with %s (broker verified against %s): %w", url, sec.CAFile, err)
	}
	return fmt.Errorf("amqp: cannot connect to RabbitMQ at %s: %w", url, err)
}

// tlsConn is a client TLS connection whose handshake succeeded. It keeps
// the first read error: in TLS 1.3 the broker verifies the client's
// certificate after the client has finished its handshake, and a refusal
// arrives as an alert on the first read, while amqp091 may report only the
// write of its protocol header failing.
type tlsConn struct {
	*tls.Conn
	once    sync.Once
	readErr chan error
}

func (c *tlsConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.once.Do(func() { c.readErr <- err })
	}
	return n, err
}

// refusal explains an AMQP handshake that failed after the TLS handshake
// succeeded, from the broker's alert when it sent one.
func (c *tlsConn) refusal(err error, url string, sec *driver.Security) error {
	var ae *amqp091.Error
	if errors.As(err, &ae) && ae.Server {
		return dialError(err, url, sec)
	}
	c.Conn.Close() // the reader goroutine's Read returns now, if not before
	var rerr error
	select {
	case rerr = <-c.readErr:
	case <-time.After(closeTimeout):
	}
	switch {
	case rerr != nil && strings.Contains(rerr.Error(), "certificate required"):
		return fmt.Errorf("amqp: %s requires a client certificate (--cert and --key): %w", url, rerr)
	case rerr != nil && strings.Contains(rerr.Error(), "remote error: tls:"):
		return fmt.Errorf("amqp: %s refused the client certificate %s (is it signed by the CA the broker trusts?): %w", url, sec.CertFile, rerr)
	}
	return fmt.Errorf("amqp: %s closed the connection right after the TLS handshake (does it require a client certificate signed by the CA it trusts? --cert, --key): %w", url, err)
}

// failed returns why the link broke, or nil while it works. It does not
// block.
func (l *link) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	select {
	case e, ok := <-l.connClosed:
		l.err = l.brokenErr("connection", e, ok)
	case e, ok := <-l.chClosed:
		l.err = l.brokenErr("channel", e, ok)
	default:
	}
	return l.err
}

// reasonWait bounds how long opErr waits for the reason a link broke.
const reasonWait = time.Second

// opErr explains a failed operation on the link (an acknowledgement, a
// publish), preferring the reason the link broke. A broker that closes a
// connection (CONNECTION_FORCED, an administrator's close_connection) sends
// its reason just before closing the socket, and a write can fail on that
// socket ("connection reset by peer") before the library has read the
// reason and sent it to the close notifications: opErr waits up to
// reasonWait for one, the operation having failed for good anyway.
func (l *link) opErr(what string, err error) error {
	if ferr := l.failed(); ferr != nil {
		return ferr
	}
	t := time.NewTimer(reasonWait)
	defer t.Stop()
	select {
	case e, ok := <-l.connClosed:
		return l.broke("connection", e, ok)
	case e, ok := <-l.chClosed:
		return l.broke("channel", e, ok)
	case <-t.C:
	}
	if ferr := l.failed(); ferr != nil {
		return ferr
	}
	return fmt.Errorf("amqp: %s on %s: %w", what, l.url, err)
}

// broke records and returns the error of a close notification received
// by a select elsewhere.
func (l *link) broke(what string, e *amqp091.Error, ok bool) error {
	return l.fail(l.brokenErr(what, e, ok))
}

// fail records err as why the link broke, unless it already broke, and
// returns the reason recorded.
func (l *link) fail(err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
	return l.err
}

func (l *link) brokenErr(what string, e *amqp091.Error, ok bool) error {
	if !ok || e == nil {
		return fmt.Errorf("amqp: the %s %s to %s is closed: %w", l.role, what, l.url, driver.ErrClosed)
	}
	switch {
	case e.Server:
		return fmt.Errorf("amqp: the %s %s to %s was closed by the broker: %w", l.role, what, l.url, e)
	case socketLost(e.Reason):
		// The client library reports its own failed read or write, and
		// drops any reason the broker sent just before it closed the
		// socket (a publish racing with a close-ok does that).
		return fmt.Errorf("amqp: the %s %s to %s was cut by the broker or the network: %w", l.role, what, l.url, e)
	}
	return fmt.Errorf("amqp: the %s %s to %s was closed by the client library: %w", l.role, what, l.url, e)
}

// socketLost says whether a client library error's reason is the socket
// failing under it.
func socketLost(reason string) bool {
	return slices.ContainsFunc([]string{"connection reset by peer", "broken pipe", "EOF"}, func(s string) bool { return strings.Contains(reason, s) })
}

// close closes the connection (and so its channel), waiting at most
// closeTimeout for the broker's close-ok.
func (l *link) close() error {
	if l.conn.IsClosed() {
		return nil
	}
	err := l.conn.CloseDeadline(time.Now().Add(closeTimeout))
	if errors.Is(err, amqp091.ErrClosed) {
		return nil
	}
	return err
}

// info describes the broker the link reached, for meta.json.
func (l *link) info() meta.SystemInfo { return l.infoTx(txCount{}) }

// infoTx is info with the transactions a publisher committed so far.
func (l *link) infoTx(tx txCount) meta.SystemInfo {
	s := l.s
	p := l.conn.Properties
	str := func(k string) string {
		switch v := p[k].(type) {
		case string:
			return v
		case []byte:
			return string(v)
		}
		return ""
	}
	si := meta.SystemInfo{Product: str("product"), Version: str("version"), URL: l.url, Extra: map[string]string{
		"protocol":  "AMQP 0-9-1",
		"frame_max": strconv.Itoa(l.conn.Config.FrameSize),
		"heartbeat": l.conn.Config.Heartbeat.String(),
		"mode":      s.mode(tx),
	}}
	for _, k := range []string{"cluster_name", "platform"} {
		if v := str(k); v != "" {
			si.Extra[k] = v
		}
	}
	if s.security != nil {
		si.Extra["tls"] = tls.VersionName(l.conn.ConnectionState().Version)
	}
	if s.exchange != "" {
		si.Extra["exchange"] = s.exchange
	}
	driver.RecordApplied(si.Extra, l.appliedFlags())
	if s.mandatory {
		si.Extra["mandatory"] = "true"
	}
	si.Extra["queues"] = "transient"
	if s.durable {
		si.Extra["queues"] = "durable"
	}
	return si
}
