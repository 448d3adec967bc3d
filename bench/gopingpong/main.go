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
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gopingpong:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: gopingpong PORT N [SIZE] [WARMUP]")
	}
	arg := func(i, def int) (int, error) {
		if i >= len(args) {
			return def, nil
		}
		v, err := strconv.Atoi(args[i])
		if err != nil || v < 0 {
			return 0, fmt.Errorf("argument %d: %q is not a count", i+1, args[i])
		}
		return v, nil
	}
	port, err := arg(0, 0)
	if err != nil {
		return err
	}
	n, err := arg(1, 0)
	if err != nil || n < 1 {
		return fmt.Errorf("N must be at least 1")
	}
	size, err := arg(2, 16)
	if err != nil || size < 1 {
		return fmt.Errorf("SIZE must be at least 1")
	}
	warmup, err := arg(3, n/10)
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
	fd := f.Fd()
	msg, buf := make([]byte, size), make([]byte, size)
	rtt := make([]int64, 0, n)
	base := time.Now()
	for i := 0; i < warmup+n; i++ {
		t0 := time.Since(base)
		if _, _, e := syscall.Syscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&msg[0])), uintptr(size)); e != 0 {
			return fmt.Errorf("write: %v", e)
		}
		for got := 0; got < size; {
			r, _, e := syscall.Syscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[got])), uintptr(size-got))
			if e != 0 || r == 0 {
				return fmt.Errorf("read: %v (%d bytes)", e, r)
			}
			got += int(r)
		}
		if t1 := time.Since(base); i >= warmup {
			rtt = append(rtt, int64(t1-t0))
		}
	}
	slices.Sort(rtt)
	// numpy median: the middle value, or the mean of the two middle ones
	p50 := float64(rtt[n/2])
	if n%2 == 0 {
		p50 = float64(rtt[n/2-1]+rtt[n/2]) / 2
	}
	fmt.Printf("%.0f\n", p50)
	runtime.KeepAlive(f)
	return nil
}
