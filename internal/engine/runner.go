package engine

import (
	"cmp"
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
	// meta.json exists, marked incomplete, from the first round trip on.
	if err := r.begin(cfg, cfg.Workload.Mode(cfg.Pacer)); err != nil {
		return err
	}
	m := r.Meta
	defer func() {
		if werr := r.end(err); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, s := range subs {
		res, runErr := r.runSub(ctx, cfg, s)
		m.SubExperiments = append(m.SubExperiments, res.meta)
		if kept(res.payloads) > 0 {
			if err := r.sink().Write(r.Dir, s, m.Latency, res.payloads); err != nil {
				return err
			}
		}
		r.report(cfg, s, res, runErr)
		if runErr != nil {
			return runErr
		}
		if err := r.writeMeta(); err != nil {
			return err
		}
	}
	return nil
}

// begin starts r's meta.json, marked incomplete, with mode.
func (r *Runner) begin(cfg Config, mode string) error {
	m := r.Meta
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	m.Latency = cfg.Workload.Latency(cfg)
	m.Mode = mode
	if _, ok := cfg.Workload.(RoundTrip); ok {
		m.Config.RunID = cfg.RunID
	}
	m.Clock = "monotonic (Go runtime, ns)"
	m.Completed, m.Interrupted, m.Error = false, false, ""
	m.SubExperiments = []meta.SubExperiment{} // [] not null in the first meta.json
	m.End = m.Start
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	return r.writeMeta()
}

// end completes r's meta.json for a run that ended with err.
func (r *Runner) end(err error) error {
	m := r.Meta
	m.End = time.Now().UTC()
	m.Completed = err == nil
	m.Interrupted = errors.Is(err, ErrInterrupted)
	if err != nil {
		m.Error = err.Error()
	}
	return r.writeMeta()
}

func (r *Runner) writeMeta() error { return meta.Write(filepath.Join(r.Dir, meta.FileName), r.Meta) }

type subResult struct {
	meta     meta.SubExperiment
	payloads []driver.PayloadResult
	elapsed  time.Duration
}

// runSub measures one sub-experiment.
func (r *Runner) runSub(ctx context.Context, cfg Config, s Sub) (res subResult, err error) {
	res.meta = s.record()
	defer func() { res.finish(err) }()
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w before it started", s.Type, ErrInterrupted)
	}
	link, err := s.open(ctx)
	if err != nil {
		return res, err
	}
	res.meta.System = link.System
	_, res.meta.Acknowledged = link.Pinger.(driver.AckSender)
	wl := &watchedLink{link: link}
	defer wl.close()

	// Every sample slot is allocated before the first message.
	res.payloads = make([]driver.PayloadResult, 0, len(cfg.Payloads))
	slots := make([][]int64, len(cfg.Payloads))
	for i := range slots {
		slots[i] = make([]int64, 0, cfg.Samples)
	}
	done := make(chan struct{})
	defer close(done)
	go wl.watch(ctx, done)

	var tick driver.TickFunc
	if r.Progress != nil {
		tick = func(payload, done, total int, kept []int64) { r.tick(s.Type, payload, done, total, kept, cfg) }
	}
	w, err := r.workload(cfg, s, link)
	if err != nil {
		return res, err
	}
	m := w.Start(link, cfg, &wl.stop, tick)
	for i, payload := range cfg.Payloads {
		res.payloads = append(res.payloads, driver.PayloadResult{Nanos: slots[i]})
		pr := &res.payloads[len(res.payloads)-1]
		if tick != nil {
			tick(payload, 0, cfg.Warmup+cfg.Samples, nil)
		}
		if attempt, err := m.Measure(payload, pr); err != nil {
			return res, wl.stopError(s.Type, cfg, payload, attempt, err)
		}
	}
	return res, nil
}

// finish completes the record of a sub-experiment that ended with err.
func (res *subResult) finish(err error) {
	res.meta.End = time.Now().UTC()
	res.elapsed = res.meta.End.Sub(res.meta.Start)
	for _, p := range res.payloads {
		res.meta.Payloads = append(res.meta.Payloads, p.Counts)
	}
	res.meta.Completed = err == nil
	if err != nil {
		res.meta.Error = err.Error()
	}
}

// workload is what measures sub-experiment s over link: the run's
// workload, or the far end's own when it times its own messages (an
// external program, driver.SelfMeasuring), into the run's latency
// definition.
func (r *Runner) workload(cfg Config, s Sub, link *Link) (Workload, error) {
	sm, ok := link.Pinger.(driver.SelfMeasuring)
	if !ok {
		return cfg.Workload, nil
	}
	w := selfWorkload{sm.Workload(r.Dir)}
	if err := w.Check(cfg); err != nil {
		return nil, &StopError{Type: s.Type, Err: err}
	}
	if l := w.Latency(cfg); l != r.Meta.Latency {
		return nil, &StopError{Type: s.Type, Err: fmt.Errorf("its latencies are %s and the run's %s", l, r.Meta.Latency)}
	}
	return w, nil
}

// stopper is the flag that ends a measurement from another goroutine,
// and the cause it was set for.
type stopper struct {
	stop atomic.Bool
	why  atomic.Pointer[error]
}

// halt sets the flag for cause, unless it was set before: it reports
// whether this call set it.
func (s *stopper) halt(cause error) bool {
	if !s.why.CompareAndSwap(nil, &cause) {
		return false
	}
	s.stop.Store(true)
	return true
}

// cause is the cause the flag was set for, once set; err before.
func (s *stopper) cause(err error) error {
	if p := s.why.Load(); p != nil && s.stop.Load() {
		return *p
	}
	return err
}

// watchCause waits until done is closed (nil), ctx is cancelled
// (ErrInterrupted) or failed delivers the echoer's death.
func watchCause(ctx context.Context, done <-chan struct{}, failed <-chan error) error {
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ErrInterrupted
	case e := <-failed:
		return fmt.Errorf("the echoer died: %w", e)
	}
}

// watchedLink is a sub-experiment's open link and the flag that stops its
// measurement.
type watchedLink struct {
	stopper
	link      *Link
	closeOnce sync.Once
}

// watch turns cancellation and the echoer's death into the stop flag and
// closes the link, which unblocks a Receive in progress; it returns when
// done is closed.
func (w *watchedLink) watch(ctx context.Context, done <-chan struct{}) {
	if cause := watchCause(ctx, done, w.link.Failed); cause != nil {
		w.halt(cause)
		w.close()
	}
}

// close closes the pinger, then what Open started, once.
func (w *watchedLink) close() {
	w.closeOnce.Do(func() {
		w.link.Pinger.Close()
		if w.link.Close != nil {
			w.link.Close()
		}
	})
}

// stopError is the error of sub-experiment typ whose payload stopped at
// round trip attempt (0-based) with err. The watcher may explain a broken
// link: an echo process that died usually shows first as a reset
// connection or a refused datagram.
func (w *watchedLink) stopError(typ string, cfg Config, payload, attempt int, err error) error {
	if !w.stop.Load() && w.link.Failed != nil {
		select {
		case e := <-w.link.Failed:
			err = fmt.Errorf("%w (the echoer died: %v)", err, e)
		case <-time.After(min(cfg.Timeout, 500*time.Millisecond)):
		}
	}
	err = w.cause(err)
	total := cfg.Warmup + cfg.Samples
	if errors.Is(err, ErrInterrupted) {
		return fmt.Errorf("%s: %w at payload %d B, round trip %d of %d", typ, ErrInterrupted, payload, attempt+1, total)
	}
	return &StopError{Type: typ, Payload: payload, Attempt: attempt + 1, Total: total, Err: err}
}

// record starts s's record in meta.json.
func (s Sub) record() meta.SubExperiment {
	return meta.SubExperiment{Type: s.Type, Transport: s.Transport, Reliable: s.Reliable, Echo: s.Echo,
		Topic: s.Topic, Params: s.Params, Start: time.Now().UTC(), Payloads: []meta.Payload{}}
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

func (r *Runner) sink() Sink {
	return cmp.Or(r.Sink, Sink(RawCSV{}))
}
