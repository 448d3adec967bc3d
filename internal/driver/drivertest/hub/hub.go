package hub

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/secure"
	"github.com/mqgate/mqgate/internal/meta"
)

// Frame operations (see the package documentation).
const (
	hubHello  = 'H'
	hubOK     = 'K'
	hubError  = 'E'
	hubSub    = 'S'
	hubPub    = 'P'
	hubPubAck = 'Q'
	hubMsg    = 'M'
	hubAck    = 'A'
)

// Name is the hub transport's registry name.
const Name = "hub"

// MaxMessage is the largest message the hub carries.
const MaxMessage = 1 << 20

// Hub flags (driver.Flag names).
const (
	URLFlag      = "hub-url"
	PasswordFlag = "hub-password" // used when the URL carries no password
	TagFlag      = "hub-tag"      // recorded, to test that params reach meta.json
)

var registerOnce sync.Once

// Register registers the hub transport and its scenarios
// (hub_best_effort, hub_reliable, hub_reliable_security). It may be called
// any number of times.
func Register() {
	registerOnce.Do(func() {
		driver.Register(Transport{})
		for _, s := range []driver.Scenario{
			{Type: "hub_best_effort", Transport: Name, Interprocess: true},
			{Type: "hub_reliable", Transport: Name, Reliable: true, Interprocess: true},
			{Type: "hub_reliable_security", Transport: Name, Reliable: true, Security: true, Interprocess: true},
		} {
			driver.RegisterScenario(s)
		}
	})
}

// Hub is a running hub.
type Hub struct {
	srv      driver.Server[*hubConn]
	user     string
	password string

	mu   sync.Mutex
	subs map[string]map[*hubConn]struct{}

	published atomic.Uint64
}

// Start starts a hub on a free loopback port that accepts user and
// password (both empty: anyone), serving TLS when sec is non-nil.
func Start(user, password string, sec *driver.Security) (*Hub, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if sec != nil {
		cfg, err := secure.ServerTLSConfig(sec)
		if err != nil {
			l.Close()
			return nil, err
		}
		l = tls.NewListener(l, cfg)
	}
	h := &Hub{srv: driver.Server[*hubConn]{L: l}, user: user, password: password, subs: map[string]map[*hubConn]struct{}{}}
	h.srv.Go(func(c net.Conn) (*hubConn, bool) { return &hubConn{c: c, w: bufio.NewWriter(c)}, true }, h.serve)
	return h, nil
}

// URL returns the URL clients connect to, with the credentials.
func (h *Hub) URL() string {
	u := url.URL{Scheme: "hub", Host: h.srv.Addr()}
	if h.tls() {
		u.Scheme = "hubs"
	}
	if h.user != "" {
		u.User = url.UserPassword(h.user, h.password)
	}
	return u.String()
}

func (h *Hub) tls() bool {
	_, plain := h.srv.L.(*net.TCPListener)
	return !plain
}

// Published is the number of messages published so far.
func (h *Hub) Published() uint64 { return h.published.Load() }

// Close stops the hub and drops every connection, as a broker that dies.
func (h *Hub) Close() error {
	err := h.srv.Close()
	h.srv.Wait()
	return err
}

// hubConn is one client connection, on either side.
type hubConn struct {
	c  net.Conn
	mu sync.Mutex // serialises writes
	w  *bufio.Writer
}

func (c *hubConn) Close() error { return c.c.Close() }

func (c *hubConn) write(op byte, topic string, body []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var hdr [6]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(2+len(topic)+len(body)))
	hdr[4], hdr[5] = op, byte(len(topic))
	c.w.Write(hdr[:])
	c.w.WriteString(topic)
	c.w.Write(body)
	return c.w.Flush()
}

// readFrame reads one frame into buf (grown as needed).
func readFrame(r *bufio.Reader, buf []byte) (op byte, topic string, body []byte, err error) {
	var hdr [6]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, "", nil, err
	}
	n := int(binary.BigEndian.Uint32(hdr[:4]))
	tl := int(hdr[5])
	if n < 2+tl || n > MaxMessage+300 {
		return 0, "", nil, fmt.Errorf("hub: malformed frame of %d bytes", n)
	}
	if cap(buf) < n-2 {
		buf = make([]byte, n-2)
	}
	buf = buf[:n-2]
	if _, err := io.ReadFull(r, buf); err != nil {
		return 0, "", nil, err
	}
	return hdr[4], string(buf[:tl]), buf[tl:], nil
}

func (h *Hub) serve(_ net.Conn, c *hubConn) {
	defer func() {
		h.mu.Lock()
		for _, s := range h.subs {
			delete(s, c)
		}
		h.mu.Unlock()
	}()
	r := bufio.NewReader(c.c)
	op, _, body, err := readFrame(r, nil)
	if err != nil || op != hubHello {
		return
	}
	if h.user != "" && string(body) != h.user+":"+h.password {
		c.write(hubError, "", []byte("authentication failed: wrong user name or password"))
		return
	}
	if c.write(hubOK, "", nil) != nil {
		return
	}
	buf := make([]byte, 4096)
	for {
		op, topic, body, err := readFrame(r, buf)
		if err != nil {
			return
		}
		if cap(body) > cap(buf) {
			buf = body[:0:cap(body)]
		}
		switch op {
		case hubSub:
			h.mu.Lock()
			if h.subs[topic] == nil {
				h.subs[topic] = map[*hubConn]struct{}{}
			}
			h.subs[topic][c] = struct{}{}
			h.mu.Unlock()
			if c.write(hubOK, topic, nil) != nil {
				return
			}
		case hubPub, hubPubAck:
			h.published.Add(1)
			h.mu.Lock()
			var to []*hubConn
			for s := range h.subs[topic] {
				to = append(to, s)
			}
			h.mu.Unlock()
			for _, s := range to {
				s.write(hubMsg, topic, body)
			}
			if op == hubPubAck && c.write(hubAck, topic, nil) != nil {
				return
			}
		default:
			return
		}
	}
}

// Transport is the hub's driver: a round trip is a pinger publishing to
// Topic+".ping" and subscribed to Topic+".pong", and an echoer doing the
// reverse; a reliable pinger asks for acknowledgements.
type Transport struct{}

var (
	_ driver.StreamTransport = Transport{}
	_ driver.FlagOwner       = Transport{}
	_ driver.Embedder        = Transport{}
	_ driver.SizeLimiter     = Transport{}
	_ driver.Pinger          = (*hubClient)(nil)
	_ driver.AckSender       = (*hubClient)(nil)
	_ driver.InfoReporter    = (*hubClient)(nil)
	_ driver.Echoer          = (*hubEchoer)(nil)
	_ driver.Subscriber      = (*hubClient)(nil)
)

// Name returns Name.
func (Transport) Name() string { return Name }

// Capabilities: a broker reached at hub:// and hubs:// (TLS) URLs, whose
// echo applies Options.EchoDelay.
func (Transport) Capabilities() driver.Capabilities {
	return driver.Capabilities{Broker: true, Schemes: []string{"hub", "hubs"}, EchoDelay: true}
}

// Flags declares the hub's URL, a secret password and a tag.
func (Transport) Flags() []driver.Flag {
	return []driver.Flag{
		{Name: URLFlag, Usage: "hub URL", EnvVar: driver.URLEnv(Name)},
		{Name: PasswordFlag, Usage: "hub password, when the URL has none", Secret: true},
		{Name: TagFlag, Usage: "a tag recorded in meta.json", Default: "none"},
	}
}

// MessageLimit returns MaxMessage.
func (Transport) MessageLimit(driver.Options) int { return MaxMessage }

// StartEmbedded starts a hub with a random password.
func (Transport) StartEmbedded(_ context.Context, opts driver.Options) (string, func() error, error) {
	var b [8]byte
	rand.Read(b[:])
	h, err := Start("mqgate", hex.EncodeToString(b[:]), opts.Security)
	if err != nil {
		return "", nil, err
	}
	return h.URL(), h.Close, nil
}

// Listen connects an echoer to the hub at addr.
func (t Transport) Listen(ctx context.Context, addr string, opts driver.Options) (driver.Echoer, error) {
	c, err := dialSubscribed(ctx, addr, opts, opts.Topic+".ping")
	if err != nil {
		return nil, err
	}
	return &hubEchoer{c: c, topic: opts.Topic + ".pong", delay: opts.EchoDelay.NewDelayer()}, nil
}

// Dial connects a pinger to the hub at addr.
func (t Transport) Dial(ctx context.Context, addr string, opts driver.Options) (driver.Pinger, error) {
	c, err := dialSubscribed(ctx, addr, opts, opts.Topic+".pong")
	if err != nil {
		return nil, err
	}
	c.pubTopic = opts.Topic + ".ping"
	return c.role(), nil
}

// role returns c as it is on a reliable link, or without AckSender on a
// best-effort one: a sender implements AckSender only when its system
// acknowledges.
func (h *hubClient) role() interface {
	driver.Pinger
	driver.Subscriber
	driver.InfoReporter
} {
	if h.reliable {
		return h
	}
	return unacked{h}
}

// unacked is a client of a best-effort link.
type unacked struct{ c *hubClient }

func (u unacked) Send(msg []byte) error { return u.c.Send(msg) }
func (u unacked) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return u.c.Receive(buf, deadline)
}
func (u unacked) Close() error                { return u.c.Close() }
func (u unacked) Addr() string                { return u.c.Addr() }
func (u unacked) SystemInfo() meta.SystemInfo { return u.c.SystemInfo() }

// Subscribe connects a subscriber of opts.Topic.
func (t Transport) Subscribe(ctx context.Context, addr string, opts driver.Options) (driver.Subscriber, error) {
	c, err := dialSubscribed(ctx, addr, opts, opts.Topic)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// dialSubscribed connects to the hub at addr and subscribes to topic.
func dialSubscribed(ctx context.Context, addr string, opts driver.Options, topic string) (*hubClient, error) {
	c, err := dialHub(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	if err := c.subscribe(topic); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Publish connects a publisher to opts.Topic.
func (t Transport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	c, err := dialHub(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	c.pubTopic = opts.Topic
	return c.role(), nil
}

type hubMessage struct {
	body []byte
	at   time.Time
}

// hubClient is a connection to the hub: pinger, publisher or subscriber.
type hubClient struct {
	hc       *hubConn
	url      string
	pubTopic string
	reliable bool

	msgs    chan hubMessage
	control chan error // answers to hello and subscribe
	done    chan struct{}
	readErr error // valid once done is closed
	once    sync.Once

	onAck   func(error)
	ackMu   sync.Mutex
	ackCond *sync.Cond
	sent    uint64
	acked   uint64
}

func dialHub(ctx context.Context, addr string, opts driver.Options) (*hubClient, error) {
	u, err := url.Parse(addr)
	if err != nil || (u.Scheme != "hub" && u.Scheme != "hubs") || u.Host == "" {
		return nil, fmt.Errorf("hub: %q is not a hub:// or hubs:// URL", addr)
	}
	d := &net.Dialer{}
	dial := d.DialContext
	if u.Scheme == "hubs" {
		cfg, err := secure.ClientTLSConfig(opts.Security, u.Host, tls.VersionTLS13)
		if err != nil {
			return nil, fmt.Errorf("hub: %w", err)
		}
		dial = (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext
	} else if opts.Security != nil {
		return nil, fmt.Errorf("hub: a secure link needs a hubs:// URL, not %s", driver.RedactURL(addr))
	}
	c, err := dial(ctx, "tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("hub: cannot connect to %s: %w", driver.RedactURL(addr), err)
	}
	h := &hubClient{hc: &hubConn{c: c, w: bufio.NewWriter(c)}, url: addr, reliable: opts.Reliable,
		msgs: make(chan hubMessage, 1024), control: make(chan error, 1), done: make(chan struct{})}
	h.ackCond = sync.NewCond(&h.ackMu)
	go h.read()
	user, pass := "", opts.Params[PasswordFlag]
	if u.User != nil {
		user = u.User.Username()
		if p, ok := u.User.Password(); ok {
			pass = p
		}
	}
	if err := h.hc.write(hubHello, "", []byte(user+":"+pass)); err != nil {
		h.Close()
		return nil, fmt.Errorf("hub: %w", err)
	}
	if err := h.await(ctx); err != nil {
		h.Close()
		return nil, fmt.Errorf("hub %s: %w", driver.RedactURL(addr), err)
	}
	return h, nil
}

// await waits for the answer to a hello or a subscribe.
func (h *hubClient) await(ctx context.Context) error {
	select {
	case err := <-h.control:
		return err
	case <-h.done:
		select {
		case err := <-h.control: // the answer came just before the hub closed
			return err
		default:
		}
		return fmt.Errorf("connection lost: %v", h.readErr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *hubClient) read() {
	defer close(h.done)
	defer h.ackCond.Broadcast()
	r := bufio.NewReader(h.hc.c)
	for {
		op, _, body, err := readFrame(r, nil)
		at := time.Now()
		if err != nil {
			h.readErr = err
			return
		}
		switch op {
		case hubOK:
			h.control <- nil
		case hubError:
			h.control <- errors.New(string(body))
		case hubMsg:
			select {
			case h.msgs <- hubMessage{body: body, at: at}:
			default: // a full queue drops, as a slow consumer's broker would
			}
		case hubAck:
			h.ackMu.Lock()
			f := h.onAck
			h.ackMu.Unlock()
			if f != nil {
				f(nil)
			}
			// Counted after the callback returned, so that WaitAcks
			// returns after it did and its caller's count is complete.
			h.ackMu.Lock()
			h.acked++
			h.ackCond.Broadcast()
			h.ackMu.Unlock()
		}
	}
}

func (h *hubClient) subscribe(topic string) error {
	if err := h.hc.write(hubSub, topic, nil); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	if err := h.await(context.Background()); err != nil {
		return fmt.Errorf("hub: subscribe %s: %w", topic, err)
	}
	return nil
}

// Send publishes msg, asking for an acknowledgement on a reliable link.
func (h *hubClient) Send(msg []byte) error {
	op := byte(hubPub)
	if h.reliable {
		op = hubPubAck
		h.ackMu.Lock()
		h.sent++
		h.ackMu.Unlock()
	}
	if err := h.hc.write(op, h.pubTopic, msg); err != nil {
		return fmt.Errorf("hub: publish: %w", err)
	}
	return nil
}

// OnAck implements driver.AckSender.
func (h *hubClient) OnAck(f func(error)) {
	h.ackMu.Lock()
	h.onAck = f
	h.ackMu.Unlock()
}

// WaitAcks implements driver.AckSender.
func (h *hubClient) WaitAcks(deadline time.Time) error {
	wake := time.AfterFunc(time.Until(deadline), func() {
		h.ackMu.Lock()
		h.ackCond.Broadcast()
		h.ackMu.Unlock()
	})
	defer wake.Stop()
	h.ackMu.Lock()
	defer h.ackMu.Unlock()
	for h.acked < h.sent {
		select {
		case <-h.done:
			return fmt.Errorf("hub: connection lost with %d messages unacknowledged: %v", h.sent-h.acked, h.readErr)
		default:
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("hub: %d messages unacknowledged: %w", h.sent-h.acked, driver.ErrTimeout)
		}
		h.ackCond.Wait()
	}
	return nil
}

// Receive returns the next message delivered.
func (h *hubClient) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case m := <-h.msgs:
		if len(m.body) > len(buf) {
			return 0, m.at, fmt.Errorf("hub: a %d-byte message does not fit in %d bytes", len(m.body), len(buf))
		}
		return copy(buf, m.body), m.at, nil
	case <-h.done:
		select {
		case m := <-h.msgs:
			return copy(buf, m.body), m.at, nil
		default:
		}
		return 0, time.Time{}, fmt.Errorf("hub: connection to %s lost: %w", driver.RedactURL(h.url), driver.ErrClosed)
	case <-timeout:
		return 0, time.Time{}, fmt.Errorf("hub: %w", driver.ErrTimeout)
	}
}

// Addr returns the hub URL (a subscriber's publishers go through the hub).
func (h *hubClient) Addr() string { return h.url }

// SystemInfo implements driver.InfoReporter.
func (h *hubClient) SystemInfo() meta.SystemInfo {
	return meta.SystemInfo{Product: "mqgate test hub", Version: "1", URL: driver.RedactURL(h.url)}
}

// Close closes the connection.
func (h *hubClient) Close() error {
	h.once.Do(func() { h.hc.c.Close() })
	return nil
}

// hubEchoer republishes every ping to the pong topic.
type hubEchoer struct {
	c      *hubClient
	delay  *driver.Delayer // nil: reply at once
	topic  string
	closed atomic.Bool
}

func (e *hubEchoer) Addr() string { return e.c.url }

func (e *hubEchoer) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { e.c.Close() })
	defer stop()
	for {
		select {
		case m := <-e.c.msgs:
			e.delay.Wait()
			if err := e.c.hc.write(hubPub, e.topic, m.body); err != nil {
				if ctx.Err() != nil || e.closed.Load() {
					return nil
				}
				return fmt.Errorf("hub echo: %w", err)
			}
		case <-e.c.done:
			if ctx.Err() != nil || e.closed.Load() {
				return nil
			}
			return fmt.Errorf("hub echo: connection to %s lost: %v", driver.RedactURL(e.c.url), e.c.readErr)
		}
	}
}

func (e *hubEchoer) Close() error {
	e.closed.Store(true)
	return e.c.Close()
}
