package driver

import (
	"context"
	"net/url"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// Flag is a command-line setting a driver owns. The run command turns each
// into a flag named Name with environment variable EnvVar, and passes its
// value to the driver in Options.Params[Name]. Drivers declare flags as
// plain data so that they do not depend on a command-line library.
type Flag struct {
	Name string // e.g. "amqp-prefetch"; prefixed by the driver's name
	// Aliases are other names of the flag (a method's own spelling).
	Aliases []string
	Usage   string
	Default string
	EnvVar  string // e.g. "MQGATE_AMQP_URL"; empty for none
	// Secret values (passwords) are not recorded in meta.json.
	Secret bool
	// Range, for a flag holding a number or a duration, is its valid
	// range: run states it in --help and refuses a value outside it, or
	// one that does not parse, before anything starts. The driver reads
	// the value through ParseParams, which checks it the same way.
	Range Range
	// Boolean flags hold true or false (strconv.ParseBool), which
	// ParseParams checks.
	Boolean bool
}

// RangeKind is what a numeric Flag holds.
type RangeKind int

// The kinds of Range: a text flag has none.
const (
	NotNumeric RangeKind = iota
	// WholeNumber values are decimal integers (strconv.Atoi).
	WholeNumber
	// DurationValue values are durations (time.ParseDuration); the bounds
	// are in nanoseconds.
	DurationValue
)

// Range is the valid range of a numeric Flag, Min to Max.
type Range struct {
	Kind     RangeKind
	Min, Max int64
}

// IntRange accepts the whole numbers lo to hi.
func IntRange(lo, hi int64) Range { return Range{Kind: WholeNumber, Min: lo, Max: hi} }

// DurationRange accepts the durations lo to hi.
func DurationRange(lo, hi time.Duration) Range {
	return Range{Kind: DurationValue, Min: int64(lo), Max: int64(hi)}
}

// FlagOwner is implemented by transports with settings of their own.
type FlagOwner interface {
	Flags() []Flag
}

// InfoReporter is implemented by pingers, publishers and subscribers that
// can say what they connected to: the system measured, which meta.json
// records through Recorded.
type InfoReporter interface {
	SystemInfo() meta.SystemInfo
}

// Recorded is info as meta.json records it: its URL without credentials
// (RedactURL), and Embedded also when the broker ran inside this process
// although the driver could not tell (embedded, --broker embedded). Extra
// is info's map, not a copy.
func Recorded(info meta.SystemInfo, embedded bool) *meta.SystemInfo {
	info.URL = RedactURL(info.URL)
	info.Embedded = info.Embedded || embedded
	return &info
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

// RecordApplied records in extra (a SystemInfo's Extra) the value of each
// of a system's flags as its connection applied it, under "--<flag>":
// the ends and the roles' client of one system report alike for the same
// Options, which the roles' tests check (one client per system), and
// meta.json shows what was measured. Secrets are left out by the caller.
func RecordApplied(extra, applied map[string]string) {
	for k, v := range applied {
		extra["--"+k] = v
	}
}
