// Package pingpong is what the ping-pong floors of bench/ share around
// their client libraries: the pinger's arguments N [SIZE] [WARMUP] [CPU],
// pinning the measuring thread, the timed loop and its median, and the
// exit on error. It imports no client library, so each floor measures its
// library's round trip and nothing of mqgate.
package pingpong
