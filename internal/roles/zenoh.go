package roles

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mqgate/mqgate/internal/clockoffset"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
)

// MinZenohLease is the shortest lease a Zenoh role announces: keep-alives
// go out four times per lease, and a shorter one could expire on a loaded
// host that merely stalled.
const MinZenohLease = 2 * time.Second

// ZenohLease is the lease a Zenoh role announces for --timeout: the
// timeout, at least MinZenohLease. The router closes the link of a role
// it heard nothing from within the lease, so a host cut off is noticed,
// and its declarations dropped, within about --timeout, as the other
// drivers notice a lost peer.
func ZenohLease(timeout time.Duration) time.Duration { return max(timeout, MinZenohLease) }

// RunZenoh runs a role over Zenoh through mqgate-zenoh's matching role
// (pub, sub, query, queryable), which times the messages itself; this
// process imports what it wrote. Every role is a client of the routers
// given by --endpoint (a zenohd or `mqgate-zenoh router`). The helper's
// query sends --qps × --duration queries open loop at --qps, at most
// --concurrency in flight (a slot that finds them all in flight is skipped
// and counted), and its queryable answers with --reply-size bytes after
// --proc-delay, as the other drivers' req and qry.
//
// Clock offsets: the helper's publishers (ids instance·256 + i) answer
// clock probes at <key>/clock; a sub runs the helper's clock role beside
// its subscriber, which probes every publisher host, and corrects each
// one-way latency (the subscriber's arrivals.csv, signed) by the offset
// internal/clockoffset estimates from those exchanges, as the other
// drivers' subs do (--clock-offset false: as measured).
func RunZenoh(ctx context.Context, s Settings) Outcome {
	fail := func(err error) Outcome {
		return Outcome{Err: err, Summary: s.Role + " " + s.RunID + ": " + err.Error()}
	}
	if len(s.Endpoints) == 0 {
		return fail(fmt.Errorf("--driver zenoh needs --endpoint tcp/ROUTER:PORT (a zenohd or `mqgate-zenoh router`)"))
	}
	bin, err := zenohhelper.Find()
	if err != nil {
		return fail(err)
	}
	version, err := zenohhelper.Version(ctx, bin)
	if err != nil {
		return fail(err)
	}
	key := s.TopicPrefix
	if key == "mqgate.bench" {
		key = "mqgate/bench"
	}
	out := filepath.Join(s.Dir(), ReportsDir, fmt.Sprintf("helper-%s-%s-%d", s.Role, s.Label, s.Instance))
	clockKey := key + "/clock"
	lease := ZenohLease(s.Timeout)
	c := zenohhelper.Common{Mode: zenohhelper.ModeClient, Connect: s.Endpoints, Key: key, Reliable: s.Reliable, Out: out, Lease: lease}
	run := s.RunHash()
	var args []string
	latency := ""
	switch s.Role {
	case RolePub:
		// Late clock probes are answered for a while after the last
		// message, as the other drivers' pubs do.
		linger := min(s.Timeout, 2*time.Second)
		args = zenohhelper.Pub{Common: c, Payloads: []int{s.Payload}, Rate: s.Rate, Publishers: s.Publishers, Topics: s.Topics,
			Duration: s.Duration, RunID: &run, WaitPeer: s.Timeout, IDBase: s.Instance * 256, ClockKey: clockKey, ClockLinger: &linger}.Args()
	case RoleSub:
		latency = meta.LatencyOneWay
		args = zenohhelper.Sub{Common: c, Publishers: s.Publishers, Timeout: s.Timeout, WaitPeer: s.Duration + s.Timeout, RunID: &run, Arrivals: true}.Args()
	case RoleReq:
		latency = meta.LatencyRTT
		n := max(1, int(s.QPS*s.Duration.Seconds()))
		args = zenohhelper.Query{Common: c, Payloads: []int{s.Payload}, Samples: n, Replies: s.Replies, Timeout: s.Timeout,
			Target: zenohhelper.TargetAll, WaitPeer: s.Timeout, MaxTimeouts: 1 << 30, Rate: s.QPS, Concurrency: s.Concurrency,
			ResultBytes: true}.Args()
	case RoleQry:
		size := s.ReplySize
		args = zenohhelper.Queryable{Common: c, Replies: s.Replies, Duration: s.Duration, ReplySize: &size,
			ProcDelay: s.ProcDelay, ProcJitter: s.ProcJitter, Seed: s.Seed<<8 | uint64(s.Instance)}.Args()
	}
	var types []string
	if s.Role == RoleSub {
		types = []string{s.Type()}
	} else if s.Role == RoleReq {
		types = []string{s.Type(), s.LastType()}
	}
	if latency != "" {
		if err := Preflight(s, latency, types); err != nil {
			return fail(err)
		}
	}
	// The helper times its messages itself: what it counted reaches the
	// --csv snapshots and Prometheus when it is done.
	met, err := NewMetrics(s)
	if err != nil {
		return fail(err)
	}
	defer met.Close()
	start := time.Now()
	// The clock prober starts first: it probes each publisher host as soon
	// as it answers, until the subscriber is done.
	var prober *zenohhelper.Process
	clockOut := out + "-clock"
	if s.Role == RoleSub && s.ClockOffset {
		cc := zenohhelper.Common{Mode: zenohhelper.ModeClient, Connect: s.Endpoints, Key: clockKey, Out: clockOut, Lease: lease}
		prober, err = zenohhelper.Start(context.Background(), bin, zenohhelper.Clock{Common: cc, Probes: s.ClockProbes,
			Interval: 5 * time.Millisecond, Timeout: min(s.Timeout, time.Second)}.Args())
		if err != nil {
			return fail(fmt.Errorf("starting the clock prober: %w", err))
		}
	}
	p, err := zenohhelper.Start(context.Background(), bin, args)
	if err != nil {
		if prober != nil {
			prober.Stop(30 * time.Second)
		}
		return fail(err)
	}
	interrupted := false
	var exit zenohhelper.Exit
	select {
	case <-ctx.Done():
		interrupted = true
		exit = p.Stop(30 * time.Second)
	case <-p.Done():
		exit = p.Wait()
	}
	var clockErr error
	if prober != nil {
		if ce := prober.Stop(30 * time.Second); ce.Code != zenohhelper.ExitInterrupted && ce.Code != zenohhelper.ExitComplete {
			clockErr = ce.Err()
		}
	}
	end := time.Now()
	res, rerr := zenohhelper.ReadResults(out)
	if rerr != nil {
		return fail(fmt.Errorf("reading what mqgate-zenoh wrote: %w (%v)", rerr, exit.Err()))
	}
	sum := res.Summary
	completed := sum.Completed && !interrupted && exit.Code == zenohhelper.ExitComplete
	o := Outcome{Paths: []string{out}, Interrupted: interrupted, Incomplete: !completed && !interrupted}
	reason := sum.Reason
	if !completed && reason == "" && exit.Err() != nil {
		reason = exit.Err().Error()
	}
	var counted Snapshot
	for _, pc := range sum.Payloads {
		counted.Sent += pc.Sent
		counted.Received += pc.Received
		counted.Errors += pc.Errors
		counted.Timeouts += pc.Timeouts
	}
	if latency == "" {
		met.Count(counted, nil)
		n := counted.Sent + counted.Received
		o.Summary = fmt.Sprintf("%s %s (zenoh): %d messages%s; helper output in %s", s.Role, s.RunID, n, statusWord(completed, interrupted, reason), out)
		return o
	}
	sys := &meta.SystemInfo{Product: "zenoh", Version: sum.ZenohVersion, URL: s.Endpoints[0], Extra: map[string]string{
		"helper": version, "role": s.Role, "host": hostname(), "links": fmt.Sprint(sum.Links),
	}}
	base := meta.SubExperiment{Transport: "zenoh", Reliable: s.Reliable, Echo: "remote", Topic: key, Completed: completed, Error: reason,
		Start: start.UTC(), End: end.UTC(), System: sys}
	var pc zenohhelper.PayloadCounts
	if len(sum.Payloads) > 0 {
		pc = sum.Payloads[0]
	}
	micros := func(smps []measuredSample) []float64 {
		v := make([]float64, len(smps))
		for i, x := range smps {
			v[i] = x.Latency
		}
		return v
	}
	counts := meta.Payload{Bytes: s.Payload, Lost: pc.Lost, Duplicates: pc.Duplicates, OutOfOrder: pc.OutOfOrder, Errors: pc.Errors, Completed: completed}
	var ms []Measured
	var zsub *zenohSub
	var zreq *ReqReport
	if s.Role == RoleSub {
		zs, err := correctZenohSub(s, res, out, clockOut, clockErr)
		if err != nil {
			return fail(err)
		}
		zsub = &zs
		v := zs.micros
		c := counts
		c.Samples = len(v)
		if len(v) > 0 {
			c.Bytes = res.Samples[0].Payload
		}
		counted.Bytes = uint64(len(v) * c.Bytes)
		met.Count(counted, nanos(v))
		for k, v := range zs.extra {
			sys.Extra[k] = v
		}
		base.Params = map[string]string{"clock-offset": strconv.FormatBool(s.ClockOffset), "publishers": strconv.Itoa(s.Publishers)}
		ms = []Measured{{Type: s.Type(), Payload: c.Bytes, Micros: v, Counts: c, Sub: base}}
	} else {
		first, last := micros(toMeasured(res)), micros(toMeasuredLast(res))
		sys.Extra["queries"] = strconv.FormatUint(pc.Sent, 10)
		sys.Extra["timeouts"] = strconv.FormatUint(pc.Timeouts, 10)
		sys.Extra["replies"] = strconv.FormatUint(pc.Replies, 10)
		sys.Extra["replies_per_query_min"] = strconv.FormatUint(pc.RepliesMin, 10)
		sys.Extra["replies_per_query_max"] = strconv.FormatUint(pc.RepliesMax, 10)
		sys.Extra["errors"] = strconv.FormatUint(pc.Errors, 10)
		sys.Extra["skipped"] = strconv.FormatUint(pc.Skipped, 10)
		if pc.ResultBytes != nil {
			sys.Extra["result_bytes"] = strconv.FormatUint(*pc.ResultBytes, 10)
		}
		mean := 0.0
		if pc.Sent > 0 {
			mean = float64(pc.Replies) / float64(pc.Sent)
		}
		sys.Extra["replies_per_query_mean"] = strconv.FormatFloat(mean, 'f', 3, 64)
		// Queries sent per second of --duration, as the other drivers' req.
		sys.Extra["qps"] = strconv.FormatFloat(float64(pc.Sent)/s.Duration.Seconds(), 'f', 3, 64)
		firstSys := *sys
		firstSys.Extra = map[string]string{"measures": "time to first reply"}
		for k, v := range sys.Extra {
			firstSys.Extra[k] = v
		}
		base.System = &firstSys
		base.Params = map[string]string{"qps": strconv.FormatFloat(s.QPS, 'f', -1, 64), "concurrency": strconv.Itoa(s.Concurrency),
			"replies": strconv.Itoa(s.Replies), "timeout": s.Timeout.String()}
		c1, c2 := counts, counts
		c1.Samples, c2.Samples = len(first), len(last)
		lastSys := *sys
		lastSys.Extra = map[string]string{"measures": "time to last reply"}
		for k, v := range sys.Extra {
			lastSys.Extra[k] = v
		}
		lastSub := base
		lastSub.System = &lastSys
		ms = []Measured{{Type: s.Type(), Payload: s.Payload, Micros: first, Counts: c1, Sub: base},
			{Type: s.LastType(), Payload: s.Payload, Micros: last, Counts: c2, Sub: lastSub}}
		counted.Received = pc.Replies
		if pc.ResultBytes != nil {
			counted.Bytes = *pc.ResultBytes
		}
		met.Count(counted, nanos(first))
		rep := zenohReqReport(s, pc, first, last, start, end, completed, reason)
		zreq = &rep
	}
	errMsg := ""
	if !completed && reason != "" {
		errMsg = s.Type() + ": " + reason
	}
	mode := "one-way open-loop (mqgate-zenoh)"
	clock := "CLOCK_REALTIME across hosts (mqgate-zenoh), corrected by the estimated clock offset"
	if !s.ClockOffset {
		clock = "CLOCK_REALTIME across hosts (mqgate-zenoh), not corrected (--clock-offset false)"
	}
	if s.Role == RoleReq {
		mode, clock = "query open-loop (mqgate-zenoh)", "CLOCK_MONOTONIC (mqgate-zenoh)"
	}
	if err := Merge(s, latency, mode, clock, start.UTC(), end.UTC(), interrupted, errMsg, ms); err != nil {
		o.Err = err
	}
	o.Paths = append([]string{s.Dir()}, o.Paths...)
	if zsub != nil {
		rep := zsub.report(s, sum, start, end, completed, reason)
		path, err := WriteReport(s, rep)
		if err != nil && o.Err == nil {
			o.Err = err
		}
		o.Paths = append(o.Paths, path)
	}
	if zreq != nil {
		path, err := WriteReport(s, *zreq)
		if err != nil && o.Err == nil {
			o.Err = err
		}
		o.Paths = append(o.Paths, path)
	}
	o.Summary = fmt.Sprintf("%s %s (zenoh): %d samples%s; results in %s", s.Role, s.RunID, ms[0].Counts.Samples, statusWord(completed, interrupted, reason), s.Dir())
	return o
}

// zenohReqReport is a Zenoh req's role report (formats §9), the query
// metrics the other drivers' req write, from the helper's counts of the
// payload and the times to the first and last reply (µs, as in its raw
// files). A query is complete with --replies replies; the helper counts
// the others as timeouts.
func zenohReqReport(s Settings, pc zenohhelper.PayloadCounts, first, last []float64, start, end time.Time, completed bool, reason string) ReqReport {
	ns := nanos
	rep := ReqReport{Role: RoleReq, RunID: s.RunID, Host: hostname(), Instance: s.Instance, Driver: s.Driver, Expr: s.Expr,
		QPSTarget: s.QPS, QPS: float64(pc.Sent) / s.Duration.Seconds(), Concurrency: s.Concurrency,
		Queries: pc.Sent, Answered: pc.Received, Timeouts: pc.Timeouts, Errors: pc.Errors, Skipped: pc.Skipped,
		Replies: pc.Replies, RepliesMin: pc.RepliesMin, RepliesMax: pc.RepliesMax,
		FirstP50Us: pct(ns(first), 50), FirstP99Us: pct(ns(first), 99), LastP50Us: pct(ns(last), 50), LastP99Us: pct(ns(last), 99),
		Start: start.UTC(), End: end.UTC(), Completed: completed}
	if pc.Sent >= pc.Timeouts {
		rep.Complete = pc.Sent - pc.Timeouts
	}
	if pc.Sent > 0 {
		rep.RepliesMean = float64(pc.Replies) / float64(pc.Sent)
	}
	if pc.ResultBytes != nil {
		rep.ResultBytes = *pc.ResultBytes
	}
	if !completed {
		rep.Error = reason
	}
	return rep
}

// nanos are latencies in µs as whole nanoseconds.
func nanos(us []float64) []int64 {
	v := make([]int64, len(us))
	for i, x := range us {
		v[i] = int64(math.Round(x * 1000))
	}
	return v
}

type measuredSample struct{ Latency float64 }

func toMeasured(r zenohhelper.Results) []measuredSample {
	out := make([]measuredSample, len(r.Samples))
	for i, s := range r.Samples {
		out[i] = measuredSample{s.Latency}
	}
	return out
}

func toMeasuredLast(r zenohhelper.Results) []measuredSample {
	out := make([]measuredSample, len(r.Last))
	for i, s := range r.Last {
		out[i] = measuredSample{s.Latency}
	}
	return out
}

// zenohSub is a Zenoh sub's samples corrected by each publisher host's
// clock offset, and what meta.json and the report record of it.
type zenohSub struct {
	micros  []float64
	clamped uint64
	offsets map[string]clockoffset.Estimate
	extra   map[string]string
}

// correctZenohSub reads the subscriber's signed one-way latencies
// (arrivals.csv, row for row with its measurements.csv) and the clock
// prober's exchanges (clock.csv), estimates the offset of each publisher
// host (instance = publisher id / 256) and corrects every latency by its
// host's offset: latency = receive − send + offset, below 0 written as 0
// and counted.
func correctZenohSub(s Settings, res zenohhelper.Results, out, clockOut string, clockErr error) (zenohSub, error) {
	zs := zenohSub{offsets: map[string]clockoffset.Estimate{}, extra: map[string]string{}}
	arr, err := zenohhelper.ReadArrivals(filepath.Join(out, zenohhelper.ArrivalsFile))
	if errors.Is(err, fs.ErrNotExist) && len(res.Samples) == 0 {
		err = nil // nothing measured, nothing written
	}
	if err != nil {
		return zs, fmt.Errorf("reading what mqgate-zenoh wrote: %w", err)
	}
	if len(arr) != len(res.Samples) {
		return zs, fmt.Errorf("%s has %d rows, %s %d: they go row for row", filepath.Join(out, zenohhelper.ArrivalsFile),
			len(arr), filepath.Join(out, zenohhelper.RawFile), len(res.Samples))
	}
	var exchanges map[uint8][]clockoffset.Exchange
	var probeErr error
	if s.ClockOffset {
		exchanges, probeErr = zenohhelper.ReadClock(filepath.Join(clockOut, zenohhelper.ClockFile))
		if probeErr != nil && clockErr != nil {
			probeErr = fmt.Errorf("%v (%v)", probeErr, clockErr)
		}
	}
	offset := map[uint8]int64{}
	for _, a := range arr {
		inst := uint8(a.Publisher >> 8)
		key := strconv.Itoa(int(inst))
		if _, done := zs.offsets[key]; done {
			continue
		}
		peer := "instance " + key
		var est clockoffset.Estimate
		switch {
		case !s.ClockOffset:
			est = clockoffset.Estimate{Disabled: true, Peer: peer, Method: "disabled"}
		case probeErr != nil:
			est = clockoffset.Estimate{Disabled: true, Peer: peer, Method: "failed: " + probeErr.Error()}
		default:
			e, err := clockoffset.FromExchanges(exchanges[inst])
			e.Peer = peer
			if err != nil {
				// No estimate: this host's latencies stay as measured,
				// which the report says.
				e.Disabled, e.Method = true, "failed: no clock reply from "+peer
			}
			est = e
		}
		zs.offsets[key] = est
		if !est.Disabled {
			offset[inst] = est.OffsetNs
		}
		zs.extra["clock_offset_ns."+key] = strconv.FormatInt(est.OffsetNs, 10)
		zs.extra["clock_offset_error_bound_ns."+key] = strconv.FormatInt(est.ErrorBoundNs, 10)
		zs.extra["clock_offset_method."+key] = est.Method
		if s.Log != nil {
			s.Log.Info("clock offset", "peer", est.Peer, "offset_ns", est.OffsetNs, "error_bound_ns", est.ErrorBoundNs,
				"method", est.Method, "kept", est.Kept, "exchanges", est.Exchanges)
		}
	}
	zs.micros = make([]float64, len(arr))
	for i, a := range arr {
		ns := a.Ns + offset[uint8(a.Publisher>>8)]
		if ns < 0 {
			ns = 0
			zs.clamped++
		}
		zs.micros[i] = float64(ns) / 1000
	}
	zs.extra["clamped"] = strconv.FormatUint(zs.clamped, 10)
	return zs, nil
}

// report is the Zenoh sub's role report (formats §9, as the other
// drivers' subs write it).
func (zs zenohSub) report(s Settings, sum zenohhelper.Summary, start, end time.Time, completed bool, reason string) SubReport {
	rep := SubReport{Role: RoleSub, RunID: s.RunID, Host: hostname(), Instance: s.Instance, Driver: s.Driver, Expr: s.Expr,
		Subscribers: 1, ClockOffset: zs.offsets, Clamped: zs.clamped, Samples: len(zs.micros),
		Start: start.UTC(), End: end.UTC(), Completed: completed}
	if !completed {
		rep.Reason = reason
	}
	for _, pc := range sum.Payloads {
		rep.Malformed += pc.Errors
		for _, p := range pc.Publishers {
			rep.Publishers = append(rep.Publishers, SubPublisherReport{ID: p.Publisher, Sent: p.Sent, Received: p.Received,
				Lost: p.Lost, Duplicates: p.Duplicates, OutOfOrder: p.OutOfOrder})
		}
	}
	return rep
}
