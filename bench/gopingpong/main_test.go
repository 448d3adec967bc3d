package main

import (
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestRunAgainstEcho: gopingpong times round trips against an echo on
// loopback through its own socket, and says where it could not connect.
func TestRunAgainstEcho(t *testing.T) {
	// The pinger's raw reads keep its P while they wait: the echo needs
	// another one.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c)
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := run([]string{port, "200", "64", "20"}); err != nil {
		t.Fatalf("run against an echo: %v", err)
	}

	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := strconv.Itoa(l2.Addr().(*net.TCPAddr).Port)
	l2.Close()
	err = run([]string{closed, "10"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:"+closed) {
		t.Errorf("run against a closed port: %v, want an error naming 127.0.0.1:%s", err, closed)
	}
}
