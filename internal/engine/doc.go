// Package engine measures round trips over any driver.Pinger and records
// them the way SPEC §2 and §6 ask.
//
// The engine owns timing, pacing, recording and output; drivers only move
// bytes. For every payload size it sends a message of exactly that many
// bytes — sequence number (u64) and send time (u64, ns) little-endian in the
// first 16 bytes, the rest zero or pseudo-random — waits for the echo, and
// stores the round trip, read from Go's monotonic clock in nanoseconds, in a
// slice allocated before the first message. One message is in flight at a
// time (closed loop). The first Warmup round trips of each payload are
// discarded; the next Samples are kept, except those whose echo did not
// arrive within Timeout, which are counted as lost. An echo carrying an
// earlier sequence number is counted as a duplicate (its sequence was
// already echoed) or out of order (it was given up as lost), and ignored.
// Statistics are computed only after the run.
//
// A Runner measures a list of sub-experiments (Sub), writes one raw file per
// sub-experiment (measurements_<type>.csv) and meta.json in the experiment
// directory, both atomically, and meta.json again after every
// sub-experiment, so that a run that stops early still leaves a consistent
// record marked incomplete.
//
// A run stops early when its context is cancelled (ErrInterrupted; the
// command exits 130), or with a *StopError when the link breaks: the pinger
// fails, the far end is reported dead through Link.Failed, or MaxLostInRow
// consecutive messages are lost. Either way the samples measured so far are
// written.
package engine
