// Package burst measures a one-way link with bursts, the Fast-RTPS
// throughput pipeline's method, over any transport of the driver registry
// that carries one-way traffic (driver.StreamTransport).
//
// For each payload, demand D and recovery time R (a test case), one
// publisher sends bursts of D messages as fast as the link takes them to one
// subscriber. A burst that took less than R is followed by a pause of the
// rest of R (the Fast-RTPS ThroughputTest's rule: R is the shortest period
// of a burst, not a pause added to it), and bursts go on while less than the
// test time T has passed since the first began, so that the last one may
// end after T. The publication time is from the start of the first burst to
// the end of the last; the subscription time from the start of the first
// burst to the later of the last delivery and the end of the publication
// (the time the subscriber waited for the test). The subscriber then waits
// up to Timeout for messages still in flight; what did not arrive is lost.
// Rates are samples per second and throughputs 10^6 bit/s of payload over
// each side's time.
//
// Each test case opens links of its own, on a topic of its own, so that no
// message of one case reaches the next. Runner writes, per sub-experiment,
// burst_<type>.csv (one row per case, result.BurstRow), its summary
// burst_<type>_summary.csv (each payload's case of greatest subscription
// throughput) and the scatter plots of each payload under
// plots/burst_<type>/ (formats §9).
package burst
