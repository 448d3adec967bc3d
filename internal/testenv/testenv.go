package testenv

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"testing"
	"time"
)

// InCI reports whether the tests run under CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Unavailable skips tb with the reason, or fails it under CI=true.
func Unavailable(tb testing.TB, format string, args ...any) {
	tb.Helper()
	reason := fmt.Sprintf(format, args...)
	if InCI() {
		tb.Fatalf("CI=true and this test cannot run: %s", reason)
		return
	}
	tb.Skipf("skipping: %s", reason)
}

// Service returns addr (HOST:PORT, or a URL whose host part is dialled) when
// something accepts TCP connections there within two seconds; otherwise it
// skips or fails tb (see Unavailable), naming what is missing and how to get
// it (hint, e.g. "start it with: mosquitto -d").
func Service(tb testing.TB, name, addr, hint string) string {
	tb.Helper()
	hostport := addr
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		hostport = u.Host
	}
	c, err := net.DialTimeout("tcp", hostport, 2*time.Second)
	if err != nil {
		Unavailable(tb, "%s is not reachable at %s (%v); %s", name, addr, err, hint)
		return ""
	}
	c.Close()
	return addr
}

// Program returns the path of the program name on PATH, or skips or fails
// tb (see Unavailable) with hint.
func Program(tb testing.TB, name, hint string) string {
	tb.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Unavailable(tb, "%s is not installed (%v); %s", name, err, hint)
		return ""
	}
	return path
}

// Getenv returns the environment variable key, or def when it is unset or
// empty: tests take broker URLs this way so that CI and developers can point
// them elsewhere.
func Getenv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
