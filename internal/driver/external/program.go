package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/extformat"
	"github.com/mqgate/mqgate/internal/meta"
)

// errInterrupted stops a program not yet started: the run was
// interrupted or its far end is gone (the engine says which).
var errInterrupted = errors.New("interrupted")

// KillGrace is how long a program asked to stop (SIGTERM to its process
// group, at its timeout or when the run is interrupted) has to exit
// before it is killed (SIGKILL).
const KillGrace = 2 * time.Second

// ErrTimedOut is wrapped by the error of a program stopped at
// --external-timeout.
var ErrTimedOut = errors.New("ran longer than --" + FlagTimeout)

// program is the pinger of an external program: it never sends; its
// workload starts the program and reads what it wrote (driver.SelfMeasuring).
type program struct {
	cfg  config
	info meta.SystemInfo

	mu      sync.Mutex
	closed  bool
	running *process
}

// Send is never called: the program sends its own messages.
func (p *program) Send([]byte) error {
	return errors.New("external program: the program sends its own messages")
}

// Receive is never called: the program times its own messages.
func (p *program) Receive([]byte, time.Time) (int, time.Time, error) {
	return 0, time.Time{}, errors.New("external program: the program times its own messages")
}

// Close stops the program if it runs (the run was interrupted or stopped).
func (p *program) Close() error {
	p.mu.Lock()
	p.closed = true
	r := p.running
	p.mu.Unlock()
	if r != nil {
		r.stop()
	}
	return nil
}

// SystemInfo reports the program, its version and command line; the
// workload adds the exit statuses.
func (p *program) SystemInfo() meta.SystemInfo { return p.info }

// Workload returns the workload that starts the program; its files are
// kept in dir.
func (p *program) Workload(dir string) driver.SelfWorkload { return &workload{p: p, dir: dir} }

// workload starts the program once per payload when its command holds
// {payload}, else once for all payloads, and reads the latencies it wrote.
type workload struct {
	p   *program
	dir string
}

func (w *workload) perPayload() bool { return uses(w.p.cfg.argv, PhPayload) }

// Mode returns "external program".
func (*workload) Mode() string { return "external program" }

// Latency is the run's definition, which the program's round trips
// convert to; one-way latencies stay one-way.
func (w *workload) Latency(run string) string {
	if w.p.cfg.format == extformat.Lines && w.p.cfg.read.Latency == meta.LatencyOneWay {
		return meta.LatencyOneWay
	}
	return run
}

// Check refuses several payloads when neither the command nor the format
// says which payload a latency belongs to.
func (w *workload) Check(c driver.Plan) error {
	if w.p.cfg.format == extformat.Lines && !w.perPayload() && len(c.Payloads) > 1 {
		return fmt.Errorf("--%s lines does not say the payload of a latency: put %s in --%s (the program then runs once per payload) or measure one payload",
			FlagFormat, PhPayload, FlagCommand)
	}
	return nil
}

// Start returns the measurer of the sub-experiment.
func (w *workload) Start(c driver.Plan, system *meta.SystemInfo, stop *atomic.Bool, _ driver.TickFunc) driver.Measurer {
	extra := map[string]string{}
	if system != nil {
		if system.Extra == nil {
			system.Extra = map[string]string{}
		}
		extra = system.Extra
	}
	return &measurer{w: w, cfg: c, stop: stop, extra: extra}
}

// measurer measures the payloads of one sub-experiment.
type measurer struct {
	w     *workload
	cfg   driver.Plan
	stop  *atomic.Bool
	extra map[string]string // meta.json's system.extra
	// statuses are the exit statuses, per payload when the program runs
	// once per payload.
	statuses []string
	// once holds the single run's samples by payload, and its error.
	once     map[int][]extformat.Sample
	onceErr  error
	onceFile string
	ran      bool
}

// Measure runs the program for payload (or reads the single run's
// samples of it) into res.
func (m *measurer) Measure(payload int, res *driver.PayloadResult) (int, error) {
	var (
		samples []extformat.Sample
		latency string
		err     error
	)
	complete := true
	if m.w.perPayload() {
		var r runResult
		r, err = m.run(payload)
		samples, latency = r.samples, r.latency
		if latency != "" {
			m.extra["program_latency"] = latency
		}
		if err == nil {
			err = checkPayloads(r, payload)
		}
	} else {
		if !m.ran {
			m.ran = true
			var r runResult
			r, m.onceErr = m.run(0)
			latency = r.latency
			m.onceFile = r.file
			m.once = map[int][]extformat.Sample{}
			for _, s := range r.samples {
				if s.Payload == 0 {
					s.Payload = payload // Lines: the one payload measured (Check)
				}
				m.once[s.Payload] = append(m.once[s.Payload], s)
			}
			if m.onceErr == nil {
				m.onceErr = m.unasked(r)
			}
			m.extra["program_latency"] = latency
		}
		samples = m.once[payload]
		latency = m.extra["program_latency"]
		err = m.onceErr
		switch {
		case err != nil:
			// A failed single run keeps what it measured of every
			// payload: the error is reported with the last payload that
			// has samples.
			complete = false
			if slices.ContainsFunc(m.later(payload), func(p int) bool { return len(m.once[p]) > 0 }) {
				err = nil
			}
		case len(samples) == 0:
			err = fmt.Errorf("%s holds no latency of payload %d B (it has %s)", m.onceFile, payload, payloadList(m.once))
		}
	}
	m.fill(payload, samples, latency, res)
	res.Counts.Completed = complete && err == nil
	if err == nil && m.w.perPayload() && len(samples) == 0 {
		res.Counts.Completed = false
		err = fmt.Errorf("the program wrote no latency for payload %d B", payload)
	}
	return len(samples), err
}

// later returns the run's payloads after payload.
func (m *measurer) later(payload int) []int {
	i := slices.Index(m.cfg.Payloads, payload)
	return m.cfg.Payloads[i+1:]
}

// unasked refuses latencies of a payload the run did not ask for: the raw
// file must hold what meta.json says was measured.
func (m *measurer) unasked(r runResult) error {
	for _, s := range r.samples {
		if s.Payload != 0 && !slices.Contains(m.cfg.Payloads, s.Payload) {
			return fmt.Errorf("%s:%d: a latency of payload %d B, which is not in --payloads; add it", r.file, s.Line, s.Payload)
		}
	}
	return nil
}

// checkPayloads refuses latencies of another payload than the one the
// program was started for.
func checkPayloads(r runResult, payload int) error {
	for _, s := range r.samples {
		if s.Payload != 0 && s.Payload != payload {
			return fmt.Errorf("%s:%d: a latency of payload %d B, but the program was started for %d B", r.file, s.Line, s.Payload, payload)
		}
	}
	return nil
}

func payloadList(by map[int][]extformat.Sample) string {
	ps := slices.Sorted(maps.Keys(by))
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p) + " B"
	}
	return strings.Join(s, ", ")
}

// fill converts samples (definition latency) into res in the run's
// definition: Micros exactly, Nanos rounded (round trips, or one-way
// latencies) for progress.
func (m *measurer) fill(payload int, samples []extformat.Sample, latency string, res *driver.PayloadResult) {
	to := m.w.Latency(m.cfg.Latency)
	res.Micros = make([]float64, 0, len(samples))
	res.Nanos = res.Nanos[:0]
	perNs := 1000.0
	if to == meta.LatencyHalfRTT {
		perNs = 2000
	}
	for _, s := range samples {
		us, _ := extformat.Convert(s.Micros, latency, to) // checked by run
		res.Micros = append(res.Micros, us)
		res.Nanos = append(res.Nanos, int64(us*perNs+0.5))
	}
	c := meta.Payload{Bytes: payload, Samples: len(samples)}
	if uses(m.w.p.cfg.argv, PhWarmup) {
		c.Warmup = m.cfg.Warmup
	}
	if uses(m.w.p.cfg.argv, PhSamples) && len(samples) < m.cfg.Samples {
		c.Lost = uint64(m.cfg.Samples - len(samples))
	}
	res.Counts = c
}

// runResult is what one start of the program left.
type runResult struct {
	samples []extformat.Sample
	latency string
	file    string // the file read, for errors: in the experiment folder, as run was given it
}

// folder is where the program's files are kept in the experiment folder.
func (w *workload) folder() string {
	return filepath.Join(w.dir, w.p.cfg.name+".external")
}

// run starts the program for payload (0: once for all), waits for it
// within the timeout and reads what it wrote. On failure it returns the
// samples read from what the program wrote before, and an error saying
// why; output files are kept.
func (m *measurer) run(payload int) (runResult, error) {
	w, c := m.w, m.w.p.cfg
	suffix := ""
	if payload > 0 {
		suffix = "-" + strconv.Itoa(payload)
	}
	folder := w.folder()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return runResult{}, err
	}
	out := filepath.Join(folder, "output"+suffix+outputExt(c.format))
	stdoutPath := filepath.Join(folder, "stdout"+suffix+".log")
	stderrPath := filepath.Join(folder, "stderr"+suffix+".log")
	argv := expand(c.argv, payload, m.cfg.Samples, m.cfg.Warmup, out)
	m.extra["folder"] = filepath.Base(folder)
	if payload > 0 {
		m.extra["command_"+strconv.Itoa(payload)] = QuoteArgv(argv)
	} else {
		m.extra["command_run"] = QuoteArgv(argv)
	}

	if m.stop.Load() {
		return runResult{}, errInterrupted
	}
	status, runErr := w.p.start(argv, stdoutPath, stderrPath, c.timeout)
	if payload > 0 {
		m.statuses = append(m.statuses, fmt.Sprintf("%d:%s", payload, status))
		m.extra["exit_status"] = strings.Join(m.statuses, " ")
	} else {
		m.extra["exit_status"] = status
	}
	read := stdoutPath
	if uses(c.argv, PhOut) {
		read = out
	}
	// Errors name the file by the path the run was given (--out), so
	// that it opens from where run was started.
	res := runResult{file: read}
	if runErr != nil && errors.Is(runErr, errNotStarted) {
		return res, runErr
	}
	f, err := os.Open(read)
	if err != nil {
		if runErr != nil {
			return res, runErr
		}
		return res, fmt.Errorf("the program exited with status 0 but wrote no %s (%s): %v", res.file, PhOut, err)
	}
	defer f.Close()
	opts := c.read
	opts.Partial = runErr != nil
	r, err := extformat.Read(c.format, f, res.file, opts)
	res.samples, res.latency = r.Samples, r.Latency
	if _, ok := extformat.Convert(0, r.Latency, w.Latency(m.cfg.Latency)); r.Latency != "" && !ok {
		return runResult{file: res.file}, fmt.Errorf("%s holds %s latencies and the run's are %s", res.file, r.Latency, w.Latency(m.cfg.Latency))
	}
	switch {
	case runErr != nil && err != nil:
		return res, fmt.Errorf("%w; reading what it wrote: %v", runErr, err)
	case runErr != nil:
		return res, runErr
	}
	return res, err
}

// outputExt is the extension of {out} files.
func outputExt(format string) string {
	switch format {
	case extformat.FastRTPS, extformat.Sockperf:
		return ".csv"
	}
	return ".txt"
}

var errNotStarted = errors.New("the program could not be started")

// process is one running start of the program.
type process struct {
	cmd      *exec.Cmd
	stopOnce sync.Once
	exited   chan struct{}
}

// stop asks the program's process group to end (SIGTERM) and kills it
// (SIGKILL) after KillGrace.
func (r *process) stop() {
	r.stopOnce.Do(func() {
		SignalGroup(r.cmd, syscall.SIGTERM)
		go func() {
			select {
			case <-r.exited:
			case <-time.After(KillGrace):
			}
			// Children the program left behind go too.
			SignalGroup(r.cmd, syscall.SIGKILL)
		}()
	})
}

// start runs argv with its output into the files named, stopping it after
// timeout. It returns the exit status as meta.json records it and an error
// when the program did not exit with status 0.
func (p *program) start(argv []string, stdoutPath, stderrPath string, timeout time.Duration) (string, error) {
	stdout, err := os.Create(stdoutPath)
	if err != nil {
		return "not started", err
	}
	defer stdout.Close()
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return "not started", err
	}
	defer stderr.Close()

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	SetProcAttr(cmd)
	r := &process{cmd: cmd, exited: make(chan struct{})}

	// The program is started and waited for on a goroutine locked to its
	// thread: the parent-death signal follows the thread that started the
	// child, and a fresh goroutine does not inherit the pinger's CPU pin.
	started := make(chan error, 1)
	var waitErr error
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			started <- errInterrupted
			close(r.exited)
			return
		}
		err := cmd.Start()
		if err == nil {
			p.running = r
		}
		p.mu.Unlock()
		started <- err
		if err == nil {
			waitErr = cmd.Wait()
		}
		close(r.exited)
	}()
	if err := <-started; err != nil {
		if errors.Is(err, errInterrupted) {
			return "not started", err
		}
		return "not started", fmt.Errorf("%w: %s: %v", errNotStarted, argv[0], unwrapExec(err))
	}
	timer := time.NewTimer(timeout)
	timedOut := false
	select {
	case <-r.exited:
	case <-timer.C:
		timedOut = true
		r.stop()
		<-r.exited
	}
	timer.Stop()
	p.mu.Lock()
	p.running = nil
	p.mu.Unlock()
	// Whatever the program left running in its process group goes with it.
	SignalGroup(cmd, syscall.SIGKILL)

	status := exitStatus(waitErr)
	switch {
	case timedOut:
		return status + " (stopped after --" + FlagTimeout + " " + timeout.String() + ")",
			fmt.Errorf("%s %w %v and was stopped%s", argv[0], ErrTimedOut, timeout, tail(stderrPath))
	case waitErr != nil:
		return status, fmt.Errorf("%s exited with %s%s", argv[0], status, tail(stderrPath))
	}
	return status, nil
}

// exitStatus says how a program ended: "0", "status 3", "signal killed".
func exitStatus(err error) string {
	if err == nil {
		return "0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal " + ws.Signal().String()
		}
		return "status " + strconv.Itoa(ee.ExitCode())
	}
	return err.Error()
}

// tail returns the last lines of the program's standard error for an
// error message, or "" when it wrote none.
func tail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return StderrTail(string(data))
}

// StderrTail is the end of what a program wrote on its standard error, for
// an error message: its last 10 lines within its last 2000 bytes.
func StderrTail(stderr string) string {
	const maxBytes, maxLines = 2000, 10
	s := strings.TrimRight(stderr, "\n")
	if s == "" {
		return "; its standard error is empty"
	}
	if len(s) > maxBytes {
		s = s[len(s)-maxBytes:]
	}
	lines := strings.Split(s, "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return "; its standard error ends with:\n    " + strings.Join(lines, "\n    ")
}

// version runs argv and returns the first line it printed (standard
// output, else standard error).
func version(ctx context.Context, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	SetProcAttr(cmd)
	cmd.Cancel = func() error { SignalGroup(cmd, syscall.SIGKILL); return nil }
	cmd.WaitDelay = time.Second
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	for _, s := range []string{out.String(), errOut.String()} {
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(stripANSI(l)); l != "" {
				if err != nil {
					return "", fmt.Errorf("%s: %s (it printed %q)", QuoteArgv(argv), exitStatus(err), l)
				}
				return l, nil
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("%s: %s", QuoteArgv(argv), exitStatus(err))
	}
	return "", fmt.Errorf("%s printed nothing", QuoteArgv(argv))
}

// stripANSI removes terminal colour sequences (sockperf prints some).
func stripANSI(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexFunc(s[i+2:], func(r rune) bool { return r >= '@' && r <= '~' })
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+2+j+1:]
	}
}

// QuoteArgv records a command line as a JSON array.
func QuoteArgv(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}
