// Package synth generates deterministic, realistic-looking latency
// experiments for benchmarks and tests: a log-normal body whose median grows
// with the payload, occasional spikes, and whole-nanosecond resolution, as
// run writes them. The same seed always gives the same bytes.
package synth
