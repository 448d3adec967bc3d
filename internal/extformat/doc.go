// Package extformat reads the latency files that other benchmark programs
// write, so that the external-program driver (internal/driver/external) can
// turn what such a program measured into mqgate's raw files (formats §2):
//
//   - FastRTPS: the raw CSV of Fast DDS LatencyTest (--raw_data_file):
//     header "Sample,Payload [Bytes],Latency [us]", half round trips in
//     microseconds, sample numbers running on across payloads;
//   - Sockperf: sockperf ping-pong's --full-log CSV: a parameters preamble
//     (the message size is its --msg-size), then
//     "packet, txTime(sec), rxTime(sec), latency(usec)" rows, half round
//     trips, or "rtt(usec)" rows with --full-rtt;
//   - ZPing: the lines zenoh's z_ping example prints,
//     "64 bytes: seq=0 rtt=123µs lat=61µs", whole round trips in
//     microseconds (other lines, such as "Warming up for 1s...", are
//     skipped);
//   - Lines: one latency per line in a unit the user names (ns, us, ms, s),
//     with a definition the user names (rtt, half-rtt, one-way); blank
//     lines and lines starting with # are skipped.
//
// Every reader returns the samples in file order with their line numbers,
// the latency definition of the values and, when the format says it, each
// sample's payload size. Errors name the file and line and say what was
// expected (formats §5). A program stopped before it finished may leave an
// unfinished last line: with Options.Partial that line is dropped and
// counted instead of being an error.
package extformat
