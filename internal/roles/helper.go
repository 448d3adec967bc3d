package roles

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/clockoffset"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// runHelper runs a role over a system whose helper process times the
// messages itself (driver.RoleRunner); this process records what it wrote,
// as the other drivers' roles record what they measure: a sub's one-way
// samples corrected by each publisher host's clock offset (internal/clockoffset
// estimates it from the helper prober's exchanges; --clock-offset false: as
// measured), a req's times to the first and last reply.
func runHelper(ctx context.Context, s Settings, rr driver.RoleRunner) Outcome {
	out := filepath.Join(s.Dir(), ReportsDir, fmt.Sprintf("helper-%s-%s-%d", s.Role, s.Label, s.Instance))
	var met *Metrics // set before the role starts, which calls Ready
	// The helper counts in windows of --snapshot-interval, which reach the
	// --csv snapshots and Prometheus as they come.
	var windows atomic.Int64
	onWindow := func(w driver.RoleWindow) {
		windows.Add(1)
		met.Count(Snapshot{Sent: w.Sent, Received: w.Received, Errors: w.Errors, Timeouts: w.Timeouts, Bytes: w.Bytes, Lost: w.Lost,
			Duplicates: w.Duplicates, OutOfOrder: w.OutOfOrder, Queries: w.Queries, Replies: w.Replies}, w.Latencies, w.Lasts)
	}
	startRole, err := rr.PrepareRole(ctx, driver.RoleSpec{Ready: func() { met.Ready() }, Window: cmp.Or(s.SnapshotInterval, time.Second), OnWindow: onWindow,
		AggWindow: s.AggWindow, Role: s.Role, Endpoints: s.Endpoints, TopicPrefix: s.TopicPrefix,
		Reliable: s.Reliable, Out: out, Timeout: s.Timeout, Duration: s.Duration, Payload: s.Payload, Rate: s.Rate,
		Publishers: s.Publishers, Topics: s.Topics, Instance: s.Instance, RunHash: s.RunHash(), QPS: s.QPS,
		Concurrency: s.Concurrency, Replies: s.Replies, ReplySize: s.ReplySize, ProcDelay: s.ProcDelay,
		ProcJitter: s.ProcJitter, Seed: s.Seed, ClockOffset: s.ClockOffset, ClockProbes: s.ClockProbes})
	if err != nil {
		return s.failed(err)
	}
	if met, err = s.startMetrics(); err != nil {
		return s.failed(err)
	}
	start := time.Now()
	run, err := startRole(ctx)
	end := time.Now()
	if err != nil {
		met.Abort()
		return s.failed(err)
	}
	count := met.Count
	if windows.Load() > 0 {
		count = func(Snapshot, []int64, []int64) {} // counted as it came
	}
	latency, _ := s.measures()
	o := measuredByHelper(s, count, run, out, latency, start, end)
	// A helper that printed no window (it ended before its first) has
	// its counts in the last window: the --csv file is complete once the
	// role's results are.
	if err := met.Close(); err != nil && o.Err == nil {
		o.Err = err
	}
	return o
}

// countFunc takes counts into the snapshots and Prometheus (Metrics.Count).
type countFunc = func(c Snapshot, latencies, lasts []int64)

// measuredByHelper records what the helper measured: raw files, meta.json
// and the role report of a sub or req, the counts of the others; count
// takes the run's counts into the snapshots and Prometheus (Metrics.Count).
func measuredByHelper(s Settings, count countFunc, run driver.RoleRun, out, latency string, start, end time.Time) Outcome {
	interrupted, completed, reason := run.Interrupted, run.Completed, run.Reason
	counted := Snapshot{Sent: run.Total.Sent, Received: run.Total.Received, Errors: run.Total.Errors, Timeouts: run.Total.Timeouts}
	if latency == "" {
		return countedByHelper(s, count, run, counted, out, start, end)
	}
	// The helper's facts win over the role's of the same name.
	info := run.System
	info.Extra = map[string]string{"role": s.Role, "host": hostname()}
	maps.Copy(info.Extra, run.System.Extra)
	sys := driver.Recorded(info, false)
	base := s.subExperiment(run.Topic, completed, reason, start, end, sys, s.params())
	pc := run.Counts
	counts := meta.Payload{Bytes: s.Payload, Lost: pc.Lost, Duplicates: pc.Duplicates, OutOfOrder: pc.OutOfOrder, Errors: pc.Errors, Completed: completed}
	var ms []Measured
	var rep any
	latText := ""
	if s.Role == RoleSub {
		hs := correctHelperSub(s, run)
		ms = helperSubMeasured(s, count, run, hs, counted, counts, base, sys)
		sr := hs.report(s, run, start, end)
		rep, latText = sr, sr.latencyText()
	} else {
		rr := helperReqReport(s, pc, run.First, run.Last, start, end, completed, reason)
		ms = helperReqMeasured(s, count, run, rr, counted, counts, base, sys)
		rep = rr
	}
	mode, clock := helperModeClock(s, run.Helper)
	mergeErr := Merge(s, latency, mode, clock, start.UTC(), end.UTC(), interrupted, s.metaError(completed, reason), ms)
	// A report that failed still names where it was to be.
	path, err := WriteReport(s, rep)
	did := fmt.Sprintf("%s %s (%s): %s samples%s", s.Role, s.RunID, s.Driver, result.Count(ms[0].Counts.Samples), latText)
	return ended(did, completed, interrupted, reason, "results in "+s.Dir(), []string{s.Dir(), out, path}, mergeErr, err)
}

// countedByHelper is measuredByHelper for a role whose helper counts but
// times nothing (pub, qry): its counts, its role report and a summary.
func countedByHelper(s Settings, count countFunc, run driver.RoleRun, counted Snapshot, out string, start, end time.Time) Outcome {
	count(counted, nil, nil)
	var rep any
	switch s.Role {
	case RolePub:
		rep = helperPubReport(s, run, start, end)
	case RoleQry:
		rep = helperQryReport(s, run, start, end)
	}
	paths, where := []string{out}, "helper output in "+out
	var err error
	if rep != nil {
		var path string
		if path, err = WriteReport(s, rep); err == nil {
			paths, where = append(paths, path), where+"; report "+path
		}
	}
	did := fmt.Sprintf("%s %s (%s): %s messages", s.Role, s.RunID, s.Driver, result.Count(counted.Sent+counted.Received))
	return ended(did, run.Completed, run.Interrupted, run.Reason, where, paths, err)
}

// helperSubMeasured counts a helper sub's corrected samples and returns them
// as the sub-experiment to merge; the helper's facts about the run go into
// sys, which base records.
func helperSubMeasured(s Settings, count countFunc, run driver.RoleRun, hs helperSub, counted Snapshot, counts meta.Payload,
	base meta.SubExperiment, sys *meta.SystemInfo) []Measured {
	pc := run.Counts
	counts.Samples = len(hs.micros)
	if len(hs.micros) > 0 {
		counts.Bytes = run.SampleBytes
	}
	counted.Bytes = uint64(len(hs.micros) * counts.Bytes)
	counted.Lost, counted.Duplicates, counted.OutOfOrder = int64(pc.Lost), pc.Duplicates, pc.OutOfOrder
	count(counted, nanos(hs.micros), nil)
	maps.Copy(sys.Extra, hs.extra)
	return []Measured{{Type: s.Type(), Payload: counts.Bytes, Micros: hs.micros, Counts: counts, Sub: base}}
}

// helperReqMeasured counts a helper req's times to the first and last reply
// and returns them as the two sub-experiments to merge, each system naming
// what it measures beside the helper's query counts (those of rep, its
// report, and the replies).
func helperReqMeasured(s Settings, count countFunc, run driver.RoleRun, rep ReqReport, counted Snapshot, counts meta.Payload,
	base meta.SubExperiment, sys *meta.SystemInfo) []Measured {
	pc := run.Counts
	facts := rep.facts()
	if pc.ResultBytes == nil {
		delete(facts, "result_bytes") // the helper did not count them
	}
	maps.Copy(sys.Extra, facts)
	sys.Extra["replies"] = strconv.FormatUint(pc.Replies, 10)
	counted.Received, counted.Bytes = pc.Replies, rep.ResultBytes
	counted.Queries, counted.Replies = pc.Sent, pc.Replies
	count(counted, nanos(run.First), nanos(run.Last))
	return reqMeasured(s, run.First, run.Last, counts, base, sys)
}

// measuring is a copy of sys whose extra facts also say what its samples
// measure.
func measuring(sys *meta.SystemInfo, what string) *meta.SystemInfo {
	c := *sys
	c.Extra = map[string]string{"measures": what}
	maps.Copy(c.Extra, sys.Extra)
	return &c
}

// helperModeClock is the mode and clock meta.json records for a helper's
// samples: a sub's one-way times across hosts, a req's round trips.
func helperModeClock(s Settings, helper string) (mode, clock string) {
	if s.Role == RoleReq {
		return "query open-loop (" + helper + ")", "CLOCK_MONOTONIC (" + helper + ")"
	}
	how := "corrected by the estimated clock offset"
	if !s.ClockOffset {
		how = "not corrected (--clock-offset false)"
	}
	return "one-way open-loop (" + helper + ")", "CLOCK_REALTIME across hosts (" + helper + "), " + how
}

// helperPubReport is a helper pub's role report (formats §9), the other
// drivers' pub report from the helper's counts: each publisher's messages
// sent (publisher i of the instance publishes on <key>/data/<i mod
// topics>), the skipped slots and errors of all of them (the helper does not
// count them per publisher: a lone publisher gets them, several 0 each). The
// helper does not count the clock probes it answered: 0.
func helperPubReport(s Settings, run driver.RoleRun, start, end time.Time) PubReport {
	rep := PubReport{reportHead: s.head(RolePub), Reliability: s.Reliability(), Payload: s.Payload, Rate: s.Rate,
		reportEnd: helperEnd(run, start, end), Skipped: run.Counts.Skipped, Errors: run.Counts.Errors}
	for _, p := range run.Publishers {
		pr := PublisherReport{ID: p.ID}
		if p.Sent != nil {
			pr.Sent = *p.Sent
		}
		if i := int(p.ID) - s.Instance*256; i >= 0 && s.Topics > 0 {
			pr.Topic = run.Topic + "/data/" + strconv.Itoa(i%s.Topics)
		}
		rep.Publishers = append(rep.Publishers, pr)
	}
	if len(rep.Publishers) == 1 {
		rep.Publishers[0].Skipped, rep.Publishers[0].Errors = rep.Skipped, rep.Errors
	}
	return rep
}

// helperQryReport is a helper qry's role report (formats §9): the key it
// served, <key>/query, the queries it took and the replies it sent.
func helperQryReport(s Settings, run driver.RoleRun, start, end time.Time) QryReport {
	key := run.Topic + "/query"
	return QryReport{reportHead: s.head(RoleQry), ServePrefix: key, ServePrefixes: []string{key}, ReplySize: s.ReplySize,
		ProcDelayNs: int64(s.ProcDelay), ProcJitter: int64(s.ProcJitter), Queries: run.Counts.Received, Replies: run.Counts.Replies,
		reportEnd: helperEnd(run, start, end)}
}

// helperReqReport is a helper req's role report (formats §9), the query
// metrics the other drivers' req write, from the helper's counts of the
// payload and the times to the first and last reply (µs, as in its raw
// files). A query is complete with --replies replies; the helper counts
// the others as timeouts.
func helperReqReport(s Settings, pc driver.RoleCounts, first, last []float64, start, end time.Time, completed bool, reason string) ReqReport {
	rep := ReqReport{reportHead: s.head(RoleReq), Expr: s.Expr,
		QPSTarget: s.QPS, QPS: float64(pc.Sent) / s.Duration.Seconds(), Concurrency: s.Concurrency,
		Queries: pc.Sent, Answered: pc.Received, Timeouts: pc.Timeouts, Errors: pc.Errors, Skipped: pc.Skipped,
		Replies: pc.Replies, RepliesMin: pc.RepliesMin, RepliesMax: pc.RepliesMax,
		reportEnd: reportEnd{Start: start.UTC(), End: end.UTC(), Completed: completed}}
	rep.setTimes(first, last)
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

// helperSub is a helper sub's samples corrected by each publisher host's
// clock offset, and what meta.json and the report record of it.
type helperSub struct {
	micros  []float64
	clamped uint64
	offsets map[string]clockoffset.Estimate
	extra   map[string]string
}

// correctHelperSub estimates the clock offset of each publisher host
// (instance = publisher id / 256) from the helper prober's exchanges and
// corrects every one-way latency the subscriber measured (signed) by its
// host's offset: latency = receive − send + offset, below 0 written as 0
// and counted.
func correctHelperSub(s Settings, run driver.RoleRun) helperSub {
	hs := helperSub{offsets: map[string]clockoffset.Estimate{}, extra: map[string]string{}}
	for _, a := range run.Arrivals {
		inst := uint8(a.Publisher >> 8)
		key := strconv.Itoa(int(inst))
		if _, done := hs.offsets[key]; done {
			continue
		}
		est, err := clockoffset.Estimate{}, run.ClockErr
		if s.ClockOffset && err == nil {
			if est, err = clockoffset.FromExchanges(run.Clock[inst]); err != nil {
				err = errors.New("no clock reply from instance " + key)
			}
		}
		est = hostClock(s, inst, est, err)
		hs.offsets[key] = est
		addClockOffset(hs.extra, key, est)
		logClock(s, est)
	}
	hs.micros = make([]float64, len(run.Arrivals))
	for i, a := range run.Arrivals {
		hs.micros[i] = clampedUs(corrected(hs.offsets, uint8(a.Publisher>>8), a.Ns), &hs.clamped)
	}
	hs.extra["clamped"] = strconv.FormatUint(hs.clamped, 10)
	return hs
}

// report is the helper sub's role report (formats §9, as the other
// drivers' subs write it).
func (hs helperSub) report(s Settings, run driver.RoleRun, start, end time.Time) SubReport {
	rep := SubReport{reportHead: s.head(RoleSub), Expr: s.Expr,
		Subscribers: 1, ClockOffset: hs.offsets, Clamped: hs.clamped, Publishers: []SubPublisherReport{},
		Start: start.UTC(), End: end.UTC(), Completed: run.Completed, Malformed: run.Total.Errors}
	rep.setLatency(hs.micros)
	if !run.Completed {
		rep.Reason = run.Reason
	}
	for _, p := range run.Publishers {
		rep.Publishers = append(rep.Publishers, SubPublisherReport{ID: p.ID, Sent: p.Sent, Received: p.Received,
			Lost: p.Lost, Duplicates: p.Duplicates, OutOfOrder: p.OutOfOrder})
	}
	return rep
}
