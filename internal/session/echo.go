package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mqgate/mqgate/internal/driver"
)

// EchoConfig is the echo role (`run echo`): one echoer, on its own.
type EchoConfig struct {
	Transport string
	// Listen is the socket address to listen at, or the broker URL; empty
	// means 127.0.0.1:0 for sockets and the transport's URL flag for
	// brokers.
	Listen   string
	Reliable bool
	// Security is the echoer's CA, certificate and key; nil for a
	// plaintext link.
	Security       *driver.Security
	CPU            int // pin the whole process; -1: not pinned
	LargestMessage int
	QueueDepth     int
	// Delay is spent on each message before its echo (its Seed draws the
	// jitter), after its Work.
	Delay driver.Delay
	// Topic is the base topic a broker echoer serves.
	Topic string
	// Params are the values of the transport's flags.
	Params map[string]string
	// Lifeline, when non-nil, ends the echo when it reaches end of file
	// (a parent run holds the other end of the pipe).
	Lifeline io.Reader
	// Ready receives the address the echoer listens at (a broker URL
	// without its password), as the first line of output.
	Ready io.Writer
}

// EchoTransports lists the transports that can serve `run echo`: every
// registered one whose ends need not share a process.
func EchoTransports() []string {
	var out []string
	for _, n := range driver.Names() {
		t, _ := driver.Lookup(n)
		if !driver.IsProcessBound(t) {
			out = append(out, n)
		}
	}
	return out
}

// UsageError is a mistake in the configuration of the echo role.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ServeEcho runs the echo role until ctx is done (then it returns nil),
// the lifeline closes, or the link fails.
func ServeEcho(ctx context.Context, c EchoConfig) error {
	tr, err := driver.Lookup(c.Transport)
	if err != nil {
		return &UsageError{fmt.Errorf("--transport: %v", err)}
	}
	if driver.IsProcessBound(tr) {
		return &UsageError{fmt.Errorf("--transport %s: its two ends share one process, so it cannot be a separate echo; expected one of %s",
			c.Transport, strings.Join(EchoTransports(), ", "))}
	}
	broker := driver.IsBroker(tr)
	listen := c.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
		if broker {
			listen = c.Params[driver.URLFlag(tr.Name())]
			if listen == "" {
				return &UsageError{fmt.Errorf("--listen: transport %s needs the broker URL (or --%s)", tr.Name(), driver.URLFlag(tr.Name()))}
			}
		}
	}
	if broker && c.Topic == "" {
		return &UsageError{errors.New("--topic: a broker echo needs the topic to serve (the same as run's --topic)")}
	}
	if !c.Delay.IsZero() && !driver.HonoursEchoDelay(tr) {
		return &UsageError{fmt.Errorf("%s: transport %s does not apply it", delayFlag(c.Delay), tr.Name())}
	}
	opts := driver.Options{Reliable: c.Reliable, Security: c.Security, LargestMessage: c.LargestMessage,
		QueueDepth: c.QueueDepth, Topic: c.Topic, Params: c.Params, EchoDelay: c.Delay}
	if err := checkSize(&plan{tr: tr, sc: driver.Scenario{Type: "run echo"}, opts: opts}, c.LargestMessage); err != nil {
		return &UsageError{err}
	}
	// The whole echo process runs on its CPU, as under taskset.
	if err := pinProcess(c.CPU); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e, err := tr.Listen(ctx, listen, opts)
	if err != nil {
		return fmt.Errorf("cannot listen at %s with %s: %w", driver.RedactURL(listen), tr.Name(), err)
	}
	defer e.Close()
	addr := e.Addr()
	if broker {
		addr = driver.RedactURL(addr)
	}
	if c.Ready != nil {
		fmt.Fprintln(c.Ready, addr)
		if f, ok := c.Ready.(interface{ Sync() error }); ok {
			f.Sync()
		}
	}
	if c.Lifeline != nil {
		go func() {
			io.Copy(io.Discard, c.Lifeline)
			cancel()
		}()
	}
	// Stopped by SIGINT/SIGTERM or the lifeline, Serve returns nil: the
	// normal way to end an echoer.
	return e.Serve(ctx)
}
