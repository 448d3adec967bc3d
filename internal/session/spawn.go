package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"
)

// echoProcess is a `run echo` child process.
type echoProcess struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser // the lifeline: closing it stops the child
	out      io.Reader
	addr     string
	failed   chan error    // receives the exit of a child not asked to stop
	exited   chan struct{} // closed when the child exited
	waitErr  error         // valid once exited is closed
	stopping atomic.Bool
}

// startEchoProcess starts argv (the program followed by its echo-role
// arguments) and returns once the child printed the address it listens
// at. The child's standard error is passed to stderr.
func startEchoProcess(ctx context.Context, argv, env []string, stderr io.Writer, wait time.Duration) (*echoProcess, error) {
	// Fork from a fresh goroutine: the caller may run on an OS thread
	// pinned to a CPU, whose affinity the child would inherit.
	var p *echoProcess
	var err error
	spawned := make(chan struct{})
	go func() {
		p, err = spawn(argv, env, stderr)
		close(spawned)
	}()
	<-spawned
	if err != nil {
		return nil, err
	}
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(p.out)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		// The child prints nothing more on standard output; the pipe is
		// left unread rather than kept polled by a goroutine during
		// the measurement.
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case l := <-line:
		if l == "" {
			p.stop()
			return nil, fmt.Errorf("echo process did not print its address: %v", p.waitErr)
		}
		p.addr = l
		return p, nil
	case <-timer.C:
		p.stop()
		return nil, fmt.Errorf("echo process did not print its address within %v", wait)
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

func spawn(argv, env []string, stderr io.Writer) (*echoProcess, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	setProcAttr(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the echo process: %w", err)
	}
	p := &echoProcess{cmd: cmd, stdin: stdin, out: out, failed: make(chan error, 1), exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		if err == nil {
			err = errors.New("exit status 0")
		}
		p.waitErr = err
		close(p.exited)
		if !p.stopping.Load() {
			p.failed <- fmt.Errorf("echo process %d exited: %v", cmd.Process.Pid, err)
		}
	}()
	return p, nil
}

// stop asks the child to exit by closing its lifeline, and kills it if it
// has not exited a few seconds later.
func (p *echoProcess) stop() error {
	p.stopping.Store(true)
	p.stdin.Close()
	select {
	case <-p.exited:
		return nil
	case <-time.After(3 * time.Second):
	}
	p.cmd.Process.Kill()
	<-p.exited
	return nil
}
