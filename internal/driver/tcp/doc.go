// Package tcp is the "tcp" transport: the interprocess_*_tcp
// sub-experiments, one TCP connection per pinger with Nagle's algorithm off
// (TCP_NODELAY) on both ends.
//
// # Framing
//
// TCP carries a byte stream, so each message travels as a frame: a 4-byte
// big-endian length header followed by the message. The echoer does not
// parse frames: it writes back every byte it reads, as it reads it, so the
// header comes back unchanged and the pinger reads exactly one message per
// Receive. A frame of up to SmallFrame bytes is copied and sent with one
// send call and read back with one recv through a copy buffer (cheaper
// than sendmsg/recvmsg with two iovecs); a larger one is sent with
// sendmsg, header and message without a copy, and, once frames are that
// large, read with recvmsg, the message straight into the caller's
// buffer. The echoer of a plain
// TCP connection is a loop of read and write system calls
// (fdsock.Conn.Echo).
//
// # Best effort and reliable over TCP
//
// TCP is always reliable: it retransmits lost segments itself, in order,
// so no message is ever lost on a working connection and nothing is counted
// as retransmitted by mqgate. What the two sub-experiments change is only
// how the pinger's Send behaves when the kernel's send buffer is full:
//
//   - reliable: Send blocks until there is room (bounded by SendTimeout);
//   - best effort: Send does not wait; a message that finds the buffer full
//     is dropped whole and counted in Counters().Dropped. A message the
//     kernel took in part is completed, since dropping the rest would break
//     the framing.
//
// In a ping-pong, one message is in flight at a time and the send buffer
// never fills, so both measure the same thing; they differ in throughput
// modes and against a stalled echoer.
//
// Both ends use blocking system calls (package fdsock) with no allocation
// per message. The Stream, Pinger and Echo pieces are exported so that the
// TLS transport reuses the framing over crypto/tls.
package tcp
