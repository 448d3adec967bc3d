package session

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// echoStatusEnv, set in a test, makes this test binary serve the echo role
// when started as `<binary> echo …` (Config.Self), writing the
// Cpus_allowed_list of each of its threads, from /proc, to the file it
// names once it is ready.
const echoStatusEnv = "MQGATE_SESSION_TEST_ECHO_STATUS"

func TestMain(m *testing.M) {
	if path := os.Getenv(echoStatusEnv); path != "" && len(os.Args) > 1 && os.Args[1] == "echo" {
		if err := serveTestEcho(os.Args[2:], path); err != nil {
			fmt.Fprintln(os.Stderr, "test echo:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveTestEcho is `run echo` with the flags the session gives it.
func serveTestEcho(args []string, statusPath string) error {
	var c EchoConfig
	var lifeline bool
	fs := flag.NewFlagSet("echo", flag.ContinueOnError)
	fs.StringVar(&c.Transport, "transport", "", "")
	fs.StringVar(&c.Listen, "listen", "", "")
	fs.BoolVar(&c.Reliable, "reliable", false, "")
	fs.BoolVar(&lifeline, "stdin-lifeline", false, "")
	fs.IntVar(&c.CPU, "cpu", -1, "")
	fs.IntVar(&c.LargestMessage, "max-message-size", 0, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if lifeline {
		c.Lifeline = os.Stdin
	}
	c.Ready = writerFunc(func(b []byte) (int, error) {
		if err := writeThreadStatus(statusPath); err != nil {
			return 0, err
		}
		return os.Stdout.Write(b)
	})
	return ServeEcho(context.Background(), c)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// writeThreadStatus writes one Cpus_allowed_list line per thread of this
// process, as /proc says.
func writeThreadStatus(path string) error {
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(tasks) == 0 {
		return fmt.Errorf("no threads in /proc/self/task: %v", err)
	}
	var out strings.Builder
	for _, st := range tasks {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Cpus_allowed_list:") {
				fmt.Fprintln(&out, l)
			}
		}
	}
	return os.WriteFile(path, []byte(out.String()), 0o644)
}

var _ io.Writer = writerFunc(nil)
