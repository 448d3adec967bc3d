// Command gopingpong is the Go floor of the overhead benchmark: the C
// ping-pong client of bench/pingpong.c written in Go, with no transport and
// no engine — one goroutine locked to its OS thread doing blocking write
// and read system calls on the socket. Its round trip minus the C one is
// what the Go runtime itself costs; run's minus this one is what the
// transport and the engine add.
//
//	gopingpong PORT N [SIZE] [WARMUP]
//
// connects to a `pingpong server` on 127.0.0.1:PORT and prints the median
// of N round trips of SIZE bytes (default 16) in nanoseconds, after WARMUP
// (default N/10). Pin it with taskset.
package main

import (
	"fmt"
	"net"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/mqgate/mqgate/bench/internal/pingpong"
)

func main() { pingpong.Main("gopingpong", run) }

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: gopingpong PORT N [SIZE] [WARMUP]")
	}
	port, err := pingpong.Count(args, 0, 0)
	if err != nil {
		return err
	}
	// Arguments after WARMUP are ignored: this floor is pinned with taskset.
	p, err := pingpong.ParsePing(args[:min(len(args), 4)], 1, 1)
	if err != nil {
		return err
	}

	runtime.LockOSThread()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	if err := c.(*net.TCPConn).SetNoDelay(true); err != nil {
		return err
	}
	// File returns a duplicate descriptor in blocking mode: reads block in
	// the kernel on this thread, as in C, with no network poller.
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		return err
	}
	fd, size := f.Fd(), p.Size
	msg, buf := make([]byte, size), make([]byte, size)
	base := time.Now()
	p50, err := p.Median(func(int) (time.Duration, error) {
		t0 := time.Since(base)
		if _, _, e := syscall.Syscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&msg[0])), uintptr(size)); e != 0 {
			return 0, fmt.Errorf("write: %v", e)
		}
		for got := 0; got < size; {
			r, _, e := syscall.Syscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[got])), uintptr(size-got))
			if e != 0 || r == 0 {
				return 0, fmt.Errorf("read: %v (%d bytes)", e, r)
			}
			got += int(r)
		}
		return time.Since(base) - t0, nil
	})
	if err != nil {
		return err
	}
	_, err = fmt.Printf("%.0f\n", p50)
	runtime.KeepAlive(f)
	return err
}
