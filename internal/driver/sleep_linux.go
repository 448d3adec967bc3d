package driver

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Sleep sleeps d, for the waits whose lateness is measured (pacing, echo
// and processing delays), on a timerfd read through Go's netpoller: the
// goroutine parks without holding a scheduler slot, and the kernel's
// timer wakes it. time.Sleep waits in the netpoller too, but with epoll's
// timeout, in whole milliseconds: a sleep of 233 µs wakes 0.83 ms late at
// the median on a 2-vCPU VM. nanosleep wakes on time but holds its slot
// (P) until Go's monitor takes it back, up to 10 ms later: with two
// publishers sleeping on two cores the subscribers waited that long.
func Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t, _ := timers.Get().(*timerfd)
	if t == nil || !t.sleep(d) {
		time.Sleep(d)
		return
	}
	timers.Put(t)
}

// timers are idle timerfds; one the pool drops is closed by its
// os.File's finalizer.
var timers = sync.Pool{New: func() any {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &timerfd{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
}}

type timerfd struct {
	fd  int
	f   *os.File // non-blocking: its reads park in the netpoller
	buf [8]byte
}

// sleep arms the timer for d and reads its expiry; false when the timer
// failed (then the caller sleeps otherwise).
func (t *timerfd) sleep(d time.Duration) bool {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(t.fd, 0, &spec, nil); err != nil {
		return false
	}
	_, err := t.f.Read(t.buf[:])
	return err == nil
}
