package testenv

import (
	"net"
	"testing"
)

// fakeTB records how a helper ended the test instead of ending it.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = true
	f.msg = format
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = format
}

func TestServiceReachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f := &fakeTB{TB: t}
	if got := Service(f, "x", "nats://"+ln.Addr().String(), ""); got == "" || f.skipped || f.failed {
		t.Errorf("reachable service: got %q, skipped %v, failed %v", got, f.skipped, f.failed)
	}
}

func TestServiceUnreachableSkipsOrFailsInCI(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		f := &fakeTB{TB: t}
		Service(f, "x", addr, "start it")
		if ci == "true" && (!f.failed || f.skipped) || ci == "" && (!f.skipped || f.failed) {
			t.Errorf("CI=%q: skipped %v, failed %v", ci, f.skipped, f.failed)
		}
	}
}

func TestProgramMissing(t *testing.T) {
	t.Setenv("CI", "")
	f := &fakeTB{TB: t}
	Program(f, "no-such-program-mqgate", "install it")
	if !f.skipped {
		t.Error("a missing program did not skip")
	}
}
