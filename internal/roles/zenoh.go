package roles

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/zenohhelper"
)

// RunZenoh runs a role over Zenoh through mqgate-zenoh's matching role
// (pub, sub, query, queryable), which times the messages itself; this
// process imports what it wrote. Every role is a client of the routers
// given by --endpoint (a zenohd or `mqgate-zenoh router`). The helper's
// query is closed-loop: req sends --qps × --duration queries one after the
// other, and reports the rate it reached. The helper's queryable echoes the
// query (no --reply-size, --proc-delay), and its publishers serve no clock
// probes: one-way latencies are as measured (meta.json says so).
func RunZenoh(ctx context.Context, s Settings) Outcome {
	fail := func(err error) Outcome {
		return Outcome{Err: err, Summary: s.Role + " " + s.RunID + ": " + err.Error()}
	}
	if len(s.Endpoints) == 0 {
		return fail(fmt.Errorf("--driver zenoh needs --endpoint tcp/ROUTER:PORT (a zenohd or `mqgate-zenoh router`)"))
	}
	if s.Role == RoleQry && (s.ReplySize != 64 || s.ProcDelay != 0) {
		return fail(fmt.Errorf("--reply-size and --proc-delay: the Zenoh helper's queryable echoes each query at once"))
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
	c := zenohhelper.Common{Mode: zenohhelper.ModeClient, Connect: s.Endpoints, Key: key, Reliable: s.Reliable, Out: out}
	run := s.RunHash()
	var args []string
	latency := ""
	switch s.Role {
	case RolePub:
		args = zenohhelper.Pub{Common: c, Payloads: []int{s.Payload}, Rate: s.Rate, Publishers: s.Publishers, Topics: s.Topics,
			Duration: s.Duration, RunID: &run, WaitPeer: s.Timeout}.Args()
	case RoleSub:
		latency = meta.LatencyOneWay
		args = zenohhelper.Sub{Common: c, Publishers: s.Publishers, Timeout: s.Timeout, WaitPeer: s.Duration + s.Timeout, RunID: &run}.Args()
	case RoleReq:
		latency = meta.LatencyRTT
		n := max(1, int(s.QPS*s.Duration.Seconds()))
		args = zenohhelper.Query{Common: c, Payloads: []int{s.Payload}, Samples: n, Replies: s.Replies, Timeout: s.Timeout,
			Target: zenohhelper.TargetAll, WaitPeer: s.Timeout, MaxTimeouts: 1 << 30}.Args()
	case RoleQry:
		args = zenohhelper.Queryable{Common: c, Replies: s.Replies, Duration: s.Duration}.Args()
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
	start := time.Now()
	p, err := zenohhelper.Start(context.Background(), bin, args)
	if err != nil {
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
	if latency == "" {
		var n uint64
		for _, pc := range sum.Payloads {
			n += pc.Sent + pc.Received
		}
		o.Summary = fmt.Sprintf("%s %s (zenoh): %d messages%s; helper output in %s", s.Role, s.RunID, n, statusWord(completed, interrupted, reason), out)
		return o
	}
	sys := &meta.SystemInfo{Product: "zenoh", Version: sum.ZenohVersion, URL: s.Endpoints[0], Extra: map[string]string{
		"helper": version, "role": s.Role, "host": hostname(), "links": fmt.Sprint(sum.Links),
		"clock_offset": "not estimated: the Zenoh helper's publishers serve no clock probes",
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
	if s.Role == RoleSub {
		v := micros(toMeasured(res))
		c := counts
		c.Samples = len(v)
		if len(v) > 0 {
			c.Bytes = res.Samples[0].Payload
		}
		sys.Extra["clamped"] = strconv.FormatUint(pc.Clamped, 10)
		ms = []Measured{{Type: s.Type(), Payload: c.Bytes, Micros: v, Counts: c, Sub: base}}
	} else {
		first, last := micros(toMeasured(res)), micros(toMeasuredLast(res))
		sys.Extra["queries"] = strconv.FormatUint(pc.Sent, 10)
		sys.Extra["timeouts"] = strconv.FormatUint(pc.Timeouts, 10)
		sys.Extra["replies"] = strconv.FormatUint(pc.Replies, 10)
		sys.Extra["replies_per_query_min"] = strconv.FormatUint(pc.RepliesMin, 10)
		sys.Extra["replies_per_query_max"] = strconv.FormatUint(pc.RepliesMax, 10)
		sys.Extra["qps"] = strconv.FormatFloat(float64(pc.Sent)/end.Sub(start).Seconds(), 'f', 3, 64)
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
	}
	errMsg := ""
	if !completed && reason != "" {
		errMsg = s.Type() + ": " + reason
	}
	mode := "one-way open-loop (mqgate-zenoh)"
	clock := "CLOCK_REALTIME across hosts (mqgate-zenoh), not corrected"
	if s.Role == RoleReq {
		mode, clock = "query closed-loop (mqgate-zenoh)", "CLOCK_MONOTONIC (mqgate-zenoh)"
	}
	if err := Merge(s, latency, mode, clock, start.UTC(), end.UTC(), interrupted, errMsg, ms); err != nil {
		o.Err = err
	}
	o.Paths = append([]string{s.Dir()}, o.Paths...)
	o.Summary = fmt.Sprintf("%s %s (zenoh): %d samples%s; results in %s", s.Role, s.RunID, ms[0].Counts.Samples, statusWord(completed, interrupted, reason), s.Dir())
	return o
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
