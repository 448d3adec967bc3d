// Package load measures one-way latency under load: publishers send
// messages at an open-loop rate (or as fast as they can) over any
// driver.StreamTransport, subscribers timestamp them on delivery, and the
// latency of each message is its receive time minus the send time its
// header carries.
//
// # Pieces
//
// The pieces are usable on their own (the distributed `run pub`/`run sub`
// roles use them across processes):
//
//   - Header (header.go): the message header of formats §9, shared with
//     mqgate-zenoh: bytes 0–7 the send time (u64 ns since the Unix epoch),
//     8–15 the sequence word (40-bit sequence number, 16-bit publisher id,
//     8 flag bits: warm-up, end of payload, end of run, probe), then
//     version, topic id and run id when the message has 24 bytes. The
//     smallest message is 16 bytes.
//   - Clock: ns since the epoch from one wall-clock reading plus the
//     monotonic clock (time.Time readings by Ns, driver.Mono readings by
//     Mono).
//   - Schedule and Wait (pacer.go): one publisher's open-loop scheduler,
//     period 1e9/rate ns; a publisher more than one period behind skips
//     forward to the latest slot due and counts the slots skipped.
//   - Recorder and Shard: an HDR histogram (hdrhistogram-go, up to 10 s, 3
//     significant digits) that any number of subscriber goroutines record
//     into, each through its own Shard; Snapshot merges the whole period,
//     Interval the values since the previous call (the per-second
//     snapshots and the histogram log). StatsOf gives min, max, mean,
//     p50, p95, p99 and p99.9.
//   - Counters: atomic counts of messages and bytes sent, received,
//     acknowledged (as the acknowledgements come) and refused, errors,
//     skipped slots, clamped latencies.
//   - Tracker: one publisher's sequence numbers as one subscriber sees
//     them: duplicates, out of order, gaps, and lost against the count the
//     publisher sent.
//   - Topology: the scenarios fan-in, fan-out, straight-run and
//     round-robin, which place N publishers and M subscribers on T topics
//     and give the expected number of deliveries.
//   - Links and Ends (ends.go): a transport with its publish and subscribe
//     options, and the connected publishers and subscribers of one
//     topology, opened on topics of their own for each payload.
//   - Measure (measure.go): every payload of a Config over Links, warm-up,
//     measured period and drain, each payload's PayloadResult (counts,
//     rates, histograms, per-interval Ticks) followed live by Observers.
//
// # Runs and files
//
// Runner measures sub-experiments one after the other (run load) and
// writes, for each, the raw file of one-way latencies (formats §2), the
// snapshot CSV, the histogram log and the summary JSON (formats §9; the
// summary through internal/loadsummary, its reader and writer), and
// meta.json after each (runSubs, oneway.go), and the figures of each
// sub-experiment (Plot, plots.go). Progress prints each payload's lines as
// run load shows them.
//
// RunOneWay is the one-way runner the other one-publisher modes share (the
// throughput search of internal/throughput, the per-message method of
// internal/permessage, the bursts of internal/burst): it checks the payloads, records meta.json
// as a run under way, and hands the mode a Trial per sub-experiment, whose
// Open (or WithEnds) connects fresh ends on a topic of their own for each
// measurement; what the mode measured is written and meta.json rewritten
// before the next sub-experiment.
//
// # Prometheus exporter
//
// Exporter (prom.go; ServePrometheus starts it on the address of
// --prom-port and --prom-addr, which PromAddr checks) serves the measurement in progress at /metrics: the counters, the rates
// and messages in flight of the last interval, and the one-way latency
// histogram of the payload in progress read from the Recorder at scrape
// time, labelled by role, sub-experiment and payload, with
// mqgate_build_info (BuildInfo); /health answers while it serves. It is an
// Observer of the measurement, as Progress is; the distributed roles
// register the same BuildInfo beside their own metrics.
//
// # Receiving
//
// Each subscriber link has a goroutine that calls Receive, unless the
// link is a driver.Consumer (the NATS core and MQTT subscribers): then the
// accounting (header, sequence, counters, histogram) runs in the client
// library's delivery callback, as the libraries' own benchmarks consume
// (`nats bench`), saving one goroutine hand-over per message. Both
// readings of the clock a message takes are of the kernel's monotonic
// clock alone: an unpaced publisher's send time (Clock.Now) and a
// Consumer's arrival time (driver.Mono, read in the library's handler and
// converted by Clock.Mono with no time.Time in between).
//
// # Coordinated omission
//
// Under an open-loop rate each message's latency is measured from its
// intended send time (its slot), not from when Send was called: a
// publisher held up by a slow system sends late, and that wait is part of
// the latency of the messages it delays, as Gil Tene's "coordinated
// omission" argument requires. The send delay itself (actual − intended) is
// recorded in a histogram of its own, and the latency from the actual send
// time beside the headline (sendtimes.go: each paced publisher keeps the
// actual send times of its latest messages for its subscribers to look
// up), so that the generator's own lateness can be told from the system's. Slots skipped because the publisher
// fell more than one period behind are counted, never sent in a burst.
// Unpaced publishers measure from the moment Send is called.
//
// A negative one-way latency (clocks of two hosts that disagree) is
// recorded as 0 and counted (Counters.Clamped).
package load
