// Package udp is the "udp" transport: one UDPv4 datagram per message, the
// interprocess_best_effort and interprocess_reliable sub-experiments.
//
// The echoer sends every datagram straight back to its sender. It keeps no
// state, so a retransmitted message is simply echoed again: duplicates are
// handled idempotently and the pinger's engine discards the extra echo by its
// sequence number.
//
// Best effort (Options.Reliable false): a message is sent once; if no echo
// arrives before the deadline Receive returns an error wrapping
// driver.ErrTimeout and the engine counts the message as lost.
//
// Reliable (Options.Reliable true): Receive resends the last message when no
// echo arrived within Options.RetransmitTimeout (default
// DefaultRetransmitTimeout), at most Options.MaxRetries times (default
// DefaultMaxRetries), and counts every resend in Counters().Retransmitted.
// The resent bytes are the original ones, timestamp included, so the
// recorded latency includes the time lost to the retransmission.
//
// Both ends read and write with blocking system calls (package fdsock), with
// no allocation per message. The pinger's socket is connected, so it only
// receives datagrams from its echoer and learns at once (ECONNREFUSED) when
// nothing listens there any more. Messages up to MaxDatagram bytes fit in one
// datagram on loopback.
package udp
