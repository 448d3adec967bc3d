package fdsock

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// polled lists the descriptors registered with any epoll instance of this
// process, from the kernel's fdinfo of each eventpoll descriptor.
func polled(t *testing.T) map[int]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	out := map[int]bool{}
	for _, e := range fds {
		if link, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); link != "anon_inode:[eventpoll]" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "tfd:" {
				if n, err := strconv.Atoi(f[1]); err == nil {
					out[n] = true
				}
			}
		}
	}
	return out
}

// TestNewLeavesThePoller: the descriptor a Conn reads and writes is not
// registered with the runtime's poller. Registered (as c.File() leaves it),
// every send, ACK and arrival woke a parked thread of the process: one
// epoll_wait return per message, CPU taken from the ends being measured.
func TestNewLeavesThePoller(t *testing.T) {
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cli, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ln.AcceptTCP()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !polled(t)[fdOf(t, cli)] {
		t.Skip("this kernel's fdinfo lists no poller registrations: nothing to check")
	}
	c, err := New(cli)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if polled(t)[int(c.fd)] {
		t.Fatalf("descriptor %d is registered with the runtime's poller", c.fd)
	}
	// Still a working blocking socket.
	if _, err := srv.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := c.Recv(buf, 0, time.Now().Add(5*time.Second)); err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("Recv = %q, %v", buf[:n], err)
	}
}

func fdOf(t *testing.T, c *net.TCPConn) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd int
	if err := rc.Control(func(f uintptr) { fd = int(f) }); err != nil {
		t.Fatal(err)
	}
	return fd
}
