// Package synth generates deterministic, realistic-looking latency
// experiments for benchmarks and tests: a log-normal body whose median grows
// with the payload, occasional spikes, and whole-nanosecond resolution, as
// run writes them (WriteExperiment); histories of experiment summaries
// (Generate); throughput runs (WriteThroughputRuns). The same seed always
// gives the same bytes.
package synth
