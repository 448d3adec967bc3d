package driver

import (
	"syscall"
	"time"
)

// Sleep sleeps d in nanosleep, blocking its thread, for the waits whose
// lateness is measured (pacing, echo and processing delays): time.Sleep
// waits in Go's netpoller, whose epoll timeout is in whole milliseconds,
// so a sleep of 233 µs wakes 0.83 ms late at the median on a 2-vCPU VM,
// where nanosleep wakes 60 µs late (the kernel's timer slack).
func Sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
