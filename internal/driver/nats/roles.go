package nats

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// roleClient runs the roles over core NATS on the connection every end
// opens (connect, with the run's Options): publish/subscribe, and
// request/reply with an inbox per query, so that every responder's reply
// is seen (time to first and to last reply). Core NATS has one delivery
// guarantee (at most once); "reliable" is recorded but changes nothing on
// the wire, as in the nats_reliable round trips (which use JetStream).
type roleClient struct {
	*conn
	lost chan error
	// marked is nats.go's count of reconnects read before the previous
	// Confirm's mark: a Confirm fails when it moved since.
	marked atomic.Uint64
}

// SystemInfo describes the server.
func (c *roleClient) SystemInfo() meta.SystemInfo { return c.info() }

var (
	_ driver.Client    = (*roleClient)(nil)
	_ driver.Confirmer = (*roleClient)(nil)
)

// appliedFlags is the value of each of NATS's flags this connection was
// opened with, by flag name, as connect applied it (the connection's own
// options where nats.go keeps them, else the parsed value, defaults filled
// in; the URL and secrets left out): SystemInfo records it
// (driver.RecordApplied).
func (c *conn) appliedFlags() map[string]string {
	p := c.p
	return map[string]string{
		FlagUser:           p.user,
		FlagCreds:          p.creds,
		FlagNKey:           p.nkey,
		FlagStorage:        p.storage,
		FlagReplicas:       strconv.Itoa(p.replicas),
		FlagDoubleAck:      strconv.FormatBool(p.doubleAck),
		FlagPullBatch:      strconv.Itoa(p.pullBatch),
		FlagWriteBuffer:    strconv.Itoa(c.nc.Opts.WriteBufferSize),
		FlagConnectTimeout: c.nc.Opts.Timeout.String(),
	}
}

// DialClient connects a role to the NATS servers at endpoints (a pool;
// --nats-url when none) with the ends' Options: credentials, TLS and the
// connection settings of the flags.
func (Transport) DialClient(ctx context.Context, endpoints []string, opts driver.Options, timeout time.Duration) (driver.Client, error) {
	// A loaded host or server is slow to accept.
	opts = opts.WithDefault(FlagConnectTimeout, max(timeout, 10*time.Second).String())
	c, err := connect(ctx, strings.Join(endpoints, ","), opts, "role",
		// Unlike the engine's ends, a role reconnects: nats.go tries the
		// pool again up to 4 times, --timeout/4 (and a jitter) apart, so a
		// server away for about --timeout (longer when each dial waits
		// out the connect timeout) is lost and the role reports it (Lost)
		// instead of waiting on.
		func(o *natsgo.Options) error { o.AllowReconnect = true; return nil },
		natsgo.ReconnectWait(timeout/4),
		natsgo.MaxReconnects(4),
		natsgo.DisconnectErrHandler(func(*natsgo.Conn, error) {}),
		// A write to a host that went away would otherwise block until TCP
		// gives up (minutes).
		natsgo.FlusherTimeout(timeout),
		natsgo.PingInterval(max(timeout/2, time.Second)),
		natsgo.MaxPingsOutstanding(2),
	)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	b := &roleClient{conn: c, lost: make(chan error, 1)}
	go func() {
		<-c.closedCh
		b.lost <- fmt.Errorf("connection to %s closed: %v", c.redacted, c.nc.LastError())
	}()
	return b, nil
}

func (b *roleClient) Publish(topic string, msg []byte) error { return b.nc.Publish(topic, msg) }
func (b *roleClient) Flush(timeout time.Duration) error {
	return driver.Bounded(timeout, func() error { return b.nc.FlushTimeout(timeout) })
}
func (b *roleClient) Lost() <-chan error { return b.lost }

// Confirm calls mark, then flushes: the server's PONG says it has
// everything published before the PING (driver.Confirmer). A reconnect
// since the previous mark fails it, PONG or not: when the link breaks,
// nats.go drops what it had not yet written, and holds what is published
// while it reconnects (sent once it reconnects, dropped when it gives up),
// so the messages of that span may or may not have reached a server.
func (b *roleClient) Confirm(timeout time.Duration, mark func()) error {
	before := b.nc.Stats().Reconnects
	mark()
	prev := b.marked.Swap(before)
	if err := b.Flush(timeout); err != nil {
		return fmt.Errorf("the server did not confirm what was published: %w", err)
	}
	if n := b.nc.Stats().Reconnects; n != prev {
		return fmt.Errorf("the connection to %s broke and was made again: what was published before may not have reached the server", b.redacted)
	}
	return nil
}

// Separator joins the parts of a subject.
func (Transport) Separator() string { return "." }

// Wildcards are NATS's: * one token, > the rest.
func (Transport) Wildcards() string { return "*>" }

// Below is prefix and prefix.> (which does not match prefix itself).
func (Transport) Below(prefix string) []string { return []string{prefix, prefix + ".>"} }

// RoleUsage describes NATS in the roles' --help.
func (Transport) RoleUsage() driver.RoleUsage {
	return driver.RoleUsage{What: "core NATS publish/subscribe, request/reply", Endpoint: "nats://host:4222",
		EndpointNote: "a server pool", Reliability: "recorded only (core NATS has one guarantee)"}
}

func (b *roleClient) Subscribe(expr string, f func(string, []byte, time.Time)) (func() error, error) {
	return b.subscribe(expr, func(m *natsgo.Msg) { f(m.Subject, m.Data, time.Now()) })
}

func (b *roleClient) Serve(expr string, reply func([]byte, time.Time) [][]byte) (func() error, error) {
	return b.subscribe(expr, func(m *natsgo.Msg) {
		at := time.Now()
		if m.Reply == "" {
			return
		}
		// Each query gets its own goroutine, so that a processing delay
		// does not hold the next query back.
		go func() {
			for _, r := range reply(m.Data, at) {
				if err := b.nc.Publish(m.Reply, r); err != nil {
					return
				}
			}
		}()
	})
}

// subscribe calls h for every message on expr, without a limit on those
// waiting.
func (b *roleClient) subscribe(expr string, h natsgo.MsgHandler) (func() error, error) {
	sub, err := b.conn.subscribe(expr, -1, h)
	if err != nil {
		return nil, err
	}
	return sub.Unsubscribe, nil
}

func (b *roleClient) Query(ctx context.Context, key string, req []byte, f func([]byte, time.Time) bool) error {
	inbox := b.nc.NewRespInbox()
	deliver, done := driver.Replies(f)
	sub, err := b.nc.Subscribe(inbox, func(m *natsgo.Msg) {
		at := time.Now()
		if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
			return // no responders: the query times out
		}
		deliver(m.Data, at)
	})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	if err := b.nc.PublishRequest(key, inbox, req); err != nil {
		return err
	}
	return driver.AwaitReplies(ctx, done)
}

// Close closes the connection, waiting at most a few seconds for a
// connection whose far end went away.
func (b *roleClient) Close() error {
	return driver.Bounded(5*time.Second, b.conn.Close)
}
