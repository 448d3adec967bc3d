package roles

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/clockoffset"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// clockKey is where publishers answer clock probes: <topic-prefix>.clock
// (the data travel below <topic-prefix>.data).
func clockKey(b Backend, s Settings) string { return b.join(s.TopicPrefix, "clock") }

// clockReplyExtra follows the clockoffset reply: the instance (u8) whose
// publishers the replying process runs.
const clockReplyExtra = 1

// Outcome is what a role ended with.
type Outcome struct {
	Summary     string // one line
	Paths       []string
	Interrupted bool
	Incomplete  bool
	Err         error
}

// PubReport is a pub role's report (roles/pub-<label>-<instance>.json).
type PubReport struct {
	reportHead
	Reliability string            `json:"reliability"`
	Payload     int               `json:"payload"`
	Rate        float64           `json:"rate"`
	Publishers  []PublisherReport `json:"publishers"`
	// Skipped, Errors and Unconfirmed are the publishers' in all.
	Skipped     uint64 `json:"skipped"`
	Errors      uint64 `json:"errors"`
	Unconfirmed uint64 `json:"unconfirmed"`
	reportEnd
	ClockProbes uint64 `json:"clock_probes_answered"`
}

// PublisherReport are one publisher's counts.
type PublisherReport struct {
	ID    uint16 `json:"id"`
	Topic string `json:"topic"`
	// Sent are the messages the system confirmed having, when its client
	// can tell (driver.Confirmer), else those handed to the client;
	// Unconfirmed those handed to it that it did not confirm, which may
	// not have reached it.
	Sent        uint64 `json:"sent"`
	Unconfirmed uint64 `json:"unconfirmed"`
	Skipped     uint64 `json:"skipped"`
	Errors      uint64 `json:"errors"`
}

// RunPub publishes --publishers open-loop streams at --rate each for
// --duration, then end markers, and answers clock probes meanwhile (and
// for --timeout after, so that late subscribers can estimate). A message
// counts as sent once the system confirmed it, when its client can tell.
func RunPub(ctx context.Context, s Settings, b Backend, met *Metrics) Outcome {
	rep := PubReport{reportHead: s.head(RolePub), Reliability: s.Reliability(), Payload: s.Payload, Rate: s.Rate, reportEnd: reportEnd{Start: time.Now().UTC()}}
	answered, stopClock, err := serveClockProbes(b, s)
	if err != nil {
		met.Abort()
		return Outcome{Err: fmt.Errorf("serving clock probes: %w", err)}
	}
	met.Ready()
	start := time.Now().Add(50 * time.Millisecond)
	reps := make([]PublisherReport, s.Publishers)
	var lost errBox
	runCtx, cancel := context.WithCancel(ctx)
	lost.watchLost(runCtx, b.Lost(), cancel)
	k := newConfirms(b, s.Publishers)
	confirmCtx, stopConfirming := context.WithCancel(runCtx)
	var confirming, publishing sync.WaitGroup
	confirming.Go(func() { k.confirming(confirmCtx, s.Timeout) })
	for i := range s.Publishers {
		publishing.Go(func() { publishRole(runCtx, s, b, met, i, start, &reps[i], &k.handed[i]) })
	}
	publishing.Wait()
	stopConfirming()
	confirming.Wait()
	flushErr := k.end(b, s.Timeout)
	interrupted := ctx.Err() != nil
	// Late clock probes are answered for a while after the last message.
	if !interrupted && lost.get() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(min(s.Timeout, 2*time.Second)):
		}
	}
	stopClock()
	csvErr := met.Close()
	cancel()
	rep.End = time.Now().UTC()
	for i := range reps {
		reps[i].Sent, reps[i].Unconfirmed = k.confirmed[i], k.unconfirmed[i]
	}
	rep.Publishers = reps
	rep.ClockProbes = answered.Load()
	return pubOutcome(s, rep, interrupted, lost.get(), flushErr, k.why, csvErr)
}

// serveClockProbes answers the subscribers' clock probes on clockKey until
// stop; answered counts the probes answered so far.
func serveClockProbes(b Backend, s Settings) (answered *atomic.Uint64, stop func() error, err error) {
	answered = new(atomic.Uint64)
	stop, err = b.Serve(clockKey(b, s), func(req []byte, at time.Time) [][]byte {
		r, err := clockoffset.Reply(req, at.UnixNano(), func() int64 { return time.Now().UnixNano() })
		if err != nil {
			return nil
		}
		answered.Add(1)
		return [][]byte{append(r, byte(s.Instance))}
	})
	return answered, stop, err
}

// publishRole is publisher i of a pub role: it publishes at --rate from
// start for --duration, or until runCtx is done, counting into r, handed
// (the messages the client took) and met, then sends its end marker.
func publishRole(runCtx context.Context, s Settings, b Backend, met *Metrics, i int, start time.Time, r *PublisherReport, handed *atomic.Uint64) {
	period := time.Duration(float64(time.Second) / s.Rate)
	end := start.Add(s.Duration)
	id := uint16(s.Instance)<<8 | uint16(i)
	topicIdx := i % s.Topics
	topic := b.join(s.TopicPrefix, "data", strconv.Itoa(topicIdx))
	r.ID, r.Topic = id, topic
	msg := make([]byte, s.Payload)
	load.Fill(msg)
	// Phases are spread over one period, so that publishers do not
	// send in bursts.
	phase := period * time.Duration(i) / time.Duration(s.Publishers)
	sched := load.NewSchedule(s.Rate, start.Add(phase))
	stopped := func() bool { return runCtx.Err() != nil }
	var seq uint64
	for {
		due, skipped := sched.Next(time.Now())
		r.Skipped += skipped
		if !due.Before(end) || stopped() {
			break
		}
		sched.Wait(due, stopped)
		if stopped() {
			break
		}
		// The intended time goes in the header: a stalled sender
		// shows as latency (no coordinated omission).
		roleHeader(due.UnixNano(), seq, id, 0, uint16(topicIdx), s.RunHash()).Put(msg)
		if err := b.Publish(topic, msg); err != nil {
			r.Errors++
			met.Error()
			continue
		}
		seq++
		handed.Add(1)
		met.Sent(1)
	}
	// The end marker says how many were handed to the client, the
	// sequence numbers the subscribers expect; best-effort links may lose
	// one, so it goes three times.
	endMsg := make([]byte, HeaderSize)
	for range 3 {
		roleHeader(time.Now().UnixNano(), seq, id, load.FlagEndPayload|load.FlagEndRun, uint16(topicIdx), s.RunHash()).Put(endMsg)
		b.Publish(topic, endMsg)
	}
}

// pubOutcome totals a pub role's publishers into rep, writes it and
// summarises the run; lost (the connection) wins over a failed flush, and
// that over what left messages unconfirmed, as the reason the run is
// incomplete.
func pubOutcome(s Settings, rep PubReport, interrupted bool, lost, flushErr, unconfirmedErr, csvErr error) Outcome {
	var total, skipped, errs, unconfirmed uint64
	for _, r := range rep.Publishers {
		total += r.Sent
		skipped += r.Skipped
		errs += r.Errors
		unconfirmed += r.Unconfirmed
	}
	rep.Skipped, rep.Errors, rep.Unconfirmed = skipped, errs, unconfirmed
	switch {
	case lost != nil:
		rep.Error = lost.Error()
	case flushErr != nil:
		rep.Error = "flush: " + flushErr.Error()
	case unconfirmed > 0:
		rep.Error = unconfirmedErr.Error()
	}
	rep.Completed = rep.Error == "" && !interrupted
	path, err := WriteReport(s, rep)
	did := fmt.Sprintf("pub %s: %s messages of %d B from %d publishers (%s skipped, %s errors)",
		s.RunID, result.Count(total), s.Payload, s.Publishers, result.Count(skipped), result.Count(errs))
	if unconfirmed > 0 {
		did += fmt.Sprintf(", and %s more handed to the client that the system did not confirm (they may not have reached it)", result.Count(unconfirmed))
	}
	return ended(did, rep.Completed, interrupted, rep.Error, "report "+path, []string{path}, err, csvErr)
}

// pubState is what a subscription knows of one publisher.
type pubState struct {
	seq   load.Tracker
	ended bool
	sent  uint64
}

type pubKey struct {
	sub int
	pub uint16
}

type arrival struct {
	rawNs    int64 // receive (this host) − send (publisher's host)
	instance uint8
}

// SubReport is a sub role's report.
type SubReport struct {
	reportHead
	Expr        string                          `json:"expr"`
	Subscribers int                             `json:"subscribers"`
	Publishers  []SubPublisherReport            `json:"publishers"`
	ClockOffset map[string]clockoffset.Estimate `json:"clock_offset"`
	Clamped     uint64                          `json:"clamped"`
	Malformed   uint64                          `json:"malformed"`
	OtherRuns   uint64                          `json:"other_runs"`
	Samples     int                             `json:"samples"`
	// The latency percentiles (numpy's method) of the samples, µs; null
	// (nil) without samples, never a latency of 0: nothing was measured.
	LatencyP50Us *float64  `json:"latency_p50_us"`
	LatencyP90Us *float64  `json:"latency_p90_us"`
	LatencyP95Us *float64  `json:"latency_p95_us"`
	LatencyP99Us *float64  `json:"latency_p99_us"`
	Start        time.Time `json:"start"`
	End          time.Time `json:"end"`
	Completed    bool      `json:"completed"`
	Reason       string    `json:"reason,omitempty"`
}

// setLatency sets the samples (µs) and their percentiles, nil without
// samples.
func (r *SubReport) setLatency(us []float64) {
	r.Samples = len(us)
	p := percentiles(us, 50, 90, 95, 99)
	r.LatencyP50Us, r.LatencyP90Us, r.LatencyP95Us, r.LatencyP99Us = p[0], p[1], p[2], p[3]
}

// latencyText is what the summary line says of the latencies.
func (r SubReport) latencyText() string {
	if r.LatencyP50Us == nil || r.LatencyP90Us == nil || r.LatencyP95Us == nil || r.LatencyP99Us == nil {
		return "" // no sample
	}
	return fmt.Sprintf(", latency p50 %s, p90 %s, p95 %s, p99 %s",
		result.Micros(*r.LatencyP50Us), result.Micros(*r.LatencyP90Us), result.Micros(*r.LatencyP95Us), result.Micros(*r.LatencyP99Us))
}

// SubPublisherReport is what one subscription counted of one publisher.
type SubPublisherReport struct {
	Subscriber int     `json:"subscriber"`
	ID         uint16  `json:"id"`
	Sent       *uint64 `json:"sent"`
	Received   uint64  `json:"received"`
	Lost       uint64  `json:"lost"`
	Duplicates uint64  `json:"duplicates"`
	OutOfOrder uint64  `json:"out_of_order"`
}

// RunSub subscribes --subscribers times to --expr and times every
// message one way, until every expected publisher (--publishers, in all)
// sent its end marker, or nothing arrived for --timeout after the first
// message (a publisher gone), or --duration plus --timeout passed without
// any. Latencies are corrected by each publisher host's clock offset.
func RunSub(ctx context.Context, s Settings, b Backend, met *Metrics) Outcome {
	start := time.Now()
	r := &subRun{s: s, b: b, met: met, rep: SubReport{reportHead: s.head(RoleSub), Expr: s.Expr,
		Subscribers: s.Subscribers, Start: start.UTC(), ClockOffset: map[string]clockoffset.Estimate{}, Publishers: []SubPublisherReport{}},
		pubs: map[pubKey]*pubState{}, progress: make(chan struct{}, 1),
		newInstance: make(chan uint8, 256), seenInst: map[uint8]bool{}, runHash: s.RunHash()}
	unsubs, err := r.subscribe()
	if err != nil {
		met.Abort()
		return Outcome{Err: err}
	}
	met.Ready()
	clockCtx, clockCancel := context.WithCancel(ctx)
	go r.clocks(clockCtx)
	reason, interrupted := r.wait(ctx, start)
	callAll(unsubs)
	// Clock estimates in progress finish (they are bounded by their
	// probes' timeouts), unless the run was interrupted.
	if interrupted {
		clockCancel()
	}
	waitTimeout(&r.clockWG, time.Duration(s.ClockProbes)*(s.Timeout+5*time.Millisecond))
	clockCancel()
	csvErr := met.Close()
	end := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finish(start, end, reason, interrupted, csvErr)
}

// subRun is a sub role's subscriptions: what they received, by
// subscription and publisher, and the clock offsets of the publisher
// hosts.
type subRun struct {
	s   Settings
	b   Backend
	met *Metrics

	mu  sync.Mutex
	rep SubReport
	// Each subscription counts every publisher on its own.
	pubs        map[pubKey]*pubState
	arrivals    []arrival
	last        time.Time // the last message of this run, zero before the first
	progress    chan struct{}
	newInstance chan uint8 // one per instance: never blocks
	seenInst    map[uint8]bool
	runHash     uint32
	clockWG     sync.WaitGroup
}

// handle takes a message of subscription subIdx that arrived at at.
func (r *subRun) handle(subIdx int, msg []byte, at time.Time) {
	recv := at.UnixNano()
	h, full, err := load.Parse(msg)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || !full {
		r.rep.Malformed++
		r.met.Error()
		return
	}
	if h.RunID != r.runHash {
		r.rep.OtherRuns++
		return
	}
	r.last = time.Now()
	k := pubKey{subIdx, h.Publisher}
	p := r.pubs[k]
	if p == nil {
		p = &pubState{}
		r.pubs[k] = p
	}
	inst := uint8(h.Publisher >> 8)
	if !r.seenInst[inst] {
		r.seenInst[inst] = true
		r.newInstance <- inst
	}
	if h.Flags&load.FlagEndPayload != 0 {
		if !p.ended {
			p.ended, p.sent = true, h.Seq
		}
		select {
		case r.progress <- struct{}{}:
		default:
		}
		return
	}
	if h.Flags&(load.FlagWarmup|load.FlagProbe) != 0 {
		return
	}
	// The window's loss, duplicates and out-of-order arrivals.
	gaps, dupes, late := p.seq.Gaps, p.seq.Duplicates, p.seq.OutOfOrder
	unique := p.seq.Observe(h.Seq)
	r.met.Count(Snapshot{Lost: int64(p.seq.Gaps) - int64(gaps), Duplicates: p.seq.Duplicates - dupes, OutOfOrder: p.seq.OutOfOrder - late}, nil, nil)
	if !unique {
		return // a duplicate
	}
	rawNs := recv - int64(h.SendNs)
	r.arrivals = append(r.arrivals, arrival{rawNs: rawNs, instance: inst})
	r.met.Received(len(msg), corrected(r.rep.ClockOffset, inst, rawNs))
}

// subscribe subscribes --subscribers times; on an error it unsubscribes
// what it subscribed.
func (r *subRun) subscribe() ([]func() error, error) {
	var unsubs []func() error
	for i := range r.s.Subscribers {
		// A topic matches one of the expressions at most: no duplicates.
		for _, expr := range subExprs(r.b, r.s.Expr) {
			un, err := r.b.Subscribe(expr, func(_ string, msg []byte, at time.Time) { r.handle(i, msg, at) })
			if err != nil {
				callAll(unsubs)
				return nil, fmt.Errorf("subscribing to %s: %w", expr, err)
			}
			unsubs = append(unsubs, un)
		}
	}
	return unsubs, nil
}

// clocks makes one clock estimate per publisher host, when its first
// message arrives, until ctx is done.
func (r *subRun) clocks(ctx context.Context) {
	s := r.s
	for {
		select {
		case <-ctx.Done():
			return
		case inst := <-r.newInstance:
			if s.Log != nil {
				s.Log.Debug("new publisher host", "instance", inst)
			}
			if !s.ClockOffset {
				r.mu.Lock()
				r.rep.ClockOffset[strconv.Itoa(int(inst))] = hostClock(s, inst, clockoffset.Estimate{}, nil)
				r.mu.Unlock()
				continue
			}
			r.clockWG.Go(func() { r.clock(ctx, inst) })
		}
	}
}

// clock estimates the clock offset of publisher host inst.
func (r *subRun) clock(ctx context.Context, inst uint8) {
	s, b := r.s, r.b
	est, err := clockoffset.Measure(ctx, &clockExchanger{b: b, key: clockKey(b, s), instance: inst, timeout: s.Timeout}, s.ClockProbes, 5*time.Millisecond)
	est = hostClock(s, inst, est, err)
	r.mu.Lock()
	r.rep.ClockOffset[strconv.Itoa(int(inst))] = est
	r.mu.Unlock()
	logClock(s, est)
}

// wait waits for the end: every publisher ended, silence for --timeout
// after the first message, nothing by --duration + --timeout, the link
// lost (reason says why the run is incomplete) or ctx done (interrupted).
func (r *subRun) wait(ctx context.Context, start time.Time) (reason string, interrupted bool) {
	s := r.s
	lostCh := r.b.Lost()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := start.Add(s.Duration + s.Timeout)
	for {
		select {
		case <-ctx.Done():
			return "", true
		case e := <-lostCh:
			return e.Error(), false
		case <-r.progress:
		case <-tick.C:
		}
		r.mu.Lock()
		// Publishers that ended, as the subscription that saw fewest counts.
		endedBy := make([]int, s.Subscribers)
		for k, p := range r.pubs {
			if p.ended {
				endedBy[k.sub]++
			}
		}
		ended := slices.Min(endedBy)
		silent := time.Since(r.last)
		got := !r.last.IsZero()
		r.mu.Unlock()
		switch {
		case ended >= s.Publishers:
			return "", false
		case got && silent > s.Timeout:
			return fmt.Sprintf("nothing arrived for --timeout %v; %d of %d publishers ended", s.Timeout, ended, s.Publishers), false
		case !got && time.Now().After(deadline):
			return fmt.Sprintf("no message within --duration + --timeout (%v)", s.Duration+s.Timeout), false
		}
	}
}

// samples are the latencies in arrival order, corrected by their
// publisher's offset (negative ones clamped to 0 and counted), in µs.
func (r *subRun) samples() []float64 {
	micros := make([]float64, len(r.arrivals))
	for i, a := range r.arrivals {
		micros[i] = clampedUs(corrected(r.rep.ClockOffset, a.instance, a.rawNs), &r.rep.Clamped)
	}
	return micros
}

// clampedUs is a corrected one-way latency of ns in µs, 0 when negative,
// which clamped counts.
func clampedUs(ns int64, clamped *uint64) float64 {
	if ns < 0 {
		*clamped++
		return 0
	}
	return float64(ns) / 1000
}

// publishers adds to the report and to counts what each subscription
// received of each publisher, and returns the publishers seen and
// whether each subscription saw every one of them end.
func (r *subRun) publishers(counts *meta.Payload) (ids int, allEnded bool) {
	keys := make([]pubKey, 0, len(r.pubs))
	seen := map[uint16]bool{}
	for k := range r.pubs {
		keys = append(keys, k)
		seen[k.pub] = true
	}
	slices.SortFunc(keys, func(a, b pubKey) int { return cmp.Or(cmp.Compare(a.sub, b.sub), cmp.Compare(a.pub, b.pub)) })
	allEnded = len(seen) >= r.s.Publishers && len(keys) == len(seen)*r.s.Subscribers
	for _, k := range keys {
		p := r.pubs[k]
		pr := SubPublisherReport{Subscriber: k.sub, ID: k.pub, Received: p.seq.Unique, Duplicates: p.seq.Duplicates, OutOfOrder: p.seq.OutOfOrder}
		if p.ended {
			sent := p.sent
			pr.Sent = &sent
			pr.Lost = p.seq.Lost(sent)
		} else {
			allEnded = false
			pr.Lost = p.seq.Gaps
		}
		counts.Lost += pr.Lost
		counts.Duplicates += pr.Duplicates
		counts.OutOfOrder += pr.OutOfOrder
		r.rep.Publishers = append(r.rep.Publishers, pr)
	}
	return len(seen), allEnded
}

// finish writes the sub-experiment into meta.json and the role's report,
// and says what was done; r.mu is held.
func (r *subRun) finish(start, end time.Time, reason string, interrupted bool, csvErr error) Outcome {
	s, rep := r.s, &r.rep
	micros := r.samples()
	counts := meta.Payload{Bytes: s.Payload, Samples: len(micros)}
	ids, allEnded := r.publishers(&counts)
	counts.Errors = rep.Malformed
	rep.Completed = reason == "" && !interrupted && allEnded
	if !rep.Completed && reason == "" && !interrupted {
		reason = "not every publisher sent its end marker"
	}
	rep.Reason = reason
	rep.setLatency(micros)
	rep.End = end.UTC()
	counts.Completed = rep.Completed
	m := Measured{Type: s.Type(), Payload: s.Payload, Micros: micros, Counts: counts,
		Sub: s.subExperiment(s.Expr, rep.Completed, reason, start, end, r.b.system(r.extra()), s.recorded(s.params()))}
	mergeErr := Merge(s, meta.LatencyOneWay, "one-way open-loop (roles)", "CLOCK_REALTIME across hosts, corrected by the estimated clock offset",
		start.UTC(), end.UTC(), interrupted, s.metaError(rep.Completed, reason), []Measured{m})
	path, repErr := WriteReport(s, *rep)
	return ended(fmt.Sprintf("sub %s: %s samples from %d publishers, %s lost%s",
		s.RunID, result.Count(len(micros)), ids, result.Count(counts.Lost), rep.latencyText()),
		rep.Completed, interrupted, reason, "results in "+s.Dir(), []string{s.Dir(), path}, mergeErr, repErr, csvErr)
}

// extra are the sub's facts for meta.json: its settings and the clock
// offset of each publisher host.
func (r *subRun) extra() map[string]string {
	s, rep := r.s, &r.rep
	extra := map[string]string{"role": "sub", "host": rep.Host, "subscribers": strconv.Itoa(s.Subscribers), "expr": s.Expr,
		"clamped": strconv.FormatUint(rep.Clamped, 10)}
	for inst, est := range rep.ClockOffset {
		addClockOffset(extra, inst, est)
	}
	return extra
}

// addClockOffset records in extra, as meta.json names them, the clock
// offset of publisher host inst and how it was estimated.
func addClockOffset(extra map[string]string, inst string, est clockoffset.Estimate) {
	extra["clock_offset_ns."+inst] = strconv.FormatInt(est.OffsetNs, 10)
	extra["clock_offset_error_bound_ns."+inst] = strconv.FormatInt(est.ErrorBoundNs, 10)
	extra["clock_offset_method."+inst] = est.Method
	if est.Disabled && est.Method == "" {
		extra["clock_offset_method."+inst] = "disabled"
	}
}

// hostClock is est, the clock offset of publisher host inst, named; when
// err, none: the host's latencies stay as measured, which the report says.
// With --clock-offset false none is made, as the helper's report and
// meta.json say.
func hostClock(s Settings, inst uint8, est clockoffset.Estimate, err error) clockoffset.Estimate {
	est.Peer = "instance " + strconv.Itoa(int(inst))
	switch {
	case !s.ClockOffset:
		return clockoffset.Estimate{Disabled: true, Peer: est.Peer, Method: "disabled"}
	case err != nil:
		est.Disabled, est.Method = true, "failed: "+err.Error()
	}
	return est
}

// logClock logs the clock offset estimated of a publisher host.
func logClock(s Settings, est clockoffset.Estimate) {
	if s.Log != nil {
		s.Log.Info("clock offset", "peer", est.Peer, "offset_ns", est.OffsetNs, "error_bound_ns", est.ErrorBoundNs,
			"method", est.Method, "kept", est.Kept, "exchanges", est.Exchanges)
	}
}

// subExprs are expr when it has one of the system's wildcards, else expr
// and everything below it.
func subExprs(b Backend, expr string) []string {
	if strings.ContainsAny(expr, b.rules.Wildcards()) {
		return []string{expr}
	}
	return b.rules.Below(expr)
}

// corrected is ns, a one-way latency from publisher host inst, corrected
// by its clock offset in offsets (none: as measured).
func corrected(offsets map[string]clockoffset.Estimate, inst uint8, ns int64) int64 {
	return offsets[strconv.Itoa(int(inst))].Correct(ns)
}

// callAll calls each of fs: it unsubscribes, or stops serving, what a
// role opened.
func callAll(fs []func() error) {
	for _, f := range fs {
		f()
	}
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// clockExchanger probes the publishers' clock service and keeps the reply
// of one instance.
type clockExchanger struct {
	b        Backend
	key      string
	instance uint8
	timeout  time.Duration
}

func (c *clockExchanger) Exchange(ctx context.Context) (clockoffset.Exchange, error) {
	qctx, cancel := context.WithTimeout(ctx, min(c.timeout, time.Second))
	defer cancel()
	var ex clockoffset.Exchange
	var got error = fmt.Errorf("no clock reply from instance %d", c.instance)
	t1 := time.Now().UnixNano()
	req := clockoffset.EncodeRequest(t1)
	err := c.b.Query(qctx, c.key, req, func(rep []byte, at time.Time) bool {
		if len(rep) != clockoffset.ReplySize+clockReplyExtra || rep[clockoffset.ReplySize] != c.instance ||
			int64(binary.LittleEndian.Uint64(rep)) != t1 {
			return true // another publisher host's reply: keep waiting
		}
		ex, got = clockoffset.DecodeReply(rep[:clockoffset.ReplySize], at.UnixNano())
		return false
	})
	if err != nil {
		return ex, err
	}
	return ex, got
}
