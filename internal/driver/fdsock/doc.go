// Package fdsock drives connected sockets with blocking system calls.
//
// Go's network poller parks a goroutine when a read would block and wakes it
// through epoll and the scheduler. For a ping-pong on loopback that detour
// costs more than the kernel's own round trip: with the poller a 16-byte TCP
// round trip between two processes took a p50 of about 56 µs on the
// two-core reference machine, with blocking reads on both ends about 14 µs,
// the figure a C ping-pong gets. The built-in UDP, TCP and TLS transports
// therefore read and write through a Conn from this package: a duplicate of
// the socket's descriptor in blocking mode, used with recv/send/sendmsg
// directly, no allocation per call.
//
// # Raw system calls
//
// Even a blocking system call goes through the scheduler: the goroutine's
// P is marked as in a system call, and when the call lasts (a read waiting
// for the echo does) the runtime hands the P to another thread, which the
// goroutine must win back afterwards. When the two ends of a ping-pong share
// a CPU, those extra thread switches add about a tenth to the round trip.
// So a Conn writes with raw system calls (syscall.RawSyscall, with
// MSG_DONTWAIT; only a write that finds no room blocks through the
// scheduler), and reads with raw system calls while that is safe (see
// RawWait): the goroutine keeps its P and its thread while it waits, up to
// RawWait, then waits on in ppoll(2) through the scheduler. Echo is an echo
// loop built the same way, with no Go code between its system calls but a
// few tests.
//
// # Deadlines
//
// A read's wait is bounded by SO_RCVTIMEO, armed at the time left before
// the deadline but at most RawWait, and re-armed only when that drifts from
// the armed value by more than 1/32, so a steady ping-pong makes no
// setsockopt call per message. The timeout also makes a signal interrupt a
// raw read (EINTR instead of a restart), so that the runtime can preempt
// the goroutine (a garbage collection waits for it). SO_RCVTIMEO counts in
// kernel ticks: a deadline closer than RawWait may be met up to a tick late
// (4 ms at HZ=250), which is fine for loss detection; a longer one is met
// by ppoll's timer. Once armed with RawWait, a raw read does not read the
// clock before it waits (a pinger's echo comes well within RawWait), so a
// deadline that has come closer than RawWait is met up to RawWait and a
// tick late, and data that arrives meanwhile is returned: a caller that
// must not count it (the round-trip engine) compares the arrival with its
// own timeout.
//
// Close unblocks a concurrent read: it shuts the socket down first (which
// wakes a blocked recv or ppoll), then releases the descriptor once no
// system call uses it any more.
package fdsock
