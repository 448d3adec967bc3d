package driver

import (
	"context"
	"time"

	"github.com/mqgate/mqgate/internal/clockoffset"
	"github.com/mqgate/mqgate/internal/meta"
)

// RoleRunner is implemented by systems whose distributed roles run in a
// helper process of their own, which times the messages itself (the Zenoh
// helper): the role then records what the helper measured.
type RoleRunner interface {
	RoleSystem
	// PrepareRole checks spec and finds the helper; start runs the role
	// until it is done or ctx is (the helper then writes what it
	// measured).
	PrepareRole(ctx context.Context, spec RoleSpec) (start func(ctx context.Context) (RoleRun, error), err error)
}

// RoleSpec is what a helper's role is asked to do: the role's settings.
type RoleSpec struct {
	Role        string // pub, sub, req or qry
	Endpoints   []string
	TopicPrefix string
	Reliable    bool
	Out         string // the helper's own files go here
	Timeout     time.Duration
	Duration    time.Duration
	Payload     int
	Rate        float64
	Publishers  int
	Topics      int
	Instance    int
	RunHash     uint32
	QPS         float64
	Concurrency int
	Replies     int
	ReplySize   int
	ProcDelay   time.Duration
	ProcJitter  time.Duration
	Seed        uint64
	ClockOffset bool // sub: probe every publisher host's clock
	ClockProbes int
	// Ready, when set, is called once the helper's role takes part (a sub
	// subscribed, a queryable serving).
	Ready func()
	// AggWindow (req), when positive, ends a query that long after its
	// first reply, with every reply that came by then.
	AggWindow time.Duration
	// OnWindow, when set, is called with what the role counted in each
	// Window while it runs, in order; the windows add up to the RoleRun's
	// counts.
	Window   time.Duration
	OnWindow func(RoleWindow)
}

// RoleWindow is what a helper's role counted in one window: Sent (pub
// messages, req queries, qry replies), Received (sub messages, req
// replies, qry queries), Bytes of what was received, Lost the change in
// sequence numbers missing (sub), Queries ended with Replies (req); and
// the latencies (sub one-way as measured, req time to first reply) and
// times to the last reply (req), ns.
type RoleWindow struct {
	Sent, Received, Errors, Timeouts, Bytes uint64
	Lost                                    int64
	Duplicates, OutOfOrder                  uint64
	Queries, Replies                        uint64
	Latencies, Lasts                        []int64
}

// RoleRun is what a helper's role measured.
type RoleRun struct {
	Helper      string // the helper's name in meta.json's modes, e.g. "mqgate-zenoh"
	Topic       string // the key or topic the helper used
	Completed   bool   // the helper ran to its end
	Interrupted bool   // ctx was done first
	Reason      string // why not completed
	System      meta.SystemInfo
	// Counts are the first payload's (a role measures one), Total the
	// sums of Sent, Received, Errors and Timeouts over every payload.
	Counts     RoleCounts
	Total      RoleCounts
	Publishers []RolePublisher
	// First holds the latencies (µs): one-way (sub, signed, as Arrivals)
	// or the time to the first reply (req); Last the time to the last.
	First, Last []float64
	SampleBytes int
	// Arrivals are a sub's one-way samples, row for row with First: the
	// publisher and receive − send (ns, signed: clocks differ).
	Arrivals []Arrival
	// Clock are the clock exchanges with each publisher host (by
	// instance), ClockErr why there are none.
	Clock    map[uint8][]clockoffset.Exchange
	ClockErr error
}

// RoleCounts are a helper's counts of its role's messages or queries.
type RoleCounts struct {
	Sent, Received, Lost, Duplicates, OutOfOrder, Timeouts, Errors, Skipped uint64
	Replies, RepliesMin, RepliesMax                                         uint64
	ResultBytes                                                             *uint64
}

// RolePublisher is what a helper's subscriber counted of one publisher.
type RolePublisher struct {
	ID                                     uint16
	Sent                                   *uint64
	Received, Lost, Duplicates, OutOfOrder uint64
}

// Arrival is one one-way sample of a helper's subscriber.
type Arrival struct {
	Publisher uint16
	Ns        int64
}
