// Package fdsock drives connected sockets with blocking system calls.
//
// Go's network poller parks a goroutine when a read would block and wakes it
// through epoll and the scheduler. For a ping-pong on loopback that detour
// costs more than the kernel's own round trip: with the poller a 16-byte TCP
// round trip between two processes took a p50 of about 56 µs on the
// two-core reference machine, with blocking reads on both ends about 14 µs,
// the figure a C ping-pong gets. The built-in UDP, TCP and TLS transports
// therefore read and write through a Conn from this package: a duplicate of
// the socket's descriptor in blocking mode, used with recv/send/writev
// directly, no allocation per call.
//
// Deadlines are SO_RCVTIMEO timeouts, re-armed only when the remaining time
// drifts from the armed one by more than 1/32, so a steady ping-pong makes
// no setsockopt call per message. A timeout wakes the reader up to a kernel
// tick late (4 ms at HZ=250), which is fine for loss detection.
//
// Close unblocks a concurrent read: it shuts the socket down first (which
// wakes a blocked recv), then releases the descriptor once no system call
// uses it any more.
package fdsock
