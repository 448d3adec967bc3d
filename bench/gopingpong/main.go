// Command gopingpong is the Go floor of the overhead benchmark: the C
// ping-pong client of bench/pingpong.c written in Go, with no transport and
// no engine — one goroutine locked to its OS thread doing blocking write
// and read system calls, as raw system calls (the goroutine keeps its P),
// on a socket made and connected by system calls. The socket never meets
// Go's network poller: one from net.Dial stays registered with it even
// through a duplicate from File(), and every arrival then wakes a thread
// parked in epoll_wait (0.1–0.2 µs of a 4.4 µs round trip on one core).
// Its round trip minus the C one is what the Go runtime itself costs;
// run's minus this one is what the transport and the engine add.
//
//	gopingpong PORT N [SIZE] [WARMUP]
//
// connects to a `pingpong server` on 127.0.0.1:PORT and prints the median
// of N round trips of SIZE bytes (default 16) in nanoseconds, after WARMUP
// (default N/10). Pin it with taskset.
package main

import (
	"fmt"
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
	fd, err := dial(port)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	size := p.Size
	msg, buf := make([]byte, size), make([]byte, size)
	base := time.Now()
	p50, err := p.Median(func(int) (time.Duration, error) {
		t0 := time.Since(base)
		if _, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&msg[0])), uintptr(size)); e != 0 {
			return 0, fmt.Errorf("write: %v", e)
		}
		for got := 0; got < size; {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[got])), uintptr(size-got))
			if e == syscall.EINTR {
				continue
			}
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
	return err
}

// dial returns a blocking TCP socket connected to 127.0.0.1:port with
// Nagle's algorithm off, made by system calls alone.
func dial(port int) (int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("TCP_NODELAY: %w", err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("connect to 127.0.0.1:%d: %w", port, err)
	}
	return fd, nil
}
