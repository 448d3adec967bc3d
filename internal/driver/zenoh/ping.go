package zenoh

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper"
	"github.com/mqgate/mqgate/internal/meta"
)

// ErrSelfMeasuring is returned by the pinger's Send and Receive: the
// helper, not this process, exchanges the messages.
var ErrSelfMeasuring = errors.New("the Zenoh link is measured by mqgate-zenoh, which sends and receives its messages itself")

// Pinger is the measuring end of a Zenoh round trip (driver.SelfMeasuring).
type Pinger struct {
	s       settings
	opts    driver.Options
	connect string
	version string

	mu     sync.Mutex
	proc   *zenohhelper.Process
	closed bool
}

// Send is not used: see ErrSelfMeasuring.
func (p *Pinger) Send([]byte) error { return ErrSelfMeasuring }

// Receive is not used: see ErrSelfMeasuring.
func (p *Pinger) Receive([]byte, time.Time) (int, time.Time, error) {
	return 0, time.Time{}, ErrSelfMeasuring
}

// Close stops a ping in progress (it writes what it measured).
func (p *Pinger) Close() error {
	p.mu.Lock()
	proc := p.proc
	p.closed = true
	p.mu.Unlock()
	if proc != nil {
		proc.Stop(processStop)
	}
	return nil
}

// SystemInfo names Zenoh, its version and the endpoint.
func (p *Pinger) SystemInfo() meta.SystemInfo {
	info := meta.SystemInfo{Product: "zenoh", URL: p.connect, Extra: map[string]string{
		"helper": p.version, "mode": p.s.mode, "key": p.s.key,
	}}
	if m := zenohVersionRE.FindStringSubmatch(p.version); m != nil {
		info.Version = m[1]
	}
	if p.s.endpoint != "" {
		info.Extra["router"] = p.s.endpoint
	}
	return info
}

// Type is the sub-experiment this pinger measures.
func (p *Pinger) Type() string {
	if p.opts.Reliable {
		return "zenoh_reliable"
	}
	return "zenoh_best_effort"
}

// Workload returns the helper's ping as the sub-experiment's workload; it
// writes under dir/helper/<type>.
func (p *Pinger) Workload(dir string) driver.SelfWorkload {
	return &workload{p: p, dir: helperDir(dir, p.Type())}
}

type workload struct {
	p   *Pinger
	dir string
}

// Mode: the helper keeps one message in flight, like the engine's ping
// loop.
func (*workload) Mode() string { return "round-trip closed-loop (mqgate-zenoh)" }

// Latency is the run's: the helper writes half round trips or, with
// --latency rtt, whole ones.
func (*workload) Latency(run string) string { return run }

// Check accepts every plan: the run's round trip already refused what the
// helper's ping cannot measure.
func (*workload) Check(driver.Plan) error { return nil }

func (w *workload) Start(c driver.Plan, system *meta.SystemInfo, stop *atomic.Bool, tick driver.TickFunc) driver.Measurer {
	return &measurer{w: w, system: system, cfg: c, stop: stop, tick: tick}
}

// measurer runs the helper once, for every payload, on the first Measure,
// and hands out each payload's samples.
type measurer struct {
	w      *workload
	system *meta.SystemInfo
	cfg    driver.Plan
	stop   *atomic.Bool
	tick   driver.TickFunc

	ran  bool
	res  zenohhelper.Results
	exit zenohhelper.Exit
	err  error // the helper could not run or its files could not be read
}

func (m *measurer) run() {
	m.ran = true
	p := m.w.p
	if err := os.MkdirAll(m.w.dir, 0o755); err != nil {
		m.err = err
		return
	}
	c := p.s.common(p.opts)
	c.Connect = []string{p.connect}
	c.Out = m.w.dir
	args := zenohhelper.Ping{
		Common: c, Payloads: m.cfg.Payloads, Samples: m.cfg.Samples, Warmup: m.cfg.Warmup,
		Timeout: m.cfg.Timeout, MaxTimeouts: m.cfg.MaxLostInRow, RTT: m.cfg.Latency == meta.LatencyRTT,
	}.Args()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		m.err = ErrSelfMeasuring
		return
	}
	proc, err := zenohhelper.Start(context.Background(), p.s.bin, args)
	if err != nil {
		p.mu.Unlock()
		m.err = err
		return
	}
	p.proc = proc
	p.mu.Unlock()

	// The engine's stop flag (SIGINT, a dead far end) ends the helper,
	// which writes what it measured.
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case line := <-proc.Progress():
				if m.tick != nil {
					if n, ok := strings.CutPrefix(line[strings.LastIndex(line, " ")+1:], "payload="); ok {
						if size, err := strconv.Atoi(n); err == nil {
							m.tick(size, 0, m.cfg.Samples, nil)
						}
					}
				}
			case <-t.C:
				if m.stop.Load() {
					proc.Stop(processStop)
					return
				}
			}
		}
	}()
	m.exit = proc.Wait()
	close(done)
	if m.system != nil {
		if m.system.Extra == nil {
			m.system.Extra = map[string]string{}
		}
		m.system.Extra["helper_exit"] = strconv.Itoa(m.exit.Code)
	}
	res, err := zenohhelper.ReadResults(m.w.dir)
	if err != nil {
		m.err = fmt.Errorf("reading what mqgate-zenoh wrote: %w (%v)", err, m.exit.Err())
		return
	}
	m.res = res
	if m.system != nil {
		m.system.Extra["links"] = strings.Join(res.Summary.Links, "; ")
		m.system.Extra["zid"] = res.Summary.ZID
		m.system.Extra["congestion_control"] = res.Summary.CongestionControl
		m.system.Extra["express"] = strconv.FormatBool(res.Summary.Express)
		if res.Summary.ZenohVersion != "" {
			m.system.Version = res.Summary.ZenohVersion
		}
	}
}

// Measure returns the samples and counts of payload from the helper's
// files. A payload the helper did not finish returns its samples with the
// helper's reason.
func (m *measurer) Measure(payload int, res *driver.PayloadResult) (int, error) {
	if !m.ran {
		m.run()
	}
	res.Counts = meta.Payload{Bytes: payload}
	if m.err != nil {
		return 0, m.err
	}
	sum := m.res.Summary
	idx := slices.IndexFunc(sum.Payloads, func(pc zenohhelper.PayloadCounts) bool { return int(pc.Payload) == payload })
	if idx < 0 {
		return 0, m.helperErr("measured nothing of payload %d B", payload)
	}
	pc := sum.Payloads[idx]
	res.Micros = res.Micros[:0]
	res.Nanos = res.Nanos[:0]
	div := 1000.0
	if m.cfg.Latency == meta.LatencyHalfRTT {
		div = 2000
	}
	for _, smp := range m.res.Samples {
		if smp.Payload == payload {
			res.Micros = append(res.Micros, smp.Latency)
			res.Nanos = append(res.Nanos, int64(math.Round(smp.Latency*div)))
		}
	}
	res.Counts = meta.Payload{
		Bytes: payload, Samples: len(res.Micros), Warmup: int(pc.Warmup),
		Lost: pc.Lost, OutOfOrder: pc.Late, Errors: pc.Errors,
	}
	// The helper's last payload is whole when it ran to its end (exit 0:
	// an interrupted helper exits 130 and writes what it measured).
	finished := idx < len(sum.Payloads)-1 || sum.Completed && m.exit.Code == zenohhelper.ExitComplete
	res.Counts.Completed = finished
	attempt := int(pc.Warmup) + int(pc.Sent)
	if !finished {
		why := sum.Reason
		if why == "" {
			why = fmt.Sprintf("exit code %d", m.exit.Code)
		}
		return attempt, m.helperErr("stopped in payload %d B: %s", payload, why)
	}
	return attempt, nil
}

func (m *measurer) helperErr(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if err := m.exit.Err(); err != nil {
		return fmt.Errorf("mqgate-zenoh %s (%v)", msg, err)
	}
	return fmt.Errorf("mqgate-zenoh %s", msg)
}

// Compile-time checks.
var (
	_ driver.SelfMeasuring = (*Pinger)(nil)
	_ driver.InfoReporter  = (*Pinger)(nil)
	_ driver.FlagOwner     = Transport{}
	_ driver.SizeLimiter   = Transport{}
	_ driver.ParamChecker  = Transport{}
	_ driver.RoleSystem    = Transport{}
)
