// Package zenohhelper is mqgate's side of mqgate-zenoh, the Rust program in
// tools/mqgate-zenoh that measures Zenoh (formats §9). Zenoh has no Go
// binding mqgate can depend on, so the measuring itself happens in the helper:
// it times every message with its own clocks and writes the raw measurements
// (formats §2) and a summary.json of counts into a directory. This package
// finds the helper, turns typed settings into its command line, starts its
// roles and waits for their ready lines, and reads what they wrote.
//
// Nothing on the path between a message and its timestamp passes through
// this process: the helper's stdout carries only the ready and done lines that
// sequence the roles.
//
// # Files
//
// summary.json is read by ReadSummary (the helper writes it; a round-trip
// test pins the reader to its bytes); the raw files are read with
// internal/measurements. ReadResults reads both and checks that they agree
// (as many rows per payload as the summary says were received).
package zenohhelper
