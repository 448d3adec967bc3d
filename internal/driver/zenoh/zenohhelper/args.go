package zenohhelper

import (
	"strconv"
	"strings"
	"time"
)

// Session modes.
const (
	ModePeer   = "peer"
	ModeClient = "client"
	ModeRouter = "router"
)

// Common are the settings every role takes (the helper's README lists them).
// The zero value is a best-effort peer with the helper's defaults.
type Common struct {
	Mode       string   // ModePeer (default), ModeClient or ModeRouter
	Connect    []string // endpoints to connect to, e.g. tcp/127.0.0.1:7447
	Listen     []string // endpoints to listen on, e.g. tcp/127.0.0.1:0
	ConfigFile string   // a Zenoh JSON5 configuration applied first
	// MaxLinks is transport/unicast/max_links: 2 lets reliable messages
	// take a TCP link and best-effort ones a UDP link between two nodes.
	MaxLinks int
	Key      string // key expression prefix; default mqgate/bench
	// Reliable selects Reliability::Reliable with CongestionControl::Block,
	// otherwise Reliability::BestEffort with CongestionControl::Drop.
	Reliable bool
	// CongestionControl overrides the congestion control: "drop" or "block".
	CongestionControl string
	NoExpress         bool   // let Zenoh batch (express off)
	Out               string // output directory
	// Lease is the lease the node announces to the far end of each link
	// (transport/link/tx/lease; zero: Zenoh's 10 s): the far end closes the
	// link when nothing arrived from it within the lease.
	Lease time.Duration
	// Window, when positive, makes pub, sub, query and queryable print a
	// `window …` line of their counts every Window (ParseWindow).
	Window time.Duration
}

func (c Common) args() []string {
	a := opt(nil, "--mode", c.Mode != "", c.Mode)
	for _, e := range c.Connect {
		a = append(a, "--connect", e)
	}
	for _, e := range c.Listen {
		a = append(a, "--listen", e)
	}
	a = opt(a, "--config", c.ConfigFile != "", c.ConfigFile)
	a = opt(a, "--max-links", c.MaxLinks > 0, strconv.Itoa(c.MaxLinks))
	a = opt(a, "--key", c.Key != "", c.Key)
	rel := "best-effort"
	if c.Reliable {
		rel = "reliable"
	}
	a = append(a, "--reliability", rel)
	a = opt(a, "--congestion-control", c.CongestionControl != "", c.CongestionControl)
	a = flag(a, "--no-express", c.NoExpress)
	a = opt(a, "--out", c.Out != "", c.Out)
	a = opt(a, "--window", c.Window > 0, secs(c.Window))
	return opt(a, "--lease", c.Lease > 0, secs(c.Lease))
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

func ints(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// opt appends flag and value when the value is set (non-zero).
func opt(a []string, flag string, set bool, value string) []string {
	if set {
		return append(a, flag, value)
	}
	return a
}

// flag appends a flag without a value when it is set.
func flag(a []string, name string, set bool) []string {
	if set {
		return append(a, name)
	}
	return a
}

// Ping is the measuring end of closed-loop round trips.
type Ping struct {
	Common
	Payloads    []int         // sizes in bytes, ≥ 16
	Samples     int           // measured round trips per payload
	Warmup      int           // discarded round trips per payload
	Timeout     time.Duration // per round trip; a later echo is lost
	WaitPeer    time.Duration // for the pong's first answer
	MaxTimeouts int           // consecutive timeouts that end the run
	RTT         bool          // write whole round trips instead of halves
}

// Args returns the helper's command line for p.
func (p Ping) Args() []string {
	a := append([]string{"ping"}, p.Common.args()...)
	a = opt(a, "--payloads", len(p.Payloads) > 0, ints(p.Payloads))
	a = opt(a, "--samples", p.Samples > 0, strconv.Itoa(p.Samples))
	a = append(a, "--warmup", strconv.Itoa(p.Warmup))
	a = opt(a, "--timeout", p.Timeout > 0, secs(p.Timeout))
	a = opt(a, "--wait-peer", p.WaitPeer > 0, secs(p.WaitPeer))
	a = opt(a, "--max-timeouts", p.MaxTimeouts > 0, strconv.Itoa(p.MaxTimeouts))
	return opt(a, "--latency", p.RTT, "rtt")
}

// Serve are the settings of the serving roles pong and router.
type Serve struct {
	Common
	Duration time.Duration // zero: until stopped
}

// PongArgs returns the command line of a pong.
func PongArgs(s Serve) []string { return s.args("pong") }

// RouterArgs returns the command line of a router (the mode is forced to
// router).
func RouterArgs(s Serve) []string { return s.args("router") }

func (s Serve) args(role string) []string {
	a := append([]string{role}, s.Common.args()...)
	return opt(a, "--duration", s.Duration > 0, secs(s.Duration))
}

// Pub is a set of open-loop publishers.
type Pub struct {
	Common
	Payloads   []int
	Rate       float64       // messages per second per publisher
	Publishers int           // each with its own schedule
	Topics     int           // publisher i publishes on <key>/data/<i mod topics>
	Duration   time.Duration // measured, per payload
	Warmup     time.Duration // per payload
	RunID      *uint32
	WaitPeer   time.Duration // for a subscriber to match
	SpinUs     *int          // microseconds spun before each slot
	IDBase     int           // publisher ids are IDBase + i
	// ClockKey, when set, makes the publishers' process answer clock
	// probes (Clock) there, until ClockLinger (nil: the helper's 2 s) after
	// the last message.
	ClockKey    string
	ClockLinger *time.Duration
}

// Args returns the helper's command line for p.
func (p Pub) Args() []string {
	a := append([]string{"pub"}, p.Common.args()...)
	a = opt(a, "--payloads", len(p.Payloads) > 0, ints(p.Payloads))
	a = opt(a, "--rate", p.Rate > 0, strconv.FormatFloat(p.Rate, 'f', -1, 64))
	a = opt(a, "--publishers", p.Publishers > 0, strconv.Itoa(p.Publishers))
	a = opt(a, "--topics", p.Topics > 0, strconv.Itoa(p.Topics))
	a = opt(a, "--duration", p.Duration > 0, secs(p.Duration))
	a = append(a, "--warmup", secs(p.Warmup))
	if p.RunID != nil {
		a = append(a, "--run-id", strconv.FormatUint(uint64(*p.RunID), 10))
	}
	a = opt(a, "--wait-peer", p.WaitPeer > 0, secs(p.WaitPeer))
	if p.SpinUs != nil {
		a = append(a, "--spin-us", strconv.Itoa(*p.SpinUs))
	}
	a = opt(a, "--id-base", p.IDBase > 0, strconv.Itoa(p.IDBase))
	a = opt(a, "--clock-key", p.ClockKey != "", p.ClockKey)
	if p.ClockLinger != nil {
		a = append(a, "--clock-linger", secs(*p.ClockLinger))
	}
	return a
}

// Sub is a subscriber that times publications one way.
type Sub struct {
	Common
	Publishers int           // expected; the run completes when each ended
	Timeout    time.Duration // silence, after the first message, that ends the run
	WaitPeer   time.Duration // for the first message
	RunID      *uint32       // ignore messages of other runs
	// Arrivals also writes ArrivalsFile: each sample's publisher and signed
	// one-way latency.
	Arrivals bool
}

// Args returns the helper's command line for s.
func (s Sub) Args() []string {
	a := append([]string{"sub"}, s.Common.args()...)
	a = opt(a, "--publishers", s.Publishers > 0, strconv.Itoa(s.Publishers))
	a = opt(a, "--timeout", s.Timeout > 0, secs(s.Timeout))
	a = opt(a, "--wait-peer", s.WaitPeer > 0, secs(s.WaitPeer))
	if s.RunID != nil {
		a = append(a, "--run-id", strconv.FormatUint(uint64(*s.RunID), 10))
	}
	return flag(a, "--arrivals", s.Arrivals)
}

// Clock probes the clocks of the publishers answering at Common.Key (their
// Pub.ClockKey) and writes ClockFile.
type Clock struct {
	Common
	Probes   int           // exchanges wanted per publisher host (helper default 32)
	Interval time.Duration // between probes (default 5 ms)
	Timeout  time.Duration // a probe's wait for replies (default 1 s)
	Duration time.Duration // zero: until stopped
}

// Args returns the helper's command line for c.
func (c Clock) Args() []string {
	a := append([]string{"clock"}, c.Common.args()...)
	a = opt(a, "--probes", c.Probes > 0, strconv.Itoa(c.Probes))
	a = opt(a, "--interval", c.Interval > 0, secs(c.Interval))
	a = opt(a, "--timeout", c.Timeout > 0, secs(c.Timeout))
	return opt(a, "--duration", c.Duration > 0, secs(c.Duration))
}

// Query targets.
const (
	TargetBestMatching = "best-matching"
	TargetAll          = "all"
	TargetAllComplete  = "all-complete"
)

// Query is the measuring end of get/queryable round trips.
type Query struct {
	Common
	Payloads    []int
	Samples     int
	Warmup      int
	Replies     int           // expected per query; fewer count as a timeout
	Timeout     time.Duration // Zenoh's query timeout
	Target      string        // TargetBestMatching (default), TargetAll, TargetAllComplete
	WaitPeer    time.Duration
	MaxTimeouts int
	// Rate, when positive, sends the queries open loop at this many per
	// second, at most Concurrency (helper default 8) in flight; a slot that
	// finds them all in flight is skipped and counted. Zero: closed loop.
	Rate        float64
	Concurrency int
	// ResultBytes counts the payload bytes of the replies (result_bytes in
	// summary.json).
	ResultBytes bool
	// AggWindow, when positive, ends an open-loop query this long after its
	// first reply with every reply that came by then, past Replies.
	AggWindow time.Duration
}

// Args returns the helper's command line for q.
func (q Query) Args() []string {
	a := append([]string{"query"}, q.Common.args()...)
	a = opt(a, "--payloads", len(q.Payloads) > 0, ints(q.Payloads))
	a = opt(a, "--samples", q.Samples > 0, strconv.Itoa(q.Samples))
	a = append(a, "--warmup", strconv.Itoa(q.Warmup))
	a = opt(a, "--replies", q.Replies > 0, strconv.Itoa(q.Replies))
	a = opt(a, "--timeout", q.Timeout > 0, secs(q.Timeout))
	a = opt(a, "--target", q.Target != "", q.Target)
	a = opt(a, "--wait-peer", q.WaitPeer > 0, secs(q.WaitPeer))
	a = opt(a, "--max-timeouts", q.MaxTimeouts > 0, strconv.Itoa(q.MaxTimeouts))
	a = opt(a, "--rate", q.Rate > 0, strconv.FormatFloat(q.Rate, 'f', -1, 64))
	a = opt(a, "--concurrency", q.Concurrency > 0, strconv.Itoa(q.Concurrency))
	a = flag(a, "--result-bytes", q.ResultBytes)
	return opt(a, "--agg-window", q.AggWindow > 0, secs(q.AggWindow))
}

// Queryable replies to queries.
type Queryable struct {
	Common
	Replies  int // per query, each echoing the query's payload
	Duration time.Duration
	// ReplySize, when set, makes each reply that many bytes: the query's
	// header, then the filler.
	ReplySize *int
	// ProcDelay ± ProcJitter (uniform, seeded by Seed) is waited from a
	// query's arrival before each reply.
	ProcDelay, ProcJitter time.Duration
	Seed                  uint64
}

// Args returns the helper's command line for q.
func (q Queryable) Args() []string {
	a := append([]string{"queryable"}, q.Common.args()...)
	a = opt(a, "--replies", q.Replies > 0, strconv.Itoa(q.Replies))
	a = opt(a, "--duration", q.Duration > 0, secs(q.Duration))
	if q.ReplySize != nil {
		a = append(a, "--reply-size", strconv.Itoa(*q.ReplySize))
	}
	a = opt(a, "--proc-delay", q.ProcDelay > 0, secs(q.ProcDelay))
	a = opt(a, "--proc-jitter", q.ProcJitter > 0, secs(q.ProcJitter))
	return opt(a, "--seed", q.Seed > 0, strconv.FormatUint(q.Seed, 10))
}
