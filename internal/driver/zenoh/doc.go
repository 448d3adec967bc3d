// Package zenoh is the Zenoh transport of the run command: sub-experiments
// zenoh_best_effort and zenoh_reliable, measured through mqgate-zenoh, the
// Rust helper on the zenoh crate (internal/zenohhelper, formats §9).
//
// Zenoh has no Go binding mqgate can depend on, so neither end of the link
// lives in this process. Listen starts the helper's pong role (and, in
// client mode without --zenoh-endpoint, its router role first); Dial returns
// a pinger that is driver.SelfMeasuring: its workload runs the helper's ping
// role, which times every round trip with its own monotonic clock in Zenoh's
// delivery callback and writes the raw samples (formats §2) and summary.json
// into the experiment directory, under helper/<type>/. The engine then takes
// the samples exactly as the helper wrote them, so no pipe or Go scheduler
// hop sits inside a measured latency.
//
// Modes (--zenoh-mode):
//
//   - peer: the pong listens on tcp/ADDR (127.0.0.1:0 when run starts it,
//     run echo's --listen otherwise) and the ping connects to it;
//   - client: both are clients of a router: the one at --zenoh-endpoint
//     (e.g. tcp/10.0.0.1:7447, a zenohd or `mqgate-zenoh router`), or one
//     the echo end starts through the helper's router role at ADDR.
//
// --zenoh-best-effort and --zenoh-reliable select Zenoh's publisher
// reliability and congestion control (the helper's README says which knobs);
// meta.json records the Zenoh and helper versions, the session mode, the
// endpoint and the links Zenoh reported.
package zenoh
