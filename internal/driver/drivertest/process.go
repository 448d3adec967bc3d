package drivertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

const echoEnv = "MQGATE_DRIVERTEST_ECHO"

type echoSpec struct {
	Transport string
	Addr      string
	Options   driver.Options
}

// ServeEchoProcess turns the test binary into an echoer when it was started
// by StartEchoProcess; call it first thing in TestMain. Otherwise it
// returns at once. The echoer prints its address on stdout and serves until
// its stdin closes or it is killed.
func ServeEchoProcess(transports ...driver.Transport) {
	spec := os.Getenv(echoEnv)
	if spec == "" {
		return
	}
	fail := func(code int, why ...any) {
		fmt.Fprintln(os.Stderr, append([]any{"echo process:"}, why...)...)
		os.Exit(code)
	}
	var s echoSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fail(2, err)
	}
	i := slices.IndexFunc(transports, func(t driver.Transport) bool { return t.Name() == s.Transport })
	if i < 0 {
		fail(2, "unknown transport", s.Transport)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e, err := transports[i].Listen(ctx, s.Addr, s.Options)
	if err != nil {
		fail(2, err)
	}
	fmt.Println(e.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := e.Serve(ctx); err != nil {
		fail(1, err)
	}
	e.Close()
	os.Exit(0)
}

// EchoProcess is an echoer running in a child process.
type EchoProcess struct {
	Addr  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// StartEchoProcess starts the test binary as an echoer of c (see
// ServeEchoProcess) and returns once it listens. It is stopped at the end
// of the test.
func StartEchoProcess(t testing.TB, c Config) *EchoProcess {
	t.Helper()
	spec, err := json.Marshal(echoSpec{Transport: c.Transport.Name(), Addr: c.addr(), Options: c.Listen})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), echoEnv+"="+string(spec))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ep := &EchoProcess{cmd: cmd, stdin: stdin}
	t.Cleanup(ep.Stop)
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			t.Fatal("echo process exited before listening")
		}
		ep.Addr = strings.TrimSpace(l)
	case <-time.After(Watchdog):
		t.Fatal("echo process did not start")
	}
	return ep
}

// Kill kills the echo process at once (SIGKILL), as a crash would.
func (ep *EchoProcess) Kill() {
	ep.cmd.Process.Kill()
	ep.cmd.Wait()
}

// Stop asks the echo process to exit and waits for it.
func (ep *EchoProcess) Stop() {
	if ep.cmd.ProcessState != nil {
		return
	}
	ep.stdin.Close()
	done := make(chan struct{})
	go func() { ep.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		ep.Kill()
	}
}
