// Package engine measures messages over any driver link and records them
// the way formats §2 and §6 ask.
//
// Three small interfaces say what varies. A Workload is what a
// sub-experiment does over its link and what a sample is (meta.json's mode
// and latency): RoundTrip, described below, is the one there is; one-way
// latency under load and throughput are workloads with measurers of their
// own. A Pacer says when each message is sent: ClosedLoop now, an
// open-loop rate (measured from each message's intended send time) later.
// A Sink writes a sub-experiment's samples once it is measured: RawCSV
// (formats §2) now, histograms later. The round trip's loop itself calls
// no interface per message, so these seams cost nothing on its hot path.
// A link whose far end times its own messages (an external program, whose
// samples are read from what it wrote) has a pinger that is driver.SelfMeasuring:
// it brings the workload of its sub-experiment, which may keep the
// program's values exactly (driver.PayloadResult.Micros).
//
// The engine owns timing, pacing, recording and output; drivers only move
// bytes. In the round-trip workload, for every payload size it sends a
// message of exactly that many bytes — a sequence word (u64: the sequence
// number in its low 40 bits, the run id above) and the send time (u64, ns)
// little-endian in the first 16 bytes, the rest zero or pseudo-random
// (formats §2 "Round-trip message") — waits for the echo, and stores the
// round trip, read from Go's monotonic clock in nanoseconds, in a slice
// allocated before the first message. One message is in flight at a time
// (closed loop). The first Warmup round trips of each payload are discarded;
// the next Samples are kept, except those whose echo did not arrive within
// Timeout, which are counted as lost. An echo carrying an earlier sequence
// number is counted as a duplicate (its sequence was already echoed) or out
// of order (it was given up as lost), and ignored; one carrying another run
// id (another run on the same topic) is counted as of another run and
// ignored. On a link that acknowledges (driver.AckSender), the
// acknowledgements of the warm-up are awaited before the first measured
// message and those of the measured messages at the end of the payload, so
// that the counts in meta.json are exact and nothing is left unconfirmed.
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
