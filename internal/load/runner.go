package load

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/loadsummary"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Sub is one sub-experiment of a load run.
type Sub struct {
	Type      string // formats §1 name
	Transport string // driver registry name
	Reliable  bool
	// Topic and Params are recorded in meta.json (the base topic, the
	// driver settings without secrets).
	Topic  string
	Params map[string]string
	// Embedded is recorded in meta.json's system (--broker embedded).
	Embedded bool
	Links    Links
}

// Runner measures sub-experiments one after the other and writes, for
// each, the raw file (formats §2, one-way), the snapshot CSV, the summary
// JSON and the histogram log (formats §9), and meta.json after each, so
// that a run that stops early leaves a consistent record marked
// incomplete.
type Runner struct {
	Config Config
	Dir    string
	// Meta is the record to complete; the caller fills Tool, Experiment,
	// Start, System, Host and Config.
	Meta *meta.Meta
	// Progress receives a line per payload (nil: quiet); Terminal adds a
	// live status line.
	Progress io.Writer
	Terminal bool
	// NoPlots leaves out the figures (Plot).
	NoPlots bool
	// Also, when non-nil, writes more files of a sub-experiment from its
	// results (run load adds the throughput summary CSV this way).
	Also func(dir string, s Sub, cfg Config, res []PayloadResult) error
}

// Run measures subs. It returns nil when every payload of every
// sub-experiment was measured, an error wrapping ErrInterrupted when ctx
// was cancelled, or the error that stopped it; the files of what was
// measured are written in every case.
func (r *Runner) Run(ctx context.Context, subs []Sub) error {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if r.Progress != nil {
		cfg.Observers = append(cfg.Observers, &Progress{W: r.Progress, Terminal: r.Terminal})
	}
	r.Meta.Mode = fmt.Sprintf("one-way %s, %s", pacingName(cfg.Rate), cfg.Topology)
	r.Meta.Clock = ClockNameFor(cfg.Rate)
	return runSubs(r.Dir, r.Meta, subs, func(s Sub, rec *meta.SubExperiment) (func() error, error) {
		res, runErr := Measure(ctx, s.Type, s.Links, cfg)
		if runErr != nil {
			runErr = fmt.Errorf("%s: %w", s.Type, runErr)
		}
		for _, p := range res {
			rec.Acknowledged = p.Acknowledged
			if p.System != nil && rec.System == nil {
				rec.System = driver.Recorded(*p.System, s.Embedded)
			}
			rec.Payloads = append(rec.Payloads, meta.Payload{
				Bytes: p.Payload, Samples: len(p.Raw), Warmup: int(p.Counters.Warmup),
				Lost: p.Lost, Duplicates: p.Duplicates, OutOfOrder: p.OutOfOrder, Errors: p.Counters.Errors,
				MessagesAcked: p.Counters.MessagesAcked, MessagesRefused: p.Counters.MessagesRefused,
				Completed: runErr == nil || p.Payload != res[len(res)-1].Payload,
			})
		}
		if len(res) == 0 {
			return nil, runErr
		}
		return func() error { return r.write(s, cfg, res, runErr) }, runErr
	})
}

// write writes the files of one sub-experiment.
func (r *Runner) write(s Sub, cfg Config, res []PayloadResult, runErr error) error {
	var rows []Snapshot
	sum := Summary{Format: SummaryFormat, SubExperiment: s.Type, Transport: s.Transport, Completed: runErr == nil,
		Parameters: Parameters{Scenario: cfg.Topology.Scenario, Publishers: cfg.Topology.Publishers, Subscribers: cfg.Topology.Subscribers,
			Topics: cfg.Topology.Topics, Rate: cfg.Rate, Pacing: pacingName(cfg.Rate), DurationS: cfg.Duration.Seconds(),
			WarmupS: cfg.Warmup.Seconds(), DrainS: cfg.Drain.Seconds(), IntervalS: cfg.Interval.Seconds(), RunID: cfg.RunID,
			Padding: string(cfg.Padding), PaddingSeed: cfg.PaddingSeed,
			Latency: meta.LatencyOneWay, Clock: ClockNameFor(cfg.Rate), Payloads: cfg.Payloads}}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	kept := 0
	for i := range res {
		kept += len(res[i].Raw)
		rows = append(rows, Snapshots(s.Type, &res[i])...)
		sum.Payloads = append(sum.Payloads, SummaryOf(&res[i], cfg))
	}
	if kept > 0 {
		if err := WriteRaw(r.Dir, s.Type, res); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, SnapshotsFileName(s.Type)), func(w io.Writer) error { return WriteSnapshots(w, rows) }); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, SummaryFileName(s.Type)), func(w io.Writer) error { return loadsummary.Write(w, sum) }); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(r.Dir, HistogramLogFileName(s.Type)), func(w io.Writer) error {
		return WriteHistogramLog(w, s.Type, res, cfg.Clock)
	}); err != nil {
		return err
	}
	if !r.NoPlots {
		if _, err := Plot(r.Dir, s.Type, res); err != nil {
			return err
		}
	}
	if r.Also != nil {
		return r.Also(r.Dir, s, cfg, res)
	}
	return nil
}

// Progress is the Observer that prints progress: on a terminal a live
// line, `fan-in nats_best_effort 16 B ━━━━━━──── 45s/60s  12,450 msg/s
// P99: 23.0 ms`, rewritten every interval; elsewhere (CI, a file) only the
// line that closes each payload.
type Progress struct {
	W        io.Writer
	Terminal bool
	sub      string
	payload  int
	cfg      Config
}

// Begin starts a payload.
func (p *Progress) Begin(sub string, payload int, _ *Counters, _ *Recorder, cfg Config) {
	p.sub, p.payload, p.cfg = sub, payload, cfg
}

// Tick rewrites the status line.
func (p *Progress) Tick(t Tick) {
	if !p.Terminal {
		return
	}
	const width = 20
	frac := min(1, t.Elapsed.Seconds()/p.cfg.Duration.Seconds())
	done := int(frac * width)
	bar := strings.Repeat("━", done) + strings.Repeat("─", width-done)
	recv := rate(t.Delta.MessagesReceived, t.Period)
	p99 := StatsOf(t.Latency, 0).P99Ns
	phase := ""
	if t.Drain {
		phase = " draining"
	}
	fmt.Fprintf(p.W, "\r\x1b[K%s %s %d B %s %s/%s%s  %s msg/s  P99: %s", p.cfg.Topology.Scenario, p.sub, p.payload, bar,
		t.Elapsed.Round(time.Second), p.cfg.Duration.Round(time.Second), phase, result.Thousands(recv), result.Nanos(p99))
}

// End prints the payload's closing line, its latencies labelled by where
// they are measured from, and its knee notes (the summary's, the rate
// warning aside: the caller warns of it once).
func (p *Progress) End(r *PayloadResult) {
	if p.Terminal {
		fmt.Fprint(p.W, "\r\x1b[K")
	}
	sent := fmt.Sprintf("sent %s (%s msg/s)", result.Count(r.Counters.MessagesSent), result.Thousands(r.SendRate()))
	if p.cfg.Rate > 0 {
		sent = fmt.Sprintf("sent %s of %s offered in total (%s msg/s per publisher × %d; %s msg/s, %s skipped)", result.Count(r.Counters.MessagesSent),
			result.Count(r.OfferedSends()), result.Thousands(p.cfg.Rate), len(r.Publishers), result.Thousands(r.SendRate()), result.Count(r.Counters.Skipped))
	}
	// Several subscribers: how the deliveries split among them.
	split := ""
	if len(r.Subscribers) > 1 {
		parts := make([]string, len(r.Subscribers))
		for j, s := range r.Subscribers {
			parts[j] = result.Count(s.Received)
		}
		split = "  per subscriber " + strings.Join(parts, "/")
	}
	// With several subscribers of a topic a message sent makes several
	// deliveries: the ratio is of those.
	of := "sent"
	if r.Expected != r.Counters.MessagesSent {
		of = "deliveries the sends make"
	}
	lost := "lost " + result.Count(r.Lost)
	switch d := r.TransportDropped; {
	case r.DroppedByTransport():
		lost = fmt.Sprintf("lost %s (dropped by the transport %s)", result.Count(r.Lost), result.Count(*d))
	case !r.Drained && r.Lost > 0:
		lost = "not delivered by the drain's end " + result.Count(r.Lost)
	}
	fmt.Fprintf(p.W, "%-38s %6d B  %s  received %s (%s msg/s; %.2f%% of %s deliveries offered, %.2f%% of %s %s)%s  %s  dup %s  ooo %s\n",
		p.sub, r.Payload, sent, result.Count(r.Unique), result.Thousands(r.ReceiveRate()), 100*r.DeliveryRate(), result.Count(r.Offered),
		100*r.DeliveryRatio(), result.Count(r.Expected), of, split, lost, result.Count(r.Duplicates), result.Count(r.OutOfOrder))
	fmt.Fprintf(p.W, "%-38s %6d B  %s\n", "", r.Payload, latencyLine(r, p.cfg.Rate))
	for _, n := range KneeNotes(r, p.cfg) {
		fmt.Fprintf(p.W, "%-38s %6d B  note: %s\n", "", r.Payload, n)
	}
}

// latencyLine is the closing latency figures, each labelled by where it
// is measured from: paced, from the intended send time (the headline),
// from the actual send, and the send delay between them.
func latencyLine(r *PayloadResult, rate float64) string {
	st := func(s Stats) string {
		return fmt.Sprintf("p50 %s  p99 %s  max %s", result.Nanos(s.P50Ns), result.Nanos(s.P99Ns), result.Nanos(s.MaxNs))
	}
	if r.Latency.Count == 0 {
		return "latency: none measured (no message of the measured period was delivered)"
	}
	if rate <= 0 {
		return "latency from the send call " + st(r.Latency)
	}
	return fmt.Sprintf("latency from the intended send time %s;  from the actual send %s;  send delay p50 %s  p99 %s",
		st(r.Latency), st(r.FromSend), result.Nanos(r.SendDelay.P50Ns), result.Nanos(r.SendDelay.P99Ns))
}
