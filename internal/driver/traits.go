package driver

import (
	"fmt"
	"net/url"
	"strings"
)

// SizeLimiter is implemented by transports that carry messages up to a
// size: the run command refuses a larger payload before it creates
// anything, naming the limit.
type SizeLimiter interface {
	// MessageLimit is the largest message, in bytes, a link opened with
	// opts carries (for a broker, its default limit: NATS max_payload,
	// RabbitMQ max_message_size).
	MessageLimit(opts Options) int
}

// Grouper is implemented by broker transports whose subscribers can
// compete for a topic's messages (Options.Group): a queue group, a shared
// subscription, one queue with several consumers.
type Grouper interface {
	// CanGroup returns nil when subscribers opened with opts honour
	// Options.Group, else why they cannot.
	CanGroup(opts Options) error
}

// CanGroup returns nil when t's subscribers opened with opts honour
// Options.Group, else why they cannot.
func CanGroup(t Transport, opts Options) error {
	if g, ok := t.(Grouper); ok {
		return g.CanGroup(opts)
	}
	return fmt.Errorf("%s cannot share a topic's messages among subscribers: it has no queue groups, shared subscriptions or competing consumers", t.Name())
}

// URLFlag is the name of the flag a broker transport (Capabilities.Broker)
// declares (FlagOwner) for its broker URL: "<transport>-url", e.g. "nats-url".
func URLFlag(transport string) string { return transport + "-url" }

// URLEnv is the environment variable of the URL flag: MQGATE_<TRANSPORT>_URL.
func URLEnv(transport string) string { return EnvName(transport + "-url") }

// EnvName is the environment variable a flag without one of its own is
// read from: MQGATE_ followed by the flag name in upper case with "-" as
// "_" (e.g. "nats-qos" → MQGATE_NATS_QOS).
func EnvName(flag string) string {
	return "MQGATE_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// FlagsOf returns the flags t declares, or nil.
func FlagsOf(t Transport) []Flag {
	if fo, ok := t.(FlagOwner); ok {
		return fo.Flags()
	}
	return nil
}

// ForScheme returns the registered broker transport that accepts URLs with
// scheme, or an error listing the schemes available.
func ForScheme(scheme string) (Transport, error) {
	var all []string
	for _, n := range Names() {
		t, _ := Lookup(n)
		for _, s := range SchemesOf(t) {
			if s == scheme {
				return t, nil
			}
			all = append(all, s+"://")
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no broker transport is registered for %s:// URLs", scheme)
	}
	return nil, fmt.Errorf("no registered transport takes %s:// URLs (available: %s)", scheme, strings.Join(all, ", "))
}

// MessageLimitOf returns the largest message t carries with opts, or 0
// when t declares no limit.
func MessageLimitOf(t Transport, opts Options) int {
	if l, ok := t.(SizeLimiter); ok {
		return l.MessageLimit(opts)
	}
	return 0
}

// URLScheme returns the scheme of addr when it is a URL ("scheme://…"),
// else "".
func URLScheme(addr string) string {
	scheme, rest, ok := strings.Cut(addr, "://")
	if !ok || scheme == "" || rest == "" {
		return ""
	}
	u, err := url.Parse(addr)
	if err != nil || u.Scheme == "" {
		return ""
	}
	return strings.ToLower(u.Scheme)
}
