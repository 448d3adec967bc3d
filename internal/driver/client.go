package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// PubSub is the publish/subscribe capability of a Client.
type PubSub interface {
	// Publish sends msg on topic.
	Publish(topic string, msg []byte) error
	// Flush waits until what was published reached the system, within
	// timeout.
	Flush(timeout time.Duration) error
	// Subscribe calls f for every message on expr (the system's wildcard
	// syntax) with the time it arrived (this host's clock, read first in
	// the client's delivery callback).
	Subscribe(expr string, f func(topic string, msg []byte, at time.Time)) (unsubscribe func() error, err error)
}

// RequestReply is the request/reply capability of a Client.
type RequestReply interface {
	// Serve answers every query on expr: reply returns the replies to
	// send (each is sent as it is returned). One goroutine per query.
	Serve(expr string, reply func(req []byte, at time.Time) [][]byte) (stop func() error, err error)
	// Query sends req on key and calls f for every reply until ctx is
	// done; f returns false to stop waiting.
	Query(ctx context.Context, key string, req []byte, f func(rep []byte, at time.Time) bool) error
}

// Client is one connection of a distributed role (run pub|sub|req|qry) to
// a messaging system: publish, subscribe, serve queries and query. It is
// the system's one client, the one its Publisher and Subscriber are made
// of, opened from the same Options.
type Client interface {
	PubSub
	RequestReply
	// SystemInfo describes what was reached and how the client is set up,
	// for meta.json: what the system's Publisher reports with the same
	// Options.
	InfoReporter
	// Lost delivers an error once the connection to the system is lost
	// for good.
	Lost() <-chan error
	Close() error
}

// Confirmer is implemented by a Client that can tell which of the
// messages it published reached the system (a NATS server's PONG after
// them): the roles' pub counts as sent only what was confirmed, the rest
// apart, since a client may hold messages it then drops when its link
// breaks.
type Confirmer interface {
	// Confirm calls mark, then waits within timeout until what was
	// published before mark reached the system: nil when all that was
	// published since the previous call's mark (since the client
	// connected, at the first call) did, an error when some of it may not
	// have (the link broke in between, even if it was made again).
	Confirm(timeout time.Duration, mark func()) error
}

// ClientDialer is implemented by systems whose distributed roles run in
// this process, through a Client made by the same constructors as the
// system's Publisher and Subscriber, with the system's topic rules.
type ClientDialer interface {
	StreamTransport
	RoleSystem
	// DialClient connects to the system at endpoints (Options.Params'
	// URL flag, else its default, when none) with opts, the Options the
	// engine's ends take: opts.Reliable selects its acknowledged mode,
	// opts.Security TLS, opts.Params its flags. timeout bounds the
	// detection of a lost link where no flag the user gave sets it.
	DialClient(ctx context.Context, endpoints []string, opts Options, timeout time.Duration) (Client, error)
	// Wildcards are the characters that make an expression match several
	// topics, e.g. "*>" in NATS.
	Wildcards() string
	// Below is the expressions matching prefix and everything below it:
	// one when the system's wildcard matches its prefix too, else prefix
	// and its wildcard.
	Below(prefix string) []string
}

// RoleSystem is implemented by transports the distributed roles (run
// pub|sub|req|qry) run over: through a Client (ClientDialer) or a helper
// of their own.
type RoleSystem interface {
	// Separator joins the parts of a topic, e.g. "." or "/": the roles
	// build <prefix>.data.<i> with it.
	Separator() string
	// RoleUsage describes the system in the roles' --help.
	RoleUsage() RoleUsage
}

// RoleUsage is how a system describes itself in the roles' --help.
type RoleUsage struct {
	What         string // --driver, e.g. "core NATS publish/subscribe, request/reply"
	Endpoint     string // --endpoint's example, e.g. "nats://host:4222"
	EndpointNote string // what several --endpoint mean, e.g. "a server pool"
	Reliability  string // what --reliability selects
}

// DialFirst connects to the first of endpoints that accepts, in order: a
// broker and its standbys; with none, to dial("") (the system's URL flag
// or its default). It stops at the first error once ctx is done.
func DialFirst(ctx context.Context, endpoints []string, dial func(raw string) (Client, error)) (Client, error) {
	if len(endpoints) == 0 {
		endpoints = []string{""}
	}
	var errs []error
	for _, raw := range endpoints {
		c, err := dial(raw)
		if err == nil || ctx.Err() != nil {
			return c, err
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// Replies wraps a Query's f for the client's delivery callback, which
// may run on several goroutines: done is closed once f returns false, and
// f is not called after that.
func Replies(f func(rep []byte, at time.Time) bool) (deliver func(rep []byte, at time.Time), done <-chan struct{}) {
	ch := make(chan struct{})
	var mu sync.Mutex
	return func(rep []byte, at time.Time) {
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-ch:
			return // f had enough
		default:
		}
		if !f(rep, at) {
			close(ch)
		}
	}, ch
}

// AwaitReplies waits until done is closed (the query's replies are all
// in) or ctx is: its deadline ends the query without an error, its
// cancellation with ctx.Err().
func AwaitReplies(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil
		}
		return ctx.Err()
	}
}

// Bounded runs f and waits for it at most d (and a second): a client call
// stuck on a dead link must not hold a role past its timeouts.
func Bounded(d time.Duration, f func() error) error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(d + time.Second):
		return fmt.Errorf("no answer within %v: the link is down", d)
	}
}
