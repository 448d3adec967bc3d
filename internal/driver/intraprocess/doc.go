// Package intraprocess is the in-process transport: the pinger and the
// echoer are goroutines of one process, linked by two bounded
// single-producer single-consumer rings of preallocated message slots.
//
// A ring hands a message over with two atomic stores and no system call. The
// waiting side spins for a short while (yielding now and then, so that it
// also works with GOMAXPROCS=1) and only then parks on a channel: in a
// closed-loop ping-pong the echo nearly always arrives while the pinger is
// still spinning, which keeps the half round trip well under a microsecond
// where a channel handoff costs a goroutine wake-up each way.
//
// Best effort (Options.Reliable false): a message that finds the ring full
// is dropped and counted in Counters.Dropped (a one-way link's by its
// subscriber alone, so that the ends' counts add up). Reliable: the sender waits for
// a free slot and nothing is ever dropped.
//
// Addresses are names in a process-wide table; Listen with "" or a name
// ending in ":0" picks a fresh name.
package intraprocess
