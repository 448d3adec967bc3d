package zenoh

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/meta"
)

// minRoleLease is the shortest lease a role announces: keep-alives go out
// four times per lease, and a shorter one could expire on a loaded host
// that merely stalled.
const minRoleLease = 2 * time.Second

// roleLease is the lease a role announces for --timeout: the timeout, at
// least minRoleLease. The router closes the link of a role it heard
// nothing from within the lease, so a host cut off is noticed, and its
// declarations dropped, within about --timeout, as the other drivers
// notice a lost peer.
func roleLease(timeout time.Duration) time.Duration { return max(timeout, minRoleLease) }

// PrepareRole runs a role through mqgate-zenoh's matching role (pub, sub,
// query, queryable), which times the messages itself. Every role is a
// client of the routers given by --endpoint (a zenohd or `mqgate-zenoh
// router`). The helper's query sends --qps × --duration queries open loop
// at --qps, at most --concurrency in flight (a slot that finds them all in
// flight is skipped and counted), and its queryable answers with
// --reply-size bytes after --proc-delay, as the other drivers' req and qry.
//
// Clock offsets: the helper's publishers (ids instance·256 + i) answer
// clock probes at <key>/clock; a sub runs the helper's clock role beside
// its subscriber, which probes every publisher host (--clock-offset).
func (Transport) PrepareRole(ctx context.Context, sp driver.RoleSpec) (func(context.Context) (driver.RoleRun, error), error) {
	if len(sp.Endpoints) == 0 {
		return nil, fmt.Errorf("--driver zenoh needs --endpoint tcp/ROUTER:PORT (a zenohd or `mqgate-zenoh router`)")
	}
	bin, err := zenohhelper.Find()
	if err != nil {
		return nil, err
	}
	version, err := zenohhelper.Version(ctx, bin)
	if err != nil {
		return nil, err
	}
	key := sp.TopicPrefix
	if key == "mqgate.bench" {
		key = "mqgate/bench"
	}
	r := &helperRole{sp: sp, bin: bin, version: version, key: key, clockKey: key + "/clock", lease: roleLease(sp.Timeout)}
	r.args = r.roleArgs()
	return r.run, nil
}

// helperRole is a role PrepareRole prepared: the helper binary and its
// version, the key expression the role uses (clockKey for clock probes),
// the lease it announces and the helper's arguments.
type helperRole struct {
	sp                          driver.RoleSpec
	bin, version, key, clockKey string
	lease                       time.Duration
	args                        []string
}

// roleArgs are the arguments of mqgate-zenoh's role matching r's.
func (r *helperRole) roleArgs() []string {
	sp := r.sp
	c := zenohhelper.Common{Mode: zenohhelper.ModeClient, Connect: sp.Endpoints, Key: r.key, Reliable: sp.Reliable, Out: sp.Out, Lease: r.lease}
	if sp.OnWindow != nil {
		c.Window = sp.Window
	}
	run := sp.RunHash
	switch sp.Role {
	case "pub":
		// Late clock probes are answered for a while after the last
		// message, as the other drivers' pubs do.
		linger := min(sp.Timeout, 2*time.Second)
		return zenohhelper.Pub{Common: c, Payloads: []int{sp.Payload}, Rate: sp.Rate, Publishers: sp.Publishers, Topics: sp.Topics,
			Duration: sp.Duration, RunID: &run, WaitPeer: sp.Timeout, IDBase: sp.Instance * 256, ClockKey: r.clockKey, ClockLinger: &linger}.Args()
	case "sub":
		return zenohhelper.Sub{Common: c, Publishers: sp.Publishers, Timeout: sp.Timeout, WaitPeer: sp.Duration + sp.Timeout, RunID: &run, Arrivals: true}.Args()
	case "req":
		n := max(1, int(sp.QPS*sp.Duration.Seconds()))
		return zenohhelper.Query{Common: c, Payloads: []int{sp.Payload}, Samples: n, Replies: sp.Replies, Timeout: sp.Timeout,
			Target: zenohhelper.TargetAll, WaitPeer: sp.Timeout, MaxTimeouts: 1 << 30, Rate: sp.QPS, Concurrency: sp.Concurrency,
			ResultBytes: true, AggWindow: sp.AggWindow}.Args()
	case "qry":
		size := sp.ReplySize
		return zenohhelper.Queryable{Common: c, Replies: sp.Replies, Duration: sp.Duration, ReplySize: &size,
			ProcDelay: sp.ProcDelay, ProcJitter: sp.ProcJitter, Seed: sp.Seed<<8 | uint64(sp.Instance)}.Args()
	}
	return nil
}

// clockOut is where the clock prober writes.
func (r *helperRole) clockOut() string { return r.sp.Out + "-clock" }

// probing says whether a clock prober runs beside the role: a sub's, with
// --clock-offset.
func (r *helperRole) probing() bool { return r.sp.Role == "sub" && r.sp.ClockOffset }

// run runs the role until the helper is done or ctx is, and reads what it
// wrote.
func (r *helperRole) run(ctx context.Context) (driver.RoleRun, error) {
	sp := r.sp
	// The clock prober starts first: it probes each publisher host as
	// soon as it answers, until the subscriber is done.
	var prober *zenohhelper.Process
	var err error
	if r.probing() {
		cc := zenohhelper.Common{Mode: zenohhelper.ModeClient, Connect: sp.Endpoints, Key: r.clockKey, Out: r.clockOut(), Lease: r.lease}
		prober, err = zenohhelper.Start(context.Background(), r.bin, zenohhelper.Clock{Common: cc, Probes: sp.ClockProbes,
			Interval: 5 * time.Millisecond, Timeout: min(sp.Timeout, time.Second)}.Args())
		if err != nil {
			return driver.RoleRun{}, fmt.Errorf("starting the clock prober: %w", err)
		}
	}
	var onWindow func(zenohhelper.Window)
	if sp.OnWindow != nil {
		onWindow = func(w zenohhelper.Window) { sp.OnWindow(roleWindow(w)) }
	}
	p, err := zenohhelper.StartWindows(context.Background(), r.bin, r.args, onWindow)
	if err != nil {
		if prober != nil {
			prober.Stop(30 * time.Second)
		}
		return driver.RoleRun{}, err
	}
	if sp.Ready != nil {
		sp.Ready()
	}
	out := driver.RoleRun{Helper: zenohhelper.BinaryName, Topic: r.key}
	var exit zenohhelper.Exit
	select {
	case <-ctx.Done():
		out.Interrupted = true
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
	res, err := zenohhelper.ReadResults(sp.Out)
	if err != nil {
		return out, fmt.Errorf("reading what mqgate-zenoh wrote: %w (%v)", err, exit.Err())
	}
	r.results(&out, res, exit)
	if sp.Role != "sub" {
		return out, nil
	}
	err = r.arrivals(&out, res, clockErr)
	return out, err
}

// results takes the helper's results and exit into out.
func (r *helperRole) results(out *driver.RoleRun, res zenohhelper.Results, exit zenohhelper.Exit) {
	sum := res.Summary
	out.Completed = sum.Completed && !out.Interrupted && exit.Code == zenohhelper.ExitComplete
	out.Reason = sum.Reason
	if !out.Completed && out.Reason == "" && exit.Err() != nil {
		out.Reason = exit.Err().Error()
	}
	out.System = meta.SystemInfo{Product: "zenoh", Version: sum.ZenohVersion, URL: r.sp.Endpoints[0],
		Extra: map[string]string{"helper": r.version, "links": fmt.Sprint(sum.Links)}}
	for i, pc := range sum.Payloads {
		if i == 0 {
			out.Counts = driver.RoleCounts{Sent: pc.Sent, Received: pc.Received, Lost: pc.Lost, Duplicates: pc.Duplicates,
				OutOfOrder: pc.OutOfOrder, Timeouts: pc.Timeouts, Errors: pc.Errors, Skipped: pc.Skipped, Replies: pc.Replies,
				RepliesMin: pc.RepliesMin, RepliesMax: pc.RepliesMax, ResultBytes: pc.ResultBytes}
		}
		out.Total.Sent += pc.Sent
		out.Total.Received += pc.Received
		out.Total.Errors += pc.Errors
		out.Total.Timeouts += pc.Timeouts
		for _, pub := range pc.Publishers {
			out.Publishers = append(out.Publishers, driver.RolePublisher{ID: pub.Publisher, Sent: pub.Sent, Received: pub.Received,
				Lost: pub.Lost, Duplicates: pub.Duplicates, OutOfOrder: pub.OutOfOrder})
		}
	}
	for _, s := range res.Samples {
		out.First = append(out.First, s.Latency)
	}
	for _, s := range res.Last {
		out.Last = append(out.Last, s.Latency)
	}
	if len(res.Samples) > 0 {
		out.SampleBytes = res.Samples[0].Payload
	}
}

// arrivals takes a sub's arrivals, row for row with its samples, and the
// clock prober's estimates (clockErr: how the prober ended, if badly) into
// out.
func (r *helperRole) arrivals(out *driver.RoleRun, res zenohhelper.Results, clockErr error) error {
	sp := r.sp
	arr, err := zenohhelper.ReadArrivals(filepath.Join(sp.Out, zenohhelper.ArrivalsFile))
	if errors.Is(err, fs.ErrNotExist) && len(res.Samples) == 0 {
		err = nil // nothing measured, nothing written
	}
	if err != nil {
		return fmt.Errorf("reading what mqgate-zenoh wrote: %w", err)
	}
	if len(arr) != len(res.Samples) {
		return fmt.Errorf("%s has %d rows, %s %d: they go row for row", filepath.Join(sp.Out, zenohhelper.ArrivalsFile),
			len(arr), filepath.Join(sp.Out, zenohhelper.RawFile), len(res.Samples))
	}
	for _, a := range arr {
		out.Arrivals = append(out.Arrivals, driver.Arrival{Publisher: a.Publisher, Ns: a.Ns})
	}
	if r.probing() {
		out.Clock, out.ClockErr = zenohhelper.ReadClock(filepath.Join(r.clockOut(), zenohhelper.ClockFile))
		if out.ClockErr != nil && clockErr != nil {
			out.ClockErr = fmt.Errorf("%v (%v)", out.ClockErr, clockErr)
		}
	}
	return nil
}

// roleWindow is a helper's window as the roles count it.
func roleWindow(w zenohhelper.Window) driver.RoleWindow {
	return driver.RoleWindow{Sent: w.Sent, Received: w.Received, Errors: w.Errors, Timeouts: w.Timeouts, Bytes: w.Bytes,
		Lost: w.Lost, Duplicates: w.Duplicates, OutOfOrder: w.OutOfOrder, Queries: w.Queries, Replies: w.Replies,
		Latencies: zenohhelper.Values(w.Latency), Lasts: zenohhelper.Values(w.Last)}
}
