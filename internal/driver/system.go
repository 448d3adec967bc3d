package driver

import (
	"context"
	"net/url"
)

// Flag is a command-line setting a driver owns. The run command turns each
// into a flag named Name with environment variable EnvVar, and passes its
// value to the driver in Options.Params[Name]. Drivers declare flags as
// plain data so that they do not depend on a command-line library.
type Flag struct {
	Name    string // e.g. "amqp-prefetch"; prefixed by the driver's name
	Usage   string
	Default string
	EnvVar  string // e.g. "MQGATE_AMQP_URL"; empty for none
	// Secret values (passwords) are not recorded in meta.json.
	Secret bool
}

// FlagOwner is implemented by transports with settings of their own.
type FlagOwner interface {
	Flags() []Flag
}

// SystemInfo describes the system a link reached, for meta.json.
type SystemInfo struct {
	// Product and Version of the server or library, as it reported them
	// (AMQP server properties, NATS INFO, MQTT has none: the client
	// library).
	Product string `json:"product,omitempty"`
	Version string `json:"version,omitempty"`
	// URL the link connected to, without credentials (RedactURL).
	URL string `json:"url,omitempty"`
	// Embedded is true when the broker ran inside this process
	// (--broker embedded).
	Embedded bool `json:"embedded,omitempty"`
	// Extra holds further facts (cluster name, protocol version).
	Extra map[string]string `json:"extra,omitempty"`
}

// InfoReporter is implemented by pingers, publishers and subscribers that
// can say what they connected to.
type InfoReporter interface {
	SystemInfo() SystemInfo
}

// Embedder is implemented by transports whose broker can run inside this
// process on a free loopback port, so that runs and tests need no installed
// service (--broker embedded).
type Embedder interface {
	// StartEmbedded starts the broker and returns the URL to reach it and a
	// function that stops it. opts.Security, when set, makes the broker
	// serve TLS with that certificate and require clients to verify it.
	StartEmbedded(ctx context.Context, opts Options) (url string, stop func() error, err error)
}

// RedactURL returns raw without its password (user names are kept), or raw
// unchanged when it is not a URL.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
