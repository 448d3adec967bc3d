package relay

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/external"
	"github.com/mqgate/mqgate/internal/meta"
)

// SendTimeout bounds writing one message to the adapter: a pipe that stays
// full that long means the adapter no longer reads.
const SendTimeout = 5 * time.Second

// adapter is a running adapter program and the pinger over its pipes.
type adapter struct {
	cmd   *exec.Cmd
	argv  []string
	in    *os.File      // its standard input: frames to relay
	out   *os.File      // its standard output: echoes
	r     *bufio.Reader // over out
	frame []byte        // the outgoing frame
	hello string
	max   int
	// A frame being read when a deadline passed: its header and the bytes
	// of its body read so far, so that the next Receive resumes it.
	hdr      [4]byte
	hdrN     int
	body     int // body length, -1 while the header is incomplete
	bodyN    int
	exited   chan struct{}
	waitErr  error // valid once exited is closed
	stderr   *tailWriter
	stopping sync.Once
	asked    atomic.Bool // stop was asked: an exit is no failure
}

// startAdapter starts the adapter and waits, within ctx, for its hello.
func startAdapter(ctx context.Context, c config, opts driver.Options, e *echoer) (*adapter, error) {
	max := opts.LargestMessageOrDefault()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	a := &adapter{argv: c.argv, in: inW, out: outR, r: bufio.NewReaderSize(outR, 64<<10), max: max, body: -1,
		exited: make(chan struct{}), stderr: &tailWriter{w: os.Stderr, prefix: "[" + filepath.Base(c.argv[0]) + "] "}}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, a.stderr
	reliable := "0"
	if opts.Reliable {
		reliable = "1"
	}
	cmd.Env = append(os.Environ(), EnvMaxMessage+"="+strconv.Itoa(max), EnvReliable+"="+reliable, EnvType+"="+c.name)
	external.SetProcAttr(cmd)
	// Standard error is copied by a goroutine, which Wait waits for: a
	// child the adapter left holding it must not hold the run.
	cmd.WaitDelay = time.Second
	a.cmd = cmd

	// Started and waited for on a goroutine locked to its thread: the
	// parent-death signal follows the thread that started the child, and a
	// fresh goroutine does not inherit the pinger's CPU pin.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err != nil {
			close(a.exited)
			return
		}
		a.waitErr = cmd.Wait()
		close(a.exited)
		if !a.asked.Load() {
			e.died(fmt.Errorf("adapter %s %s%s", c.argv[0], exitStatus(a.waitErr), a.stderr.tail()))
		}
		// Whatever it left running in its process group goes with it.
		external.SignalGroup(cmd, syscall.SIGKILL)
	}()
	err = <-started
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("cannot start adapter %s: %v", c.argv[0], err)
	}
	if !e.add(a) {
		a.stop(0)
		return nil, fmt.Errorf("relay echoer closed: %w", driver.ErrClosed)
	}

	// The hello frame says the adapter is ready.
	deadline, _ := ctx.Deadline()
	hello := make([]byte, MaxHello)
	n, _, err := a.receive(hello, deadline, ctx)
	if err != nil {
		a.stop(0)
		if errors.Is(err, driver.ErrTimeout) || ctx.Err() != nil {
			return nil, fmt.Errorf("adapter %s wrote no hello frame within --connect-timeout: it must write one when it is ready (docs/relay.md)%s", c.argv[0], a.stderr.tail())
		}
		return nil, fmt.Errorf("waiting for the hello frame: %w", err)
	}
	a.hello = strings.TrimSpace(string(hello[:n]))
	return a, nil
}

// Send writes msg as one frame, in one write.
func (a *adapter) Send(msg []byte) error {
	if len(msg) > a.max {
		return fmt.Errorf("message of %d bytes is larger than the run's largest, %d", len(msg), a.max)
	}
	a.frame = binary.LittleEndian.AppendUint32(a.frame[:0], uint32(len(msg)))
	a.frame = append(a.frame, msg...)
	// A write blocks only when the pipe is full: the adapter stopped
	// reading, which would otherwise hold the run for ever.
	if err := a.in.SetWriteDeadline(time.Now().Add(SendTimeout)); err != nil {
		return a.broken("writing to its standard input", err)
	}
	if _, err := a.in.Write(a.frame); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return a.broken("", fmt.Errorf("it has not read its standard input for %v", SendTimeout))
		}
		return a.broken("writing to its standard input", err)
	}
	return nil
}

// Receive reads the next frame into buf.
func (a *adapter) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	return a.receive(buf, deadline, nil)
}

// receive reads one frame, resuming one a previous deadline cut. ctx, when
// not nil, ends the wait when it is done (the hello's).
func (a *adapter) receive(buf []byte, deadline time.Time, ctx context.Context) (int, time.Time, error) {
	if !deadline.IsZero() && !time.Now().Before(deadline) && a.r.Buffered() == 0 {
		return 0, time.Time{}, fmt.Errorf("relay: %w", driver.ErrTimeout)
	}
	if ctx != nil {
		stop := context.AfterFunc(ctx, func() { a.out.SetReadDeadline(time.Now()) })
		defer stop()
	}
	if err := a.out.SetReadDeadline(deadline); err != nil {
		return 0, time.Time{}, a.broken("reading its standard output", err)
	}
	for a.body < 0 {
		k, err := a.r.Read(a.hdr[a.hdrN:])
		a.hdrN += k
		if err != nil {
			return 0, time.Time{}, a.readErr(err)
		}
		if a.hdrN == 4 {
			a.body = int(binary.LittleEndian.Uint32(a.hdr[:]))
			a.bodyN = 0
			if limit := max(a.max, MaxHello); a.body > limit {
				return 0, time.Time{}, a.broken("", fmt.Errorf("it wrote a frame of %d bytes, larger than the largest it may write, %d (the largest message or hello; is it writing something else than frames on its standard output?)", a.body, limit))
			}
		}
	}
	if a.body > len(buf) {
		n := a.body
		// Skip the frame, so that the stream stays in step.
		if _, err := a.r.Discard(a.body - a.bodyN); err != nil {
			return 0, time.Time{}, a.readErr(err)
		}
		a.hdrN, a.body = 0, -1
		return 0, time.Time{}, fmt.Errorf("relay: a %d-byte message does not fit the %d-byte buffer", n, len(buf))
	}
	for a.bodyN < a.body {
		k, err := a.r.Read(buf[a.bodyN:a.body])
		a.bodyN += k
		if err != nil {
			return 0, time.Time{}, a.readErr(err)
		}
	}
	at := time.Now()
	n := a.body
	a.hdrN, a.body = 0, -1
	return n, at, nil
}

// readErr turns a read error into a timeout, a closed link or a broken one.
func (a *adapter) readErr(err error) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("relay: %w", driver.ErrTimeout)
	case errors.Is(err, os.ErrClosed):
		return fmt.Errorf("relay: %w", driver.ErrClosed)
	case errors.Is(err, io.EOF):
		return a.broken("its standard output ended", nil)
	}
	return a.broken("reading its standard output", err)
}

// broken describes a link the adapter broke, with how it exited when it
// did (within a moment) and the end of its standard error.
func (a *adapter) broken(what string, err error) error {
	if a.asked.Load() {
		return fmt.Errorf("relay: %w", driver.ErrClosed)
	}
	msg := "adapter " + a.argv[0]
	if what != "" {
		msg += ": " + what
	}
	if err != nil {
		msg += ": " + err.Error()
	}
	select {
	case <-a.exited:
		msg += " (it " + exitStatus(a.waitErr) + ")"
	case <-time.After(time.Second):
	}
	return errors.New(msg + a.stderr.tail())
}

// Close stops the adapter: its standard input is closed, then it is
// signalled if it does not exit in time.
func (a *adapter) Close() error {
	a.stop(stopWait)
	return nil
}

// stop closes the adapter's standard input, waits up to wait for it to
// exit, then stops its process group: SIGTERM, SIGKILL external.KillGrace
// later, as an external program is.
func (a *adapter) stop(wait time.Duration) {
	a.stopping.Do(func() {
		a.asked.Store(true)
		a.in.Close()
		a.out.Close() // unblocks a Receive in progress
		select {
		case <-a.exited:
			return
		case <-time.After(wait):
		}
		external.SignalGroup(a.cmd, syscall.SIGTERM)
		select {
		case <-a.exited:
		case <-time.After(external.KillGrace):
			external.SignalGroup(a.cmd, syscall.SIGKILL)
			<-a.exited
		}
	})
}

// SystemInfo reports the adapter and its hello, for meta.json.
func (a *adapter) SystemInfo() meta.SystemInfo {
	return meta.SystemInfo{Product: filepath.Base(a.argv[0]), Version: a.hello,
		Extra: map[string]string{"command": external.QuoteArgv(a.argv), "hello": a.hello}}
}

// exitStatus says how a program ended.
func exitStatus(err error) string {
	if err == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by signal " + ws.Signal().String()
		}
		return "exited with status " + strconv.Itoa(ee.ExitCode())
	}
	return err.Error()
}

// tailWriter passes the adapter's standard error on, prefixed line by
// line, and keeps its end for error messages.
type tailWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
	bol    bool
	began  bool
}

const tailBytes = 2000

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	if t.w != nil {
		var b strings.Builder
		for _, c := range string(p) {
			if !t.began || t.bol {
				b.WriteString(t.prefix)
				t.began, t.bol = true, false
			}
			b.WriteRune(c)
			if c == '\n' {
				t.bol = true
			}
		}
		t.w.Write([]byte(b.String()))
	}
	return len(p), nil
}

// tail returns the last lines written, for an error message.
func (t *tailWriter) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return external.StderrTail(string(t.buf))
}
