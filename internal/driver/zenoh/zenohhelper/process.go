package zenohhelper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Exit codes of the helper (formats §9).
const (
	ExitComplete    = 0   // the role ran to its end
	ExitFailure     = 1   // no session, or an output file could not be written
	ExitUsage       = 2   // bad arguments
	ExitIncomplete  = 4   // the far end never came or went away; partial results written
	ExitInterrupted = 130 // SIGINT/SIGTERM; what was measured is written
)

// ErrIncomplete is wrapped by Exit.Err when a role ended incomplete.
var ErrIncomplete = errors.New("incomplete run")

// Ready is a role's ready line: `ready role=ROLE zid=ZID locators=L1,L2`.
type Ready struct {
	Role string
	ZID  string
	// Locators the role's session listens on, with the ports the system
	// picked for port 0.
	Locators []string
}

// ParseReady parses a ready line.
func ParseReady(line string) (Ready, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "ready" {
		return Ready{}, fmt.Errorf("%q is not a ready line", line)
	}
	var r Ready
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Ready{}, fmt.Errorf("ready line %q: field %q is not key=value", line, f)
		}
		switch k {
		case "role":
			r.Role = v
		case "zid":
			r.ZID = v
		case "locators":
			if v != "" {
				r.Locators = strings.Split(v, ",")
			}
		}
	}
	if r.Role == "" || r.ZID == "" {
		return Ready{}, fmt.Errorf("ready line %q lacks role= or zid=", line)
	}
	return r, nil
}

// Locator returns the first locator of the given protocol ("tcp", "udp"),
// or "" when the role listens on none.
func (r Ready) Locator(proto string) string {
	for _, l := range r.Locators {
		if strings.HasPrefix(l, proto+"/") {
			return l
		}
	}
	return ""
}

// Exit is how a helper process ended.
type Exit struct {
	Code int
	// Status from the done line: complete, incomplete or interrupted; empty
	// when the process printed none (a failure).
	Status string
	// Stderr is the end of what the process wrote on stderr.
	Stderr string
}

// Err returns nil for a complete run, an error wrapping ErrIncomplete for an
// incomplete one, and an error quoting stderr for anything else.
func (e Exit) Err() error {
	switch e.Code {
	case ExitComplete:
		return nil
	case ExitIncomplete:
		return fmt.Errorf("%w: %s", ErrIncomplete, e.Stderr)
	default:
		return fmt.Errorf("mqgate-zenoh exited with code %d: %s", e.Code, e.Stderr)
	}
}

// Process is a running helper role.
type Process struct {
	Ready Ready
	cmd   *exec.Cmd
	tail  *tailWriter
	done  chan struct{}
	prog  chan string
	mu    sync.Mutex
	state string // from the done line
	exit  Exit
}

// ReadyTimeout bounds how long Start waits for a role's ready line: opening
// a session on a loaded machine takes well under a second, so this only
// turns a hang into an error.
var ReadyTimeout = 60 * time.Second

// Start starts bin with args (a role and its flags, see Args) and returns
// once the role printed its ready line. ctx ends the process when done.
func Start(ctx context.Context, bin string, args []string) (*Process, error) {
	return StartWindows(ctx, bin, args, nil)
}

// StartWindows is Start with onWindow called with each of the role's
// window lines (Common.Window), in order, from one goroutine: every window
// has been delivered when the process is Done. A malformed window line
// ends the process with an error.
func StartWindows(ctx context.Context, bin string, args []string, onWindow func(Window)) (*Process, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	setProcAttr(cmd)
	p := &Process{cmd: cmd, tail: &tailWriter{max: 8 << 10}, done: make(chan struct{}), prog: make(chan string, 64)}
	cmd.Stderr = p.tail
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	readyc := make(chan Ready, 1)
	badc := make(chan error, 1)
	go func() {
		p.follow(stdout, onWindow, readyc, badc)
		p.reap(stdout)
	}()
	return p.awaitReady(bin, args, readyc, badc)
}

// follow reads the role's stdout lines until it closes: the first ready
// line goes to readyc (or, malformed, its error to badc), window lines to
// onWindow (a malformed one kills the process), progress lines to Progress
// and the done line's status to p.state.
func (p *Process) follow(stdout io.Reader, onWindow func(Window), readyc chan<- Ready, badc chan<- error) {
	sc := bufio.NewScanner(stdout)
	gotReady := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !gotReady && strings.HasPrefix(line, "ready "):
			r, err := ParseReady(line)
			if err != nil {
				badc <- err
			} else {
				readyc <- r
			}
			gotReady = true
		case onWindow != nil && strings.HasPrefix(line, "window "):
			w, err := ParseWindow(line)
			if err != nil {
				p.tail.Write([]byte("\n" + err.Error()))
				_ = p.cmd.Process.Kill()
				continue
			}
			onWindow(w)
		case strings.HasPrefix(line, "measuring "):
			select {
			case p.prog <- line:
			default: // nobody is following the progress
			}
		case strings.HasPrefix(line, "done "):
			for _, f := range strings.Fields(line)[1:] {
				if v, ok := strings.CutPrefix(f, "status="); ok {
					p.mu.Lock()
					p.state = v
					p.mu.Unlock()
				}
			}
		}
	}
}

// reap drains what is left of stdout, waits for the process and records
// how it ended (a signal as 128+signal, as a shell reports it) before
// closing done.
func (p *Process) reap(stdout io.Reader) {
	_, _ = io.Copy(io.Discard, stdout)
	err := p.cmd.Wait()
	p.mu.Lock()
	p.exit = Exit{Code: p.cmd.ProcessState.ExitCode(), Status: p.state, Stderr: p.tail.String()}
	if err != nil && p.exit.Code == -1 {
		if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.exit.Code = 128 + int(ws.Signal())
		}
	}
	p.mu.Unlock()
	close(p.done)
}

// awaitReady returns p once the role's ready line came, and otherwise an
// error naming bin and args: a malformed ready line or no ready line within
// ReadyTimeout (the process is killed), or the process ending first.
func (p *Process) awaitReady(bin string, args []string, readyc <-chan Ready, badc <-chan error) (*Process, error) {
	timer := time.NewTimer(ReadyTimeout)
	defer timer.Stop()
	select {
	case r := <-readyc:
		p.Ready = r
		return p, nil
	case err := <-badc:
		_ = p.kill()
		return nil, err
	case <-p.done:
		e := p.exit
		return nil, fmt.Errorf("%s %s exited with code %d before it was ready: %s", bin, strings.Join(args, " "), e.Code, e.Stderr)
	case <-timer.C:
		_ = p.kill()
		return nil, fmt.Errorf("%s %s printed no ready line within %v: %s", bin, strings.Join(args, " "), ReadyTimeout, p.tail.String())
	}
}

// Progress delivers the role's progress lines (`measuring role=ping
// payload=16` when a payload's measured part starts); lines nobody reads
// are dropped once 64 are pending.
func (p *Process) Progress() <-chan string { return p.prog }

// Wait waits for the process to end by itself and says how it ended (see
// Exit.Err).
func (p *Process) Wait() Exit {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Done is closed when the process ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop asks the role to end (SIGTERM: serving roles write their summary and
// exit 0, measuring roles write what they measured and exit 130), waits up
// to grace, then kills it.
func (p *Process) Stop(grace time.Duration) Exit {
	select {
	case <-p.done:
		return p.Wait()
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.kill()
	}
	return p.Wait()
}

// Kill ends the process at once (SIGKILL), as a crash would.
func (p *Process) Kill() Exit {
	_ = p.kill()
	return p.Wait()
}

func (p *Process) kill() error {
	err := p.cmd.Process.Kill()
	<-p.done
	return err
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
