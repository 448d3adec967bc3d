package roles

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Backend is a messaging system the Go roles run over: publish,
// subscribe, serve queries and query. Each role opens its own.
type Backend interface {
	// Name is the sub-experiment scope, e.g. "nats".
	Name() string
	// Publish sends msg on topic.
	Publish(topic string, msg []byte) error
	// Flush waits until what was published reached the system, within
	// timeout.
	Flush(timeout time.Duration) error
	// Subscribe calls f for every message on expr (the system's wildcard
	// syntax) with the time it arrived (this host's clock, read first in
	// the client's delivery callback).
	Subscribe(expr string, f func(topic string, msg []byte, at time.Time)) (unsubscribe func() error, err error)
	// Serve answers every query on expr: reply returns the replies to
	// send (each is sent as it is returned). One goroutine per query.
	Serve(expr string, reply func(req []byte, at time.Time) [][]byte) (stop func() error, err error)
	// Query sends req on key and calls f for every reply until ctx is
	// done; f returns false to stop waiting.
	Query(ctx context.Context, key string, req []byte, f func(rep []byte, at time.Time) bool) error
	// Join builds a topic from parts with the system's separator.
	Join(parts ...string) string
	// Wildcard is the expression matching everything below prefix.
	Wildcard(prefix string) string
	// Info describes what was reached, for meta.json.
	Info() (product, version, url string)
	// Lost delivers an error once the connection to the system is lost
	// for good.
	Lost() <-chan error
	Close() error
}

// Dialer opens a backend at the endpoints given.
type Dialer func(ctx context.Context, endpoints []string, reliable bool, timeout time.Duration) (Backend, error)

var dialers = map[string]Dialer{}

// RegisterBackend makes a backend available to --driver name.
func RegisterBackend(name string, d Dialer) { dialers[name] = d }

// Backends lists the registered backend names, sorted.
func Backends() []string {
	var out []string
	for n := range dialers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Open opens the backend named.
func Open(ctx context.Context, name string, endpoints []string, reliable bool, timeout time.Duration) (Backend, error) {
	d, ok := dialers[name]
	if !ok {
		return nil, fmt.Errorf("--driver %q: expected one of %s", name, strings.Join(append(Backends(), "zenoh"), ", "))
	}
	return d(ctx, endpoints, reliable, timeout)
}
