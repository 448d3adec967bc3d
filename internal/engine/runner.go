package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
)

// ErrInterrupted is wrapped by the error of a run whose context was
// cancelled (SIGINT/SIGTERM). What was measured has been written.
var ErrInterrupted = errors.New("interrupted")

// Where an echoer runs, as recorded in meta.json.
const (
	EchoInProcess  = "in-process"
	EchoSubprocess = "subprocess"
	EchoRemote     = "remote"
)

// Link is an open pinger and what goes with it.
type Link struct {
	Pinger driver.Pinger
	// Failed, when non-nil, delivers an error if the far end dies (an echo
	// process exits); the engine then stops the sub-experiment at once
	// instead of waiting for timeouts.
	Failed <-chan error
	// Close, when non-nil, releases what Open started (an echoer, an echo
	// process). It is called after Pinger.Close.
	Close func() error
	// System, when non-nil, describes what the pinger connected to, for
	// meta.json.
	System *meta.SystemInfo
	// CPU, when non-nil, reads how long the echo end's own process has
	// been on a CPU so far (the sum over its threads); nil when the echo
	// end has no process of its own (in process, remote, a broker).
	CPU func() (time.Duration, error)
}

// Sub is one sub-experiment to measure.
type Sub struct {
	Type      string // formats §1 name, e.g. "interprocess_reliable_tcp"
	Transport string // driver registry name, for meta.json
	Reliable  bool
	Echo      string // EchoInProcess, EchoSubprocess or EchoRemote
	// Topic and Params are recorded in meta.json: the broker topic and the
	// driver settings (without secrets).
	Topic  string
	Params map[string]string
	// Open starts the echoer if needed and connects a pinger. ctx is
	// cancelled when the run is interrupted.
	Open func(ctx context.Context) (*Link, error)
}

// StopError says why and where a sub-experiment stopped early.
type StopError struct {
	Type    string
	Payload int
	// Attempt is the 1-based round trip of the payload during which the
	// run stopped; Total is Warmup + Samples.
	Attempt, Total int
	Err            error
}

func (e *StopError) Error() string {
	if e.Payload == 0 {
		return fmt.Sprintf("%s: %v", e.Type, e.Err)
	}
	return fmt.Sprintf("%s: payload %d B, round trip %d of %d: %v", e.Type, e.Payload, e.Attempt, e.Total, e.Err)
}

func (e *StopError) Unwrap() error { return e.Err }

// Runner measures sub-experiments and writes their results.
type Runner struct {
	Config Config
	// Dir is the experiment directory the files are written to.
	Dir string
	// Meta is the record to complete; the caller fills Tool, Experiment,
	// System, Host and Config.
	Meta *meta.Meta
	// Progress receives progress reports; nil means quiet. Terminal makes
	// them a live status line; otherwise (a log) a line every few seconds.
	Progress io.Writer
	Terminal bool
	// Sink writes each sub-experiment's samples; nil means RawCSV.
	Sink Sink

	prog  progress         // the progress lines' state
	clock func() time.Time // nil: time.Now
}

// Run measures subs in order. It returns nil when every payload of every
// sub-experiment was measured, an error wrapping ErrInterrupted when ctx was
// cancelled, a *StopError when a link failed, or an output error. In every
// case the raw files of the sub-experiments measured so far and meta.json
// are written.
func (r *Runner) Run(ctx context.Context, subs []Sub) (err error) {
	cfg := r.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	m := r.Meta
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	m.Latency = cfg.Workload.Latency(cfg)
	m.Mode = cfg.Workload.Mode(cfg.Pacer)
	m.Clock = "monotonic (Go runtime, ns)"
	m.Completed, m.Interrupted, m.Error = false, false, ""
	m.SubExperiments = []meta.SubExperiment{} // [] not null in the first meta.json
	metaPath := filepath.Join(r.Dir, meta.FileName)
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	// meta.json exists, marked incomplete, from the first round trip on.
	m.End = m.Start
	if err := meta.Write(metaPath, m); err != nil {
		return err
	}
	defer func() {
		m.End = time.Now().UTC()
		m.Completed = err == nil
		m.Interrupted = errors.Is(err, ErrInterrupted)
		if err != nil {
			m.Error = err.Error()
		}
		if werr := meta.Write(metaPath, m); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, s := range subs {
		res, runErr := r.runSub(ctx, cfg, s)
		rec := res.meta
		if runErr != nil {
			rec.Error = runErr.Error()
		}
		m.SubExperiments = append(m.SubExperiments, rec)
		if kept(res.payloads) > 0 {
			if err := r.sink().Write(r.Dir, s, m.Latency, res.payloads); err != nil {
				return err
			}
		}
		r.report(cfg, s, res, runErr)
		if runErr != nil {
			return runErr
		}
		if err := meta.Write(metaPath, m); err != nil {
			return err
		}
	}
	return nil
}

type subResult struct {
	meta     meta.SubExperiment
	payloads []driver.PayloadResult
	elapsed  time.Duration
}

// runSub measures one sub-experiment.
func (r *Runner) runSub(ctx context.Context, cfg Config, s Sub) (res subResult, err error) {
	res.meta = meta.SubExperiment{Type: s.Type, Transport: s.Transport, Reliable: s.Reliable, Echo: s.Echo,
		Topic: s.Topic, Params: s.Params, Start: time.Now().UTC(), Payloads: []meta.Payload{}}
	defer func() {
		res.meta.End = time.Now().UTC()
		res.elapsed = res.meta.End.Sub(res.meta.Start)
		for _, p := range res.payloads {
			res.meta.Payloads = append(res.meta.Payloads, p.Counts)
		}
		res.meta.Completed = err == nil
	}()
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w before it started", s.Type, ErrInterrupted)
	}
	link, err := s.open(ctx)
	if err != nil {
		return res, err
	}
	res.meta.System = link.System
	_, res.meta.Acknowledged = link.Pinger.(driver.AckSender)
	var closeOnce sync.Once
	closeLink := func() {
		closeOnce.Do(func() {
			link.Pinger.Close()
			if link.Close != nil {
				link.Close()
			}
		})
	}
	defer closeLink()

	// Every sample slot is allocated before the first message.
	res.payloads = make([]driver.PayloadResult, 0, len(cfg.Payloads))
	slots := make([][]int64, len(cfg.Payloads))
	for i := range slots {
		slots[i] = make([]int64, 0, cfg.Samples)
	}

	// A watcher turns cancellation and echoer death into a stop flag and
	// closes the pinger, which unblocks a Receive in progress.
	var stop atomic.Bool
	var why atomic.Pointer[error]
	done := make(chan struct{})
	defer close(done)
	go func() {
		var cause error
		select {
		case <-done:
			return
		case <-ctx.Done():
			cause = ErrInterrupted
		case e := <-link.Failed:
			cause = fmt.Errorf("the echoer died: %w", e)
		}
		why.Store(&cause)
		stop.Store(true)
		closeLink()
	}()

	var tick driver.TickFunc
	if r.Progress != nil {
		tick = func(payload, done, total int, kept []int64) { r.tick(s.Type, payload, done, total, kept, cfg) }
	}
	w := cfg.Workload
	if sm, ok := link.Pinger.(driver.SelfMeasuring); ok {
		// The far end times its own messages (an external program): its
		// workload measures this sub-experiment, into the run's latency
		// definition.
		w = selfWorkload{sm.Workload(r.Dir)}
		if err := w.Check(cfg); err != nil {
			return res, &StopError{Type: s.Type, Err: err}
		}
		if l := w.Latency(cfg); l != r.Meta.Latency {
			return res, &StopError{Type: s.Type, Err: fmt.Errorf("its latencies are %s and the run's %s", l, r.Meta.Latency)}
		}
	}
	m := w.Start(link, cfg, &stop, tick)
	for i, payload := range cfg.Payloads {
		res.payloads = append(res.payloads, driver.PayloadResult{Nanos: slots[i]})
		pr := &res.payloads[len(res.payloads)-1]
		if tick != nil {
			tick(payload, 0, cfg.Warmup+cfg.Samples, nil)
		}
		attempt, err := m.Measure(payload, pr)
		if err == nil {
			continue
		}
		// Let the watcher explain a broken link: an echo process that died
		// usually shows first as a reset connection or a refused datagram.
		if !stop.Load() && link.Failed != nil {
			select {
			case e := <-link.Failed:
				err = fmt.Errorf("%w (the echoer died: %v)", err, e)
			case <-time.After(min(cfg.Timeout, 500*time.Millisecond)):
			}
		}
		if p := why.Load(); p != nil && stop.Load() {
			err = *p
		}
		if errors.Is(err, ErrInterrupted) {
			return res, fmt.Errorf("%s: %w at payload %d B, round trip %d of %d", s.Type, ErrInterrupted, payload, attempt+1, cfg.Warmup+cfg.Samples)
		}
		return res, &StopError{Type: s.Type, Payload: payload, Attempt: attempt + 1, Total: cfg.Warmup + cfg.Samples, Err: err}
	}
	return res, nil
}

// open connects s, saying an interrupted connection as ErrInterrupted
// and a failed one as a StopError.
func (s Sub) open(ctx context.Context) (*Link, error) {
	link, err := s.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w while connecting", s.Type, ErrInterrupted)
		}
		return nil, &StopError{Type: s.Type, Err: fmt.Errorf("cannot connect: %w", err)}
	}
	return link, nil
}

// kept counts the samples of payloads.
func kept(payloads []driver.PayloadResult) int {
	n := 0
	for _, p := range payloads {
		n += len(p.Nanos)
	}
	return n
}

// rawPath is the raw file of sub-experiment typ in dir.
func rawPath(dir, typ string) string { return filepath.Join(dir, experiment.RawFileName(typ)) }

func (r *Runner) sink() Sink {
	if r.Sink != nil {
		return r.Sink
	}
	return RawCSV{}
}
