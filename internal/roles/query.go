package roles

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// QryReport is a qry (queryable) role's report.
type QryReport struct {
	reportHead
	// ServePrefix is the first of ServePrefixes, as reports named the one
	// prefix before it was repeatable.
	ServePrefix   string   `json:"serve_prefix"`
	ServePrefixes []string `json:"serve_prefixes"`
	ReplySize     int      `json:"reply_size"`
	ProcDelayNs   int64    `json:"proc_delay_ns"`
	ProcJitter    int64    `json:"proc_jitter_ns"`
	Queries       uint64   `json:"queries"`
	Replies       uint64   `json:"replies"`
	reportEnd
}

// RunQry answers every query on each --serve-prefix (and below it) with
// --replies replies of --reply-size bytes, each after --proc-delay (±
// its jitter, uniform, seeded by --seed), until --duration passed or it is
// stopped.
func RunQry(ctx context.Context, s Settings, b Backend, met *Metrics) Outcome {
	rep := QryReport{reportHead: s.head(RoleQry),
		ServePrefix: s.ServePrefixes[0], ServePrefixes: s.ServePrefixes, ReplySize: s.ReplySize, ProcDelayNs: int64(s.ProcDelay), ProcJitter: int64(s.ProcJitter), reportEnd: reportEnd{Start: time.Now().UTC()}}
	var rngMu sync.Mutex
	rng := rand.New(rand.NewPCG(s.Seed, uint64(s.Instance)))
	var queries, replies atomic.Uint64
	serve := func(req []byte, at time.Time) [][]byte {
		queries.Add(1)
		met.Received(len(req), -1)
		out := make([][]byte, 0, s.Replies)
		for range s.Replies {
			d := s.ProcDelay
			if s.ProcJitter > 0 {
				rngMu.Lock()
				d += time.Duration(rng.Int64N(2*int64(s.ProcJitter)+1)) - s.ProcJitter
				rngMu.Unlock()
			}
			if d > 0 {
				driver.Sleep(time.Until(at.Add(d)))
			}
			r := make([]byte, s.ReplySize)
			// The reply starts with the query's header, so that the
			// requester can match it.
			copy(r, req[:min(len(req), HeaderSize, len(r))])
			load.Fill(r)
			out = append(out, r)
		}
		replies.Add(uint64(len(out)))
		met.Sent(uint64(len(out)))
		return out
	}
	var stops []func() error
	for _, prefix := range s.ServePrefixes {
		for _, expr := range b.rules.Below(prefix) {
			stop, err := b.Serve(expr, serve)
			if err != nil {
				callAll(stops)
				met.Abort()
				return Outcome{Err: fmt.Errorf("serving %s: %w", expr, err)}
			}
			stops = append(stops, stop)
		}
	}
	met.Ready()
	interrupted := false
	select {
	case <-ctx.Done():
		interrupted = true
	case e := <-b.Lost():
		rep.Error = e.Error()
	case <-time.After(s.Duration):
	}
	callAll(stops)
	csvErr := met.Close()
	rep.End = time.Now().UTC()
	rep.Queries, rep.Replies = queries.Load(), replies.Load()
	rep.Completed = rep.Error == "" && !interrupted
	path, err := WriteReport(s, rep)
	did := fmt.Sprintf("qry %s: answered %s queries with %s replies", s.RunID, result.Count(rep.Queries), result.Count(rep.Replies))
	return ended(did, rep.Completed, interrupted, rep.Error, "report "+path, []string{path}, err, csvErr)
}

// ReqReport is a req role's report: the query metrics.
type ReqReport struct {
	reportHead
	Expr        string  `json:"expr"`
	QPSTarget   float64 `json:"qps_target"`
	QPS         float64 `json:"qps"` // queries sent per second of --duration
	Concurrency int     `json:"concurrency"`
	Queries     uint64  `json:"queries"`
	Answered    uint64  `json:"answered"` // with at least one reply
	Complete    uint64  `json:"complete"` // with --replies replies
	Timeouts    uint64  `json:"timeouts"` // fewer than --replies within --timeout
	Errors      uint64  `json:"errors"`
	Skipped     uint64  `json:"skipped"` // slots missed: --concurrency queries in flight
	Replies     uint64  `json:"replies"`
	RepliesMin  uint64  `json:"replies_min"`
	RepliesMax  uint64  `json:"replies_max"`
	RepliesMean float64 `json:"replies_mean"`
	ResultBytes uint64  `json:"result_bytes"`
	// The percentiles (numpy's method) of the times to the first and to
	// the last reply of the answered queries, µs; null (nil) when none
	// was answered, never a time of 0: nothing was measured.
	FirstP50Us *float64 `json:"time_to_first_p50_us"`
	FirstP99Us *float64 `json:"time_to_first_p99_us"`
	LastP50Us  *float64 `json:"time_to_last_p50_us"`
	LastP99Us  *float64 `json:"time_to_last_p99_us"`
	reportEnd
}

type queryResult struct {
	sent            time.Time
	firstNs, lastNs int64 // since sent
	replies, bytes  uint64
	err             bool
	expired         bool // waited its whole --timeout
}

// complete is whether q got its --replies replies.
func (q queryResult) complete(replies int) bool { return !q.err && q.replies >= uint64(replies) }

// RunReq sends queries to --expr open-loop at --qps for --duration, at
// most --concurrency in flight (a slot that finds them all busy is
// skipped and counted), each waiting up to --timeout for --replies
// replies. The time to the first and to the last reply of each answered
// query are the two raw files (whole round trips, "rtt").
func RunReq(ctx context.Context, s Settings, b Backend, met *Metrics) Outcome {
	met.Ready()
	start := time.Now()
	rep := ReqReport{reportHead: s.head(RoleReq), Expr: s.Expr,
		QPSTarget: s.QPS, Concurrency: s.Concurrency, reportEnd: reportEnd{Start: start.UTC()}}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &reqRun{s: s, b: b, met: met, sem: make(chan struct{}, s.Concurrency)}
	r.lost.watchLost(runCtx, b.Lost(), cancel)
	rep.Skipped = r.send(runCtx)
	r.wg.Wait()
	interrupted := ctx.Err() != nil
	csvErr := met.Close()
	endT := time.Now()
	rep.End = endT.UTC()
	first, lastMicros := r.tally(&rep)
	if e := r.lost.get(); e != nil {
		rep.Error = e.Error()
	} else if !interrupted {
		rep.Error = r.unanswered(start)
	}
	rep.Completed = rep.Error == "" && !interrupted
	return r.finish(&rep, first, lastMicros, start, endT, interrupted, csvErr)
}

// reqRun is a req role's queries: the role's settings and client, the
// slots in flight and what each query found.
type reqRun struct {
	s       Settings
	b       Backend
	met     *Metrics
	sem     chan struct{} // --concurrency slots
	lost    errBox
	wg      sync.WaitGroup
	mu      sync.Mutex
	results []queryResult
}

// send sends a query per slot of --qps for --duration until runCtx is
// done, each in a goroutine of its own (wg), and returns the slots
// skipped because every --concurrency slot was busy.
func (r *reqRun) send(runCtx context.Context) (skipped uint64) {
	s := r.s
	period := time.Duration(float64(time.Second) / s.QPS)
	t0 := time.Now().Add(20 * time.Millisecond)
	end := t0.Add(s.Duration)
	var seq uint64
	for k := int64(0); runCtx.Err() == nil; k++ {
		due := t0.Add(time.Duration(k) * period)
		if !due.Before(end) {
			break
		}
		if d := time.Until(due); d > 0 {
			select {
			case <-runCtx.Done():
				continue
			case <-time.After(d):
			}
		}
		select {
		case r.sem <- struct{}{}:
		default:
			skipped++
			continue
		}
		msg := make([]byte, s.Payload)
		load.Fill(msg)
		roleHeader(time.Now().UnixNano(), seq, uint16(s.Instance)<<8, load.FlagProbe, 0, s.RunHash()).Put(msg)
		seq++
		r.met.Sent(1)
		r.wg.Go(func() {
			defer func() { <-r.sem }()
			r.query(runCtx, msg)
		})
	}
	return skipped
}

// query sends msg and gathers its replies until --replies, the
// --agg-window after the first, or --timeout, and records the result.
func (r *reqRun) query(runCtx context.Context, msg []byte) {
	s, met := r.s, r.met
	qctx, qcancel := context.WithTimeout(runCtx, s.Timeout)
	defer qcancel()
	q := queryResult{sent: time.Now()}
	var rmu sync.Mutex // replies may still arrive as Query returns
	var window *time.Timer
	var closed atomic.Bool // the --agg-window after the first reply ended the query
	err := r.b.Query(qctx, s.Expr, msg, func(reply []byte, at time.Time) bool {
		rmu.Lock()
		defer rmu.Unlock()
		ns := at.Sub(q.sent).Nanoseconds()
		if q.replies == 0 {
			q.firstNs = ns
			met.Received(len(reply), ns)
			if s.AggWindow > 0 {
				window = time.AfterFunc(s.AggWindow, func() { closed.Store(true); qcancel() })
			}
		} else {
			met.Received(len(reply), -1)
		}
		q.lastNs = ns
		q.replies++
		q.bytes += uint64(len(reply))
		return s.AggWindow > 0 || q.replies < uint64(s.Replies)
	})
	rmu.Lock()
	defer rmu.Unlock()
	if window != nil {
		window.Stop()
	}
	met.QueryDone(q.replies, q.lastNs)
	q.expired = errors.Is(qctx.Err(), context.DeadlineExceeded) && runCtx.Err() == nil && !closed.Load()
	if err != nil && runCtx.Err() == nil && !closed.Load() {
		q.err = true
		met.Error()
	} else if q.replies < uint64(s.Replies) && runCtx.Err() == nil {
		met.Timeout()
	}
	r.mu.Lock()
	r.results = append(r.results, q)
	r.mu.Unlock()
}

// unanswered is why the run did not complete when its queryables went
// away (or fell silent) during it, "" when they did not: a query sent after
// the last one that got its --replies replies waited its whole --timeout
// without them, as a sub's run ends when nothing arrived for --timeout
// after its first message. A run none of whose queries was answered in
// full is incomplete too, as a sub's that got no message: it measured
// nothing (no queryable on --expr, or none answering).
func (r *reqRun) unanswered(start time.Time) string {
	var last time.Time // when the last complete query got its last reply
	expired := 0
	for _, q := range r.results {
		if at := q.sent.Add(time.Duration(q.lastNs)); q.complete(r.s.Replies) && at.After(last) {
			last = at
		}
		if q.expired {
			expired++
		}
	}
	if last.IsZero() {
		if expired == 0 {
			return "" // nothing waited its --timeout: the run was cut short
		}
		return fmt.Sprintf("no query was answered with --replies %d within --timeout %v (%d of %d timed out): is a run qry serving --expr %q?",
			r.s.Replies, r.s.Timeout, expired, len(r.results), r.s.Expr)
	}
	since, silent := 0, false
	for _, q := range r.results {
		if q.sent.After(last) {
			since++
			silent = silent || q.expired
		}
	}
	if !silent {
		return ""
	}
	after := last.Sub(start).Round(time.Millisecond)
	if r.s.Replies == 1 {
		return fmt.Sprintf("no query was answered after %v of the run (the queryable gone): the %d sent since got no reply within --timeout %v",
			after, since, r.s.Timeout)
	}
	return fmt.Sprintf("no query was answered in full after %v of the run (a queryable gone): the %d sent since got fewer than --replies %d within --timeout %v",
		after, since, r.s.Replies, r.s.Timeout)
}

// tally counts the queries' results into rep and returns the times to
// the first and to the last reply of those answered, in µs.
func (r *reqRun) tally(rep *ReqReport) (first, lastMicros []float64) {
	rep.RepliesMin = ^uint64(0)
	for _, q := range r.results {
		rep.Queries++
		rep.Replies += q.replies
		rep.ResultBytes += q.bytes
		rep.RepliesMin = min(rep.RepliesMin, q.replies)
		rep.RepliesMax = max(rep.RepliesMax, q.replies)
		switch {
		case q.err:
			rep.Errors++
		case q.replies < uint64(r.s.Replies):
			rep.Timeouts++
		default:
			rep.Complete++
		}
		if q.replies > 0 {
			rep.Answered++
			first = append(first, float64(q.firstNs)/1000)
			lastMicros = append(lastMicros, float64(q.lastNs)/1000)
		}
	}
	if rep.Queries == 0 {
		rep.RepliesMin = 0
	} else {
		rep.RepliesMean = float64(rep.Replies) / float64(rep.Queries)
	}
	rep.QPS = float64(rep.Queries) / r.s.Duration.Seconds()
	rep.setTimes(first, lastMicros)
	return first, lastMicros
}

// finish writes the two sub-experiments into meta.json and the role's
// report, and says what was done.
func (r *reqRun) finish(rep *ReqReport, first, lastMicros []float64, start, endT time.Time, interrupted bool, csvErr error) Outcome {
	s := r.s
	extra := rep.facts()
	extra["role"], extra["host"] = "req", rep.Host
	base := s.subExperiment(s.Expr, rep.Completed, rep.Error, start, endT, nil, s.recorded(s.params()))
	counts := meta.Payload{Bytes: s.Payload, Lost: rep.Timeouts, Errors: rep.Errors, Completed: rep.Completed}
	mergeErr := Merge(s, meta.LatencyRTT, "query open-loop (roles)", "monotonic (Go runtime, ns)", start.UTC(), endT.UTC(), interrupted,
		s.metaError(rep.Completed, rep.Error), reqMeasured(s, first, lastMicros, counts, base, r.b.system(extra)))
	path, repErr := WriteReport(s, *rep)
	// Without a reply there is no time to one: "p50 0 µs" would read as
	// an instant answer.
	times := "no reply"
	if rep.FirstP50Us != nil && rep.LastP50Us != nil {
		times = fmt.Sprintf("first reply p50 %s, last p50 %s", result.Micros(*rep.FirstP50Us), result.Micros(*rep.LastP50Us))
	}
	return ended(fmt.Sprintf("req %s: %s queries (%.1f/s), %s timeouts, %s errors, %s",
		s.RunID, result.Count(rep.Queries), rep.QPS, result.Count(rep.Timeouts), result.Count(rep.Errors), times),
		rep.Completed, interrupted, rep.Error, "results in "+s.Dir(), []string{s.Dir(), path}, mergeErr, repErr, csvErr)
}

// reqMeasured are a req's two sub-experiments of base, the times to the
// first and to the last reply (µs), each system a copy of sys that names
// what it measures.
func reqMeasured(s Settings, first, last []float64, counts meta.Payload, base meta.SubExperiment, sys *meta.SystemInfo) []Measured {
	c1, c2 := counts, counts
	c1.Samples, c2.Samples = len(first), len(last)
	sub1, sub2 := base, base
	sub1.System, sub2.System = measuring(sys, "time to first reply"), measuring(sys, "time to last reply")
	return []Measured{{Type: s.Type(), Payload: s.Payload, Micros: first, Counts: c1, Sub: sub1},
		{Type: s.LastType(), Payload: s.Payload, Micros: last, Counts: c2, Sub: sub2}}
}

// facts are the query counts of the report that meta.json records among
// the system's facts.
func (r *ReqReport) facts() map[string]string {
	return map[string]string{"qps": strconv.FormatFloat(r.QPS, 'f', 3, 64), "queries": strconv.FormatUint(r.Queries, 10),
		"timeouts": strconv.FormatUint(r.Timeouts, 10), "errors": strconv.FormatUint(r.Errors, 10),
		"replies_per_query_mean": strconv.FormatFloat(r.RepliesMean, 'f', 3, 64),
		"replies_per_query_min":  strconv.FormatUint(r.RepliesMin, 10), "replies_per_query_max": strconv.FormatUint(r.RepliesMax, 10),
		"result_bytes": strconv.FormatUint(r.ResultBytes, 10), "skipped": strconv.FormatUint(r.Skipped, 10)}
}

// percentiles are the ps-th percentiles of us (numpy's method), each nil
// when there are none: a report writes null for a figure never measured,
// where 0 would read as an instant answer.
func percentiles(us []float64, ps ...float64) []*float64 {
	out := make([]*float64, len(ps))
	if len(us) == 0 {
		return out
	}
	sorted := slices.Sorted(slices.Values(us))
	for i, p := range ps {
		v := stats.Percentile(sorted, p)
		out[i] = &v
	}
	return out
}

// setTimes sets the percentiles of the times to the first and last reply
// (µs), nil without an answered query.
func (r *ReqReport) setTimes(first, last []float64) {
	f, l := percentiles(first, 50, 99), percentiles(last, 50, 99)
	r.FirstP50Us, r.FirstP99Us, r.LastP50Us, r.LastP99Us = f[0], f[1], l[0], l[1]
}
