// Package measurements reads and writes raw latency files (formats §2):
//
//	Sample,Payload [Bytes],Latency [us]
//	1,16,58.625
//
// one row per kept sample, Sample counting from 1 within each payload (as
// run writes them) or on across payloads (as Fast-RTPS LatencyTest writes
// them with --export_raw_data), Latency in microseconds with nanosecond
// resolution.
//
// The Reader is a streaming parser of its own rather than gocsv: process
// must summarise 1.1 million samples in well under a second, which leaves
// tens of nanoseconds per row, and every bad row must be reported with its
// file, line and column. gocsv's reflection costs microseconds per row and
// its errors carry no line numbers.
package measurements
